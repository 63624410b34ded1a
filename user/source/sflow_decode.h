/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sflow_decode.h - one sFlow version 5 datagram, decoded into callbacks.
 *
 * Wire format: sFlow version 5 (sflow.org/sflow_version_5.txt), XDR
 * (RFC 4506): big-endian 32-bit words, every opaque padded to 4 bytes.
 *
 *   datagram  version=5, agent (IPv4 | IPv6), sub_agent_id, sequence,
 *             uptime_ms, sample_count, samples[]
 *   sample    tag (enterprise << 12 | format), length, body
 *             0:1 flow_sample  0:3 flow_sample_expanded       -> records
 *             0:2 counters_sample  0:4 counters_sample_expanded -> records
 *   record    tag, length, body
 *             flow:    0:1 sampled_header
 *             counter: 0:1 generic interface counters, 0:1005 port name
 *
 * Everything else (other sample types, other records, any enterprise) is
 * skipped by its length and handed raw to the visitor's sample/record
 * callbacks, so a caller can decode more without touching this file.
 *
 * Bounds rules (docs/sflow.md):
 * - No length or count from the datagram is used before it is checked
 *   against what remains of its enclosing structure (datagram, sample,
 *   record). Lengths are skipped padded to 4, as XDR opaques are.
 * - A known structure shorter than its fixed fields is malformed; a longer
 *   one is accepted and the rest skipped.
 * - Counts must match exactly: a sample or a record missing, or bytes left
 *   after the last one, make the datagram malformed.
 * - All or nothing: the datagram is checked completely first (the same walk
 *   without callbacks), then walked again with callbacks. A malformed
 *   datagram delivers no callback at all and adds to one error reason.
 * - No allocation, no recursion; work is linear in the datagram's length.
 * - Pointers handed to callbacks (sampled header bytes, port names, raw
 *   records) point into the caller's buffer and are valid only during
 *   the callback.
 */
#ifndef __FP_SFLOW_DECODE_H
#define __FP_SFLOW_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define SFLOW_VERSION	   5
#define SFLOW_DEFAULT_PORT 6343

/* Sample and record tags: enterprise (20 bits) << 12 | format (12 bits). */
#define SFLOW_TAG(enterprise, format) ((__u32)(enterprise) << 12 | (format))
enum sflow_sample_format {
	SFLOW_FLOW_SAMPLE = 1,
	SFLOW_COUNTER_SAMPLE = 2,
	SFLOW_FLOW_SAMPLE_EXPANDED = 3,
	SFLOW_COUNTER_SAMPLE_EXPANDED = 4,
};
enum sflow_record_format {
	SFLOW_FLOW_SAMPLED_HEADER = 1,	/* flow_data 0:1 */
	SFLOW_COUNTER_GENERIC = 1,	/* counter_data 0:1 */
	SFLOW_COUNTER_PORT_NAME = 1005, /* counter_data 0:1005 */
};

/* sampled_header's header_protocol values fabprobe can parse. */
enum sflow_header_protocol {
	SFLOW_HEADER_ETHERNET = 1,
	SFLOW_HEADER_IPV4 = 11,
	SFLOW_HEADER_IPV6 = 12,
};

/* Why a datagram was rejected. Where the datagram ends decides which. */
enum sflow_err {
	SFLOW_OK = 0,
	SFLOW_ERR_SHORT_HEADER,	   /* ends inside the datagram header */
	SFLOW_ERR_VERSION,	   /* version is not 5 */
	SFLOW_ERR_AGENT_TYPE,	   /* agent address type neither 1 (IPv4) nor 2 (IPv6) */
	SFLOW_ERR_SAMPLE_COUNT,	   /* ends where a counted sample should start */
	SFLOW_ERR_SHORT_SAMPLE,	   /* ends inside a sample's tag and length */
	SFLOW_ERR_SAMPLE_LENGTH,   /* a sample's length runs past the datagram */
	SFLOW_ERR_SAMPLE_FIELDS,   /* a flow/counter sample shorter than its fixed fields */
	SFLOW_ERR_RECORD_COUNT,	   /* a sample ends where a counted record should start */
	SFLOW_ERR_SHORT_RECORD,	   /* a sample ends inside a record's tag and length */
	SFLOW_ERR_RECORD_LENGTH,   /* a record's length runs past its sample */
	SFLOW_ERR_RECORD_FIELDS,   /* a known record shorter than its fixed fields */
	SFLOW_ERR_HEADER_LENGTH,   /* sampled header's header_length runs past its record */
	SFLOW_ERR_NAME_LENGTH,	   /* port name's length runs past its record */
	SFLOW_ERR_SAMPLE_TRAILING, /* bytes left in a sample after its counted records */
	SFLOW_ERR_TRAILING,	   /* bytes left in the datagram after its counted samples */
	SFLOW_ERR__COUNT
};

/* Short name of a reason ("record_length"), for JSON keys and messages. */
const char *sflow_err_name(enum sflow_err err);

struct sflow_addr {
	__u8 family;	/* 4 or 6 */
	__u8 bytes[16]; /* IPv4 in bytes[0..3], the rest zero */
};

struct sflow_datagram {
	struct sflow_addr agent;
	__u32 sub_agent_id;
	__u32 sequence;
	__u32 uptime_ms;
	__u32 sample_count;
	__u32 length; /* bytes of the datagram */
};

/* A sample's data source: sFlowDataSource class (0 ifIndex, 1 VLAN, ...) and index. */
struct sflow_source {
	__u32 type;
	__u32 index;
};

/*
 * An input or output port. Compact samples carry it as one word, format in
 * the top 2 bits and value in the low 30; expanded samples as two words.
 */
enum sflow_port_kind {
	SFLOW_PORT_IFINDEX,  /* format 0, value = ifIndex */
	SFLOW_PORT_UNKNOWN,  /* format 0, value 0: not known */
	SFLOW_PORT_INTERNAL, /* format 0, value 0x3FFFFFFF: the agent itself */
	SFLOW_PORT_DROPPED,  /* format 1, value = discard reason */
	SFLOW_PORT_MULTIPLE, /* format 2, value = number of ports (0: unknown) */
	SFLOW_PORT_OTHER,    /* any other format: raw format and value only */
};
#define SFLOW_PORT_INTERNAL_VALUE 0x3FFFFFFFu

struct sflow_port {
	enum sflow_port_kind kind;
	__u32 format;
	__u32 value;
};

struct sflow_flow_sample {
	const struct sflow_datagram *datagram;
	bool expanded; /* format 3 */
	__u32 sequence;
	struct sflow_source source;
	__u32 sampling_rate; /* 1 in N; may change from one sample to the next */
	__u32 sample_pool;
	__u32 drops;
	struct sflow_port input, output;
	__u32 record_count;
};

struct sflow_sampled_header {
	__u32 protocol;	    /* enum sflow_header_protocol, or another registry value */
	__u32 frame_length; /* original length of the frame, including stripped bytes */
	__u32 stripped;	    /* bytes removed from the frame (e.g. FCS) */
	__u32 header_length;
	const __u8 *header; /* header_length bytes, inside the datagram */
};

struct sflow_counter_sample {
	const struct sflow_datagram *datagram;
	bool expanded; /* format 4 */
	__u32 sequence;
	struct sflow_source source;
	__u32 record_count;
};

/* Generic interface counters, counter_data 0:1 (RFC 2863 names). */
struct sflow_if_counters {
	__u32 if_index;
	__u32 if_type;
	__u64 if_speed;	    /* bits per second */
	__u32 if_direction; /* 0 unknown, 1 full-duplex, 2 half-duplex, 3 in, 4 out */
	__u32 if_status;    /* bit 0 ifAdminStatus up, bit 1 ifOperStatus up */
	__u64 in_octets;
	__u32 in_ucast_pkts;
	__u32 in_multicast_pkts;
	__u32 in_broadcast_pkts;
	__u32 in_discards;
	__u32 in_errors;
	__u32 in_unknown_protos;
	__u64 out_octets;
	__u32 out_ucast_pkts;
	__u32 out_multicast_pkts;
	__u32 out_broadcast_pkts;
	__u32 out_discards;
	__u32 out_errors;
	__u32 promiscuous_mode;
};
#define SFLOW_IF_ADMIN_UP 0x1
#define SFLOW_IF_OPER_UP  0x2

/* Port name, counter_data 0:1005: not NUL-terminated. */
struct sflow_port_name {
	const char *name;
	__u32 length;
};

/* A sample or record handed over raw: not decoded here. */
struct sflow_raw {
	__u32 enterprise;
	__u32 format;
	__u32 length; /* as on the wire; data holds this many bytes */
	const __u8 *data;
};

/*
 * Callbacks, all optional (NULL: not called), in datagram order. A sample's
 * callback comes before its records' callbacks.
 */
struct sflow_visitor {
	void (*datagram)(void *ctx, const struct sflow_datagram *d);
	void (*flow_sample)(void *ctx, const struct sflow_flow_sample *s);
	void (*sampled_header)(void *ctx, const struct sflow_flow_sample *s,
			       const struct sflow_sampled_header *h);
	/* Any other flow record (extended_switch 0:1001, ...). */
	void (*flow_record)(void *ctx, const struct sflow_flow_sample *s,
			    const struct sflow_raw *r);
	void (*counter_sample)(void *ctx, const struct sflow_counter_sample *s);
	void (*if_counters)(void *ctx, const struct sflow_counter_sample *s,
			    const struct sflow_if_counters *c);
	void (*port_name)(void *ctx, const struct sflow_counter_sample *s,
			  const struct sflow_port_name *n);
	/* Any other counter record (ethernet 0:2, PFC once its layout is known, ...). */
	void (*counter_record)(void *ctx, const struct sflow_counter_sample *s,
			       const struct sflow_raw *r);
	/* Any other sample type (discarded_packet 0:5, other enterprises, ...). */
	void (*other_sample)(void *ctx, const struct sflow_datagram *d, const struct sflow_raw *r);
};

/* What a decoder has seen; add to it across datagrams. */
struct sflow_stats {
	__u64 datagrams; /* decoded without error */
	__u64 malformed; /* rejected, all reasons */
	__u64 errors[SFLOW_ERR__COUNT];
	/* In accepted datagrams only: */
	__u64 flow_samples;
	__u64 flow_samples_expanded;
	__u64 counter_samples;
	__u64 counter_samples_expanded;
	__u64 other_samples; /* skipped by length */
	__u64 sampled_headers;
	__u64 flow_records_other; /* skipped by length */
	__u64 if_counters;
	__u64 port_names;
	__u64 counter_records_other; /* skipped by length */
};

/*
 * Decode one datagram (a UDP payload of len bytes). Returns SFLOW_OK after
 * calling the visitor, or the reason it was rejected without calling it.
 * stats (may be NULL) counts the datagram either way. visitor may be NULL
 * (validate and count only).
 */
enum sflow_err sflow_decode(const void *data, size_t len, const struct sflow_visitor *visitor,
			    void *ctx, struct sflow_stats *stats);

/* The port in a compact sample's 32-bit word, or an expanded (format, value) pair. */
struct sflow_port sflow_port_compact(__u32 word);
struct sflow_port sflow_port_expanded(__u32 format, __u32 value);

#endif /* __FP_SFLOW_DECODE_H */
