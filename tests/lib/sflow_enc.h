/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sflow_enc.h - builds sFlow version 5 datagrams for tests and benchmarks:
 * an XDR writer of its own (sflow.org/sflow_version_5.txt), so that what it
 * writes checks the decoder rather than mirrors it. It shares only the
 * decoder's value types (addresses, ports, counters).
 *
 *   struct sfe e;
 *   sfe_init(&e, buf, sizeof(buf));
 *   sfe_datagram(&e, &agent, 0, seq, uptime_ms);
 *   sfe_flow_sample(&e, &(struct sfe_flow){.sampling_rate = 1000,
 *                   .output = sfe_ifindex(49), ...});
 *   sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 4138, 4, frame, 128);
 *   sfe_counter_sample(&e, false, 7, &(struct sflow_source){0, 49});
 *   sfe_if_counters(&e, &counters);
 *   sfe_port_name(&e, "swp49");
 *   len = sfe_end(&e);            0 if the buffer was too small
 *
 * A sample stays open until the next sample or sfe_end(); records go into
 * the open sample and the counts and lengths are filled in as it grows.
 * Offsets of what was written last are kept, so a test can make any field
 * lie afterwards with sfe_put32().
 */
#ifndef __SFLOW_ENC_H
#define __SFLOW_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "source/sflow_decode.h"

struct sfe {
	__u8 *buf;
	size_t cap, len;
	bool overflow; /* something did not fit: sfe_end() returns 0 */
	/* Offsets in buf of what was written last (for tests that patch). */
	size_t count_at;	/* the datagram's sample count */
	size_t sample_at;	/* the open (or last) sample's tag; 0 if none yet */
	size_t record_count_at; /* the open sample's record count */
	size_t record_at;	/* the last record's tag */
	bool sample_open;
	__u32 samples, records;
};

/* A flow sample's fields; expanded selects format 3 over format 1. */
struct sfe_flow {
	bool expanded;
	__u32 sequence;
	struct sflow_source source;
	__u32 sampling_rate;
	__u32 sample_pool;
	__u32 drops;
	struct sflow_port input, output;
};

void sfe_init(struct sfe *e, void *buf, size_t cap);

/* Start a datagram (any previous one is dropped). */
void sfe_datagram(struct sfe *e, const struct sflow_addr *agent, __u32 sub_agent_id, __u32 sequence,
		  __u32 uptime_ms);

/* Open a sample; its records follow. */
void sfe_flow_sample(struct sfe *e, const struct sfe_flow *f);
void sfe_counter_sample(struct sfe *e, bool expanded, __u32 sequence,
			const struct sflow_source *source);
/* A whole sample of another kind, opaque (e.g. discarded_packet 0:5). */
void sfe_raw_sample(struct sfe *e, __u32 enterprise, __u32 format, const void *data, __u32 length);

/* Records, into the open sample. */
void sfe_sampled_header(struct sfe *e, __u32 protocol, __u32 frame_length, __u32 stripped,
			const void *header, __u32 header_length);
void sfe_if_counters(struct sfe *e, const struct sflow_if_counters *c);
void sfe_port_name(struct sfe *e, const char *name);
/* Any record, opaque: extended_switch, PFC, another enterprise's... */
void sfe_record(struct sfe *e, __u32 enterprise, __u32 format, const void *data, __u32 length);

/* Close the datagram: its length, or 0 if it did not fit. */
size_t sfe_end(struct sfe *e);

/* Overwrite the 32-bit word at offset off (to make a field lie). */
void sfe_put32(struct sfe *e, size_t off, __u32 v);

/* Agent addresses and ports. */
struct sflow_addr sfe_ipv4(const char *text);
struct sflow_addr sfe_ipv6(const char *text);
static inline struct sflow_port sfe_port(__u32 format, __u32 value)
{
	return (struct sflow_port){.format = format, .value = value};
}
static inline struct sflow_port sfe_ifindex(__u32 ifindex)
{
	return sfe_port(0, ifindex);
}
static inline struct sflow_port sfe_internal(void)
{
	return sfe_port(0, SFLOW_PORT_INTERNAL_VALUE);
}
static inline struct sflow_port sfe_dropped(__u32 reason)
{
	return sfe_port(1, reason);
}
static inline struct sflow_port sfe_multiple(__u32 ports)
{
	return sfe_port(2, ports);
}

#endif /* __SFLOW_ENC_H */
