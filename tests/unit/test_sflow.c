// SPDX-License-Identifier: GPL-2.0
/*
 * The sFlow v5 decoder (source/sflow_decode.c) and the per-agent sequence
 * tracker (source/sflow_seq.c), against datagrams built by the test encoder
 * (tests/lib/sflow_enc.c), which writes XDR on its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "frames.h"
#include "sflow_enc.h"
#include "source/sflow.h"
#include "source/sflow_decode.h"
#include "source/sflow_seq.h"

#define MAX_SEEN 16

/* Everything the visitor was given, copied. */
struct seen {
	const __u8 *buf;
	size_t len;
	int datagrams;
	struct sflow_datagram dgram;
	int n_flow, n_hdr, n_flow_other, n_counter, n_ifc, n_name, n_counter_other, n_other;
	struct sflow_flow_sample flow[MAX_SEEN];
	struct sflow_sampled_header hdr[MAX_SEEN];
	int hdr_sample[MAX_SEEN]; /* which flow sample each header came in */
	struct sflow_raw flow_other[MAX_SEEN], counter_other[MAX_SEEN], other[MAX_SEEN];
	struct sflow_counter_sample counter[MAX_SEEN];
	struct sflow_if_counters ifc[MAX_SEEN];
	char name[MAX_SEEN][64];
	int calls; /* all callbacks */
};

/* Every pointer handed over must lie inside the datagram. */
static void in_buffer(const struct seen *s, const void *p, size_t n)
{
	assert_true((const __u8 *)p >= s->buf);
	assert_true((const __u8 *)p + n <= s->buf + s->len);
}

static void on_datagram(void *ctx, const struct sflow_datagram *d)
{
	struct seen *s = ctx;

	s->calls++;
	s->datagrams++;
	s->dgram = *d;
}

static void on_flow_sample(void *ctx, const struct sflow_flow_sample *fs)
{
	struct seen *s = ctx;

	s->calls++;
	assert_int_equal(fs->datagram->sequence, s->dgram.sequence);
	if (s->n_flow < MAX_SEEN)
		s->flow[s->n_flow++] = *fs;
}

static void on_sampled_header(void *ctx, const struct sflow_flow_sample *fs,
			      const struct sflow_sampled_header *h)
{
	struct seen *s = ctx;

	s->calls++;
	in_buffer(s, h->header, h->header_length);
	assert_int_equal(fs->sequence, s->flow[s->n_flow - 1].sequence);
	if (s->n_hdr < MAX_SEEN) {
		s->hdr_sample[s->n_hdr] = s->n_flow - 1;
		s->hdr[s->n_hdr++] = *h;
	}
}

static void on_flow_record(void *ctx, const struct sflow_flow_sample *fs, const struct sflow_raw *r)
{
	struct seen *s = ctx;

	(void)fs;
	s->calls++;
	in_buffer(s, r->data, r->length);
	if (s->n_flow_other < MAX_SEEN)
		s->flow_other[s->n_flow_other++] = *r;
}

static void on_counter_sample(void *ctx, const struct sflow_counter_sample *cs)
{
	struct seen *s = ctx;

	s->calls++;
	if (s->n_counter < MAX_SEEN)
		s->counter[s->n_counter++] = *cs;
}

static void on_if_counters(void *ctx, const struct sflow_counter_sample *cs,
			   const struct sflow_if_counters *c)
{
	struct seen *s = ctx;

	(void)cs;
	s->calls++;
	if (s->n_ifc < MAX_SEEN)
		s->ifc[s->n_ifc++] = *c;
}

static void on_port_name(void *ctx, const struct sflow_counter_sample *cs,
			 const struct sflow_port_name *n)
{
	struct seen *s = ctx;

	(void)cs;
	s->calls++;
	in_buffer(s, n->name, n->length);
	assert_true(n->length < sizeof(s->name[0]));
	if (s->n_name < MAX_SEEN) {
		memcpy(s->name[s->n_name], n->name, n->length);
		s->name[s->n_name++][n->length] = 0;
	}
}

static void on_counter_record(void *ctx, const struct sflow_counter_sample *cs,
			      const struct sflow_raw *r)
{
	struct seen *s = ctx;

	(void)cs;
	s->calls++;
	in_buffer(s, r->data, r->length);
	if (s->n_counter_other < MAX_SEEN)
		s->counter_other[s->n_counter_other++] = *r;
}

static void on_other_sample(void *ctx, const struct sflow_datagram *d, const struct sflow_raw *r)
{
	struct seen *s = ctx;

	(void)d;
	s->calls++;
	in_buffer(s, r->data, r->length);
	if (s->n_other < MAX_SEEN)
		s->other[s->n_other++] = *r;
}

static const struct sflow_visitor visitor = {
    .datagram = on_datagram,
    .flow_sample = on_flow_sample,
    .sampled_header = on_sampled_header,
    .flow_record = on_flow_record,
    .counter_sample = on_counter_sample,
    .if_counters = on_if_counters,
    .port_name = on_port_name,
    .counter_record = on_counter_record,
    .other_sample = on_other_sample,
};

/* Decode buf[0..len) with the recording visitor; a fresh copy so ASan sees the end. */
static enum sflow_err decode(const __u8 *buf, size_t len, struct seen *s, struct sflow_stats *st)
{
	__u8 *copy = malloc(len ? len : 1);
	enum sflow_err err;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	memset(s, 0, sizeof(*s));
	s->buf = copy;
	s->len = len;
	err = sflow_decode(copy, len, &visitor, s, st);
	/* Pointers in s point into copy: tests compare values, not bytes, after this. */
	free(copy);
	s->buf = NULL;
	return err;
}

/* Same, keeping the copy alive for tests that read header bytes. */
static enum sflow_err decode_keep(__u8 *buf, size_t len, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
	return sflow_decode(buf, len, &visitor, s, NULL);
}

static const __u8 *frame_bytes(struct frame *f)
{
	fr_init(f);
	fr_eth(f, 0x0800);
	fr_ipv4(f, &(struct fr_ip){.src = "10.0.0.1", .dst = "10.0.0.2", .dscp = 26});
	fr_udp(f, 49152, 4791);
	fr_bth(f, &(struct fr_bth){.opcode = 0x0A, .dest_qp = 0x11, .psn = 7});
	fr_reth(f, 0x1000, 0x42, 4096);
	fr_payload(f, 64);
	fr_finish(f);
	return f->data;
}

/* A compact flow sample with every field distinct, IPv4 agent. */
static void test_flow_compact_roundtrip(void **state)
{
	struct sflow_addr agent = sfe_ipv4("192.0.2.7");
	static __u8 buf[2048];
	struct frame f;
	const __u8 *hdr = frame_bytes(&f);
	struct seen s;
	struct sfe e;
	size_t len;

	(void)state;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 3, 1000001, 86400000);
	sfe_flow_sample(&e, &(struct sfe_flow){.sequence = 77,
					       .source = {0, 49},
					       .sampling_rate = 4096,
					       .sample_pool = 123456789,
					       .drops = 5,
					       .input = sfe_ifindex(1),
					       .output = sfe_ifindex(49)});
	sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 4138, 4, hdr, 128);
	len = sfe_end(&e);
	assert_true(len > 0);

	assert_int_equal(decode_keep(buf, len, &s), SFLOW_OK);
	assert_int_equal(s.datagrams, 1);
	assert_int_equal(s.dgram.agent.family, 4);
	assert_memory_equal(s.dgram.agent.bytes, agent.bytes, 16);
	assert_int_equal(s.dgram.sub_agent_id, 3);
	assert_int_equal(s.dgram.sequence, 1000001);
	assert_int_equal(s.dgram.uptime_ms, 86400000);
	assert_int_equal(s.dgram.sample_count, 1);
	assert_int_equal(s.dgram.length, len);

	assert_int_equal(s.n_flow, 1);
	assert_false(s.flow[0].expanded);
	assert_int_equal(s.flow[0].sequence, 77);
	assert_int_equal(s.flow[0].source.type, 0);
	assert_int_equal(s.flow[0].source.index, 49);
	assert_int_equal(s.flow[0].sampling_rate, 4096);
	assert_int_equal(s.flow[0].sample_pool, 123456789);
	assert_int_equal(s.flow[0].drops, 5);
	assert_int_equal(s.flow[0].input.kind, SFLOW_PORT_IFINDEX);
	assert_int_equal(s.flow[0].input.value, 1);
	assert_int_equal(s.flow[0].output.kind, SFLOW_PORT_IFINDEX);
	assert_int_equal(s.flow[0].output.value, 49);
	assert_int_equal(s.flow[0].record_count, 1);

	assert_int_equal(s.n_hdr, 1);
	assert_int_equal(s.hdr[0].protocol, SFLOW_HEADER_ETHERNET);
	assert_int_equal(s.hdr[0].frame_length, 4138);
	assert_int_equal(s.hdr[0].stripped, 4);
	assert_int_equal(s.hdr[0].header_length, 128);
	assert_memory_equal(s.hdr[0].header, hdr, 128);
	/* The header bytes are the datagram's own, not a copy. */
	assert_true(s.hdr[0].header > buf && s.hdr[0].header + 128 <= buf + len);
	assert_int_equal(s.calls, 3);
}

/* Expanded flow samples: 32-bit source index, ports beyond 30 bits, IPv6 agent. */
static void test_flow_expanded_roundtrip(void **state)
{
	struct sflow_addr agent = sfe_ipv6("2001:db8::17");
	static __u8 buf[2048], hdr[64];
	struct seen s;
	struct sfe e;
	size_t len;

	(void)state;
	for (unsigned i = 0; i < sizeof(hdr); i++)
		hdr[i] = i * 7;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 0xFFFFFFFF, 0xFFFFFFFE, 1);
	sfe_flow_sample(&e, &(struct sfe_flow){.expanded = true,
					       .sequence = 0xDEADBEEF,
					       .source = {3, 0x12345678},
					       .sampling_rate = 1,
					       .sample_pool = 0xFFFFFFFF,
					       .input = sfe_ifindex(0x40000001),
					       .output = sfe_ifindex(0xFFFFFFF0)});
	sfe_sampled_header(&e, SFLOW_HEADER_IPV6, 64, 0, hdr, 64);
	len = sfe_end(&e);

	assert_int_equal(decode_keep(buf, len, &s), SFLOW_OK);
	assert_int_equal(s.dgram.agent.family, 6);
	assert_memory_equal(s.dgram.agent.bytes, agent.bytes, 16);
	assert_int_equal(s.dgram.sub_agent_id, 0xFFFFFFFF);
	assert_int_equal(s.dgram.sequence, 0xFFFFFFFE);
	assert_true(s.flow[0].expanded);
	assert_int_equal(s.flow[0].sequence, 0xDEADBEEF);
	assert_int_equal(s.flow[0].source.type, 3);
	assert_int_equal(s.flow[0].source.index, 0x12345678);
	assert_int_equal(s.flow[0].sampling_rate, 1);
	assert_int_equal(s.flow[0].sample_pool, 0xFFFFFFFF);
	assert_int_equal(s.flow[0].input.value, 0x40000001);
	assert_int_equal(s.flow[0].output.value, 0xFFFFFFF0);
	assert_int_equal(s.flow[0].output.kind, SFLOW_PORT_IFINDEX);
	assert_int_equal(s.hdr[0].protocol, SFLOW_HEADER_IPV6);
	assert_memory_equal(s.hdr[0].header, hdr, 64);
}

/* Compact and expanded port encodings: ifIndex, unknown, internal, dropped, multiple, other. */
static void test_port_encodings(void **state)
{
	static const struct {
		struct sflow_port port;
		enum sflow_port_kind kind;
		__u32 compact_value; /* what survives the 30-bit compact form */
	} cases[] = {
	    {{.format = 0, .value = 7}, SFLOW_PORT_IFINDEX, 7},
	    {{.format = 0, .value = 0}, SFLOW_PORT_UNKNOWN, 0},
	    {{.format = 0, .value = SFLOW_PORT_INTERNAL_VALUE}, SFLOW_PORT_INTERNAL, 0x3FFFFFFF},
	    {{.format = 1, .value = 256}, SFLOW_PORT_DROPPED, 256},
	    {{.format = 2, .value = 3}, SFLOW_PORT_MULTIPLE, 3},
	    {{.format = 2, .value = 0}, SFLOW_PORT_MULTIPLE, 0},
	    {{.format = 3, .value = 9}, SFLOW_PORT_OTHER, 9},
	};
	struct sflow_addr agent = sfe_ipv4("10.1.1.1");
	static __u8 buf[4096];

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int expanded = 0; expanded < 2; expanded++) {
			struct seen s;
			struct sfe e;
			size_t len;

			sfe_init(&e, buf, sizeof(buf));
			sfe_datagram(&e, &agent, 0, i, 0);
			sfe_flow_sample(&e, &(struct sfe_flow){.expanded = expanded,
							       .sampling_rate = 10,
							       .input = cases[i].port,
							       .output = cases[i].port});
			len = sfe_end(&e);
			assert_int_equal(decode(buf, len, &s, NULL), SFLOW_OK);
			assert_int_equal(s.n_flow, 1);
			assert_int_equal(s.flow[0].input.kind, cases[i].kind);
			assert_int_equal(s.flow[0].output.kind, cases[i].kind);
			assert_int_equal(s.flow[0].output.format, cases[i].port.format);
			assert_int_equal(s.flow[0].output.value, cases[i].compact_value);
		}
	}
	/* The compact word itself: format in the top two bits. */
	assert_int_equal(sflow_port_compact(0x3FFFFFFF).kind, SFLOW_PORT_INTERNAL);
	assert_int_equal(sflow_port_compact(0x40000101).kind, SFLOW_PORT_DROPPED);
	assert_int_equal(sflow_port_compact(0x40000101).value, 0x101);
	assert_int_equal(sflow_port_compact(0x80000004).kind, SFLOW_PORT_MULTIPLE);
	assert_int_equal(sflow_port_compact(0x80000004).value, 4);
	assert_int_equal(sflow_port_compact(0xC0000001).kind, SFLOW_PORT_OTHER);
	/* Expanded values are 32 bits: 0x3FFFFFFF is internal, 0x7FFFFFFF an ifIndex. */
	assert_int_equal(sflow_port_expanded(0, 0x3FFFFFFF).kind, SFLOW_PORT_INTERNAL);
	assert_int_equal(sflow_port_expanded(0, 0x7FFFFFFF).kind, SFLOW_PORT_IFINDEX);
	assert_int_equal(sflow_port_expanded(7, 1).kind, SFLOW_PORT_OTHER);
}

/* Header protocols 1, 11, 12 and header lengths that need XDR padding. */
static void test_header_protocols_and_padding(void **state)
{
	static const __u32 protocols[] = {SFLOW_HEADER_ETHERNET, SFLOW_HEADER_IPV4,
					  SFLOW_HEADER_IPV6};
	static const __u32 lengths[] = {0, 1, 37, 128, 255};
	struct sflow_addr agent = sfe_ipv4("10.1.1.1");
	static __u8 buf[8192], hdr[256];
	struct seen s;
	struct sfe e;
	size_t len;
	int n = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(hdr); i++)
		hdr[i] = 0xA0 ^ i;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 0, 1, 0);
	for (unsigned p = 0; p < 3; p++) {
		sfe_flow_sample(&e,
				&(struct sfe_flow){.sequence = p, .sampling_rate = 100 * (p + 1)});
		for (unsigned l = 0; l < 5; l++)
			sfe_sampled_header(&e, protocols[p], 1500, 0, hdr, lengths[l]);
	}
	len = sfe_end(&e);
	assert_true(len > 0 && len % 4 == 0);
	assert_int_equal(decode_keep(buf, len, &s), SFLOW_OK);
	assert_int_equal(s.n_flow, 3);
	assert_int_equal(s.n_hdr, 15);
	for (unsigned p = 0; p < 3; p++) {
		/* A rate change from one sample to the next is per sample. */
		assert_int_equal(s.flow[p].sampling_rate, 100 * (p + 1));
		for (unsigned l = 0; l < 5; l++, n++) {
			assert_int_equal(s.hdr_sample[n], p);
			assert_int_equal(s.hdr[n].protocol, protocols[p]);
			assert_int_equal(s.hdr[n].header_length, lengths[l]);
			assert_memory_equal(s.hdr[n].header, hdr, lengths[l]);
		}
	}
}

static struct sflow_if_counters some_counters(__u32 seed)
{
	return (struct sflow_if_counters){
	    .if_index = seed + 1,
	    .if_type = 6,
	    .if_speed = 400000000000ULL,
	    .if_direction = 1,
	    .if_status = SFLOW_IF_ADMIN_UP | SFLOW_IF_OPER_UP,
	    .in_octets = 0x123456789ABCDEF0ULL + seed,
	    .in_ucast_pkts = seed + 2,
	    .in_multicast_pkts = seed + 3,
	    .in_broadcast_pkts = seed + 4,
	    .in_discards = seed + 5,
	    .in_errors = seed + 6,
	    .in_unknown_protos = seed + 7,
	    .out_octets = 0xFEDCBA9876543210ULL - seed,
	    .out_ucast_pkts = seed + 8,
	    .out_multicast_pkts = seed + 9,
	    .out_broadcast_pkts = seed + 10,
	    .out_discards = seed + 11,
	    .out_errors = seed + 12,
	    .promiscuous_mode = 1,
	};
}

/* Counter samples, compact and expanded, with generic, port-name and raw records. */
static void test_counters_roundtrip(void **state)
{
	static const __u8 pfc_like[40] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct sflow_addr agent = sfe_ipv4("10.9.9.9");
	struct sflow_if_counters c1 = some_counters(100), c2 = some_counters(200);
	static __u8 buf[4096];
	struct sflow_stats st = {};
	struct seen s;
	struct sfe e;
	size_t len;

	(void)state;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 1, 9, 10);
	/* Compact source id: class in the top 8 bits, index in the low 24. */
	sfe_counter_sample(&e, false, 41, &(struct sflow_source){2, 0xABCDEF});
	sfe_if_counters(&e, &c1);
	sfe_port_name(&e, "swp49");
	sfe_counter_sample(&e, true, 42, &(struct sflow_source){0, 0x01000050});
	sfe_port_name(&e, "Ethernet200");
	sfe_if_counters(&e, &c2);
	/* A record this decoder does not lay out goes to counter_record, whole. */
	sfe_record(&e, 0, 11, pfc_like, sizeof(pfc_like));
	len = sfe_end(&e);

	assert_int_equal(decode(buf, len, &s, &st), SFLOW_OK);
	assert_int_equal(s.n_counter, 2);
	assert_false(s.counter[0].expanded);
	assert_int_equal(s.counter[0].sequence, 41);
	assert_int_equal(s.counter[0].source.type, 2);
	assert_int_equal(s.counter[0].source.index, 0xABCDEF);
	assert_int_equal(s.counter[0].record_count, 2);
	assert_true(s.counter[1].expanded);
	assert_int_equal(s.counter[1].source.index, 0x01000050);
	assert_int_equal(s.counter[1].record_count, 3);
	assert_int_equal(s.n_ifc, 2);
	assert_memory_equal(&s.ifc[0], &c1, sizeof(c1));
	assert_memory_equal(&s.ifc[1], &c2, sizeof(c2));
	assert_int_equal(s.n_name, 2);
	assert_string_equal(s.name[0], "swp49");
	assert_string_equal(s.name[1], "Ethernet200");
	assert_int_equal(s.n_counter_other, 1);
	assert_int_equal(s.counter_other[0].enterprise, 0);
	assert_int_equal(s.counter_other[0].format, 11);
	assert_int_equal(s.counter_other[0].length, sizeof(pfc_like));

	assert_int_equal(st.datagrams, 1);
	assert_int_equal(st.counter_samples, 1);
	assert_int_equal(st.counter_samples_expanded, 1);
	assert_int_equal(st.if_counters, 2);
	assert_int_equal(st.port_names, 2);
	assert_int_equal(st.counter_records_other, 1);
}

/* Unknown samples and records, of any enterprise, are skipped by their length. */
static void test_unknown_skipped(void **state)
{
	static const __u8 blob[23] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0xFF};
	struct sflow_addr agent = sfe_ipv4("10.2.2.2");
	struct sflow_if_counters c = some_counters(1);
	static __u8 buf[4096], hdr[60];
	struct sflow_stats st = {};
	struct seen s;
	struct sfe e;
	size_t len;

	(void)state;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 0, 1, 0);
	sfe_raw_sample(&e, 0, 5, blob, sizeof(blob));	 /* discarded_packet */
	sfe_raw_sample(&e, 4413, 1, blob, sizeof(blob)); /* another enterprise */
	sfe_raw_sample(&e, 0, 9, NULL, 0);
	sfe_flow_sample(&e, &(struct sfe_flow){.sequence = 1, .sampling_rate = 8});
	sfe_record(&e, 0, 1001, blob, 16); /* extended_switch */
	sfe_record(&e, 9999, 1, blob, sizeof(blob));
	sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 60, 0, hdr, sizeof(hdr));
	sfe_record(&e, 0, 4095, NULL, 0);
	sfe_counter_sample(&e, true, 2, &(struct sflow_source){0, 3});
	sfe_record(&e, 0, 2, blob, 20); /* ethernet counters */
	sfe_record(&e, 4413, 3, blob, sizeof(blob));
	sfe_if_counters(&e, &c);
	len = sfe_end(&e);

	assert_int_equal(decode(buf, len, &s, &st), SFLOW_OK);
	assert_int_equal(s.n_other, 3);
	assert_int_equal(s.other[0].format, 5);
	assert_int_equal(s.other[1].enterprise, 4413);
	assert_int_equal(s.other[1].length, sizeof(blob));
	assert_int_equal(s.other[2].length, 0);
	assert_int_equal(s.n_flow, 1);
	assert_int_equal(s.n_flow_other, 3);
	assert_int_equal(s.flow_other[0].format, 1001);
	assert_int_equal(s.flow_other[1].enterprise, 9999);
	assert_int_equal(s.flow_other[2].format, 4095);
	assert_int_equal(s.n_hdr, 1);
	assert_int_equal(s.hdr[0].header_length, sizeof(hdr));
	assert_int_equal(s.n_counter_other, 2);
	assert_int_equal(s.n_ifc, 1);
	assert_memory_equal(&s.ifc[0], &c, sizeof(c));
	assert_int_equal(st.other_samples, 3);
	assert_int_equal(st.flow_records_other, 3);
	assert_int_equal(st.counter_records_other, 2);
}

/* A datagram with a sample of each kind; where each sample starts. */
static size_t mixed_datagram(__u8 *buf, size_t cap, size_t *starts, int *n_starts)
{
	struct sflow_addr agent = sfe_ipv6("fd00::1");
	struct sflow_if_counters c = some_counters(5);
	static __u8 hdr[90];
	struct sfe e;

	sfe_init(&e, buf, cap);
	sfe_datagram(&e, &agent, 2, 5, 6);
	*n_starts = 0;
	sfe_flow_sample(&e, &(struct sfe_flow){.sequence = 1, .sampling_rate = 1000});
	starts[(*n_starts)++] = e.sample_at;
	sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 1518, 4, hdr, sizeof(hdr));
	sfe_record(&e, 0, 1001, hdr, 16);
	sfe_flow_sample(&e, &(struct sfe_flow){.expanded = true, .sampling_rate = 1000});
	starts[(*n_starts)++] = e.sample_at;
	sfe_sampled_header(&e, SFLOW_HEADER_IPV4, 1500, 0, hdr, 64);
	sfe_counter_sample(&e, false, 3, &(struct sflow_source){0, 1});
	starts[(*n_starts)++] = e.sample_at;
	sfe_if_counters(&e, &c);
	sfe_port_name(&e, "uplink1");
	sfe_counter_sample(&e, true, 4, &(struct sflow_source){0, 2});
	starts[(*n_starts)++] = e.sample_at;
	sfe_if_counters(&e, &c);
	sfe_raw_sample(&e, 0, 5, hdr, 12);
	starts[(*n_starts)++] = e.sample_at;
	return sfe_end(&e);
}

/*
 * Every truncation point of a valid datagram is rejected, with the reason
 * where it falls: inside the header, at a sample boundary (a counted sample
 * missing), inside a sample's tag and length, or inside its body.
 */
static void test_every_truncation(void **state)
{
	static __u8 buf[4096];
	struct sflow_stats st = {};
	size_t starts[8], len;
	__u64 expect[SFLOW_ERR__COUNT] = {};
	int n_starts;

	(void)state;
	len = mixed_datagram(buf, sizeof(buf), starts, &n_starts);
	assert_true(len > 0);
	for (size_t cut = 0; cut < len; cut++) {
		enum sflow_err want = SFLOW_ERR_SHORT_HEADER;
		struct seen s;

		for (int i = 0; i < n_starts; i++) {
			if (cut == starts[i])
				want = SFLOW_ERR_SAMPLE_COUNT;
			else if (cut > starts[i] && cut < starts[i] + 8)
				want = SFLOW_ERR_SHORT_SAMPLE;
			else if (cut >= starts[i] + 8)
				want = SFLOW_ERR_SAMPLE_LENGTH;
		}
		assert_int_equal(decode(buf, cut, &s, &st), want);
		assert_int_equal(s.calls, 0); /* all or nothing */
		expect[want]++;
	}
	assert_int_equal(st.malformed, len);
	assert_int_equal(st.datagrams, 0);
	for (int e = 0; e < SFLOW_ERR__COUNT; e++)
		assert_int_equal(st.errors[e], expect[e]);
	assert_true(expect[SFLOW_ERR_SHORT_HEADER] == starts[0] - 0);
	assert_int_equal(expect[SFLOW_ERR_SAMPLE_COUNT], n_starts);
	/* The whole datagram is fine, and counted as such. */
	assert_int_equal(sflow_decode(buf, len, NULL, NULL, &st), SFLOW_OK);
	assert_int_equal(st.datagrams, 1);
	assert_int_equal(st.flow_samples, 1);
	assert_int_equal(st.flow_samples_expanded, 1);
	assert_int_equal(st.counter_samples, 1);
	assert_int_equal(st.counter_samples_expanded, 1);
	assert_int_equal(st.other_samples, 1);
}

/* Build, let the caller break one field, and expect one reason. */
struct lie {
	const char *what;
	enum sflow_err err;
};

static void expect_lie(__u8 *buf, size_t len, const struct lie *l)
{
	struct sflow_stats st = {};
	struct seen s;

	print_message("lie: %s\n", l->what);
	assert_int_equal(decode(buf, len, &s, &st), l->err);
	assert_int_equal(s.calls, 0);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.errors[l->err], 1);
}

static size_t one_flow(struct sfe *e, __u8 *buf, size_t cap, __u32 header_length)
{
	struct sflow_addr agent = sfe_ipv4("10.3.3.3");
	static __u8 hdr[128];

	sfe_init(e, buf, cap);
	sfe_datagram(e, &agent, 0, 1, 0);
	sfe_flow_sample(e, &(struct sfe_flow){.sampling_rate = 1});
	sfe_sampled_header(e, SFLOW_HEADER_ETHERNET, 1500, 0, hdr, header_length);
	return sfe_end(e);
}

static size_t one_counter(struct sfe *e, __u8 *buf, size_t cap)
{
	struct sflow_addr agent = sfe_ipv4("10.3.3.3");
	struct sflow_if_counters c = some_counters(0);

	sfe_init(e, buf, cap);
	sfe_datagram(e, &agent, 0, 1, 0);
	sfe_counter_sample(e, false, 1, &(struct sflow_source){0, 1});
	sfe_if_counters(e, &c);
	sfe_port_name(e, "p1");
	return sfe_end(e);
}

/* Lengths and counts that lie are rejected, each with its own reason. */
static void test_lying_lengths_and_counts(void **state)
{
	static __u8 buf[1024];
	struct sfe e;
	size_t len;

	(void)state;
	/* Record length larger than the datagram (the sample's own length honest). */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.record_at + 4, 1000);
	expect_lie(buf, len, &(struct lie){"record length > datagram", SFLOW_ERR_RECORD_LENGTH});
	/* Record length that wraps when padded. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.record_at + 4, 0xFFFFFFFF);
	expect_lie(buf, len, &(struct lie){"record length 2^32-1", SFLOW_ERR_RECORD_LENGTH});
	/* Sample length larger than the datagram, and one that wraps. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.sample_at + 4, len);
	expect_lie(buf, len, &(struct lie){"sample length > datagram", SFLOW_ERR_SAMPLE_LENGTH});
	sfe_put32(&e, e.sample_at + 4, 0xFFFFFFFD);
	expect_lie(buf, len, &(struct lie){"sample length 2^32-3", SFLOW_ERR_SAMPLE_LENGTH});
	/* Sample count larger, much larger, and smaller than present. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.count_at, 2);
	expect_lie(buf, len, &(struct lie){"sample count 2 of 1", SFLOW_ERR_SAMPLE_COUNT});
	sfe_put32(&e, e.count_at, 0xFFFFFFFF);
	expect_lie(buf, len, &(struct lie){"sample count 2^32-1", SFLOW_ERR_SAMPLE_COUNT});
	sfe_put32(&e, e.count_at, 0);
	expect_lie(buf, len, &(struct lie){"sample count 0 of 1", SFLOW_ERR_TRAILING});
	/* Record count larger and smaller than present. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.record_count_at, 2);
	expect_lie(buf, len, &(struct lie){"record count 2 of 1", SFLOW_ERR_RECORD_COUNT});
	sfe_put32(&e, e.record_count_at, 0);
	expect_lie(buf, len, &(struct lie){"record count 0 of 1", SFLOW_ERR_SAMPLE_TRAILING});
	/* Header length larger than its record, by one byte and by a lot. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, e.record_at + 8 + 12, 65);
	expect_lie(buf, len, &(struct lie){"header length 65 of 64", SFLOW_ERR_HEADER_LENGTH});
	sfe_put32(&e, e.record_at + 8 + 12, 0xFFFFFFFF);
	expect_lie(buf, len, &(struct lie){"header length 2^32-1", SFLOW_ERR_HEADER_LENGTH});
	/* A sampled_header record too short for its four fields. */
	len = one_flow(&e, buf, sizeof(buf), 0);
	sfe_put32(&e, e.record_at + 4, 12);
	expect_lie(buf, len, &(struct lie){"sampled_header of 12 bytes", SFLOW_ERR_RECORD_FIELDS});
	/* A flow sample too short for its fixed fields (records cut away). */
	len = one_flow(&e, buf, sizeof(buf), 0);
	sfe_put32(&e, e.sample_at + 4, 28);
	expect_lie(buf, len, &(struct lie){"flow sample of 28 bytes", SFLOW_ERR_SAMPLE_FIELDS});

	/* Counter records: generic counters too short, port name too long. */
	len = one_counter(&e, buf, sizeof(buf));
	sfe_put32(&e, e.record_at + 8, 100);
	expect_lie(buf, len, &(struct lie){"port name 100 bytes in 8", SFLOW_ERR_NAME_LENGTH});
	len = one_counter(&e, buf, sizeof(buf));
	sfe_put32(&e, e.record_at + 4, 0);
	expect_lie(buf, len, &(struct lie){"port name record of 0 bytes", SFLOW_ERR_RECORD_FIELDS});
	len = one_counter(&e, buf, sizeof(buf));
	/* Generic counters record first: its length at the first record's +4. */
	sfe_put32(&e, e.record_count_at + 4 + 4, 84);
	expect_lie(buf, len,
		   &(struct lie){"generic counters of 84 bytes", SFLOW_ERR_RECORD_FIELDS});

	/* Header fields: version, agent address type. */
	len = one_flow(&e, buf, sizeof(buf), 64);
	sfe_put32(&e, 0, 4);
	expect_lie(buf, len, &(struct lie){"version 4", SFLOW_ERR_VERSION});
	expect_lie(buf, 6, &(struct lie){"version 4, 6 bytes", SFLOW_ERR_VERSION});
	sfe_put32(&e, 0, 5);
	sfe_put32(&e, 4, 0);
	expect_lie(buf, len, &(struct lie){"agent type 0", SFLOW_ERR_AGENT_TYPE});
	sfe_put32(&e, 4, 3);
	expect_lie(buf, len, &(struct lie){"agent type 3", SFLOW_ERR_AGENT_TYPE});
	/* An IPv4 datagram that claims an IPv6 agent runs out in its header. */
	sfe_put32(&e, 4, 2);
	expect_lie(buf, 28, &(struct lie){"IPv6 agent in 28 bytes", SFLOW_ERR_SHORT_HEADER});
	expect_lie(buf, 0, &(struct lie){"empty", SFLOW_ERR_SHORT_HEADER});
}

/* Stats add up over datagrams; a NULL visitor only validates and counts. */
static void test_stats_accumulate(void **state)
{
	static __u8 buf[1024];
	struct sflow_stats st = {};
	struct sfe e;
	size_t len;

	(void)state;
	for (int i = 0; i < 10; i++) {
		len = one_flow(&e, buf, sizeof(buf), 32);
		assert_int_equal(sflow_decode(buf, len, NULL, NULL, &st), SFLOW_OK);
		len = one_counter(&e, buf, sizeof(buf));
		assert_int_equal(sflow_decode(buf, len, NULL, NULL, &st), SFLOW_OK);
		assert_int_equal(sflow_decode(buf, len - 4, NULL, NULL, &st),
				 SFLOW_ERR_SAMPLE_LENGTH);
	}
	assert_int_equal(st.datagrams, 20);
	assert_int_equal(st.malformed, 10);
	assert_int_equal(st.errors[SFLOW_ERR_SAMPLE_LENGTH], 10);
	assert_int_equal(st.flow_samples, 10);
	assert_int_equal(st.sampled_headers, 10);
	assert_int_equal(st.counter_samples, 10);
	assert_int_equal(st.if_counters, 10);
	assert_int_equal(st.port_names, 10);
	assert_string_equal(sflow_err_name(SFLOW_ERR_HEADER_LENGTH), "header_length");
	assert_string_equal(sflow_err_name(SFLOW_ERR__COUNT), "unknown");
}

/* The encoder refuses what does not fit instead of writing past its buffer. */
static void test_encoder_overflow(void **state)
{
	struct sflow_addr agent = sfe_ipv6("fd00::2");
	static __u8 hdr[128];
	__u8 buf[100];
	struct sfe e;

	(void)state;
	sfe_init(&e, buf, sizeof(buf));
	sfe_datagram(&e, &agent, 0, 1, 0);
	sfe_flow_sample(&e, &(struct sfe_flow){.sampling_rate = 1});
	sfe_sampled_header(&e, 1, 128, 0, hdr, sizeof(hdr));
	assert_true(e.overflow);
	assert_int_equal(sfe_end(&e), 0);
	assert_true(e.len <= sizeof(buf));
}

/* Sequence tracking: gaps, duplicates, reordering, restarts, wrap, many agents. */
static void test_seq_rules(void **state)
{
	struct sflow_addr a = sfe_ipv4("10.0.0.1"), b = sfe_ipv6("a00:1::");
	struct sflow_seq_track t;
	const struct sflow_seq_stream *st;

	(void)state;
	assert_int_equal(sflow_seq_init(&t, 4), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 0, 100), 0); /* first: nothing known */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 101), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 0, 105), 3); /* 102..104 */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 105), 0); /* duplicate */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 103), 0); /* late: reordered */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 106), 0); /* 105 is still the last */
	/* Another sub-agent, and the same bytes as IPv6, are other streams. */
	assert_int_equal(sflow_seq_update(&t, &a, 1, 5000), 0);
	assert_int_equal(sflow_seq_update(&t, &b, 0, 7), 0);
	assert_int_equal(sflow_seq_update(&t, &b, 0, 9), 1);
	/* Restart: back to a small number; the new run's first seq - 1 were missed. */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 3), 2);
	assert_int_equal(sflow_seq_update(&t, &a, 0, 4), 0);
	/* Back by more than the window, to a large number: a reset, loss unknown. */
	assert_int_equal(sflow_seq_update(&t, &a, 1, 1000), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 1, 1001), 0);
	/* Wrap at 2^32 is a step of one. */
	assert_int_equal(sflow_seq_update(&t, &b, 1, 0xFFFFFFFE), 0);
	assert_int_equal(sflow_seq_update(&t, &b, 1, 0xFFFFFFFF), 0);
	assert_int_equal(sflow_seq_update(&t, &b, 1, 0), 0);
	assert_int_equal(sflow_seq_update(&t, &b, 1, 3), 2);

	st = sflow_seq_find(&t, &a, 0);
	assert_non_null(st);
	assert_int_equal(st->lost, 5);
	assert_int_equal(st->duplicates, 1);
	assert_int_equal(st->reordered, 1);
	assert_int_equal(st->restarts, 1);
	assert_int_equal(st->received, 8);
	assert_int_equal(st->last, 4);
	st = sflow_seq_find(&t, &a, 1);
	assert_int_equal(st->restarts, 1);
	assert_int_equal(st->lost, 0);
	assert_int_equal(t.lost, 5 + 1 + 2);
	assert_int_equal(t.streams, 4);
	/* A fifth stream does not fit: not tracked, never lost. */
	assert_int_equal(sflow_seq_update(&t, &a, 9, 1), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 9, 50), 0);
	assert_int_equal(t.untracked, 2);
	assert_null(sflow_seq_find(&t, &a, 9));
	sflow_seq_free(&t);
	assert_int_not_equal(sflow_seq_init(&t, 0), 0);
}

/*
 * A jump ahead wider than any loss could make (a corrupted sequence, an
 * agent restarted at a random one) is a jump, not billions lost; the
 * widest believable gap still counts in full.
 */
static void test_seq_jumps(void **state)
{
	struct sflow_addr a = sfe_ipv4("10.0.0.1");
	struct sflow_seq_track t;
	const struct sflow_seq_stream *st;
	__u32 last;

	(void)state;
	assert_int_equal(sflow_seq_init(&t, 4), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 0, 1000), 0);
	/* The tester's case: one datagram about 2^30 ahead. */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 1000 + (1u << 30)), 0);
	/* The next one continues from there: a step of one, nothing lost. */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 1001 + (1u << 30)), 0);
	/* Corrupted behind by 2^30 (a restart), then the real sequence again: a jump. */
	assert_int_equal(sflow_seq_update(&t, &a, 0, 1002), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 0, 1002 + (1u << 30)), 0);
	/* Just past the widest gap: a jump; the widest gap itself: loss. */
	last = 1002 + (1u << 30);
	assert_int_equal(sflow_seq_update(&t, &a, 0, last + SFLOW_SEQ_MAX_GAP + 2), 0);
	last += SFLOW_SEQ_MAX_GAP + 2;
	assert_int_equal(sflow_seq_update(&t, &a, 0, last + SFLOW_SEQ_MAX_GAP + 1),
			 SFLOW_SEQ_MAX_GAP);
	/* Across the 2^32 wrap too. */
	assert_int_equal(sflow_seq_update(&t, &a, 1, 0xFFFFFFF0u), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 1, 0xFFFFFFF0u + SFLOW_SEQ_MAX_GAP + 2), 0);
	assert_int_equal(sflow_seq_update(&t, &a, 1, 0xFFFFFFF0u + SFLOW_SEQ_MAX_GAP + 12), 9);

	st = sflow_seq_find(&t, &a, 0);
	assert_non_null(st);
	assert_int_equal(st->jumps, 3);
	assert_int_equal(st->restarts, 1);
	assert_int_equal(st->lost, SFLOW_SEQ_MAX_GAP);
	assert_int_equal(sflow_seq_find(&t, &a, 1)->jumps, 1);
	assert_int_equal(t.jumps, 4);
	assert_int_equal(t.lost, SFLOW_SEQ_MAX_GAP + 9);
	sflow_seq_free(&t);
}

/* Many streams: each one's gaps are its own. */
static void test_seq_many_streams(void **state)
{
	struct sflow_seq_track t;
	__u64 lost = 0;

	(void)state;
	assert_int_equal(sflow_seq_init(&t, 1000), 0);
	for (__u32 round = 1; round <= 20; round++) {
		for (__u32 i = 0; i < 1000; i++) {
			struct sflow_addr a = {.family = 4, .bytes = {10, i >> 8, i, 1}};
			/* Stream i skips one datagram every (i % 5 + 1)th round. */
			__u32 seq = round + round / (i % 5 + 1);

			lost += sflow_seq_update(&t, &a, i % 3, seq);
		}
	}
	assert_int_equal(t.streams, 1000);
	assert_int_equal(t.lost, lost);
	assert_true(lost > 0);
	for (__u32 i = 0; i < 1000; i++) {
		struct sflow_addr a = {.family = 4, .bytes = {10, i >> 8, i, 1}};
		__u32 every = i % 5 + 1;

		/* From round 1 to 20 the sequence also advanced by 20/every - 1/every. */
		assert_int_equal(sflow_seq_find(&t, &a, i % 3)->lost, 20 / every - 1 / every);
	}
	sflow_seq_free(&t);
}

/*
 * --sflow [ADDR:]PORT names a capture file as one (replay reads those), but
 * a port stays a port whatever files the directory holds: a capture saved
 * as "6343" beside the operator does not turn --sflow 6343 away.
 */
static void test_listen_port_beside_a_file_of_its_name(void **state)
{
	char tmpl[] = "/tmp/fp-sflow-XXXXXX", here[4096], *dir = mkdtemp(tmpl);
	struct sockaddr_storage ss;
	socklen_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	assert_non_null(getcwd(here, sizeof(here)));
	assert_int_equal(chdir(dir), 0);
	f = fopen("6343", "w");
	assert_non_null(f);
	fclose(f);
	f = fopen("sflow.pcap", "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(sflow_parse_listen("--sflow", "6343", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 6343);
	assert_int_equal(sflow_parse_listen("--sflow", "sflow.pcap", &ss, &len), -EINVAL);
	unlink("6343");
	unlink("sflow.pcap");
	assert_int_equal(chdir(here), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow_compact_roundtrip),
	    cmocka_unit_test(test_flow_expanded_roundtrip),
	    cmocka_unit_test(test_port_encodings),
	    cmocka_unit_test(test_header_protocols_and_padding),
	    cmocka_unit_test(test_counters_roundtrip),
	    cmocka_unit_test(test_unknown_skipped),
	    cmocka_unit_test(test_every_truncation),
	    cmocka_unit_test(test_lying_lengths_and_counts),
	    cmocka_unit_test(test_stats_accumulate),
	    cmocka_unit_test(test_encoder_overflow),
	    cmocka_unit_test(test_seq_rules),
	    cmocka_unit_test(test_seq_jumps),
	    cmocka_unit_test(test_seq_many_streams),
	    cmocka_unit_test(test_listen_port_beside_a_file_of_its_name),
	};

	return cmocka_run_group_tests_name("sflow", tests, NULL, NULL);
}
