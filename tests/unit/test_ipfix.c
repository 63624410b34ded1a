// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the IPFIX exporter (user/render/ipfix.c, ipfix_msg.c).
 * Messages are caught by a sink and read back by a small parser written
 * here from RFC 7011, not from the encoder, so the two cannot share a
 * mistake. A few tests use real loopback sockets with nothing listening.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "cmd/export_ipfix.h"
#include "core/flow_export.h"
#include "render/ipfix.h"
#include "render/ipfix_msg.h"

#define PEN	 12345
#define DOMAIN	 0xDEADBEEF
#define T0_MS	 1781665958000ULL
#define MAX_FLDS 64

/* ---- a sink that keeps every message ---- */

struct coll {
	__u8 *buf;
	size_t len, cap;
	size_t *msg_at; /* offsets of the messages in buf */
	size_t n_msgs, cap_msgs;
	int eagain_next; /* refuse this many calls with -EAGAIN */
	int fail_next;	 /* ... then fail this many with fail_err */
	int fail_err;
	size_t calls;
};

static int sink(void *ctx, const void *msg, size_t len)
{
	struct coll *c = ctx;

	c->calls++;
	if (c->eagain_next > 0) {
		c->eagain_next--;
		return -EAGAIN;
	}
	if (c->fail_next > 0) {
		c->fail_next--;
		return c->fail_err;
	}
	if (c->len + len > c->cap) {
		c->cap = (c->len + len) * 2;
		c->buf = realloc(c->buf, c->cap);
		assert_non_null(c->buf);
	}
	if (c->n_msgs == c->cap_msgs) {
		c->cap_msgs = c->cap_msgs ? c->cap_msgs * 2 : 64;
		c->msg_at = realloc(c->msg_at, c->cap_msgs * sizeof(*c->msg_at));
		assert_non_null(c->msg_at);
	}
	c->msg_at[c->n_msgs++] = c->len;
	memcpy(c->buf + c->len, msg, len);
	c->len += len;
	return 0;
}

static void coll_free(struct coll *c)
{
	free(c->buf);
	free(c->msg_at);
	memset(c, 0, sizeof(*c));
}

static size_t msg_len(const struct coll *c, size_t i)
{
	return (i + 1 < c->n_msgs ? c->msg_at[i + 1] : c->len) - c->msg_at[i];
}

/* ---- an independent reader of RFC 7011 messages ---- */

static __u16 rd16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

static __u32 rd32(const __u8 *p)
{
	return (__u32)rd16(p) << 16 | rd16(p + 2);
}

struct field {
	__u16 id;
	__u32 pen; /* 0: IANA */
	__u16 len; /* the value's length; for a template: 65535 when variable */
	const __u8 *val;
};

struct tmpl {
	bool defined;
	__u16 n, scope;
	struct field f[MAX_FLDS];
};

struct rec {
	__u16 tid;
	__u16 n;
	struct field f[MAX_FLDS];
};

struct parse {
	struct tmpl t[32]; /* by template ID - 256 */
	struct rec *recs;
	size_t n_recs, cap_recs;
	size_t n_msgs, templates, options_templates, withdrawals, type_records;
	size_t max_msg;
	__u32 next_seq;
	__u32 last_export;
};

static void parse_free(struct parse *p)
{
	free(p->recs);
	memset(p, 0, sizeof(*p));
}

static void parse_template_set(struct parse *p, const __u8 *s, size_t len, bool options)
{
	size_t off = 0;

	while (off < len) {
		__u16 tid, n, scope = 0;
		struct tmpl *t;

		assert_true(off + 4 <= len);
		tid = rd16(s + off);
		n = rd16(s + off + 2);
		off += 4;
		if (n == 0) { /* RFC 7011 section 8.1: a withdrawal */
			assert_true(tid >= 256 && tid < 256 + 32);
			p->t[tid - 256].defined = false;
			p->withdrawals++;
			continue;
		}
		if (options) {
			scope = rd16(s + off);
			off += 2;
			assert_true(scope > 0 && scope <= n);
			p->options_templates++;
		} else {
			p->templates++;
		}
		assert_true(tid >= 256 && tid < 256 + 32);
		assert_true(n <= MAX_FLDS);
		t = &p->t[tid - 256];
		t->defined = true;
		t->n = n;
		t->scope = scope;
		for (int i = 0; i < n; i++) {
			assert_true(off + 4 <= len);
			t->f[i].id = rd16(s + off) & 0x7FFF;
			t->f[i].len = rd16(s + off + 2);
			t->f[i].pen = 0;
			if (rd16(s + off) & 0x8000) {
				assert_true(off + 8 <= len);
				t->f[i].pen = rd32(s + off + 4);
				off += 4;
			}
			off += 4;
		}
	}
	assert_int_equal(off, len);
}

/* Decode every record of a data set; returns how many. */
static size_t parse_data_set(struct parse *p, __u16 tid, const __u8 *s, size_t len)
{
	const struct tmpl *t;
	size_t off = 0, n = 0;

	assert_true(tid >= 256 && tid < 256 + 32);
	t = &p->t[tid - 256];
	assert_true(t->defined); /* a template always comes before its data */
	while (off < len) {
		struct rec *r;

		if (p->n_recs == p->cap_recs) {
			p->cap_recs = p->cap_recs ? p->cap_recs * 2 : 256;
			p->recs = realloc(p->recs, p->cap_recs * sizeof(*p->recs));
			assert_non_null(p->recs);
		}
		r = &p->recs[p->n_recs++];
		r->tid = tid;
		r->n = t->n;
		for (int i = 0; i < t->n; i++) {
			__u16 flen = t->f[i].len;

			if (flen == 65535) { /* RFC 7011 section 7 */
				assert_true(off + 1 <= len);
				flen = s[off++];
				if (flen == 255) {
					assert_true(off + 2 <= len);
					flen = rd16(s + off);
					off += 2;
				}
			}
			assert_true(off + flen <= len);
			r->f[i] = t->f[i];
			r->f[i].len = flen;
			r->f[i].val = s + off;
			off += flen;
		}
		n++;
	}
	/* No padding is sent: the records fill the set exactly. */
	assert_int_equal(off, len);
	return n;
}

/* One message: header, then sets that tile it exactly. */
static void parse_msg(struct parse *p, const __u8 *m, size_t len)
{
	size_t off = 16, data = 0;

	assert_true(len >= 16);
	assert_int_equal(rd16(m), 10);
	assert_int_equal(rd16(m + 2), len);
	assert_int_equal(rd32(m + 8), p->next_seq);
	assert_int_equal(rd32(m + 12), DOMAIN);
	p->last_export = rd32(m + 4);
	if (len > p->max_msg)
		p->max_msg = len;
	while (off < len) {
		__u16 id, slen;

		assert_true(off + 4 <= len);
		id = rd16(m + off);
		slen = rd16(m + off + 2);
		assert_true(slen > 4 && off + slen <= len);
		if (id == 2 || id == 3) {
			parse_template_set(p, m + off + 4, slen - 4, id == 3);
		} else {
			size_t n = parse_data_set(p, id, m + off + 4, slen - 4);

			if (id == IPFIX_TID_TYPES)
				p->type_records += n;
			data += n;
		}
		off += slen;
	}
	p->next_seq += data;
	p->n_msgs++;
}

static void parse_all(struct parse *p, const struct coll *c, size_t from)
{
	for (size_t i = from; i < c->n_msgs; i++)
		parse_msg(p, c->buf + c->msg_at[i], msg_len(c, i));
}

static const struct field *get(const struct rec *r, __u16 id, __u32 pen)
{
	for (int i = 0; i < r->n; i++)
		if (r->f[i].id == id && r->f[i].pen == pen)
			return &r->f[i];
	return NULL;
}

static __u64 get_uint(const struct rec *r, __u16 id, __u32 pen)
{
	const struct field *f = get(r, id, pen);
	__u64 v = 0;

	assert_non_null(f);
	for (int i = 0; i < f->len; i++)
		v = v << 8 | f->val[i];
	return v;
}

/* The flow records only: type records describe elements. */
static size_t flow_records(const struct parse *p, const struct rec **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_recs; i++)
		if (p->recs[i].tid != IPFIX_TID_TYPES && n < max)
			out[n++] = &p->recs[i];
	return n;
}

/* ---- flows ---- */

static void make_flow(struct ipfix_flow *f, unsigned int i, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->src[0] = 10;
	f->src[2] = i >> 8;
	f->src[3] = i;
	f->dst[0] = 10;
	f->dst[1] = 128;
	f->dst[3] = 7;
	f->sport = 49152 + (i & 0x3FFF);
	f->dport = 4791;
	f->protocol = 17;
	f->tos = 26 << 2;
	f->end_reason = IPFIX_END_ACTIVE_TIMEOUT;
	f->ingress_ifindex = 2;
	f->dest_qp = 0x100 + i;
	f->octets = 1000000 + i;
	f->packets = 1000 + i;
	f->start_ms = T0_MS + i;
	f->end_ms = T0_MS + 10000 + i;
	f->ect0 = 990;
	f->ce = 10 + i;
	f->path = path;
}

static struct ipfix_exporter *open_sink(struct coll *c, enum ipfix_transport t, __u32 max_msg,
					__u32 budget)
{
	struct ipfix_config cfg;
	struct ipfix_exporter *x;

	ipfix_config_init(&cfg);
	cfg.transport = t;
	cfg.pen = PEN;
	cfg.domain_id = DOMAIN;
	cfg.max_msg_bytes = max_msg;
	cfg.budget_msgs = budget;
	/* Unpaced: these tests tick at one instant; the pacing has its own tests. */
	cfg.rate_bytes_per_s = 0;
	cfg.sink = sink;
	cfg.sink_ctx = c;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	return x;
}

/* ---- tests ---- */

/* RFC 7011 section 7: one length octet below 255, else 255 and two more. */
static void test_varlen_encoding(void **state)
{
	static const size_t lens[] = {0, 254, 255, 300};
	__u8 val[300], out[310];

	(void)state;
	for (size_t i = 0; i < sizeof(val); i++)
		val[i] = 'a' + i % 26;
	for (size_t i = 0; i < 4; i++) {
		size_t len = lens[i], hdr = len < 255 ? 1 : 3;

		memset(out, 0xEE, sizeof(out));
		assert_int_equal(ipfix_put_varlen(out, val, len), hdr + len);
		assert_int_equal(ipfix_varlen_size(len), hdr + len);
		if (len < 255) {
			assert_int_equal(out[0], len);
		} else {
			assert_int_equal(out[0], 255);
			assert_int_equal(rd16(out + 1), len);
		}
		assert_memory_equal(out + hdr, val, len);
		assert_int_equal(out[hdr + len], 0xEE); /* nothing written past it */
	}
}

/* The same lengths in real records, read back through the template. */
static void test_varlen_in_records(void **state)
{
	static const size_t lens[] = {0, 254, 255, 300};
	struct coll c = {};
	struct parse p = {.next_seq = 0};
	const struct rec *recs[4] = {NULL};
	char paths[4][301];
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 100);

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct ipfix_flow f;

		memset(paths[i], 0, sizeof(paths[i]));
		for (size_t k = 0; k < lens[i]; k++)
			paths[i][k] = 'A' + (k + i) % 26;
		make_flow(&f, i, lens[i] ? paths[i] : NULL);
		assert_int_equal(ipfix_add(x, &f), 0);
	}
	ipfix_tick(x, T0_MS);
	parse_all(&p, &c, 0);
	assert_int_equal(flow_records(&p, recs, 4), 4);
	for (int i = 0; i < 4; i++) {
		const struct field *name = get(recs[i], 82, 0);

		assert_non_null(name);
		assert_int_equal(name->len, lens[i]);
		assert_memory_equal(name->val, paths[i], lens[i]);
		assert_int_equal(get_uint(recs[i], 7, 0), 49152 + i);
	}
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* A path too long for the message is cut on a UTF-8 character boundary. */
static void test_string_truncation(void **state)
{
	struct coll c = {};
	struct parse p = {};
	const struct rec *recs[1] = {NULL};
	const struct field *name;
	struct ipfix_stats st;
	struct ipfix_flow f;
	char path[2000];
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 512, 100);

	(void)state;
	/* "é" is two bytes: any cut that is not on a boundary leaves half of one. */
	for (int i = 0; i < 999; i++)
		memcpy(path + 2 * i, "\xC3\xA9", 2);
	path[1998] = 0;
	make_flow(&f, 1, path);
	assert_int_equal(ipfix_add(x, &f), 0);
	ipfix_tick(x, T0_MS);
	ipfix_get_stats(x, &st);
	assert_int_equal(st.strings_truncated, 1);
	parse_all(&p, &c, 0);
	assert_true(p.max_msg <= 512);
	assert_int_equal(flow_records(&p, recs, 1), 1);
	name = get(recs[0], 82, 0);
	assert_non_null(name);
	assert_true(name->len > 100 && name->len % 2 == 0);
	assert_memory_equal(name->val, path, name->len);
	/* A data message with one record: as full as the path could make it. */
	assert_true(msg_len(&c, c.n_msgs - 1) >= 510);
	assert_int_equal(ipfix_utf8_prefix("a\xC3\xA9", 3, 2), 1);
	assert_int_equal(ipfix_utf8_prefix("a\xC3\xA9", 3, 3), 3);
	assert_int_equal(ipfix_utf8_prefix("a\xE2\x82\xAC", 4, 3), 1);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* The first messages: header fields, template sets and the field specifiers. */
static void test_header_and_templates(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 100);
	const __u8 *m;

	(void)state;
	/* Control messages only: descriptions and templates take a few at 1400 bytes. */
	assert_int_equal(ipfix_tick(x, T0_MS + 999), 3);
	assert_int_equal(c.n_msgs, 3);
	m = c.buf;
	assert_int_equal(rd16(m), 10);
	assert_int_equal(rd16(m + 2), msg_len(&c, 0));
	assert_int_equal(rd32(m + 4), (T0_MS + 999) / 1000);
	assert_int_equal(rd32(m + 8), 0);
	assert_int_equal(rd32(m + 12), DOMAIN);
	/* The element descriptions first (RFC 5610), so templates find them known. */
	assert_int_equal(rd16(m + 16), 3);
	parse_all(&p, &c, 0);
	assert_int_equal(p.templates, 8);
	assert_int_equal(p.options_templates, 1);
	assert_int_equal(p.type_records, 15);
	assert_int_equal(p.next_seq, 15); /* type records are data records */

	for (int v = 0; v < 8; v++) {
		const struct tmpl *t = &p.t[v];
		bool v6 = v & 1, sampled = v & 2, mirror = v & 4;
		bool has[4] = {}; /* 8/12, 27/28, enterprise 11/12, 14/15 */
		bool mirror_seen = false;

		assert_true(t->defined);
		assert_int_equal(t->f[0].id, 152);
		assert_int_equal(t->f[0].len, 8);
		assert_int_equal(t->f[t->n - 1].id, 82);
		assert_int_equal(t->f[t->n - 1].len, 65535);
		for (int i = 0; i < t->n; i++) {
			const struct field *f = &t->f[i];

			if (f->pen) {
				assert_int_equal(f->pen, PEN);
				assert_true(f->id >= 1 && f->id <= 15);
			}
			if (!f->pen && (f->id == 8 || f->id == 12)) {
				assert_int_equal(f->len, 4);
				has[0] = true;
			}
			if (!f->pen && (f->id == 27 || f->id == 28)) {
				assert_int_equal(f->len, 16);
				has[1] = true;
			}
			if (f->pen && (f->id == 11 || f->id == 12))
				has[2] = true;
			if (f->pen && (f->id == 14 || f->id == 15))
				has[3] = true;
			if (f->pen && f->id == 13)
				mirror_seen = true;
		}
		assert_int_equal(has[0], !v6);
		assert_int_equal(has[1], v6);
		assert_int_equal(has[2], !sampled); /* unknown when sampled: not sent */
		assert_int_equal(has[3], sampled);
		assert_int_equal(mirror_seen, mirror);
	}
	/* The RFC 5610 options template: PEN and element ID are the scope. */
	assert_true(p.t[8].defined);
	assert_int_equal(p.t[8].scope, 2);
	assert_int_equal(p.t[8].f[0].id, 346);
	assert_int_equal(p.t[8].f[1].id, 303);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* Every element of a record read back with the template the exporter sent. */
static void test_record_values(void **state)
{
	struct coll c = {};
	struct parse p = {};
	const struct rec *recs[3] = {NULL};
	struct ipfix_flow f4, f6, fs;
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 100);

	(void)state;
	make_flow(&f4, 7, "up1");
	f4.flags = IPFIX_FLOW_VXLAN;
	f4.vni = 0x123456;
	f4.direction = 1;
	f4.ingress_ifindex = 0;
	f4.egress_ifindex = 9;
	f4.opcode_classes = IPFIX_OPC_WRITE | IPFIX_OPC_ACK;
	f4.not_ect = 1;
	f4.ect1 = 2;
	f4.cnp = 3;
	f4.acks = 4;
	f4.naks = 5;
	f4.rnr_naks = 6;
	f4.retransmits = 7;
	f4.psn_gaps = 8;
	make_flow(&f6, 8, "spine-2");
	f6.flags = IPFIX_FLOW_IPV6 | IPFIX_FLOW_MIRROR;
	inet_pton(AF_INET6, "2001:db8::1", f6.src);
	inet_pton(AF_INET6, "2001:db8::2", f6.dst);
	f6.mirror_session = 42;
	make_flow(&fs, 9, "");
	fs.flags = IPFIX_FLOW_SAMPLED;
	fs.sampling_rate = 4096;
	fs.samples = 77;
	fs.retransmits = 1; /* unknown when sampled: must not appear */
	assert_int_equal(ipfix_add(x, &f4), 0);
	assert_int_equal(ipfix_add(x, &f6), 0);
	assert_int_equal(ipfix_add(x, &fs), 0);
	ipfix_tick(x, T0_MS);
	parse_all(&p, &c, 0);
	assert_int_equal(flow_records(&p, recs, 3), 3);

	assert_int_equal(recs[0]->tid, 256);
	assert_int_equal(get_uint(recs[0], 152, 0), T0_MS + 7);
	assert_int_equal(get_uint(recs[0], 153, 0), T0_MS + 10007);
	assert_int_equal(get_uint(recs[0], 1, 0), 1000007);
	assert_int_equal(get_uint(recs[0], 2, 0), 1007);
	assert_memory_equal(get(recs[0], 8, 0)->val, "\x0a\x00\x00\x07", 4);
	assert_memory_equal(get(recs[0], 12, 0)->val, "\x0a\x80\x00\x07", 4);
	assert_int_equal(get_uint(recs[0], 10, 0), 0);
	assert_int_equal(get_uint(recs[0], 14, 0), 9);
	assert_int_equal(get_uint(recs[0], 351, 0), 0x0100000000123456ULL);
	assert_int_equal(get_uint(recs[0], 7, 0), 49159);
	assert_int_equal(get_uint(recs[0], 11, 0), 4791);
	assert_int_equal(get_uint(recs[0], 4, 0), 17);
	assert_int_equal(get_uint(recs[0], 5, 0), 104);
	assert_int_equal(get_uint(recs[0], 61, 0), 1);
	assert_int_equal(get_uint(recs[0], 136, 0), 2);
	assert_int_equal(get_uint(recs[0], 1, PEN), 0x107);
	assert_int_equal(get_uint(recs[0], 2, PEN), IPFIX_OPC_WRITE | IPFIX_OPC_ACK);
	for (int id = 3; id <= 12; id++) {
		static const __u64 want[] = {1, 990, 2, 17, 3, 4, 5, 6, 7, 8};

		assert_int_equal(get_uint(recs[0], id, PEN), want[id - 3]);
	}
	assert_null(get(recs[0], 13, PEN));
	assert_int_equal(get(recs[0], 82, 0)->len, 3);
	assert_memory_equal(get(recs[0], 82, 0)->val, "up1", 3);

	assert_int_equal(recs[1]->tid, 256 + IPFIX_V_IPV6 + IPFIX_V_MIRROR);
	assert_memory_equal(get(recs[1], 27, 0)->val, f6.src, 16);
	assert_memory_equal(get(recs[1], 28, 0)->val, f6.dst, 16);
	assert_null(get(recs[1], 8, 0));
	assert_int_equal(get_uint(recs[1], 351, 0), 0);
	assert_int_equal(get_uint(recs[1], 13, PEN), 42);
	assert_memory_equal(get(recs[1], 82, 0)->val, "spine-2", 7);

	assert_int_equal(recs[2]->tid, 256 + IPFIX_V_SAMPLED);
	assert_null(get(recs[2], 11, PEN));
	assert_null(get(recs[2], 12, PEN));
	assert_int_equal(get_uint(recs[2], 14, PEN), 4096);
	assert_int_equal(get_uint(recs[2], 15, PEN), 77);
	assert_int_equal(get(recs[2], 82, 0)->len, 0);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* Sequence numbers count data records sent before each message (section 3.1). */
static void test_sequence_numbers(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_stats st;
	struct ipfix_flow f;
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 600, 1000);

	(void)state;
	for (unsigned int i = 0; i < 500; i++) {
		make_flow(&f, i, i % 2 ? "up1" : "a-longer-path-name");
		if (i % 5 == 0)
			f.flags = IPFIX_FLOW_IPV6;
		assert_int_equal(ipfix_add(x, &f), 0);
	}
	ipfix_tick(x, T0_MS);
	assert_true(c.n_msgs > 50);
	parse_all(&p, &c, 0); /* asserts each header's sequence number */
	assert_int_equal(p.n_recs, 500 + 15);
	ipfix_get_stats(x, &st);
	assert_int_equal(st.sequence, 515);
	assert_int_equal(st.records_sent, 500);
	assert_int_equal(st.messages_sent, c.n_msgs);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* 100k flows, paths of every length up to 400 bytes: no message above the limit. */
static void test_mtu_never_exceeded(void **state)
{
	static const __u32 limits[] = {1400, 512};
	char path[401];

	(void)state;
	memset(path, 'p', sizeof(path));
	for (int l = 0; l < 2; l++) {
		struct coll c = {};
		struct parse p = {};
		struct ipfix_stats st;
		struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, limits[l], 1 << 20);
		size_t n = l == 0 ? 100000 : 20000;

		for (size_t i = 0; i < n; i++) {
			struct ipfix_flow f;

			path[i % 401] = 0;
			make_flow(&f, i, path);
			f.flags = i % 3 == 0 ? IPFIX_FLOW_IPV6 : 0;
			f.flags |= i % 7 == 0 ? IPFIX_FLOW_SAMPLED | IPFIX_FLOW_MIRROR : 0;
			assert_int_equal(ipfix_add(x, &f), 0);
			path[i % 401] = 'p';
			if (i % 4096 == 0)
				ipfix_tick(x, T0_MS);
		}
		while (!ipfix_idle(x))
			ipfix_tick(x, T0_MS);
		for (size_t i = 0; i < c.n_msgs; i++)
			assert_true(msg_len(&c, i) <= limits[l]);
		parse_all(&p, &c, 0);
		assert_int_equal(p.n_recs - p.type_records, n);
		assert_true(p.max_msg <= limits[l]);
		assert_true(p.max_msg > limits[l] - 450); /* and messages are filled */
		ipfix_get_stats(x, &st);
		assert_int_equal(st.records_sent, n);
		assert_int_equal(st.records_dropped + st.records_lost, 0);
		/* At 512 bytes the longest paths of the largest records are cut to fit. */
		if (limits[l] == 1400)
			assert_int_equal(st.strings_truncated, 0);
		else
			assert_true(st.strings_truncated > 0);
		ipfix_close(x, 0, NULL);
		parse_free(&p);
		coll_free(&c);
	}
}

/* UDP: templates at start, again after the refresh interval, and after N messages. */
static void test_template_refresh_udp(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	struct ipfix_flow f;
	size_t before;

	(void)state;
	ipfix_config_init(&cfg);
	cfg.pen = PEN;
	cfg.domain_id = DOMAIN;
	cfg.template_refresh_ms = 60000;
	cfg.sink = sink;
	cfg.sink_ctx = &c;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	ipfix_tick(x, T0_MS);
	parse_all(&p, &c, 0);
	assert_int_equal(p.templates, 8);

	make_flow(&f, 1, "up1");
	ipfix_add(x, &f);
	before = c.n_msgs;
	ipfix_tick(x, T0_MS + 59999);
	parse_all(&p, &c, before);
	assert_int_equal(p.templates, 8); /* not yet */
	assert_int_equal(c.n_msgs, before + 1);

	ipfix_add(x, &f);
	before = c.n_msgs;
	ipfix_tick(x, T0_MS + 60000);
	parse_all(&p, &c, before);
	assert_int_equal(p.templates, 16); /* refreshed before the data */
	assert_int_equal(rd16(c.buf + c.msg_at[before] + 16), 2);
	assert_int_equal(p.n_recs - p.type_records, 2);
	/* Element descriptions only once per session: they count in the sequence. */
	assert_int_equal(p.type_records, 15);

	/* A clock stepped back refreshes too. */
	before = c.n_msgs;
	ipfix_tick(x, T0_MS);
	parse_all(&p, &c, before);
	assert_int_equal(p.templates, 24);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);

	/* Every 3 data messages. */
	cfg.template_refresh_msgs = 3;
	cfg.max_msg_bytes = 512;
	memset(&c, 0, sizeof(c));
	memset(&p, 0, sizeof(p));
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (int i = 0; i < 40; i++) {
		make_flow(&f, i, "up1");
		ipfix_add(x, &f);
	}
	ipfix_tick(x, T0_MS);
	parse_all(&p, &c, 0);
	/* 40 records at 3 a message: 14 data messages, templates before 0, 3, 6, 9, 12. */
	assert_int_equal(p.n_recs - p.type_records, 40);
	assert_int_equal(p.templates, 8 * 5);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* TCP: templates once per connection, none on the timer, withdrawn at close. */
static void test_tcp_templates_and_withdrawal(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_stats st;
	struct ipfix_flow f;
	struct ipfix_exporter *x = open_sink(&c, IPFIX_TCP, 1400, 100);
	const __u8 *last;
	size_t before;

	(void)state;
	make_flow(&f, 1, "up1");
	ipfix_add(x, &f);
	ipfix_tick(x, T0_MS);
	ipfix_tick(x, T0_MS + 3600 * 1000);
	parse_all(&p, &c, 0);
	assert_int_equal(p.templates, 8);
	assert_int_equal(p.n_recs - p.type_records, 1);

	/* The connection breaks: the message in flight is lost, counted. */
	ipfix_add(x, &f);
	c.fail_next = 1;
	c.fail_err = -ECONNRESET;
	assert_int_equal(ipfix_tick(x, T0_MS + 3600 * 1000 + 1), 0);
	ipfix_get_stats(x, &st);
	assert_int_equal(st.send_errors, 1);
	assert_int_equal(st.records_lost, 1);
	assert_false(st.connected);
	/* Reconnect after the backoff (1 s), templates again, a new sequence. */
	ipfix_add(x, &f);
	before = c.n_msgs;
	assert_int_equal(ipfix_tick(x, T0_MS + 3600 * 1000 + 500), 0);
	assert_int_equal(c.n_msgs, before);
	ipfix_tick(x, T0_MS + 3600 * 1000 + 1001);
	ipfix_get_stats(x, &st);
	assert_true(st.connected);
	p.next_seq = 0;
	parse_all(&p, &c, before);
	assert_int_equal(p.templates, 16);
	assert_int_equal(p.type_records, 30); /* a new session describes the elements again */
	assert_int_equal(p.n_recs - p.type_records, 2);

	/* A session that came up resets the backoff: the next break retries after 1 s again. */
	ipfix_add(x, &f);
	c.fail_next = 1;
	c.fail_err = -EPIPE;
	ipfix_tick(x, T0_MS + 7200 * 1000);
	ipfix_get_stats(x, &st);
	assert_false(st.connected);
	before = c.n_msgs;
	ipfix_tick(x, T0_MS + 7200 * 1000 + 1000);
	ipfix_get_stats(x, &st);
	assert_true(st.connected);
	assert_int_equal(st.connects, 3);
	p.next_seq = 0;
	parse_all(&p, &c, before);

	/* Clean close: one message withdrawing every data template (section 8.1). */
	before = c.n_msgs;
	assert_int_equal(ipfix_close(x, 100, &st), 0);
	assert_int_equal(c.n_msgs, before + 1);
	last = c.buf + c.msg_at[before];
	assert_int_equal(msg_len(&c, before), 16 + 4 + 8 * 4);
	assert_int_equal(rd16(last + 16), 2);
	assert_int_equal(rd16(last + 18), 4 + 8 * 4);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(rd16(last + 20 + 4 * i), 256 + i);
		assert_int_equal(rd16(last + 22 + 4 * i), 0);
	}
	parse_all(&p, &c, before);
	assert_int_equal(p.withdrawals, 8);
	for (int i = 0; i < 8; i++)
		assert_false(p.t[i].defined);
	assert_int_equal(st.connects, 3);
	parse_free(&p);
	coll_free(&c);
}

/* UDP never withdraws (RFC 7011 section 8.4). */
static void test_udp_close_no_withdrawal(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 100);
	struct ipfix_flow f;

	(void)state;
	make_flow(&f, 1, "up1");
	ipfix_add(x, &f);
	assert_int_equal(ipfix_close(x, 100, NULL), 0);
	parse_all(&p, &c, 0);
	assert_int_equal(p.withdrawals, 0);
	assert_int_equal(p.n_recs - p.type_records, 1);
	parse_free(&p);
	coll_free(&c);
}

/* A budget of N messages per tick; the rest continues at the next tick, in order. */
static void test_pacing_budget_resume(void **state)
{
	struct coll c = {};
	struct parse p = {};
	const struct rec **recs = calloc(3000, sizeof(*recs));
	struct ipfix_stats st;
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 4);
	int ticks = 0;

	(void)state;
	for (unsigned int i = 0; i < 3000; i++) {
		struct ipfix_flow f;

		make_flow(&f, i, "up1");
		assert_int_equal(ipfix_add(x, &f), 0);
	}
	assert_int_equal(ipfix_tick(x, T0_MS), 4);
	assert_int_equal(c.n_msgs, 4);
	ipfix_get_stats(x, &st);
	assert_true(st.queue_records > 2500);
	while (!ipfix_idle(x)) {
		int n = ipfix_tick(x, T0_MS + 1);

		assert_true(n >= 1 && n <= 4);
		ticks++;
	}
	assert_true(ticks > 50);
	parse_all(&p, &c, 0);
	assert_int_equal(flow_records(&p, recs, 3000), 3000);
	for (unsigned int i = 0; i < 3000; i++)
		assert_int_equal(get_uint(recs[i], 1, PEN), 0x100 + i);
	ipfix_close(x, 0, NULL);
	free(recs);
	parse_free(&p);
	coll_free(&c);
}

/*
 * UDP is paced by bytes: a tick sends what the rate allowed since the
 * previous one, never more than the burst at once, so that a collector's
 * receive buffer (about 90 datagrams of 1400 bytes at Linux's default) is
 * not overrun; the queue still drains at the rate, in order.
 */
static void pacing_run(__u32 max_msg, __u32 rate, __u32 burst, unsigned int n_flows, __u64 step_ms)
{
	struct coll c = {};
	struct parse p = {};
	const struct rec **recs = calloc(n_flows, sizeof(*recs));
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	size_t depth = burst > max_msg ? burst : max_msg, sent_before = 0;
	__u64 now = T0_MS, last_ms = T0_MS, eff, ideal_ms;

	ipfix_config_init(&cfg);
	cfg.pen = PEN;
	cfg.domain_id = DOMAIN;
	cfg.max_msg_bytes = max_msg;
	cfg.rate_bytes_per_s = rate;
	cfg.burst_bytes = burst;
	cfg.sink = sink;
	cfg.sink_ctx = &c;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (unsigned int i = 0; i < n_flows; i++) {
		struct ipfix_flow f;

		make_flow(&f, i, "up1");
		assert_int_equal(ipfix_add(x, &f), 0);
	}
	while (!ipfix_idle(x)) {
		ipfix_tick(x, now);
		/* Never more than the bucket at once, nor than the rate over the run. */
		assert_true(c.len - sent_before <= depth);
		assert_true(c.len <= depth + (now - T0_MS) * rate / 1000);
		if (c.len > sent_before)
			last_ms = now;
		sent_before = c.len;
		now += step_ms;
		assert_true(now - T0_MS < 3600 * 1000);
	}
	/*
	 * ... and not much slower than the rate, or than a bucket per tick
	 * when ticks are further apart than a bucket takes to fill (whole
	 * messages waste a little of each).
	 */
	eff = depth * 1000 / step_ms < rate ? depth * 1000 / step_ms : rate;
	ideal_ms = (c.len - depth) * 1000 / eff;
	assert_true(last_ms - T0_MS <= ideal_ms + ideal_ms / 4 + step_ms);
	parse_all(&p, &c, 0);
	assert_int_equal(flow_records(&p, recs, n_flows), n_flows);
	for (unsigned int i = 0; i < n_flows; i++)
		assert_int_equal(get_uint(recs[i], 1, PEN), 0x100 + i);
	ipfix_close(x, 0, NULL);
	free(recs);
	parse_free(&p);
	coll_free(&c);
}

static void test_pacing_udp_bytes(void **state)
{
	(void)state;
	/* The defaults, ticked every 10 ms as fabprobe export does. */
	pacing_run(1400, IPFIX_RATE_BYTES_DEFAULT, IPFIX_BURST_BYTES_DEFAULT, 20000, 10);
	/* Ticks far apart: still one burst at a time, not the backlog. */
	pacing_run(1400, 1000000, 20000, 5000, 250);
	/* Messages larger than the burst go one at a time. */
	pacing_run(65535, 1000000, 8192, 5000, 7);
}

/* TCP has its own flow control: its ticks are bounded by the budget in messages only. */
static void test_pacing_tcp_unpaced(void **state)
{
	struct coll c = {};
	struct ipfix_config cfg;
	struct ipfix_exporter *x;

	(void)state;
	ipfix_config_init(&cfg);
	cfg.transport = IPFIX_TCP;
	cfg.rate_bytes_per_s = 1000;
	cfg.burst_bytes = 1000;
	cfg.budget_msgs = 50;
	cfg.sink = sink;
	cfg.sink_ctx = &c;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (unsigned int i = 0; i < 3000; i++) {
		struct ipfix_flow f;

		make_flow(&f, i, "up1");
		assert_int_equal(ipfix_add(x, &f), 0);
	}
	assert_int_equal(ipfix_tick(x, T0_MS), 50);
	assert_true(c.len > 50 * 1000);
	ipfix_close(x, 0, NULL);
	coll_free(&c);
}

/* A full queue drops and counts; what was accepted goes out intact, across wraps. */
static void test_queue_overflow_counted(void **state)
{
	struct coll c = {};
	struct parse p = {};
	const struct rec **recs = calloc(20000, sizeof(*recs));
	unsigned int *accepted = calloc(20000, sizeof(*accepted));
	struct ipfix_config cfg;
	struct ipfix_stats st;
	struct ipfix_exporter *x;
	size_t n_acc = 0, dropped = 0, n;

	(void)state;
	ipfix_config_init(&cfg);
	cfg.pen = PEN;
	cfg.domain_id = DOMAIN;
	cfg.queue_bytes = 8192;
	cfg.budget_msgs = 2;
	cfg.rate_bytes_per_s = 0;
	cfg.sink = sink;
	cfg.sink_ctx = &c;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (unsigned int i = 0; i < 20000; i++) {
		struct ipfix_flow f;

		/* Paths of varying length make the records wrap at every offset. */
		char path[64];

		snprintf(path, sizeof(path), "%.*s", (int)(i % 50),
			 "path-path-path-path-path-path-path-path-path-path-");
		make_flow(&f, i, path);
		if (ipfix_add(x, &f) == 0)
			accepted[n_acc++] = i;
		else
			dropped++;
		if (i % 37 == 0)
			ipfix_tick(x, T0_MS);
	}
	while (!ipfix_idle(x))
		ipfix_tick(x, T0_MS);
	ipfix_get_stats(x, &st);
	assert_true(dropped > 1000);
	assert_int_equal(st.records_dropped, dropped);
	assert_int_equal(st.records_sent, n_acc);
	assert_int_equal(st.records_sent + st.records_dropped, 20000);
	parse_all(&p, &c, 0);
	n = flow_records(&p, recs, 20000);
	assert_int_equal(n, n_acc);
	for (size_t k = 0; k < n; k++) {
		const struct field *name = get(recs[k], 82, 0);

		assert_int_equal(get_uint(recs[k], 1, PEN), 0x100 + accepted[k]);
		assert_int_equal(name->len, accepted[k] % 50);
	}
	ipfix_close(x, 0, NULL);
	free(recs);
	free(accepted);
	parse_free(&p);
	coll_free(&c);
}

/* A socket that would block keeps the message for the next tick: nothing lost. */
static void test_would_block_retries(void **state)
{
	struct coll c = {};
	struct parse p = {};
	struct ipfix_stats st;
	struct ipfix_flow f;
	struct ipfix_exporter *x = open_sink(&c, IPFIX_UDP, 1400, 100);

	(void)state;
	make_flow(&f, 1, "up1");
	ipfix_add(x, &f);
	c.eagain_next = 1;
	assert_int_equal(ipfix_tick(x, T0_MS), 0);
	assert_int_equal(c.n_msgs, 0);
	assert_false(ipfix_idle(x));
	c.eagain_next = 0;
	assert_int_equal(ipfix_tick(x, T0_MS), 4); /* 3 control messages, then the data */
	assert_int_equal(c.n_msgs, 4);
	ipfix_get_stats(x, &st);
	assert_int_equal(st.would_block, 1);
	assert_int_equal(st.records_lost, 0);
	assert_int_equal(st.records_sent, 1);
	parse_all(&p, &c, 0);
	assert_int_equal(p.n_recs - p.type_records, 1);

	/* Any other error loses the message, counted; the next tick goes on. */
	ipfix_add(x, &f);
	ipfix_add(x, &f);
	c.fail_next = 1;
	c.fail_err = -EMSGSIZE;
	ipfix_tick(x, T0_MS);
	ipfix_get_stats(x, &st);
	assert_int_equal(st.send_errors, 1);
	assert_int_equal(st.records_lost, 2);
	ipfix_close(x, 0, NULL);
	parse_free(&p);
	coll_free(&c);
}

/* A port nobody listens on: a free port, taken and let go. */
static __u16 closed_port(int type)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return ntohs(sin.sin_port);
}

/* UDP to a port with no listener: ICMP errors come back as counted send errors. */
static void test_udp_no_listener(void **state)
{
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	struct ipfix_stats st;
	char collector[32];

	(void)state;
	snprintf(collector, sizeof(collector), "127.0.0.1:%u", closed_port(SOCK_DGRAM));
	ipfix_config_init(&cfg);
	cfg.collector = collector;
	cfg.budget_msgs = 1000;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (unsigned int i = 0; i < 200; i++) {
		struct ipfix_flow f;

		make_flow(&f, i, "up1");
		ipfix_add(x, &f);
	}
	/* A millisecond between ticks lets the ICMP errors come back. */
	for (int t = 0; t < 200 && !ipfix_idle(x); t++) {
		ipfix_tick(x, ipfix_now_ms());
		usleep(1000);
	}
	ipfix_get_stats(x, &st);
	assert_true(st.send_errors > 0);
	assert_true(st.records_lost > 0);
	/* The refused were sent, and are lost too. */
	assert_int_equal(st.records_sent + st.records_lost - st.records_refused + st.queue_records,
			 200);
	/*
	 * Nothing listens: every datagram sent draws an ICMP port unreachable
	 * (loopback answers at once), so no record was delivered. Lost counted
	 * only those whose send failed, not the sent ones the errors were for.
	 */
	ipfix_close(x, 1000, &st);
	assert_true(st.records_sent > 0);
	assert_int_equal(st.records_refused, st.records_sent);
	assert_int_equal(st.records_lost, 200);
}

/*
 * Tick at one instant until want send errors are counted, or 20 tries a
 * millisecond apart (loopback refuses at once, or by the next look at the
 * socket). Returns the count.
 */
static __u64 tick_until_errors(struct ipfix_exporter *x, __u64 now, __u64 want)
{
	struct ipfix_stats st;

	for (int i = 0; i < 20; i++) {
		ipfix_tick(x, now);
		ipfix_get_stats(x, &st);
		if (st.send_errors >= want)
			break;
		usleep(1000);
	}
	return st.send_errors;
}

/* TCP to a closed port: connect fails, counted, retried after a growing backoff. */
static void test_tcp_no_listener_backoff(void **state)
{
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	struct ipfix_stats st;
	struct ipfix_flow f;
	char collector[32];
	__u64 now = T0_MS;

	(void)state;
	snprintf(collector, sizeof(collector), "127.0.0.1:%u", closed_port(SOCK_STREAM));
	ipfix_config_init(&cfg);
	cfg.transport = IPFIX_TCP;
	cfg.collector = collector;
	cfg.backoff_max_ms = 3000;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	make_flow(&f, 1, "up1");
	ipfix_add(x, &f);
	assert_int_equal(tick_until_errors(x, now, 1), 1);
	ipfix_get_stats(x, &st);
	assert_false(st.connected);
	assert_int_equal(st.queue_records, 1); /* kept for when the collector is back */
	assert_int_equal(tick_until_errors(x, now + 999, 2), 1); /* still backing off */
	assert_int_equal(tick_until_errors(x, now + 1000, 2), 2);
	assert_int_equal(tick_until_errors(x, now + 1000 + 1999, 3), 2); /* the backoff doubled */
	assert_int_equal(tick_until_errors(x, now + 1000 + 2000, 3), 3);
	now += 3000;
	assert_int_equal(tick_until_errors(x, now + 2999, 4), 3); /* capped at 3 s, not 4 */
	assert_int_equal(tick_until_errors(x, now + 3000, 4), 4);
	now += 3000;
	assert_int_equal(tick_until_errors(x, now + 2999, 5), 4); /* and stays there */
	assert_int_equal(tick_until_errors(x, now + 3000, 5), 5);
	assert_int_equal(ipfix_close(x, 0, &st), 1);
	assert_int_equal(st.records_dropped, 1);
}

/* Read what the collector side has, without waiting. */
static void drain(struct coll *c, int fd)
{
	char buf[65536];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		sink(c, buf, n);
}

/* Split a TCP byte stream back into messages by their length fields. */
static void split_stream(struct coll *c)
{
	size_t off;

	c->n_msgs = 0;
	for (off = 0; off + 4 <= c->len; off += rd16(c->buf + off + 2)) {
		if (c->n_msgs == c->cap_msgs) {
			c->cap_msgs = c->cap_msgs * 2 + 64;
			c->msg_at = realloc(c->msg_at, c->cap_msgs * sizeof(*c->msg_at));
			assert_non_null(c->msg_at);
		}
		c->msg_at[c->n_msgs++] = off;
	}
	assert_int_equal(off, c->len);
}

/*
 * A real TCP collector: templates and data; the collector hangs up and the
 * exporter reconnects with templates again; a clean close withdraws them
 * before the end of the stream.
 */
static void test_tcp_loopback_session(void **state)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	struct coll c1 = {}, c2 = {};
	struct parse p = {};
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	struct ipfix_stats st;
	char collector[32], buf[4096];
	int lfd, afd;
	ssize_t n;

	(void)state;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
	snprintf(collector, sizeof(collector), "127.0.0.1:%u", ntohs(sin.sin_port));
	ipfix_config_init(&cfg);
	cfg.transport = IPFIX_TCP;
	cfg.collector = collector;
	cfg.pen = PEN;
	cfg.domain_id = DOMAIN;
	cfg.backoff_min_ms = 1;
	cfg.backoff_max_ms = 1;
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	for (unsigned int i = 0; i < 1000; i++) {
		struct ipfix_flow f;

		make_flow(&f, i, "up1");
		ipfix_add(x, &f);
	}
	ipfix_tick(x, ipfix_now_ms()); /* connects; the kernel completes the handshake */
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	for (int t = 0; t < 2000 && !ipfix_idle(x); t++) {
		ipfix_tick(x, ipfix_now_ms());
		drain(&c1, afd);
		usleep(500);
	}
	drain(&c1, afd);
	split_stream(&c1);
	parse_all(&p, &c1, 0);
	assert_int_equal(p.n_recs - p.type_records, 1000);
	assert_int_equal(p.templates, 8);

	/* The collector goes away: the exporter notices, counts it and reconnects. */
	close(afd);
	for (int t = 0; t < 200; t++) {
		ipfix_tick(x, ipfix_now_ms());
		ipfix_get_stats(x, &st);
		if (st.connects == 2)
			break;
		usleep(1000);
	}
	assert_int_equal(st.connects, 2);
	assert_true(st.send_errors >= 1);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	assert_int_equal(ipfix_close(x, 1000, &st), 0);
	while ((n = read(afd, buf, sizeof(buf))) > 0)
		sink(&c2, buf, n);
	split_stream(&c2);
	parse_free(&p);
	parse_all(&p, &c2, 0); /* a new stream: sequence from 0 */
	assert_int_equal(p.templates, 8);
	assert_int_equal(p.withdrawals, 8);
	assert_int_equal(p.n_recs - p.type_records, 0);
	close(afd);
	close(lfd);
	parse_free(&p);
	coll_free(&c1);
	coll_free(&c2);
}

/* ---- a flow's CNPs in a class of their own: a record apart ---- */

/* Frames of a bare IPv4 RoCE flow: an ACK (BTH, AETH, ICRC) and a CNP (IBTA A17.9.3). */
#define ACK_FRAME 62
#define CNP_FRAME 74
#define FLOW_T0	  (1000 * 1000000000ULL) /* the flows' clock at their first packet */

/*
 * The reverse direction of a queue pair: 100 ACKs in the data class (26),
 * 3 of them CE, 2 of the acknowledges NAKs, and 40 CNPs in the CNP class
 * (48, sent Not-ECT), the newest packet a CNP. Five retransmits and a PSN
 * gap besides, which a reverse flow does not have, to see where they go.
 */
static void reverse_flow(struct flow_record *r, unsigned int i)
{
	memset(r, 0, sizeof(*r));
	r->key.src[0] = 10;
	r->key.src[3] = 2;
	r->key.dst[0] = 10;
	r->key.dst[3] = 1;
	r->key.sport = 49153 + i;
	r->key.dport = 4791;
	r->key.dest_qp = 18 + i;
	r->key.ifindex = 3;
	r->c = (struct flow_counters){.packets = 140,
				      .bytes = 100 * ACK_FRAME + 40 * CNP_FRAME,
				      .ecn = {40, 0, 97, 3},
				      .cnp = 40,
				      .acks = 98,
				      .naks = 2,
				      .retransmits = 5,
				      .psn_gaps = 1,
				      .becn = 40,
				      .first_seen_ns = FLOW_T0,
				      .last_seen_ns = FLOW_T0 + 900000000ULL,
				      .dscp_mask = 1ULL << 26,
				      .dscp = 48};
	r->c.opcodes[0] = 1ULL << 0x11;		/* RC ACKNOWLEDGE */
	r->c.opcodes[2] = 1ULL << (0x81 - 128); /* CNP */
	r->cnp_dscp_mask = 1ULL << 48;
}

/* Every datagram waiting on fd, into c. */
static void recv_all(int fd, struct coll *c)
{
	static __u8 buf[65536];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		assert_int_equal(sink(c, buf, n), 0);
}

/* The value of family name in a metrics text, or -1. */
static long long metric_value(const char *text, const char *name)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", name);
	p = strstr(text, want);
	return p ? atoll(p + strlen(want)) : -1;
}

/* ss's snapshot of n flows, taken 1 s after FLOW_T0, observed as the run's last. */
static void observe_last(struct export_ipfix *xi, struct session *ss, struct flow_record *flows,
			 size_t n)
{
	ss->snap.flows = flows;
	ss->snap.n_flows = n;
	ss->snap.flow_capacity = 64;
	ss->snap.taken_ns = FLOW_T0 + 1000000000ULL;
	ss->snap.clock_offset_ns = (__s64)(T0_MS * 1000000ULL - FLOW_T0);
	export_ipfix_observe(xi, ss);
	export_ipfix_end(xi);
	export_ipfix_pump(xi);
}

/*
 * A collector on a loopback UDP port of its own, and an exporter sending to
 * it (PEN, DOMAIN): the collector's socket, which the test closes.
 */
static int local_collector(struct export_ipfix **xi, struct export_ipfix_opts *o)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rcvbuf = 1 << 20;
	char collector[32];

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(collector, sizeof(collector), "127.0.0.1:%u", ntohs(sin.sin_port));
	export_ipfix_opts_init(o);
	assert_int_equal(export_ipfix_parse(o, 0, 0, collector), 1);
	o->pen = PEN;
	o->domain_id = DOMAIN;
	assert_int_equal(export_ipfix_open(xi, o), 0);
	return fd;
}

/*
 * export --ipfix end to end over loopback UDP: a reverse flow with ACKs at
 * DSCP 26 and CNPs at 48 is two records, ipClassOfService 26 << 2 with the
 * ACKs, NAKs, CE marks, retransmits and PSN gaps, and 48 << 2 with the
 * CNPs (their frames' bytes, Not-ECT); the flow's key, QP, times, reason
 * and opcode classes on both; their counts add up to the flow's. A data
 * flow of one class stays one record. The exporter's counts of records
 * (metrics, the summary's undelivered) count all three.
 */
static void test_export_cnp_class_apart(void **state)
{
	static struct session ss;
	static struct flow_record flows[2];
	struct export_ipfix_opts o;
	struct export_ipfix *xi;
	struct coll c = {};
	struct parse p = {};
	const struct rec *recs[8], *data = NULL, *cnp = NULL, *fwd = NULL;
	char *text = NULL;
	size_t text_len = 0, n;
	FILE *mem;
	int fd;

	(void)state;
	fd = local_collector(&xi, &o);

	reverse_flow(&flows[0], 0);
	/* The data direction: 50 writes at 26, ECT(0), no CNP. */
	flows[1] = flows[0];
	flows[1].key.sport = 49152;
	flows[1].key.dest_qp = 17;
	flows[1].c = (struct flow_counters){.packets = 50,
					    .bytes = 50 * 1086,
					    .ecn = {0, 0, 50, 0},
					    .first_seen_ns = FLOW_T0,
					    .last_seen_ns = FLOW_T0 + 950000000ULL,
					    .dscp_mask = 1ULL << 26,
					    .dscp = 26};
	flows[1].c.opcodes[0] = 1ULL << 0x0A; /* RC RDMA WRITE Only */
	flows[1].cnp_dscp_mask = 0;
	memset(&ss, 0, sizeof(ss));
	ss.desc.every_packet = true;
	observe_last(xi, &ss, flows, 2);
	mem = open_memstream(&text, &text_len);
	assert_non_null(mem);
	export_ipfix_render(mem, METRICS_PROMETHEUS, xi);
	fclose(mem);
	assert_int_equal(metric_value(text, "fabprobe_ipfix_records_total"), 3);
	assert_int_equal(metric_value(text, "fabprobe_ipfix_records_waiting"), 0);
	assert_int_equal(metric_value(text, "fabprobe_ipfix_records_dropped_total"), 0);
	free(text);
	assert_int_equal(export_ipfix_close(xi, 1000), 0);

	recv_all(fd, &c);
	close(fd);
	parse_all(&p, &c, 0);
	n = flow_records(&p, recs, 8);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		__u64 tos = get_uint(recs[i], 5, 0);

		if (get_uint(recs[i], 7, 0) == 49152)
			fwd = recs[i];
		else if (tos == 26 << 2)
			data = recs[i];
		else if (tos == 48 << 2)
			cnp = recs[i];
	}
	assert_non_null(fwd);
	assert_non_null(data);
	assert_non_null(cnp);
	assert_int_equal(get_uint(fwd, 5, 0), 26 << 2);
	assert_int_equal(get_uint(fwd, 2, 0), 50);

	/* The flow on both: key, QP, direction, interface, times, reason, opcode classes. */
	assert_int_equal(memcmp(get(data, 8, 0)->val, get(cnp, 8, 0)->val, 4), 0);
	assert_int_equal(memcmp(get(data, 12, 0)->val, get(cnp, 12, 0)->val, 4), 0);
	assert_int_equal(get_uint(cnp, 7, 0), 49153);
	assert_int_equal(get_uint(cnp, 11, 0), 4791);
	assert_int_equal(get_uint(cnp, 10, 0), 3);
	assert_int_equal(get_uint(cnp, 61, 0), 0);
	assert_int_equal(get_uint(cnp, 136, 0), IPFIX_END_FORCED);
	assert_int_equal(get_uint(data, 1, PEN), 18);
	assert_int_equal(get_uint(cnp, 1, PEN), 18);
	assert_int_equal(get_uint(data, 152, 0), T0_MS);
	assert_int_equal(get_uint(cnp, 152, 0), T0_MS);
	assert_int_equal(get_uint(data, 153, 0), T0_MS + 900);
	assert_int_equal(get_uint(cnp, 153, 0), T0_MS + 900);
	assert_int_equal(get_uint(data, 2, PEN), IPFIX_OPC_ACK | IPFIX_OPC_CNP);
	assert_int_equal(get_uint(cnp, 2, PEN), IPFIX_OPC_ACK | IPFIX_OPC_CNP);

	/* The data class: ACKs, NAKs, CE, retransmits, PSN gaps. */
	assert_int_equal(get_uint(data, 2, 0), 100);
	assert_int_equal(get_uint(data, 1, 0), 100 * ACK_FRAME);
	assert_int_equal(get_uint(data, 3, PEN), 0);  /* Not-ECT */
	assert_int_equal(get_uint(data, 4, PEN), 97); /* ECT(0) */
	assert_int_equal(get_uint(data, 5, PEN), 0);  /* ECT(1) */
	assert_int_equal(get_uint(data, 6, PEN), 3);  /* CE */
	assert_int_equal(get_uint(data, 7, PEN), 0);  /* CNPs */
	assert_int_equal(get_uint(data, 8, PEN), 98);
	assert_int_equal(get_uint(data, 9, PEN), 2);
	assert_int_equal(get_uint(data, 11, PEN), 5);
	assert_int_equal(get_uint(data, 12, PEN), 1);

	/* The CNP class: the CNPs alone, Not-ECT. */
	assert_int_equal(get_uint(cnp, 2, 0), 40);
	assert_int_equal(get_uint(cnp, 1, 0), 40 * CNP_FRAME);
	assert_int_equal(get_uint(cnp, 3, PEN), 40);
	assert_int_equal(get_uint(cnp, 4, PEN), 0);
	assert_int_equal(get_uint(cnp, 5, PEN), 0);
	assert_int_equal(get_uint(cnp, 6, PEN), 0);
	assert_int_equal(get_uint(cnp, 7, PEN), 40);
	assert_int_equal(get_uint(cnp, 8, PEN), 0);
	assert_int_equal(get_uint(cnp, 9, PEN), 0);
	assert_int_equal(get_uint(cnp, 11, PEN), 0);
	assert_int_equal(get_uint(cnp, 12, PEN), 0);
	parse_free(&p);
	coll_free(&c);
}

/*
 * export --ipfix of sFlow: a sample's point is the switch's output port.
 * The record names that port by the switch's own ifIndex, in
 * egressInterface (flowDirection egress), never by fabprobe's point id
 * (a collector would read it as one of the switch's ifIndexes); a point
 * that is no port (the agent itself, dropped) has none: 0 in both.
 */
static void test_export_sflow_interfaces(void **state)
{
	static struct session ss;
	static struct flow_record flows[2];
	static struct obs_point points[2];
	struct export_ipfix_opts o;
	struct export_ipfix *xi;
	struct coll c = {};
	struct parse p = {};
	const struct rec *recs[4];
	int fd;

	(void)state;
	fd = local_collector(&xi, &o);

	/* Point 1: leaf1's uplink, ifIndex 49; point 2: the agent itself. */
	points[0] =
	    (struct obs_point){.id = 1, .name = "leaf1:spine1", .uplink = true, .port_ifindex = 49};
	points[1] = (struct obs_point){.id = 2, .name = "192.0.2.1:internal"};
	for (int i = 0; i < 2; i++) {
		reverse_flow(&flows[i], i);
		flows[i].key.ifindex = i + 1;
		/* As the sFlow source keys a sample: egress at its point (replay_egress). */
		flows[i].key.dir = FP_DIR_EGRESS;
		flows[i].cnp_dscp_mask = 0;
		flows[i].c.dscp_mask = 1ULL << 26;
		flows[i].c.dscp = 26;
		flows[i].samples = 10;
		flows[i].rate = 14;
	}
	memset(&ss, 0, sizeof(ss));
	ss.desc.every_packet = false;
	ss.desc.points = points;
	ss.desc.n_points = 2;
	observe_last(xi, &ss, flows, 2);
	assert_int_equal(export_ipfix_close(xi, 1000), 0);

	recv_all(fd, &c);
	close(fd);
	parse_all(&p, &c, 0);
	assert_int_equal(flow_records(&p, recs, 4), 2);
	for (int i = 0; i < 2; i++) {
		bool uplink = get_uint(recs[i], 7, 0) == 49153;

		assert_int_equal(get_uint(recs[i], 14, PEN), 14); /* fabprobeSamplingRate */
		assert_int_equal(get_uint(recs[i], 10, 0), 0);	  /* ingressInterface */
		assert_int_equal(get_uint(recs[i], 14, 0), uplink ? 49 : 0);
		assert_int_equal(get_uint(recs[i], 61, 0), 1); /* flowDirection: egress */
	}
	parse_free(&p);
	coll_free(&c);
}

/* A collector for flow_export's records; refuses past take (<0: takes all). */
struct taker {
	struct flow_export_record r[16];
	int n, take;
};

static int take_rec(void *ctx, const struct flow_export_record *r)
{
	struct taker *t = ctx;

	if (t->take >= 0 && t->n >= t->take)
		return -ENOBUFS;
	assert_true(t->n < 16);
	t->r[t->n] = *r;
	t->r[t->n].key = NULL;
	t->r[t->n].last = NULL;
	t->n++;
	return 0;
}

/*
 * The two records of a flow count as two wherever records are counted:
 * due, taken, given up. Refused between them, the flow keeps its CNPs'
 * counts for a later record, in their class. Sampled input shares the
 * samples in proportion, so each record's rate is the flow's.
 */
static void test_flow_export_cnp_class_apart(void **state)
{
	static struct flow_record flows[2];
	struct snapshot s = {.flows = flows, .flow_capacity = 64};
	struct taker t = {.take = 1};
	struct flow_export fx;
	struct flow_export_stats st;
	__u32 rate;
	__u64 samples;

	(void)state;
	reverse_flow(&flows[0], 0);
	reverse_flow(&flows[1], 1);
	/* sFlow-fed: the 140 packets are 14 samples at one in 10. */
	flows[1].samples = 14;
	flows[1].rate = 10;
	flow_export_init(&fx, 10 * 1000000000ULL, 10 * 1000000000ULL, 1);
	s.n_flows = 1;
	s.taken_ns = FLOW_T0 + 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	flow_export_force(&fx);
	assert_int_equal(flow_export_due(&fx), 2);
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 1);
	assert_int_equal(t.r[0].dscp, 26);
	assert_int_equal(t.r[0].delta.v[FX_PACKETS], 100);
	assert_int_equal(flow_export_due(&fx), 1);
	t.take = -1;
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 1);
	assert_int_equal(t.r[1].dscp, 48);
	assert_int_equal(t.r[1].delta.v[FX_PACKETS], 40);
	assert_int_equal(t.r[1].delta.v[FX_CNP], 40);
	assert_int_equal(t.r[1].delta.v[FX_BYTES], 40 * CNP_FRAME);
	assert_int_equal(t.r[1].reason, FLOW_END_FORCED);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.due, 0);

	/* Then 10 ACKs alone, the newest an ACK: one record, in the data class. */
	flows[0].c.packets += 10;
	flows[0].c.bytes += 10 * ACK_FRAME;
	flows[0].c.ecn[2] += 10;
	flows[0].c.acks += 10;
	flows[0].c.dscp = 26;
	flows[0].c.last_seen_ns += 1000000000ULL;
	s.taken_ns += 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	flow_export_force(&fx);
	assert_int_equal(flow_export_due(&fx), 1);
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 1);
	assert_int_equal(t.r[2].dscp, 26);
	assert_int_equal(t.r[2].delta.v[FX_PACKETS], 10);

	/* Both flows leave the table and wait; past max_waiting (1), one is given up: two records.
	 */
	s.n_flows = 2;
	flows[0].c.packets += 140;
	flows[0].c.bytes += 100 * ACK_FRAME + 40 * CNP_FRAME;
	flows[0].c.cnp += 40;
	flows[0].c.acks += 100;
	flows[0].c.ecn[0] += 40;
	flows[0].c.ecn[2] += 100;
	flows[0].c.dscp = 48;
	s.taken_ns += 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	s.n_flows = 0;
	s.taken_ns += 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	assert_int_equal(flow_export_due(&fx), 4);
	t.take = t.n;
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 0);
	s.taken_ns += 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.dropped_packets, 140);
	assert_int_equal(st.due, 2);

	/* The sampled flow kept: 10 samples behind its ACKs, 4 behind its CNPs. */
	t.take = -1;
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 2);
	assert_int_equal(t.r[3].dscp, 26);
	assert_int_equal(t.r[4].dscp, 48);
	flow_export_sampling(&t.r[3], &rate, &samples);
	assert_int_equal(samples, 10);
	assert_int_equal(rate, 10);
	flow_export_sampling(&t.r[4], &rate, &samples);
	assert_int_equal(samples, 4);
	assert_int_equal(rate, 10);
	flow_export_free(&fx);
}

/* A flow's opcode set as roceOpcodeClasses. */
static void test_opcode_classes(void **state)
{
	__u64 ops[4] = {};

	(void)state;
	assert_int_equal(ipfix_opcode_classes(ops), 0);
	ops[0] |= 1ULL << 0x0A;		/* RC WRITE ONLY */
	ops[0] |= 1ULL << 0x11;		/* RC ACKNOWLEDGE */
	ops[1] |= 1ULL << (0x64 - 64);	/* UD SEND ONLY */
	ops[2] |= 1ULL << (0x81 - 128); /* CNP */
	assert_int_equal(ipfix_opcode_classes(ops),
			 IPFIX_OPC_WRITE | IPFIX_OPC_ACK | IPFIX_OPC_SEND | IPFIX_OPC_CNP);
	memset(ops, 0, sizeof(ops));
	ops[0] |= 1ULL << 0x0C;		/* READ request */
	ops[0] |= 1ULL << 0x10;		/* READ response only */
	ops[0] |= 1ULL << 0x13;		/* compare-swap */
	ops[3] |= 1ULL << (0xC0 - 192); /* manufacturer-specific */
	assert_int_equal(ipfix_opcode_classes(ops), IPFIX_OPC_READ_REQ | IPFIX_OPC_READ_RESP |
							IPFIX_OPC_ATOMIC | IPFIX_OPC_OTHER);
}

static bool ipv6_loopback(void)
{
	struct sockaddr_in6 sin6 = {
	    .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT, .sin6_port = htons(4739)};
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);
	bool ok = fd >= 0 && !connect(fd, (struct sockaddr *)&sin6, sizeof(sin6));

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Collector addresses and sizes that cannot work are refused at open. */
static void test_bad_config(void **state)
{
	struct ipfix_config cfg;
	struct ipfix_exporter *x;

	(void)state;
	ipfix_config_init(&cfg);
	cfg.collector = "127.0.0.1:4739";
	cfg.max_msg_bytes = 200;
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	cfg.max_msg_bytes = 70000;
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	cfg.max_msg_bytes = 1400;
	cfg.collector = "127.0.0.1:port";
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	cfg.collector = "[::1:4739";
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	cfg.collector = "127.0.0.1:70000";
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	cfg.collector = NULL;
	assert_int_equal(ipfix_open(&x, &cfg), -EINVAL);
	if (ipv6_loopback()) {
		cfg.collector = "[::1]:4739";
		assert_int_equal(ipfix_open(&x, &cfg), 0);
		ipfix_close(x, 0, NULL);
	}
	cfg.collector = "127.0.0.1";
	assert_int_equal(ipfix_open(&x, &cfg), 0);
	ipfix_close(x, 0, NULL);
}

/*
 * A flow evicted and back before its record: the pending counts are both
 * incarnations', and keep both's classes. The first sent ACKs (26) and
 * CNPs (48); the second, so far, ACKs alone: still two records, the old
 * CNPs in 48 (they went out with the ACKs, in 26).
 */
static void test_flow_export_classes_across_incarnations(void **state)
{
	static struct flow_record flows[1];
	struct snapshot s = {.flows = flows, .flow_capacity = 64, .n_flows = 1};
	struct taker t = {.take = -1};
	struct flow_export fx;

	(void)state;
	reverse_flow(&flows[0], 0);
	flow_export_init(&fx, 10 * 1000000000ULL, 10 * 1000000000ULL, 16);
	s.taken_ns = FLOW_T0 + 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	/* Evicted and inserted again: a later first packet, 20 ACKs so far. */
	flows[0].c = (struct flow_counters){.packets = 20,
					    .bytes = 20 * ACK_FRAME,
					    .ecn = {0, 0, 20, 0},
					    .acks = 20,
					    .first_seen_ns = FLOW_T0 + 1500000000ULL,
					    .last_seen_ns = FLOW_T0 + 1900000000ULL,
					    .dscp_mask = 1ULL << 26,
					    .dscp = 26};
	flows[0].c.opcodes[0] = 1ULL << 0x11;
	flows[0].cnp_dscp_mask = 0;
	s.taken_ns += 1000000000ULL;
	assert_int_equal(flow_export_observe(&fx, &s), 0);
	flow_export_force(&fx);
	assert_int_equal(flow_export_due(&fx), 2);
	assert_int_equal(flow_export_emit(&fx, take_rec, &t), 2);
	assert_int_equal(t.r[0].dscp, 26);
	assert_int_equal(t.r[0].delta.v[FX_PACKETS], 100 + 20);
	assert_int_equal(t.r[0].delta.v[FX_CNP], 0);
	assert_int_equal(t.r[1].dscp, 48);
	assert_int_equal(t.r[1].delta.v[FX_CNP], 40);
	assert_int_equal(t.r[1].delta.v[FX_PACKETS], 40);
	flow_export_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_varlen_encoding),
	    cmocka_unit_test(test_varlen_in_records),
	    cmocka_unit_test(test_string_truncation),
	    cmocka_unit_test(test_header_and_templates),
	    cmocka_unit_test(test_record_values),
	    cmocka_unit_test(test_sequence_numbers),
	    cmocka_unit_test(test_mtu_never_exceeded),
	    cmocka_unit_test(test_template_refresh_udp),
	    cmocka_unit_test(test_tcp_templates_and_withdrawal),
	    cmocka_unit_test(test_udp_close_no_withdrawal),
	    cmocka_unit_test(test_pacing_budget_resume),
	    cmocka_unit_test(test_pacing_udp_bytes),
	    cmocka_unit_test(test_pacing_tcp_unpaced),
	    cmocka_unit_test(test_queue_overflow_counted),
	    cmocka_unit_test(test_would_block_retries),
	    cmocka_unit_test(test_udp_no_listener),
	    cmocka_unit_test(test_tcp_no_listener_backoff),
	    cmocka_unit_test(test_tcp_loopback_session),
	    cmocka_unit_test(test_export_cnp_class_apart),
	    cmocka_unit_test(test_export_sflow_interfaces),
	    cmocka_unit_test(test_flow_export_cnp_class_apart),
	    cmocka_unit_test(test_flow_export_classes_across_incarnations),
	    cmocka_unit_test(test_opcode_classes),
	    cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests_name("ipfix", tests, NULL, NULL);
}
