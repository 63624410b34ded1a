// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/buf.h"
#include "probe/collect.h"
#include "fabprobe.skel.h"
#include "util/log.h"
#include "probe/probe.h"

/* Keys per batch call: large enough that one hash bucket always fits. */
#define COLLECT_BATCH 4096

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static size_t percpu_stride(size_t value_size)
{
	/* The kernel lays per-CPU values out 8-byte aligned. */
	return (value_size + 7) & ~(size_t)7;
}

void totals_sum(__u64 out[FP_CNT_MAX], const void *percpu, int ncpus, size_t stride)
{
	memset(out, 0, sizeof(__u64) * FP_CNT_MAX);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct fp_totals *t = (const void *)((const char *)percpu + cpu * stride);

		for (int i = 0; i < FP_CNT_MAX; i++)
			out[i] += t->cnt[i];
	}
}

void flow_counters_read(struct flow_counters *out, const struct flow_counters *map)
{
	*out = *map;
	/* Every packet counts in exactly one ECN codepoint: the kernel keeps no packets. */
	out->packets = map->ecn[0] + map->ecn[1] + map->ecn[2] + map->ecn[3];
}

/* n entries of one table: keys of key_size bytes (flow_key4 or flow_key), widened. */
static int add_flows(struct snapshot *s, const void *keys, size_t key_size,
		     const struct flow_counters *values, size_t n)
{
	int err = buf_grow((void **)&s->flows, &s->cap, s->n_flows + n, sizeof(*s->flows));

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct flow_record *r = &s->flows[s->n_flows++];
		const void *k = (const char *)keys + i * key_size;

		if (key_size == sizeof(struct flow_key4))
			fp_key_from4(&r->key, k);
		else
			memcpy(&r->key, k, sizeof(r->key));
		r->samples = 0;
		r->rate = 0;
		flow_counters_read(&r->c, &values[i]);
	}
	return 0;
}

/* bpf_map_lookup_batch, as bcc's libbpf-tools map_helpers do. */
static int read_flows_batch(int fd, size_t key_size, struct snapshot *s, void *keys,
			    struct flow_counters *values)
{
	__u64 token[16];
	void *in = NULL;
	int err;

	for (;;) {
		__u32 count = COLLECT_BATCH;

		err = bpf_map_lookup_batch(fd, in, token, keys, values, &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		if (count) {
			int aerr = add_flows(s, keys, key_size, values, count);

			if (aerr)
				return aerr;
		}
		if (err)
			return 0; /* ENOENT: the whole map has been read */
		in = token;
	}
}

/* Fallback for kernels without batch ops on this map type. */
static int read_flows_iter(int fd, size_t key_size, struct snapshot *s,
			   struct flow_counters *values)
{
	struct flow_key keys[2]; /* this key and the last; either table's fits */
	const struct flow_key *prev = NULL;
	int err, cur = 0;

	while (!bpf_map_get_next_key(fd, prev, &keys[cur])) {
		if (bpf_map_lookup_elem(fd, &keys[cur], values) == 0) {
			err = add_flows(s, &keys[cur], key_size, values, 1);
			if (err)
				return err;
		}
		prev = &keys[cur];
		cur = !cur;
	}
	return 0;
}

enum read_mode {
	READ_AUTO,  /* batch, falling back to per-key iteration */
	READ_BATCH, /* batch only */
	READ_ITER,  /* per-key iteration only */
};

/*
 * The buffers the kernel fills, allocated once per snapshot rather than at
 * every read. calloc, not malloc: tools such as valgrind do not know that
 * BPF_MAP_LOOKUP_BATCH writes them.
 */
static int batch_buffers(struct snapshot *s, int ncpus)
{
	if (!s->batch_keys)
		s->batch_keys = calloc(COLLECT_BATCH, sizeof(*s->batch_keys));
	if (!s->batch_values)
		s->batch_values = calloc(COLLECT_BATCH, sizeof(struct flow_counters));
	if (!s->totals_values)
		s->totals_values = calloc(ncpus, percpu_stride(sizeof(struct fp_totals)));
	return s->batch_keys && s->batch_values && s->totals_values ? 0 : -ENOMEM;
}

static int read_table(int fd, size_t key_size, struct snapshot *s, enum read_mode mode)
{
	size_t before = s->n_flows;
	int err;

	if (mode == READ_ITER)
		return read_flows_iter(fd, key_size, s, s->batch_values);
	err = read_flows_batch(fd, key_size, s, s->batch_keys, s->batch_values);
	if (mode == READ_AUTO && (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP)) {
		s->n_flows = before;
		err = read_flows_iter(fd, key_size, s, s->batch_values);
	}
	return err;
}

/* The IPv4 table, then the IPv6 one: a table read twice keeps its order. */
static int read_flows(struct probe *p, struct snapshot *s, enum read_mode mode)
{
	int err;

	s->n_flows = 0;
	err = batch_buffers(s, p->ncpus);
	if (!err)
		err = read_table(bpf_map__fd(p->skel->maps.fp_flows4), sizeof(struct flow_key4), s,
				 mode);
	if (!err)
		err = read_table(bpf_map__fd(p->skel->maps.fp_flows6), sizeof(struct flow_key), s,
				 mode);
	if (err)
		fp_err("cannot read the flow table: %s", fp_strerror(err));
	return err;
}

/*
 * The totals and the flows are not read in one instant, so inserts minus
 * flows present can dip; evictions only grow, so keep the highest.
 */
void snapshot_flow_totals(struct snapshot *s)
{
	__u64 inserted = s->totals[FP_CNT_FLOW_NEW];
	__u64 evicted = inserted > s->n_flows ? inserted - s->n_flows : 0;

	s->totals[SNAP_CNT_FLOWS] = s->n_flows;
	s->totals[SNAP_CNT_FLOW_CAPACITY] = s->flow_capacity;
	if (evicted > s->totals[SNAP_CNT_EVICTIONS])
		s->totals[SNAP_CNT_EVICTIONS] = evicted;
}

int collect_snapshot(struct probe *p, struct snapshot *s)
{
	size_t tstride = percpu_stride(sizeof(struct fp_totals));
	int ncpus = p->ncpus, err;
	__u32 zero = 0;

	s->n_flows = 0;
	s->flow_capacity = p->flow_entries + p->flow6_entries;
	s->flow_capacity6 = p->flow6_entries;
	s->taken_ns = clock_ns(CLOCK_MONOTONIC);
	s->clock_offset_ns = p->replay ? 0 : (__s64)(clock_ns(CLOCK_REALTIME) - s->taken_ns);

	err = batch_buffers(s, ncpus);
	if (err)
		return err;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.fp_totals), &zero, s->totals_values)) {
		err = -errno;
		fp_err("cannot read the counters map: %s", fp_strerror(err));
		return err;
	}
	totals_sum(s->totals, s->totals_values, ncpus, tstride);
	err = read_flows(p, s, READ_AUTO);
	if (!err)
		snapshot_flow_totals(s);
	return err;
}

int collect_flows_mode(struct probe *p, struct snapshot *s, bool batch)
{
	return read_flows(p, s, batch ? READ_BATCH : READ_ITER);
}

void snapshot_free(struct snapshot *s)
{
	free(s->flows);
	free(s->batch_keys);
	free(s->batch_values);
	free(s->totals_values);
	memset(s, 0, sizeof(*s));
}

static int cmp_bytes_desc(const void *a, const void *b)
{
	const struct flow_record *x = a, *y = b;

	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

void snapshot_sort_by_bytes(struct snapshot *s)
{
	if (s->n_flows > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(s->flows, s->n_flows, sizeof(*s->flows), cmp_bytes_desc);
}
