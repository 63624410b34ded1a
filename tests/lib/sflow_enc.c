// SPDX-License-Identifier: GPL-2.0
/* sflow_enc.c - an XDR writer for sFlow v5 datagrams (see sflow_enc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "sflow_enc.h"

void sfe_init(struct sfe *e, void *buf, size_t cap)
{
	memset(e, 0, sizeof(*e));
	e->buf = buf;
	e->cap = cap;
}

static __u8 *room(struct sfe *e, size_t n)
{
	__u8 *p;

	if (e->overflow || n > e->cap - e->len) {
		e->overflow = true;
		return NULL;
	}
	p = e->buf + e->len;
	e->len += n;
	return p;
}

void sfe_put32(struct sfe *e, size_t off, __u32 v)
{
	if (off + 4 > e->len)
		return;
	e->buf[off] = v >> 24;
	e->buf[off + 1] = v >> 16;
	e->buf[off + 2] = v >> 8;
	e->buf[off + 3] = v;
}

static __u32 get32(const struct sfe *e, size_t off)
{
	const __u8 *p = e->buf + off;

	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static void u32(struct sfe *e, __u32 v)
{
	if (room(e, 4))
		sfe_put32(e, e->len - 4, v);
}

static void u64(struct sfe *e, __u64 v)
{
	u32(e, v >> 32);
	u32(e, v);
}

/* XDR opaque body: the bytes, then zeros up to a multiple of 4. */
static void bytes(struct sfe *e, const void *data, __u32 n)
{
	__u32 padded = (n + 3) & ~3u;
	__u8 *p = room(e, padded);

	if (!p)
		return;
	if (n)
		memcpy(p, data, n);
	memset(p + n, 0, padded - n);
}

/* Fill in the open sample's length, now that its records are written. */
static void close_sample(struct sfe *e)
{
	if (!e->sample_open || e->overflow)
		return;
	sfe_put32(e, e->sample_at + 4, e->len - e->sample_at - 8);
	e->sample_open = false;
}

static void open_sample(struct sfe *e, __u32 enterprise, __u32 format)
{
	close_sample(e);
	e->sample_at = e->len;
	u32(e, enterprise << 12 | format);
	u32(e, 0); /* length, set by close_sample */
	e->sample_open = !e->overflow;
	e->records = 0;
	if (!e->overflow)
		sfe_put32(e, e->count_at, ++e->samples);
}

void sfe_datagram(struct sfe *e, const struct sflow_addr *agent, __u32 sub_agent_id, __u32 sequence,
		  __u32 uptime_ms)
{
	e->len = 0;
	e->overflow = false;
	e->sample_open = false;
	e->samples = e->records = 0;
	e->sample_at = e->record_at = e->record_count_at = 0;
	u32(e, SFLOW_VERSION);
	u32(e, agent->family == 6 ? 2 : 1);
	bytes(e, agent->bytes, agent->family == 6 ? 16 : 4);
	u32(e, sub_agent_id);
	u32(e, sequence);
	u32(e, uptime_ms);
	e->count_at = e->len;
	u32(e, 0);
}

/* sFlow v5 "interface": format in bits 31-30, value in the low 30 bits. */
static __u32 compact_port(const struct sflow_port *p)
{
	return p->format << 30 | (p->value & 0x3FFFFFFF);
}

void sfe_flow_sample(struct sfe *e, const struct sfe_flow *f)
{
	open_sample(e, 0, f->expanded ? SFLOW_FLOW_SAMPLE_EXPANDED : SFLOW_FLOW_SAMPLE);
	u32(e, f->sequence);
	if (f->expanded) {
		u32(e, f->source.type);
		u32(e, f->source.index);
	} else {
		u32(e, f->source.type << 24 | (f->source.index & 0xFFFFFF));
	}
	u32(e, f->sampling_rate);
	u32(e, f->sample_pool);
	u32(e, f->drops);
	if (f->expanded) {
		u32(e, f->input.format);
		u32(e, f->input.value);
		u32(e, f->output.format);
		u32(e, f->output.value);
	} else {
		u32(e, compact_port(&f->input));
		u32(e, compact_port(&f->output));
	}
	e->record_count_at = e->len;
	u32(e, 0);
}

void sfe_counter_sample(struct sfe *e, bool expanded, __u32 sequence,
			const struct sflow_source *source)
{
	open_sample(e, 0, expanded ? SFLOW_COUNTER_SAMPLE_EXPANDED : SFLOW_COUNTER_SAMPLE);
	u32(e, sequence);
	if (expanded) {
		u32(e, source->type);
		u32(e, source->index);
	} else {
		u32(e, source->type << 24 | (source->index & 0xFFFFFF));
	}
	e->record_count_at = e->len;
	u32(e, 0);
}

void sfe_raw_sample(struct sfe *e, __u32 enterprise, __u32 format, const void *data, __u32 length)
{
	open_sample(e, enterprise, format);
	bytes(e, data, length);
	if (!e->overflow)
		sfe_put32(e, e->sample_at + 4, length);
	e->sample_open = false;
}

/* Start a record in the open sample; its length is set by end_record. */
static void begin_record(struct sfe *e, __u32 enterprise, __u32 format)
{
	if (e->overflow)
		return;
	if (!e->sample_open) {
		fprintf(stderr, "sflow_enc: a record needs an open flow or counter sample\n");
		abort();
	}
	e->record_at = e->len;
	u32(e, enterprise << 12 | format);
	u32(e, 0);
}

static void end_record(struct sfe *e, __u32 length)
{
	if (e->overflow)
		return;
	sfe_put32(e, e->record_at + 4, length);
	sfe_put32(e, e->record_count_at, ++e->records);
}

void sfe_record(struct sfe *e, __u32 enterprise, __u32 format, const void *data, __u32 length)
{
	begin_record(e, enterprise, format);
	bytes(e, data, length);
	end_record(e, length);
}

void sfe_sampled_header(struct sfe *e, __u32 protocol, __u32 frame_length, __u32 stripped,
			const void *header, __u32 header_length)
{
	begin_record(e, 0, SFLOW_FLOW_SAMPLED_HEADER);
	u32(e, protocol);
	u32(e, frame_length);
	u32(e, stripped);
	u32(e, header_length);
	bytes(e, header, header_length);
	end_record(e, 16 + ((header_length + 3) & ~3u));
}

void sfe_if_counters(struct sfe *e, const struct sflow_if_counters *c)
{
	begin_record(e, 0, SFLOW_COUNTER_GENERIC);
	u32(e, c->if_index);
	u32(e, c->if_type);
	u64(e, c->if_speed);
	u32(e, c->if_direction);
	u32(e, c->if_status);
	u64(e, c->in_octets);
	u32(e, c->in_ucast_pkts);
	u32(e, c->in_multicast_pkts);
	u32(e, c->in_broadcast_pkts);
	u32(e, c->in_discards);
	u32(e, c->in_errors);
	u32(e, c->in_unknown_protos);
	u64(e, c->out_octets);
	u32(e, c->out_ucast_pkts);
	u32(e, c->out_multicast_pkts);
	u32(e, c->out_broadcast_pkts);
	u32(e, c->out_discards);
	u32(e, c->out_errors);
	u32(e, c->promiscuous_mode);
	end_record(e, 88);
}

void sfe_port_name(struct sfe *e, const char *name)
{
	__u32 n = strlen(name);

	begin_record(e, 0, SFLOW_COUNTER_PORT_NAME);
	u32(e, n);
	bytes(e, name, n);
	end_record(e, 4 + ((n + 3) & ~3u));
}

size_t sfe_end(struct sfe *e)
{
	close_sample(e);
	if (e->overflow)
		return 0;
	/* The count was kept up to date by open_sample; check nothing drifted. */
	if (e->len >= e->count_at + 4 && get32(e, e->count_at) != e->samples)
		return 0;
	return e->len;
}

static struct sflow_addr addr(int family, const char *text)
{
	struct sflow_addr a = {.family = family == AF_INET6 ? 6 : 4};

	if (inet_pton(family, text, a.bytes) != 1) {
		fprintf(stderr, "sflow_enc: bad address %s\n", text);
		abort();
	}
	return a;
}

struct sflow_addr sfe_ipv4(const char *text)
{
	return addr(AF_INET, text);
}

struct sflow_addr sfe_ipv6(const char *text)
{
	return addr(AF_INET6, text);
}
