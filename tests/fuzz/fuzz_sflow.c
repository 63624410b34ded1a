// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary bytes as an sFlow datagram, or as a captured frame carrying one.
 * The first byte chooses: bit 0 clear, the rest is the UDP payload; set,
 * the rest is a frame of link type links[(byte >> 1) % 4], whose UDP
 * payload source/udp_payload.c finds first. The payload is copied to a
 * buffer of its exact size, so ASan sees any read past it.
 *
 * Invariants checked (abort on failure): every pointer handed to the
 * visitor lies inside the payload and its bytes are readable; a malformed
 * datagram calls no callback and counts one reason; an accepted one calls
 * as many callbacks as the stats count.
 */
#include <stdlib.h>
#include <string.h>
#include <pcap/dlt.h>

#include "source/sflow_decode.h"
#include "source/sflow_seq.h"
#include "source/udp_payload.h"

struct fuzz_ctx {
	const __u8 *buf;
	size_t len;
	__u64 calls, headers, flows, counters, ifc, names, others;
	struct sflow_datagram hdr;
	__u32 sink;
};

static void inside(struct fuzz_ctx *c, const void *p, size_t n)
{
	const __u8 *b = p;

	if (b < c->buf || n > c->len || b + n > c->buf + c->len)
		abort();
	for (size_t i = 0; i < n; i++)
		c->sink += b[i];
}

static void on_datagram(void *ctx, const struct sflow_datagram *d)
{
	struct fuzz_ctx *c = ctx;

	c->calls++;
	if (d->length != c->len || (d->agent.family != 4 && d->agent.family != 6))
		abort();
	c->hdr = *d;
}

static void on_flow_sample(void *ctx, const struct sflow_flow_sample *s)
{
	struct fuzz_ctx *c = ctx;

	c->calls++;
	c->flows++;
	if (s->input.kind > SFLOW_PORT_OTHER || s->output.kind > SFLOW_PORT_OTHER)
		abort();
}

static void on_sampled_header(void *ctx, const struct sflow_flow_sample *s,
			      const struct sflow_sampled_header *h)
{
	struct fuzz_ctx *c = ctx;

	(void)s;
	c->calls++;
	c->headers++;
	inside(c, h->header, h->header_length);
}

static void on_raw(struct fuzz_ctx *c, const struct sflow_raw *r)
{
	c->calls++;
	c->others++;
	if (r->enterprise >= 1u << 20 || r->format >= 1u << 12)
		abort();
	inside(c, r->data, r->length);
}

static void on_flow_record(void *ctx, const struct sflow_flow_sample *s, const struct sflow_raw *r)
{
	(void)s;
	on_raw(ctx, r);
}

static void on_counter_sample(void *ctx, const struct sflow_counter_sample *s)
{
	struct fuzz_ctx *c = ctx;

	(void)s;
	c->calls++;
	c->counters++;
}

static void on_if_counters(void *ctx, const struct sflow_counter_sample *s,
			   const struct sflow_if_counters *k)
{
	struct fuzz_ctx *c = ctx;

	(void)s;
	c->calls++;
	c->ifc++;
	c->sink += k->if_index + k->promiscuous_mode;
}

static void on_port_name(void *ctx, const struct sflow_counter_sample *s,
			 const struct sflow_port_name *n)
{
	struct fuzz_ctx *c = ctx;

	(void)s;
	c->calls++;
	c->names++;
	inside(c, n->name, n->length);
}

static void on_counter_record(void *ctx, const struct sflow_counter_sample *s,
			      const struct sflow_raw *r)
{
	(void)s;
	on_raw(ctx, r);
}

static void on_other_sample(void *ctx, const struct sflow_datagram *d, const struct sflow_raw *r)
{
	(void)d;
	on_raw(ctx, r);
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

static struct sflow_seq_track seq;

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	static const int links[] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW};
	struct sflow_stats st = {};
	struct fuzz_ctx c = {};
	const __u8 *payload;
	enum sflow_err err;
	size_t len;
	__u8 *copy;

	if (size < 1)
		return 0;
	/* A small table, emptied when full, so every branch of the tracker runs. */
	if (seq.slots && seq.streams == seq.max_streams)
		sflow_seq_free(&seq);
	if (!seq.slots && sflow_seq_init(&seq, 64))
		abort();
	payload = data + 1;
	len = size - 1;
	if (data[0] & 1) {
		struct udp_datagram u;

		if (udp_payload(links[(data[0] >> 1) % 4], data + 1, size - 1, &u) !=
		    UDP_PAYLOAD_OK)
			return 0;
		if (u.payload < data + 1 || u.len > size - 1 || u.payload + u.len > data + size)
			abort();
		payload = u.payload;
		len = u.len;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, payload, len);
	c.buf = copy;
	c.len = len;

	err = sflow_decode(copy, len, &visitor, &c, &st);
	if ((unsigned)err >= SFLOW_ERR__COUNT)
		abort();
	if (err) {
		if (c.calls || st.malformed != 1 || st.errors[err] != 1 || st.datagrams)
			abort();
	} else {
		if (st.datagrams != 1 || st.malformed)
			abort();
		if (c.headers != st.sampled_headers || c.ifc != st.if_counters ||
		    c.names != st.port_names ||
		    c.flows != st.flow_samples + st.flow_samples_expanded ||
		    c.counters != st.counter_samples + st.counter_samples_expanded ||
		    c.others != st.other_samples + st.flow_records_other + st.counter_records_other)
			abort();
		/* The same bytes decode the same way with no visitor. */
		if (sflow_decode(copy, len, NULL, NULL, NULL) != SFLOW_OK)
			abort();
		sflow_seq_update(&seq, &c.hdr.agent, c.hdr.sub_agent_id, c.hdr.sequence);
	}
	free(copy);
	return 0;
}
