// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_decode.c - sFlow version 5 datagrams, strictly bounds-checked
 * (the rules are in sflow_decode.h and docs/sflow.md).
 *
 * One walker does both passes: first with no visitor, to find whether the
 * datagram is well formed and to count what it holds; then, only if it is,
 * again with the visitor. Every read goes through a cursor that knows how
 * many bytes its enclosing structure has left.
 */
#include <string.h>

#include "source/sflow_decode.h"

/* Bytes left in the structure being read: the datagram, a sample or a record. */
struct cursor {
	const __u8 *p;
	__u64 left;
};

static const char *const err_names[SFLOW_ERR__COUNT] = {
    [SFLOW_OK] = "ok",
    [SFLOW_ERR_SHORT_HEADER] = "short_header",
    [SFLOW_ERR_VERSION] = "version",
    [SFLOW_ERR_AGENT_TYPE] = "agent_type",
    [SFLOW_ERR_SAMPLE_COUNT] = "sample_count",
    [SFLOW_ERR_SHORT_SAMPLE] = "short_sample",
    [SFLOW_ERR_SAMPLE_LENGTH] = "sample_length",
    [SFLOW_ERR_SAMPLE_FIELDS] = "sample_fields",
    [SFLOW_ERR_RECORD_COUNT] = "record_count",
    [SFLOW_ERR_SHORT_RECORD] = "short_record",
    [SFLOW_ERR_RECORD_LENGTH] = "record_length",
    [SFLOW_ERR_RECORD_FIELDS] = "record_fields",
    [SFLOW_ERR_HEADER_LENGTH] = "header_length",
    [SFLOW_ERR_NAME_LENGTH] = "name_length",
    [SFLOW_ERR_SAMPLE_TRAILING] = "sample_trailing",
    [SFLOW_ERR_TRAILING] = "trailing",
};

const char *sflow_err_name(enum sflow_err err)
{
	return (unsigned)err < SFLOW_ERR__COUNT ? err_names[err] : "unknown";
}

/* XDR pads every opaque to a multiple of 4 bytes (RFC 4506 4.10). */
static inline __u64 pad4(__u32 n)
{
	return ((__u64)n + 3) & ~(__u64)3;
}

static inline __u32 be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static inline __u64 be64(const __u8 *p)
{
	return (__u64)be32(p) << 32 | be32(p + 4);
}

/* Callers check c->left first: these only read and advance. */
static inline __u32 next32(struct cursor *c)
{
	__u32 v = be32(c->p);

	c->p += 4;
	c->left -= 4;
	return v;
}

/*
 * A sample's data source: two words in an expanded sample; one in a compact
 * one (sFlowDataSource: class in the top 8 bits, index in the low 24).
 */
static void next_source(struct cursor *c, bool expanded, struct sflow_source *src)
{
	__u32 word;

	if (expanded) {
		src->type = next32(c);
		src->index = next32(c);
		return;
	}
	word = next32(c);
	src->type = word >> 24;
	src->index = word & 0xFFFFFF;
}

static inline __u64 next64(struct cursor *c)
{
	__u64 v = be64(c->p);

	c->p += 8;
	c->left -= 8;
	return v;
}

/* Split n bytes off the front of c as a cursor of their own. */
static inline struct cursor split(struct cursor *c, __u64 n)
{
	struct cursor body = {c->p, n};

	c->p += n;
	c->left -= n;
	return body;
}

struct sflow_port sflow_port_expanded(__u32 format, __u32 value)
{
	struct sflow_port port = {.format = format, .value = value};

	switch (format) {
	case 0:
		port.kind = value == 0				 ? SFLOW_PORT_UNKNOWN
			    : value == SFLOW_PORT_INTERNAL_VALUE ? SFLOW_PORT_INTERNAL
								 : SFLOW_PORT_IFINDEX;
		break;
	case 1:
		port.kind = SFLOW_PORT_DROPPED;
		break;
	case 2:
		port.kind = SFLOW_PORT_MULTIPLE;
		break;
	default:
		port.kind = SFLOW_PORT_OTHER;
	}
	return port;
}

/* sFlow v5 section 5, "interface": format in bits 31-30, value in 29-0. */
struct sflow_port sflow_port_compact(__u32 word)
{
	return sflow_port_expanded(word >> 30, word & 0x3FFFFFFF);
}

/*
 * The tag and length that start every sample and record, and the body the
 * length covers (padded to 4). The error codes differ for samples and
 * records, so the caller passes them: nothing left where one is counted,
 * not even its tag and length, a length beyond what remains.
 */
static enum sflow_err next_tlv(struct cursor *c, struct sflow_raw *raw, struct cursor *body,
			       enum sflow_err err_count, enum sflow_err err_short,
			       enum sflow_err err_length)
{
	__u32 tag;

	if (c->left == 0)
		return err_count;
	if (c->left < 8)
		return err_short;
	tag = next32(c);
	raw->enterprise = tag >> 12;
	raw->format = tag & 0xFFF;
	raw->length = next32(c);
	if (pad4(raw->length) > c->left)
		return err_length;
	raw->data = c->p;
	*body = split(c, pad4(raw->length));
	return SFLOW_OK;
}

static enum sflow_err flow_records(struct cursor *c, const struct sflow_flow_sample *s,
				   const struct sflow_visitor *v, void *ctx, struct sflow_stats *n)
{
	for (__u32 i = 0; i < s->record_count; i++) {
		struct sflow_sampled_header h;
		struct sflow_raw raw;
		struct cursor rec;
		enum sflow_err err;

		err = next_tlv(c, &raw, &rec, SFLOW_ERR_RECORD_COUNT, SFLOW_ERR_SHORT_RECORD,
			       SFLOW_ERR_RECORD_LENGTH);
		if (err)
			return err;
		if (raw.enterprise != 0 || raw.format != SFLOW_FLOW_SAMPLED_HEADER) {
			if (n)
				n->flow_records_other++;
			if (v && v->flow_record)
				v->flow_record(ctx, s, &raw);
			continue;
		}
		/* Fields are read within the record's own length, not its padding. */
		rec.left = raw.length;
		if (rec.left < 16)
			return SFLOW_ERR_RECORD_FIELDS;
		h.protocol = next32(&rec);
		h.frame_length = next32(&rec);
		h.stripped = next32(&rec);
		h.header_length = next32(&rec);
		if (h.header_length > rec.left)
			return SFLOW_ERR_HEADER_LENGTH;
		h.header = rec.p;
		if (n)
			n->sampled_headers++;
		if (v && v->sampled_header)
			v->sampled_header(ctx, s, &h);
	}
	return c->left ? SFLOW_ERR_SAMPLE_TRAILING : SFLOW_OK;
}

static enum sflow_err flow_sample(struct cursor *c, const struct sflow_datagram *d, bool expanded,
				  const struct sflow_visitor *v, void *ctx, struct sflow_stats *n)
{
	struct sflow_flow_sample s = {.datagram = d, .expanded = expanded};

	if (c->left < (expanded ? 44u : 32u))
		return SFLOW_ERR_SAMPLE_FIELDS;
	s.sequence = next32(c);
	next_source(c, expanded, &s.source);
	s.sampling_rate = next32(c);
	s.sample_pool = next32(c);
	s.drops = next32(c);
	if (expanded) {
		__u32 format = next32(c);

		s.input = sflow_port_expanded(format, next32(c));
		format = next32(c);
		s.output = sflow_port_expanded(format, next32(c));
	} else {
		s.input = sflow_port_compact(next32(c));
		s.output = sflow_port_compact(next32(c));
	}
	s.record_count = next32(c);
	if (n && expanded)
		n->flow_samples_expanded++;
	else if (n)
		n->flow_samples++;
	if (v && v->flow_sample)
		v->flow_sample(ctx, &s);
	return flow_records(c, &s, v, ctx, n);
}

static void if_counters(struct cursor *rec, struct sflow_if_counters *k)
{
	k->if_index = next32(rec);
	k->if_type = next32(rec);
	k->if_speed = next64(rec);
	k->if_direction = next32(rec);
	k->if_status = next32(rec);
	k->in_octets = next64(rec);
	k->in_ucast_pkts = next32(rec);
	k->in_multicast_pkts = next32(rec);
	k->in_broadcast_pkts = next32(rec);
	k->in_discards = next32(rec);
	k->in_errors = next32(rec);
	k->in_unknown_protos = next32(rec);
	k->out_octets = next64(rec);
	k->out_ucast_pkts = next32(rec);
	k->out_multicast_pkts = next32(rec);
	k->out_broadcast_pkts = next32(rec);
	k->out_discards = next32(rec);
	k->out_errors = next32(rec);
	k->promiscuous_mode = next32(rec);
}
#define IF_COUNTERS_BYTES 88

static enum sflow_err counter_records(struct cursor *c, const struct sflow_counter_sample *s,
				      const struct sflow_visitor *v, void *ctx,
				      struct sflow_stats *n)
{
	for (__u32 i = 0; i < s->record_count; i++) {
		struct sflow_raw raw;
		struct cursor rec;
		enum sflow_err err;

		err = next_tlv(c, &raw, &rec, SFLOW_ERR_RECORD_COUNT, SFLOW_ERR_SHORT_RECORD,
			       SFLOW_ERR_RECORD_LENGTH);
		if (err)
			return err;
		rec.left = raw.length;
		if (raw.enterprise == 0 && raw.format == SFLOW_COUNTER_GENERIC) {
			struct sflow_if_counters k;

			if (rec.left < IF_COUNTERS_BYTES)
				return SFLOW_ERR_RECORD_FIELDS;
			if (n)
				n->if_counters++;
			if (v && v->if_counters) {
				if_counters(&rec, &k);
				v->if_counters(ctx, s, &k);
			}
		} else if (raw.enterprise == 0 && raw.format == SFLOW_COUNTER_PORT_NAME) {
			struct sflow_port_name name;

			if (rec.left < 4)
				return SFLOW_ERR_RECORD_FIELDS;
			name.length = next32(&rec);
			if (name.length > rec.left)
				return SFLOW_ERR_NAME_LENGTH;
			name.name = (const char *)rec.p;
			if (n)
				n->port_names++;
			if (v && v->port_name)
				v->port_name(ctx, s, &name);
		} else {
			if (n)
				n->counter_records_other++;
			if (v && v->counter_record)
				v->counter_record(ctx, s, &raw);
		}
	}
	return c->left ? SFLOW_ERR_SAMPLE_TRAILING : SFLOW_OK;
}

static enum sflow_err counter_sample(struct cursor *c, const struct sflow_datagram *d,
				     bool expanded, const struct sflow_visitor *v, void *ctx,
				     struct sflow_stats *n)
{
	struct sflow_counter_sample s = {.datagram = d, .expanded = expanded};

	if (c->left < (expanded ? 16u : 12u))
		return SFLOW_ERR_SAMPLE_FIELDS;
	s.sequence = next32(c);
	next_source(c, expanded, &s.source);
	s.record_count = next32(c);
	if (n && expanded)
		n->counter_samples_expanded++;
	else if (n)
		n->counter_samples++;
	if (v && v->counter_sample)
		v->counter_sample(ctx, &s);
	return counter_records(c, &s, v, ctx, n);
}

/* One pass over the datagram: counts into n (may be NULL), calls v (may be NULL). */
static enum sflow_err walk(const __u8 *data, size_t len, const struct sflow_visitor *v, void *ctx,
			   struct sflow_stats *n)
{
	struct cursor c = {data, len};
	struct sflow_datagram d = {.length = len};
	__u32 type;

	if (c.left < 8)
		return c.left >= 4 && be32(c.p) != SFLOW_VERSION ? SFLOW_ERR_VERSION
								 : SFLOW_ERR_SHORT_HEADER;
	if (next32(&c) != SFLOW_VERSION)
		return SFLOW_ERR_VERSION;
	type = next32(&c);
	if (type == 1)
		d.agent.family = 4;
	else if (type == 2)
		d.agent.family = 6;
	else
		return SFLOW_ERR_AGENT_TYPE;
	if (c.left < (type == 1 ? 4u : 16u) + 16)
		return SFLOW_ERR_SHORT_HEADER;
	memcpy(d.agent.bytes, c.p, type == 1 ? 4 : 16);
	split(&c, type == 1 ? 4 : 16);
	d.sub_agent_id = next32(&c);
	d.sequence = next32(&c);
	d.uptime_ms = next32(&c);
	d.sample_count = next32(&c);
	if (v && v->datagram)
		v->datagram(ctx, &d);

	/* Each sample takes at least 8 bytes: a lying count ends at the data's end. */
	for (__u32 i = 0; i < d.sample_count; i++) {
		struct sflow_raw raw;
		struct cursor body;
		enum sflow_err err;

		err = next_tlv(&c, &raw, &body, SFLOW_ERR_SAMPLE_COUNT, SFLOW_ERR_SHORT_SAMPLE,
			       SFLOW_ERR_SAMPLE_LENGTH);
		if (err)
			return err;
		if (raw.enterprise == 0 &&
		    (raw.format == SFLOW_FLOW_SAMPLE || raw.format == SFLOW_FLOW_SAMPLE_EXPANDED))
			err = flow_sample(&body, &d, raw.format == SFLOW_FLOW_SAMPLE_EXPANDED, v,
					  ctx, n);
		else if (raw.enterprise == 0 && (raw.format == SFLOW_COUNTER_SAMPLE ||
						 raw.format == SFLOW_COUNTER_SAMPLE_EXPANDED))
			err = counter_sample(&body, &d, raw.format == SFLOW_COUNTER_SAMPLE_EXPANDED,
					     v, ctx, n);
		else {
			if (n)
				n->other_samples++;
			if (v && v->other_sample)
				v->other_sample(ctx, &d, &raw);
		}
		if (err)
			return err;
	}
	return c.left ? SFLOW_ERR_TRAILING : SFLOW_OK;
}

static void add_counts(struct sflow_stats *to, const struct sflow_stats *from)
{
	to->flow_samples += from->flow_samples;
	to->flow_samples_expanded += from->flow_samples_expanded;
	to->counter_samples += from->counter_samples;
	to->counter_samples_expanded += from->counter_samples_expanded;
	to->other_samples += from->other_samples;
	to->sampled_headers += from->sampled_headers;
	to->flow_records_other += from->flow_records_other;
	to->if_counters += from->if_counters;
	to->port_names += from->port_names;
	to->counter_records_other += from->counter_records_other;
}

enum sflow_err sflow_decode(const void *data, size_t len, const struct sflow_visitor *visitor,
			    void *ctx, struct sflow_stats *stats)
{
	struct sflow_stats counts = {};
	enum sflow_err err;

	err = walk(data, len, NULL, NULL, &counts);
	if (err) {
		if (stats) {
			stats->malformed++;
			stats->errors[err]++;
		}
		return err;
	}
	if (stats) {
		stats->datagrams++;
		add_counts(stats, &counts);
	}
	/* Checked above: the second walk cannot fail. */
	if (visitor)
		walk(data, len, visitor, ctx, NULL);
	return SFLOW_OK;
}
