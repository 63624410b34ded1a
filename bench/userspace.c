// SPDX-License-Identifier: GPL-2.0
/*
 * userspace.c - the userspace side at scale, and what the maps cost.
 *
 *   userspace scale N [N...]   fill a table of N flows from userspace, as
 *                              the program places them (the slot table in
 *                              place, fp_flows4 by bpf_map_update_batch),
 *                              then time reading it (fp_flows4 batched and
 *                              key by key),
 *                              analysis_update, and at 100k flows the
 *                              exporter's render (metrics_render); and
 *                              the kernel's walk of fp_flows4 alone, a
 *                              BPF iterator (walk.bpf.c) that copies out
 *                              nothing, or every flow; and two floors: one
 *                              memcpy of every record, one load per cache
 *                              line of the slot table; and the dashboard's
 *                              sort of its Flows view by RATE, by key and
 *                              by qsort_r, and its QPs view built and
 *                              sorted with byte order shuffled
 *   userspace memory N [N...]  load the probe with --flows N and report
 *                              `bpftool map show` memlock per map
 *   userspace placement N [N...] no BPF: how --flows N's slot table takes
 *                              80%, 95% and 100% of N flows (make_key's):
 *                              one bucket a flow (the program before part
 *                              27), two with first fit (the program now)
 *                              and, as a study, the emptier of the two
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/analysis.h"
#include "core/flow_export.h"
#include "core/joins.h"
#include "bench.h"
#include "probe/collect.h"
#include "probe/par.h"
#include "fabprobe.skel.h"
#include "render/metrics.h"
#include "probe/probe.h"
#include "render/report.h"
#include "top/ui.h"
#include "walk.skel.h"

#define FILL_BATCH 8192

static void make_key(struct flow_key *k, __u32 i)
{
	memset(k, 0, sizeof(*k));
	k->src[0] = 10;
	k->src[1] = 1 + (i >> 16 & 0x3f);
	k->src[2] = i >> 8;
	k->src[3] = i;
	k->dst[0] = 10;
	k->dst[1] = 128 + (i >> 16 & 0x3f);
	k->dst[2] = i >> 8;
	k->dst[3] = i;
	k->sport = 49152 + (i * 7 & 0x3fff);
	k->dport = 4791;
	k->dest_qp = 0x100 + i;
	k->ifindex = 1 + (i & 1); /* two uplinks */
	if (i % 8 == 0) {
		k->flags = FP_FLOW_VXLAN;
		k->vni = 5000 + i % 64;
		memcpy(k->inner_src, k->src, 4);
		memcpy(k->inner_dst, k->dst, 4);
		k->inner_sport = k->sport;
		k->inner_dport = 4791;
	}
}

/* Plausible counters; `round` moves them on. */
static void make_value(struct flow_counters *c, __u32 i, __u64 round)
{
	bool ack = i % 4 == 3;
	__u8 op = ack ? FP_OP_ACK : FP_OP_WRITE_ONLY;

	memset(c, 0, sizeof(*c));
	c->packets = 1000 + i % 5000 + round * (i % 97);
	c->bytes = c->packets * (ack ? 62 : 1078);
	c->ecn[2] = c->packets - c->packets / 64;
	c->ecn[3] = c->packets / 64;
	c->acks = ack ? c->packets : 0;
	c->cnp = i % 16 == 5 ? c->packets / 100 : 0;
	c->first_seen_ns = 1000000000ULL;
	c->last_seen_ns = 2000000000ULL + round * 1000000000ULL;
	c->opcodes[0] = 1ULL << op;
	c->dscp = 26;
	c->dscp_mask = 1ULL << 26;
	c->last_opcode = op;
}

/* make_key's flow i as the IPv4 table (fp_flows4, every flow here) holds it. */
static void make_key4(struct flow_key4 *k4, __u32 i)
{
	struct flow_key k;

	make_key(&k, i);
	fp_key4_from(k4, &k);
}

/*
 * Where each flow of make_key's numbering is: placed as the program places
 * it (flows.h, slot_account): its slot if it has one, else its fp_flows4
 * entry, else the first free slot of its first bucket, then of its
 * second, else fp_flows4.
 */
enum { IN_NONE, IN_SLOT, IN_LRU };
static __u8 *where;
static size_t where_n;

static int where_grow(__u32 n)
{
	if (n <= where_n)
		return 0;
	where = realloc(where, n);
	if (!where)
		return -ENOMEM;
	memset(where + where_n, IN_NONE, n - where_n);
	where_n = n;
	return 0;
}

/* k4's way in bucket b, or -1; *vacant gets the first free way (left as it is if none). */
static int way_of(const struct fp_slot_bucket *b, const struct flow_key4 *k4, __u64 tag,
		  int *vacant)
{
	for (int i = 0; i < FP_SLOT_WAYS; i++) {
		if (b->tag[i] == tag && !memcmp(&b->slot[i].key, k4, sizeof(*k4)))
			return i;
		if (b->tag[i] == FP_SLOT_FREE && *vacant < 0)
			*vacant = i;
	}
	return -1;
}

/*
 * k4's way in its bucket *bk, its first or its second (claimed for it, in
 * the first with room, if it has none and claim), or -1.
 */
static int slot_of(struct probe *p, const struct flow_key4 *k4, bool claim,
		   struct fp_slot_bucket **bk)
{
	__u64 tag = fp_slot_tag(fp_key4_hash(k4), p->slot_tag_mask);
	struct fp_slot_bucket *b[2];
	int way = -1, vacant[2] = {-1, -1};

	if (!p->slots)
		return -1;
	b[0] = &p->slots[fp_slot_bucket_of(tag, p->slot_buckets)];
	b[1] = &p->slots[fp_slot_bucket2_of(tag, p->slot_buckets)];
	for (int j = 0; j < 2 && way < 0; j++) {
		*bk = b[j];
		way = way_of(b[j], k4, tag, &vacant[j]);
	}
	if (way >= 0 || !claim)
		return way;
	for (int j = 0; j < 2 && way < 0; j++) {
		*bk = b[j];
		way = vacant[j];
	}
	if (way < 0)
		return -1;
	(*bk)->slot[way].key = *k4;
	(*bk)->tag[way] = tag;
	return way;
}

/* Write flows first .. first + n - 1 (make_key's numbering) with round's counters. */
static int fill_range(struct probe *p, __u32 first, __u32 n, __u64 round)
{
	int fd = bpf_map__fd(p->skel->maps.fp_flows4), err = where_grow(first + n);
	struct flow_key4 *keys = calloc(FILL_BATCH, sizeof(*keys));
	struct flow_counters *vals = calloc(FILL_BATCH, sizeof(*vals));
	__u32 count = 0;

	if (!keys || !vals)
		err = -ENOMEM;
	for (__u32 i = first; i < first + n && !err; i++) {
		struct fp_slot_bucket *bk;
		int way;

		make_key4(&keys[count], i);
		way = where[i] == IN_LRU ? -1 : slot_of(p, &keys[count], true, &bk);
		if (way >= 0) {
			make_value(&bk->slot[way].c, i, round);
			where[i] = IN_SLOT;
			continue;
		}
		make_value(&vals[count], i, round);
		where[i] = IN_LRU;
		if (++count == FILL_BATCH || i == first + n - 1) {
			if (bpf_map_update_batch(fd, keys, vals, &count, NULL))
				err = -errno;
			count = 0;
		}
	}
	if (count && !err && bpf_map_update_batch(fd, keys, vals, &count, NULL))
		err = -errno;
	free(keys);
	free(vals);
	return err;
}

static int fill(struct probe *p, __u32 n, __u64 round)
{
	return fill_range(p, 0, n, round);
}

/* Flows first .. first + n - 1 leave the table. */
static int drop_range(struct probe *p, __u32 first, __u32 n)
{
	int fd = bpf_map__fd(p->skel->maps.fp_flows4);
	struct flow_key4 k;

	for (__u32 i = first; i < first + n; i++) {
		struct fp_slot_bucket *bk;
		int way;

		make_key4(&k, i);
		way = where[i] == IN_SLOT ? slot_of(p, &k, false, &bk) : -1;
		if (way >= 0) {
			bk->tag[way] = FP_SLOT_FREE;
			memset(&bk->slot[way], 0, sizeof(bk->slot[way]));
		} else if (bpf_map_delete_elem(fd, &k)) {
			return -errno;
		}
		where[i] = IN_NONE;
	}
	return 0;
}

/* Flows in fp_flows4 (the rest are in slots). */
static __u32 lru_flows(void)
{
	__u32 n = 0;

	for (size_t i = 0; i < where_n; i++)
		n += where[i] == IN_LRU;
	return n;
}

static double ms_since(__u64 t0)
{
	return (bench_now_ns() - t0) / 1e6;
}

static int load(struct probe *p, __u32 flows)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;

	opts.replay = true;
	opts.hooks = PROBE_HOOK_XDP;
	opts.flow_entries = flows;
	memset(p, 0, sizeof(*p));
	return probe_load(p, &opts);
}

static void label(char *out, size_t len, __u32 n)
{
	if (n >= 1000000 && n % 1000000 == 0)
		snprintf(out, len, "%uM", n / 1000000);
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(out, len, "%uk", n / 1000);
	else
		snprintf(out, len, "%u", n);
}

/*
 * ms to walk fp_flows4 with walk.bpf.c's iterator, copying out the flows
 * last seen after since (UINT64_MAX: none); *flows gets how many it did.
 */
static double walk_ms(struct walk_bpf *w, struct bpf_link *link, __u64 since, __u64 *flows)
{
	static char buf[1 << 20];
	__u64 t0, bytes = 0;
	ssize_t rd;
	int fd;

	w->bss->since = since;
	t0 = bench_now_ns();
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -1;
	while ((rd = read(fd, buf, sizeof(buf))) > 0)
		bytes += rd;
	close(fd);
	/* Bytes, not the program's count: a flow that overflows a read runs again in the next. */
	*flows = bytes / (sizeof(struct flow_key4) + sizeof(struct flow_counters));
	return rd < 0 ? -1 : ms_since(t0);
}

/* The walk rows: the floor under any read of n flows, and the walk that copies them all. */
static int walk_rows(struct probe *p, __u32 n, int trials, double collect_ms)
{
	union bpf_iter_link_info li = {.map.map_fd = bpf_map__fd(p->skel->maps.fp_flows4)};
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));
	double none[16], all[16];
	char lab[16], fig[96], v[64], b[64], vs[64];
	struct walk_bpf *w = walk_bpf__open_and_load();
	struct bpf_link *link;
	__u64 got = 0;
	int err = 0;

	label(lab, sizeof(lab), n);
	if (!w) {
		/* Some kernels refuse tracing programs (EPERM): the rest still measures. */
		fprintf(stderr, "userspace: %s flows: no walk rows: cannot load the iterator: %s\n",
			lab, strerror(errno));
		return 0;
	}
	link = bpf_program__attach_iter(w->progs.walk_flows4, &o);
	if (!link) {
		err = -errno;
		goto out;
	}
	for (int t = 0; t < trials && !err; t++) {
		none[t] = walk_ms(w, link, UINT64_MAX, &got);
		if (none[t] < 0 || got)
			err = -EIO;
		all[t] = walk_ms(w, link, 0, &got);
		if (all[t] < 0 || got != n)
			err = -EIO;
	}
	if (!err) {
		double nm = bench_median(none, trials), am = bench_median(all, trials);

		snprintf(fig, sizeof(fig),
			 "%s flows in fp_flows4: kernel's walk alone (BPF iterator, none out)",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", nm);
		snprintf(b, sizeof(b), "%.1f ms the whole collect", collect_ms);
		snprintf(vs, sizeof(vs), "%.0f%% of the collect", 100 * nm / collect_ms);
		bench_row("userspace", fig, v, b, vs, "-", "-");
		snprintf(fig, sizeof(fig), "%s flows in fp_flows4: BPF iterator, every flow out",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", am);
		snprintf(vs, sizeof(vs), "%.0f%% of the collect", 100 * am / collect_ms);
		bench_row("userspace", fig, v, b, vs, "-", "-");
	}
	bpf_link__destroy(link);
out:
	walk_bpf__destroy(w);
	return err;
}

/*
 * The floor under any refresh that copies every flow into a snapshot, as
 * collect does (and the sort's gather does again): one memcpy of the
 * records into memory already faulted in. Beside it, one load per cache
 * line of the slot table, the least a read in place of every slot costs.
 * A floor is the fastest of FLOOR_PASSES: on the VM of BENCHMARKS.md the
 * first passes of a process over memory it has not used for a while are
 * 10 to 100 times slower than the rest, with no page fault in them (part
 * 35), so a median of three was a cold pass's time.
 */
#define FLOOR_PASSES 6

static int floor_rows(const struct probe *p, const struct snapshot *s, const char *lab)
{
	size_t bytes = s->n_flows * sizeof(*s->flows);
	size_t slot_bytes = (size_t)p->slot_buckets * sizeof(*p->slots);
	double copy_ms[FLOOR_PASSES], sweep_ms[FLOOR_PASSES];
	char fig[96], v[64], vs[64];
	__u8 *to = malloc(bytes);
	__u64 t0;

	if (!to)
		return -ENOMEM;
	memset(to, 0, bytes);
	for (int t = 0; t < FLOOR_PASSES; t++) {
		const volatile __u8 *at = (const void *)p->slots;
		__u64 sum = 0;

		t0 = bench_now_ns();
		memcpy(to, s->flows, bytes);
		__asm__ volatile("" : : "r"(to) : "memory"); /* the copy is used */
		copy_ms[t] = ms_since(t0);
		t0 = bench_now_ns();
		for (size_t i = 0; i < slot_bytes; i += 64)
			sum += at[i];
		sweep_ms[t] = ms_since(t0);
		__asm__ volatile("" : : "r"(sum)); /* so are the loads */
	}
	free(to);
	snprintf(fig, sizeof(fig),
		 "%s flows: floor, every record copied once (memcpy, fastest of %d)", lab,
		 FLOOR_PASSES);
	snprintf(v, sizeof(v), "%.1f ms", bench_min(copy_ms, FLOOR_PASSES));
	snprintf(vs, sizeof(vs), "%zu B a record, %.0f MB; first pass %.1f ms", sizeof(*s->flows),
		 bytes / 1e6, copy_ms[0]);
	bench_row("userspace", fig, v, "-", vs, "-", "-");
	snprintf(fig, sizeof(fig),
		 "%s flows: floor, the slot table read in place (a load a line, fastest of %d)",
		 lab, FLOOR_PASSES);
	snprintf(v, sizeof(v), "%.1f ms", bench_min(sweep_ms, FLOOR_PASSES));
	snprintf(vs, sizeof(vs), "%.0f MB of slots", slot_bytes / 1e6);
	bench_row("userspace", fig, v, "-", vs, "-", "-");
	return 0;
}

/*
 * The joins made again from nothing (analysis_join(), as a refresh does
 * when the flows outgrow them, and a whole-run analysis always): every
 * flow's hosts and port looked up, and each new join's reverse. The
 * bench's flows have hosts of their own, so every lookup is a new join's
 * and every reverse a miss. Fastest of FLOOR_PASSES, beside the refresh's
 * analysis (an_ms), which makes none.
 */
static int join_rows(struct analysis *an, const char *lab, double an_ms)
{
	double ms[FLOOR_PASSES];
	char fig[96], v[64], b[64], vs[64];

	for (int t = 0; t < FLOOR_PASSES; t++) {
		__u64 t0 = bench_now_ns();
		int err;

		an->joins.valid = false;
		err = analysis_join(an);
		ms[t] = ms_since(t0);
		if (err)
			return err;
	}
	snprintf(fig, sizeof(fig), "%s flows: joins made from nothing (fastest of %d)", lab,
		 FLOOR_PASSES);
	snprintf(v, sizeof(v), "%.1f ms", bench_min(ms, FLOOR_PASSES));
	snprintf(b, sizeof(b), "%.1f ms analysis_update", an_ms);
	snprintf(vs, sizeof(vs), "%.2fx; %zu host, %zu port joins",
		 bench_min(ms, FLOOR_PASSES) / an_ms, an->joins.n_host, an->joins.n_port);
	bench_row("userspace", fig, v, b, vs, "-", "-");
	return 0;
}

/*
 * What export --ipfix adds to each refresh: flow_export_observe() of the
 * snapshot, every flow looked up by key in the exporter's own index
 * (made again each time). The first observe (every flow new) untimed,
 * then the fastest of FLOOR_PASSES, beside the refresh's analysis.
 */
static int ipfix_rows(const struct snapshot *s, const char *lab, double an_ms)
{
	double ms[FLOOR_PASSES];
	struct flow_export fx;
	char fig[96], v[64], b[64], vs[64];
	int err;

	flow_export_init(&fx, 600 * 1000000000ULL, 600 * 1000000000ULL, 0);
	err = flow_export_observe(&fx, s);
	for (int t = 0; t < FLOOR_PASSES && !err; t++) {
		__u64 t0 = bench_now_ns();

		err = flow_export_observe(&fx, s);
		ms[t] = ms_since(t0);
	}
	flow_export_free(&fx);
	if (err)
		return err;
	snprintf(fig, sizeof(fig), "%s flows: IPFIX flow_export_observe (refresh, fastest of %d)",
		 lab, FLOOR_PASSES);
	snprintf(v, sizeof(v), "%.1f ms", bench_min(ms, FLOOR_PASSES));
	snprintf(b, sizeof(b), "%.1f ms analysis_update", an_ms);
	snprintf(vs, sizeof(vs), "%.2fx", bench_min(ms, FLOOR_PASSES) / an_ms);
	bench_row("userspace", fig, v, b, vs, "-", "-");
	return 0;
}

/* The Flows view's comparison as table.c makes it, for a view without sort_key. */
static int flows_cmp(const struct ui *u, int col, const void *x, const void *y)
{
	return table_cmp(u, &view_flows, col, x, y);
}

/*
 * The dashboard's byte order of n flows (ui.h: rank, by_rank), allocated:
 * a shuffle of the flows' order (Fisher-Yates, a fixed seed): the
 * dashboard's snapshot is unsorted, so its byte order visits the flows out
 * of their order.
 */
static int byte_order(struct ui *u, size_t n)
{
	u->rank = malloc((n + 1) * sizeof(*u->rank));
	u->by_rank = malloc((n + 1) * sizeof(*u->by_rank));
	if (!u->rank || !u->by_rank)
		return -ENOMEM;
	srand(1);
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)rand() % (i + 1); /* inside out */

		if (j < i)
			u->by_rank[i] = u->by_rank[j];
		u->by_rank[j] = (int)i;
	}
	for (size_t k = 0; k < n; k++)
		u->rank[u->by_rank[k]] = (int)k;
	return 0;
}

/*
 * The dashboard's sort of its Flows view, as a refresh does it: the rows in
 * byte order, sorted by RATE. The dashboard's snapshot is unsorted (top/ui.h:
 * rank), so its rows visit the flows out of their order: here a shuffle of
 * them. table_sort() radix-sorts them by the view's sort_key; the baseline
 * is the same view without it, qsort_r of the rows by the same comparison.
 * Both must give one order.
 */
static int dashboard_sort_rows(const struct analysis *an, const char *lab, int trials)
{
	struct view by_cmp = view_flows;
	struct ui u = {.an = an};
	struct vstate vs = {.sort = view_flows.default_sort};
	double key_ms[16], cmp_ms[16], km, cm;
	char fig[96], v[64], b[64], r[64];
	int *orig = NULL, *by_key = NULL;
	size_t bytes;
	int err;
	__u64 t0;

	by_cmp.sort_key = NULL;
	by_cmp.cmp = flows_cmp;
	err = byte_order(&u, an->n_flows) ?: view_flows.build(&u, &vs);
	if (err)
		goto out;
	bytes = vs.n_rows * sizeof(int);
	orig = malloc(bytes);
	by_key = malloc(bytes);
	if (!orig || !by_key) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(orig, vs.rows, bytes);
	for (int t = 0; t < trials; t++) {
		memcpy(vs.rows, orig, bytes);
		t0 = bench_now_ns();
		table_sort(&u, &view_flows, &vs);
		key_ms[t] = ms_since(t0);
		memcpy(by_key, vs.rows, bytes);
		memcpy(vs.rows, orig, bytes);
		t0 = bench_now_ns();
		table_sort(&u, &by_cmp, &vs);
		cmp_ms[t] = ms_since(t0);
		if (memcmp(by_key, vs.rows, bytes)) {
			fprintf(stderr, "userspace: the dashboard's sorts differ at %s flows\n",
				lab);
			err = -EIO;
			goto out;
		}
	}
	km = bench_median(key_ms, trials);
	cm = bench_median(cmp_ms, trials);
	snprintf(fig, sizeof(fig), "%s flows: dashboard sort by RATE (table_sort, by key)", lab);
	snprintf(v, sizeof(v), "%.1f ms", km);
	snprintf(b, sizeof(b), "%.1f ms qsort_r", cm);
	snprintf(r, sizeof(r), "%.2fx", km / cm);
	bench_row("userspace", fig, v, b, r, "-", "-");
out:
	free(u.rank);
	free(u.by_rank);
	free(orig);
	free(by_key);
	free(vs.rows);
	free(u.sort_buf);
	free(u.scratch);
	return err;
}

/*
 * The dashboard's QPs view, built and sorted as a refresh does it (by
 * DATA, ties busiest first, order_rows()), with the flows in the table's
 * order and byte order a shuffle of it (ui.h: rank), as the dashboard has
 * them: the view's rows then read the flows out of memory order.
 */
static int dashboard_qps_rows(const struct analysis *an, const char *lab, int trials)
{
	struct ui u = {.an = an};
	struct vstate vs = {.sort = view_qps.default_sort};
	size_t n = an->n_flows;
	double ms[16];
	char fig[96], v[64], vs_txt[64];
	int err = 0;

	u.rep_of = malloc((n + 1) * sizeof(*u.rep_of));
	err = u.rep_of ? byte_order(&u, n) : -ENOMEM;
	for (size_t i = 0; i < n && !err; i++)
		u.rep_of[i] = (int)i;
	for (int t = 0; t < trials && !err; t++) {
		__u64 t0 = bench_now_ns();

		err = view_qps.build(&u, &vs);
		table_sort(&u, &view_qps, &vs);
		ms[t] = ms_since(t0);
	}
	if (err)
		goto out;
	snprintf(fig, sizeof(fig), "%s flows: dashboard QPs view, build + sort by DATA", lab);
	snprintf(v, sizeof(v), "%.1f ms", bench_median(ms, trials));
	snprintf(vs_txt, sizeof(vs_txt), "%zu rows, byte order shuffled", vs.n_rows);
	bench_row("userspace", fig, v, "-", vs_txt, "-", "-");
out:
	free(u.rank);
	free(u.by_rank);
	free(u.rep_of);
	free(vs.rows);
	free(u.sort_buf);
	free(u.scratch);
	return err;
}

static int scale(__u32 n, int trials)
{
	struct obs_point names[2] = {{.id = 1, .name = "up1", .uplink = true},
				     {.id = 2, .name = "up2", .uplink = true}};
	struct source_desc ro = {
	    .mode = "live", .points = names, .n_points = 2, .every_packet = true};
	double batch_ms[16], iter_ms[16], sort_ms[16], an_ms[16], first_ms, rd;
	struct snapshot s = {}, s_iter = {};
	struct analysis an = {};
	struct analysis_opts ao;
	char lab[16], fig[96], v[64], b[64], vs[64];
	int iter_trials = n >= 1000000 ? 1 : trials;
	struct probe p;
	__u64 t0;
	int err, t;

	label(lab, sizeof(lab), n);
	free(where);
	where = NULL;
	where_n = 0;
	/* A quarter more entries than flows: an LRU table evicts before it is full. */
	err = load(&p, n + n / 4);
	if (err)
		return err;
	analysis_opts_default(&ao);
	err = fill(&p, n, 0);
	if (err)
		goto out;
	err = collect_snapshot(&p, &s);
	if (err)
		goto out;
	if (s.n_flows != n) {
		fprintf(stderr, "userspace: %zu flows read, %u written\n", s.n_flows, n);
		err = -EIO;
		goto out;
	}
	snapshot_sort_by_bytes(&s);
	t0 = bench_now_ns();
	err = analysis_update(&an, &s, &ro, &ao, 1.0);
	first_ms = ms_since(t0);
	if (err)
		goto out;

	for (t = 0; t < trials; t++) {
		/* Traffic moved on: the next refresh has deltas to rate. */
		err = fill(&p, n, t + 1);
		if (err)
			goto out;
		t0 = bench_now_ns();
		err = collect_flows_mode(&p, &s, true);
		batch_ms[t] = ms_since(t0);
		if (err)
			goto out;
		s.taken_ns += (t + 1) * 1000000000ULL;
		/* As session_refresh() does: the analysis takes the flows by bytes. */
		t0 = bench_now_ns();
		snapshot_sort_by_bytes(&s);
		sort_ms[t] = ms_since(t0);
		t0 = bench_now_ns();
		err = analysis_update(&an, &s, &ro, &ao, 0);
		an_ms[t] = ms_since(t0);
		if (err)
			goto out;
		if (t < iter_trials) {
			t0 = bench_now_ns();
			err = collect_flows_mode(&p, &s_iter, false);
			iter_ms[t] = ms_since(t0);
			if (err)
				goto out;
			if (s_iter.n_flows != n) {
				err = -EIO;
				goto out;
			}
		}
	}
	{
		double bm = bench_median(batch_ms, trials), im = bench_median(iter_ms, iter_trials);
		double am = bench_median(an_ms, trials), sm = bench_median(sort_ms, trials);

		snprintf(fig, sizeof(fig), "%s flows: collect (slots in place, fp_flows4 batched)",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", bm);
		snprintf(b, sizeof(b), "%.1f ms per-key", im);
		snprintf(vs, sizeof(vs), "%.1fx faster", im / bm);
		bench_row("userspace", fig, v, b, vs, "-", "-");
		snprintf(fig, sizeof(fig), "%s flows: collect (fp_flows4 key by key)", lab);
		snprintf(v, sizeof(v), "%.1f ms", im);
		bench_row("userspace", fig, v, "-", "-", "-", iter_trials == 1 ? "1 trial" : "-");
		snprintf(fig, sizeof(fig), "%s flows: snapshot_sort_by_bytes (refresh)", lab);
		snprintf(v, sizeof(v), "%.1f ms", sm);
		bench_row("userspace", fig, v, "-", "-", "-", "-");
		snprintf(fig, sizeof(fig), "%s flows: analysis_update (refresh)", lab);
		snprintf(v, sizeof(v), "%.1f ms", am);
		snprintf(vs, sizeof(vs), "first call %.1f ms", first_ms);
		bench_row("userspace", fig, v, "-", vs, "-", "-");
		err = walk_rows(&p, lru_flows(), trials, bm) ?: floor_rows(&p, &s, lab)
			  ?: join_rows(&an, lab, am) ?: ipfix_rows(&s, lab, am) ?: dashboard_sort_rows(&an, lab, trials) ?: dashboard_qps_rows(&an, lab, trials);
		if (err)
			goto out;
		rd = bm + sm + am;
		snprintf(fig, sizeof(fig),
			 "%s flows: read + sort + analyse (session_refresh), one CPU", lab);
		snprintf(v, sizeof(v), "%.1f ms", rd);
		bench_row("userspace", fig, v, "-", "the parts above, summed", "-", "-");
	}

	/*
	 * The refresh export makes (session.unordered): the flows left in the
	 * table's order, no sort, the same answers; and top's, sorted. Each
	 * on every CPU, as the program runs (collect and the analysis split
	 * their loops, probe/par.h), and unsorted in one part, the baseline:
	 * the process unpinned for this block alone, the three interleaved in
	 * each trial, each with an analysis of its own whose first call is
	 * untimed, as the one above.
	 */
	{
		enum { ONE_CPU, EVERY_CPU, EVERY_CPU_SORTED, EVERY_CPU_RANKED, REFRESHES };
		struct analysis an_u[REFRESHES] = {};
		double u_ms[REFRESHES][16];
		__u32 round = trials + 1;
		struct ui top = {}; /* the dashboard's byte order (ui_rank_flows()) */

		bench_unpin();
		for (t = 0; t <= trials && !err; t++) {
			for (int m = 0; m < REFRESHES && !err; m++) {
				err = fill(&p, n, round);
				if (err)
					break;
				par_set_parts(m == ONE_CPU ? 1 : 0);
				t0 = bench_now_ns();
				err = collect_flows_mode(&p, &s, true);
				if (!err) {
					s.taken_ns += round++ * 1000000000ULL;
					if (m == EVERY_CPU_SORTED)
						snapshot_sort_by_bytes(&s);
					err = analysis_update(&an_u[m], &s, &ro, &ao, t ? 0 : 1.0);
				}
				/* The dashboard's: unsorted, then the order by bytes
				 * (top/refresh.c). */
				if (!err && m == EVERY_CPU_RANKED)
					err = ui_rank_flows(&top, &s);
				if (t)
					u_ms[m][t - 1] = ms_since(t0);
			}
		}
		par_set_parts(0);
		bench_pin_last_cpu();
		free(top.rank);
		free(top.by_rank);
		for (int m = 0; m < REFRESHES; m++)
			analysis_free(&an_u[m]);
		if (err)
			goto out;
		rd = bench_median(u_ms[EVERY_CPU], trials);
		snprintf(fig, sizeof(fig), "%s flows: read + analyse, unsorted (export), every CPU",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", rd);
		snprintf(b, sizeof(b), "%.1f ms one CPU", bench_median(u_ms[ONE_CPU], trials));
		snprintf(vs, sizeof(vs), "%.2fx", bench_median(u_ms[ONE_CPU], trials) / rd);
		bench_row("userspace", fig, v, b, vs, n == 1000000 ? "<= 100 ms" : "-",
			  n == 1000000 ? (rd <= 100 ? "met" : "MISSED") : "-");
		rd = bench_median(u_ms[EVERY_CPU_SORTED], trials);
		snprintf(fig, sizeof(fig),
			 "%s flows: read + sort + analyse (capture's bundle, replay), every CPU",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", rd);
		bench_row("userspace", fig, v, "-", "-", "-", "-");
		rd = bench_median(u_ms[EVERY_CPU_RANKED], trials);
		snprintf(fig, sizeof(fig), "%s flows: read + analyse + byte order (top), every CPU",
			 lab);
		snprintf(v, sizeof(v), "%.1f ms", rd);
		snprintf(b, sizeof(b), "%.1f ms sorted",
			 bench_median(u_ms[EVERY_CPU_SORTED], trials));
		snprintf(vs, sizeof(vs), "%.2fx",
			 rd / bench_median(u_ms[EVERY_CPU_SORTED], trials));
		bench_row("userspace", fig, v, b, vs, n == 1000000 ? "<= 100 ms" : "-",
			  n == 1000000 ? (rd <= 100 ? "met" : "MISSED") : "-");
	}

	/*
	 * Churn: before each refresh 1% of the flows leave and as many new
	 * ones arrive, so the table's order moves and the joins are redone.
	 */
	{
		__u32 c = n / 100 ? n / 100 : 1, base = 0;

		for (t = 0; t < trials; t++) {
			err = drop_range(&p, base, c);
			if (!err)
				err = fill_range(&p, base + c, n, trials + t + 1);
			if (err)
				goto out;
			base += c;
			t0 = bench_now_ns();
			err = collect_flows_mode(&p, &s, true);
			if (!err) {
				s.taken_ns += (trials + t + 1) * 1000000000ULL;
				snapshot_sort_by_bytes(&s);
				err = analysis_update(&an, &s, &ro, &ao, 0);
			}
			an_ms[t] = ms_since(t0);
			if (err)
				goto out;
			if (s.n_flows != n) {
				err = -EIO;
				goto out;
			}
		}
		snprintf(fig, sizeof(fig), "%s flows: read + sort + analyse, 1%% replaced", lab);
		snprintf(v, sizeof(v), "%.1f ms", bench_median(an_ms, trials));
		bench_row("userspace", fig, v, "-", "-", "-", "-");
	}

	if (n == 100000) {
		struct metrics_acc *acc = calloc(1, sizeof(*acc));
		struct metrics_self self = {.version = "bench", .interval_s = 1};
		struct metrics_view mv = {.snap = &s,
					  .an = &an,
					  .src = &ro,
					  .self = &self,
					  .top_flows = METRICS_TOP_FLOWS_DEFAULT};
		double render_ms[16], json_ms[16], copy_ms[16], acc_ms = 0, jm, cm;
		size_t render_bytes = 0, json_bytes = 0;

		if (!acc) {
			err = -ENOMEM;
			goto out;
		}
		t0 = bench_now_ns();
		metrics_accumulate(acc, &s, &an);
		acc_ms = ms_since(t0);
		mv.acc = acc;
		for (t = 0; t < trials; t++) {
			char *text = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&text, &len);

			t0 = bench_now_ns();
			metrics_render(f, METRICS_PROMETHEUS, &mv, false);
			fclose(f);
			render_ms[t] = ms_since(t0);
			render_bytes = len;
			free(text);

			text = NULL;
			f = open_memstream(&text, &len);
			t0 = bench_now_ns();
			report_json(f, &(struct report){.snap = &s, .an = &an, .src = &ro});
			fclose(f);
			json_ms[t] = ms_since(t0);
			json_bytes = len;

			/* The floor: the same bytes into the same kind of stream, one fwrite. */
			{
				char *copy = NULL;
				size_t copy_len = 0;
				FILE *g = open_memstream(&copy, &copy_len);

				t0 = bench_now_ns();
				fwrite(text, 1, len, g);
				fclose(g);
				copy_ms[t] = ms_since(t0);
				free(copy);
			}
			free(text);
		}
		snprintf(v, sizeof(v), "%.2f ms", bench_median(render_ms, trials));
		snprintf(b, sizeof(b), "%.0f ms report_json", bench_median(json_ms, trials));
		snprintf(vs, sizeof(vs), "%zu B text; accumulate %.1f ms", render_bytes, acc_ms);
		bench_row("userspace", "100k flows: exporter scrape (metrics_render, top 20)", v, b,
			  vs, "-", "-");
		jm = bench_median(json_ms, trials);
		cm = bench_median(copy_ms, trials);
		snprintf(v, sizeof(v), "%.0f ms", jm);
		snprintf(b, sizeof(b), "%.1f ms one fwrite", cm);
		snprintf(vs, sizeof(vs), "%.1fx; %.0f MB, %.0f MB/s", jm / cm, json_bytes / 1e6,
			 json_bytes / 1e3 / jm);
		bench_row("userspace", "100k flows: JSON report (report_json, every flow)", v, b,
			  vs, "-", "-");
		bench_note(
		    "exporter: metrics_render (user/render/metrics.c) into memory, Prometheus "
		    "0.0.4 text, %zu bytes; report_json of the same snapshot: %zu bytes",
		    render_bytes, json_bytes);
		free(acc);
	}
out:
	analysis_free(&an);
	snapshot_free(&s);
	snapshot_free(&s_iter);
	probe_destroy(&p);
	return err;
}

/* `bpftool map show` memlock of one map, as the operator would read it. */
static long long bpftool_memlock(int map_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char cmd[128], line[4096];
	long long memlock = -1;
	FILE *f;

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -1;
	snprintf(cmd, sizeof(cmd), "bpftool map show id %u 2>/dev/null", info.id);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *m = strstr(line, "memlock ");

		if (m)
			memlock = strtoll(m + 8, NULL, 10);
	}
	pclose(f);
	return memlock;
}

static int memory(__u32 n)
{
	int ncpus = libbpf_num_possible_cpus();
	long long flows, slots, flows6, totals, ring;
	char lab[16], fig[96], v[96], vs[160];
	struct probe p;
	int err;

	label(lab, sizeof(lab), n);
	if (n == 65536)
		snprintf(lab, sizeof(lab), "65536 (default)");
	err = load(&p, n);
	if (err)
		return err;
	slots = bpftool_memlock(bpf_map__fd(p.skel->maps.fp_slots));
	flows = slots + bpftool_memlock(bpf_map__fd(p.skel->maps.fp_flows4));
	flows6 = bpftool_memlock(bpf_map__fd(p.skel->maps.fp_flows6));
	totals = bpftool_memlock(bpf_map__fd(p.skel->maps.fp_totals));
	ring = bpftool_memlock(bpf_map__fd(p.skel->maps.fp_samples));
	snprintf(fig, sizeof(fig), "memory, %s IPv4 flows: fp_slots + fp_flows4", lab);
	snprintf(v, sizeof(v), "%.1f MiB", flows / 1048576.0);
	snprintf(vs, sizeof(vs),
		 "%.0f B/flow, %d possible CPUs; fp_flows6 (%u entries) %.1f MiB, %.0f B/flow",
		 (double)flows / n, ncpus, p.flow6_entries, flows6 / 1048576.0,
		 (double)flows6 / p.flow6_entries);
	/* Issue 18's goal, at 1M flows: a flow's bytes whatever the CPU count. */
	if (n >= 1000000)
		bench_row("memory", fig, v, "-", vs, "<= 300 B/flow",
			  flows / n <= 300 ? "met" : "MISSED");
	else
		bench_row("memory", fig, v, "-", vs, "-", "-");
	bench_note("memory %u: bpftool memlock fp_slots %lld (%u slots), fp_flows4 %lld (%u "
		   "entries), fp_flows6 %lld, fp_totals %lld, fp_samples %lld bytes; keys %zu B "
		   "(IPv4) and %zu B (IPv6), value %zu B (one copy for all CPUs, the PSN state in "
		   "it), a slot bucket %zu B",
		   n, slots, p.slot_buckets * FP_SLOT_WAYS, flows - slots,
		   n - p.slot_buckets * FP_SLOT_WAYS, flows6, totals, ring,
		   sizeof(struct flow_key4), sizeof(struct flow_key), sizeof(struct flow_counters),
		   sizeof(struct fp_slot_bucket));
	probe_destroy(&p);
	return 0;
}

/*
 * Where --flows n's flows go by placement alone: the flows no bucket has
 * room for take fp_flows4, and those past its entries are evicted. The
 * program places by first fit (BENCHMARKS.md, parts 22 and 27); one
 * bucket a flow was its placement before, the emptier of the two a study.
 */
enum placement { ONE_BUCKET, TWO_FIRST_FIT, TWO_EMPTIER, PLACEMENTS };

static const char *const placement_name[PLACEMENTS] = {
    [ONE_BUCKET] = "one bucket",
    [TWO_FIRST_FIT] = "two buckets, first fit (the program)",
    [TWO_EMPTIER] = "two buckets, the emptier",
};

static int placements(__u32 n)
{
	static const unsigned int percent[] = {80, 95, 100};
	__u32 buckets = fp_slot_buckets_for(n), lru = n - buckets * FP_SLOT_WAYS;
	__u8 *used = calloc(buckets ? buckets : 1, 1);

	if (!used)
		return -ENOMEM;
	for (size_t f = 0; f < sizeof(percent) / sizeof(percent[0]); f++) {
		__u32 present = (__u32)((__u64)n * percent[f] / 100);

		for (int pl = 0; pl < PLACEMENTS; pl++) {
			__u32 overflow = 0, second = 0;
			char fig[160], v[64], base[64], note[64];

			memset(used, 0, buckets ? buckets : 1);
			for (__u32 i = 0; i < present; i++) {
				struct flow_key4 k4;
				__u64 tag;
				__u32 b1, b2, b;

				make_key4(&k4, i);
				tag = fp_slot_tag(fp_key4_hash(&k4), ~0ULL);
				b1 = fp_slot_bucket_of(tag, buckets);
				b2 = fp_slot_bucket2_of(tag, buckets);
				b = b1;
				if (pl == TWO_FIRST_FIT && used[b1] == FP_SLOT_WAYS)
					b = b2;
				else if (pl == TWO_EMPTIER && used[b2] < used[b1])
					b = b2;
				if (!buckets || used[b] == FP_SLOT_WAYS) {
					overflow++;
					continue;
				}
				used[b]++;
				second += b != b1;
			}
			snprintf(fig, sizeof(fig), "--flows %u, %u%% present: %s", n, percent[f],
				 placement_name[pl]);
			snprintf(v, sizeof(v), "%u in fp_flows4", overflow);
			snprintf(base, sizeof(base), "%u evicted (%.2f%%)",
				 overflow > lru ? overflow - lru : 0,
				 overflow > lru ? 100.0 * (overflow - lru) / present : 0.0);
			snprintf(note, sizeof(note), "%u in their second bucket", second);
			bench_row("userspace", fig, v, base, note, "-", "-");
		}
	}
	free(used);
	return 0;
}

static void par_nothing(void *ctx, int part, size_t lo, size_t hi)
{
	(void)ctx;
	(void)part;
	(void)lo;
	(void)hi;
}

/* Part 0 of a loop that holds the pool: *n loops inside it, each making its own thread. */
static void loops_own_threads(void *ctx, int part, size_t lo, size_t hi)
{
	const __u32 *n = ctx;

	(void)lo;
	(void)hi;
	for (__u32 i = 0; part == 0 && i < *n; i++)
		par_run(2, 2, par_nothing, NULL);
}

/*
 * What a refresh's split loop costs beyond its work: n loops of two
 * parts that do nothing, the second part on the pool's kept thread,
 * against the same loops run where the pool is taken (inside a part of a
 * loop holding it), which make and join a thread each, as every loop did
 * before the pool (BENCHMARKS.md, part 28).
 */
static int par_cost(__u32 n)
{
	double pool_us[5], made_us[5];
	char fig[96], v[32], b[48], vs[32];
	__u64 t0;

	bench_unpin();
	par_run(2, 2, par_nothing, NULL); /* the pool's thread made, untimed */
	for (int t = 0; t < 5; t++) {
		t0 = bench_now_ns();
		for (__u32 i = 0; i < n; i++)
			par_run(2, 2, par_nothing, NULL);
		pool_us[t] = (bench_now_ns() - t0) / 1e3 / n;
		t0 = bench_now_ns();
		par_run(2, 2, loops_own_threads, &n);
		made_us[t] = (bench_now_ns() - t0) / 1e3 / n;
	}
	bench_pin_last_cpu();
	snprintf(fig, sizeof(fig), "a split loop of two parts doing nothing (%u loops)", n);
	snprintf(v, sizeof(v), "%.1f us", bench_median(pool_us, 5));
	snprintf(b, sizeof(b), "%.1f us a thread made each loop", bench_median(made_us, 5));
	snprintf(vs, sizeof(vs), "%.2fx", bench_median(pool_us, 5) / bench_median(made_us, 5));
	bench_row("userspace", fig, v, b, vs, "-", "-");
	return 0;
}

int main(int argc, char **argv)
{
	int err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: userspace scale|memory|placement|par N [N...]\n");
		return 2;
	}
	bench_pin_last_cpu();
	for (int i = 2; i < argc && !err; i++) {
		__u32 n = strtoul(argv[i], NULL, 10);

		if (!strcmp(argv[1], "scale"))
			err = scale(n, n >= 1000000 ? 3 : 5);
		else if (!strcmp(argv[1], "memory"))
			err = memory(n);
		else if (!strcmp(argv[1], "placement"))
			err = placements(n);
		else if (!strcmp(argv[1], "par"))
			err = par_cost(n);
		else
			return 2;
	}
	if (err)
		fprintf(stderr, "userspace: %s\n", strerror(-err));
	return err ? 1 : 0;
}
