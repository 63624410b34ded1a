// SPDX-License-Identifier: GPL-2.0
/*
 * pktcost.c - per-packet cost of the XDP program under BPF_PROG_TEST_RUN:
 * the kernel runs the program opts.repeat times on one frame and reports
 * the mean time per run in opts.duration (ns). Median of several trials,
 * each trial running every case back to back so drift hits them alike.
 *
 * Built twice: against the normal object (the update path: one flow seen
 * again and again) and, as pktcost-newflow, against the object compiled
 * with -DFP_BENCH_NEW_FLOW, where every repeat is a new flow (insert path).
 * fabprobe's program is loaded through the real loader (probe_load, XDP
 * only) as a host runs it: live mode, the clock the loader measured (core.h,
 * live_clock()). -R loads it in replay mode instead, where the clock comes
 * with the frame (none here: time 0), as the tables before 2026-11-26 did.
 * Live, the bare WRITE also runs on a second load with --precise-clock.
 * The baseline is bench/empty.bpf.c, an XDP_PASS program.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "probe/collect.h"
#include "fabprobe.skel.h"
#include "frames.h"
#include "probe/probe.h"

#define MAX_TRIALS 31
#define XDP_PASS_  2

struct bench_case {
	const char *name;
	struct bench_frame f;
	__u8 buf[512];
	__u32 len;
};

static int repeat = 1000000;
static int trials = 7;
static bool replay_mode;

/* One BPF_PROG_TEST_RUN of `repeat` runs: the kernel's ns per run. */
static int test_run(int prog_fd, const void *frame, __u32 len, __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len, .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	if (o.retval != XDP_PASS_)
		return -EPROTO;
	*ns = o.duration;
	return 0;
}

static int load_empty(const char *path, struct bpf_object **obj)
{
	struct bpf_program *prog;
	int err;

	*obj = bpf_object__open_file(path, NULL);
	if (!*obj)
		return -errno;
	err = bpf_object__load(*obj);
	if (err) {
		fprintf(stderr, "pktcost: cannot load %s: %d\n", path, err);
		return err;
	}
	prog = bpf_object__next_program(*obj, NULL);
	return bpf_program__fd(prog);
}

static int load_fabprobe(struct probe *p, __u32 flows, bool precise_clock)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;

	opts.replay = replay_mode;
	opts.precise_clock = precise_clock;
	opts.hooks = PROBE_HOOK_XDP;
	opts.flow_entries = flows;
	memset(p, 0, sizeof(*p));
	return probe_load(p, &opts);
}

static const char *clock_of(const struct probe *p)
{
	static char s[96];

	if (replay_mode)
		snprintf(s, sizeof(s), "replay mode (no clock read)");
	else if (p->clock.hz)
		snprintf(s, sizeof(s), "live mode, the tick clock (HZ=%u)", p->clock.hz);
	else
		snprintf(s, sizeof(s), "live mode, the precise clock (bpf_ktime_get_ns)");
	return s;
}

static __u64 read_total(struct probe *p, enum fp_counter c)
{
	size_t stride = (sizeof(struct fp_totals) + 7) & ~(size_t)7;
	__u64 sum[FP_CNT_MAX];
	__u32 zero = 0;
	void *v = calloc(p->ncpus, stride);

	if (!v)
		return 0;
	bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.fp_totals), &zero, v);
	totals_sum(sum, v, p->ncpus, stride);
	free(v);
	return sum[c];
}

static void fmt(char *out, size_t n, const char *f, double v)
{
	snprintf(out, n, f, v);
}

#ifndef BENCH_NEW_FLOW
/* A bare WRITE of queue pair qp, built into buf; returns its length. */
static __u32 write_of(__u8 *buf, __u32 qp)
{
	struct bench_frame f = {.kind = BENCH_WRITE,
				.payload = 64,
				.src_ip = 0x0a000001,
				.dst_ip = 0x0a000002,
				.sport = 49152,
				.dest_qp = qp,
				.psn = 1,
				.dscp = 26,
				.ecn = 2};

	return bench_frame_build(buf, &f);
}

/* One run of frame buf: a flow counted, or placed if new. */
static int run_once(const struct probe *p, const void *buf, __u32 len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = len, .repeat = 1);

	return bpf_prog_test_run_opts(bpf_program__fd(p->skel->progs.fp_xdp), &o) ? -errno : 0;
}

/*
 * Where a flow is counted, what its packets cost: a table whose tags keep
 * only their low half (every flow's first bucket is bucket 0), eight flows
 * filling bucket 0, then a ninth in its second bucket; with the tags cut
 * to one bit (first and second bucket 0) the ninth goes to fp_flows4.
 */
static int run_placement(int empty_fd)
{
	static const char *const name[3] = {"bare RoCEv2 WRITE, flow in its first bucket",
					    "bare RoCEv2 WRITE, flow in its second bucket",
					    "bare RoCEv2 WRITE, flow in fp_flows4 (both full)"};
	double res[3][MAX_TRIALS], base[MAX_TRIALS];
	__u8 first[512], ninth[512];
	__u32 first_len = write_of(first, 0x200), ninth_len = write_of(ninth, 0x208), ns;
	struct probe p[2] = {};
	int err = 0;

	for (int m = 0; m < 2 && !err; m++) {
		struct probe_opts opts = PROBE_OPTS_DEFAULT;
		__u8 buf[512];

		opts.replay = replay_mode;
		opts.hooks = PROBE_HOOK_XDP;
		opts.flow_entries = FP_FLOWS_DEFAULT;
		opts.slot_tag_mask = m == 0 ? 0xffffffffULL : 1;
		err = probe_load(&p[m], &opts);
		for (__u32 qp = 0x200; qp <= 0x208 && !err; qp++)
			err = run_once(&p[m], buf, write_of(buf, qp));
	}
	/* The ninth flow where it should be: in a slot (m 0), in fp_flows4 (m 1). */
	if (!err && (p[0].slots[0].claims != 9 || p[1].slots[0].claims != 8))
		err = -EPROTO;
	for (int t = 0; t < trials && !err; t++) {
		err = test_run(empty_fd, first, first_len, &ns);
		base[t] = ns;
		err = err
			  ?: test_run(bpf_program__fd(p[0].skel->progs.fp_xdp), first, first_len,
				      &ns);
		res[0][t] = ns;
		err = err
			  ?: test_run(bpf_program__fd(p[0].skel->progs.fp_xdp), ninth, ninth_len,
				      &ns);
		res[1][t] = ns;
		err = err
			  ?: test_run(bpf_program__fd(p[1].skel->progs.fp_xdp), ninth, ninth_len,
				      &ns);
		res[2][t] = ns;
	}
	for (int i = 0; i < 3 && !err; i++) {
		double e = bench_median(base, trials), med = bench_median(res[i], trials);
		char v[64], b[64], vs[64];

		fmt(v, sizeof(v), "%.0f ns", med);
		fmt(b, sizeof(b), "%.0f ns", e);
		fmt(vs, sizeof(vs), "%+.0f ns", med - e);
		bench_row("per packet (test_run)", name[i], v, b, vs, "-", "-");
	}
	probe_destroy(&p[0]);
	probe_destroy(&p[1]);
	return err;
}

/* The update path: every case's flow exists after the first repeat. */
static int run_update(int empty_fd, double *empty_med)
{
	struct bench_case cases[] = {
	    {.name = "bare RoCEv2 WRITE", .f = {.kind = BENCH_WRITE, .payload = 64}},
	    {.name = "RoCEv2 WRITE in VXLAN",
	     .f = {.kind = BENCH_VXLAN_WRITE, .payload = 64, .vni = 100}},
	    {.name = "RoCEv2 ACK", .f = {.kind = BENCH_ACK}},
	    {.name = "RoCEv2 CNP", .f = {.kind = BENCH_CNP}},
	    {.name = "non-RoCE TCP", .f = {.kind = BENCH_TCP}},
	    {.name = "RoCEv2 WRITE in ERSPAN II",
	     .f = {.kind = BENCH_ERSPAN2_WRITE, .payload = 64}},
	    {.name = "RoCEv2 WRITE in ERSPAN III",
	     .f = {.kind = BENCH_ERSPAN3_WRITE, .payload = 64}},
	};
	int n = sizeof(cases) / sizeof(cases[0]);
	double res[8][MAX_TRIALS], base[MAX_TRIALS], precise[MAX_TRIALS];

	_Static_assert(sizeof(cases) / sizeof(cases[0]) <= 8, "res[] holds 8 cases");
	/* pp: live with --precise-clock, for what the tick clock saves (replay: none). */
	struct probe p, pp = {};
	__u32 ns;
	int err, i, t;

	err = load_fabprobe(&p, FP_FLOWS_DEFAULT, false);
	if (!err && !replay_mode)
		err = load_fabprobe(&pp, FP_FLOWS_DEFAULT, true);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		struct bench_frame *f = &cases[i].f;

		f->src_ip = 0x0a000001;
		f->dst_ip = 0x0a000002;
		f->sport = 49152 + i;
		f->dest_qp = 0x100 + i;
		f->psn = 1;
		f->dscp = 26;
		f->ecn = 2;
		cases[i].len = bench_frame_build(cases[i].buf, f);
	}
	for (t = 0; t < trials; t++) {
		err = test_run(empty_fd, cases[0].buf, cases[0].len, &ns);
		if (err)
			goto out;
		base[t] = ns;
		for (i = 0; i < n; i++) {
			err = test_run(bpf_program__fd(p.skel->progs.fp_xdp), cases[i].buf,
				       cases[i].len, &ns);
			if (err)
				goto out;
			res[i][t] = ns;
		}
		if (pp.skel) {
			err = test_run(bpf_program__fd(pp.skel->progs.fp_xdp), cases[0].buf,
				       cases[0].len, &ns);
			if (err)
				goto out;
			precise[t] = ns;
		}
	}
	*empty_med = bench_median(base, trials);
	{
		char v[64];

		fmt(v, sizeof(v), "%.0f ns", *empty_med);
		bench_row("per packet (test_run)", "empty XDP_PASS program", v, "-", "-", "-",
			  "baseline");
	}
	for (i = 0; i < n; i++) {
		double med = bench_median(res[i], trials), d = med - *empty_med;
		bool non_roce = cases[i].f.kind == BENCH_TCP;
		bool erspan = cases[i].f.kind == BENCH_ERSPAN2_WRITE;
		bool has_target = non_roce || erspan || cases[i].f.kind == BENCH_WRITE ||
				  cases[i].f.kind == BENCH_VXLAN_WRITE;
		double limit = non_roce ? 10 : erspan ? 60 : 50;
		char v[64], b[64], vs[64], tg[64];

		fmt(v, sizeof(v), "%.0f ns", med);
		fmt(b, sizeof(b), "%.0f ns", *empty_med);
		fmt(vs, sizeof(vs), "%+.0f ns", d);
		fmt(tg, sizeof(tg), "<= +%.0f ns", limit);
		bench_row("per packet (test_run)", cases[i].name, v, b, vs, has_target ? tg : "-",
			  has_target ? (d <= limit ? "met" : "MISSED") : "-");
		if (cases[i].f.kind == BENCH_WRITE)
			printf("UPDATE_NS|%.1f\n", med);
	}
	if (pp.skel) {
		double med = bench_median(precise, trials), tick = bench_median(res[0], trials);
		char v[64], b[64], vs[64];

		fmt(v, sizeof(v), "%.0f ns", med);
		fmt(b, sizeof(b), "%.0f ns", tick);
		fmt(vs, sizeof(vs), "%+.0f ns", med - tick);
		bench_row("per packet (test_run)", "bare RoCEv2 WRITE, --precise-clock", v, b, vs,
			  "-", "-");
	}
	bench_note("per packet: %d trials x %d repeats, median of the kernel's duration; "
		   "%s; flow inserts during the update runs: %llu (one per RoCE case); mirror "
		   "copies decoded: %llu",
		   trials, repeat, clock_of(&p),
		   (unsigned long long)read_total(&p, FP_CNT_FLOW_NEW),
		   (unsigned long long)read_total(&p, FP_CNT_MIRRORED));
out:
	probe_destroy(&pp);
	probe_destroy(&p);
	return err;
}
#else
/*
 * The insert path (object built with -DFP_BENCH_NEW_FLOW): every repeat is
 * a new WRITE flow: it claims a free slot while its bucket has one, then
 * inserts into fp_flows4. "not full": a
 * fresh table larger than the repeats of one trial; "full": a 1024-entry
 * table filled first, so every insert evicts the least recently used flow.
 */
static int run_insert(int empty_fd, double update_ns)
{
	struct bench_frame f = {.kind = BENCH_WRITE,
				.payload = 64,
				.src_ip = 0x0a000001,
				.dst_ip = 0x0a000002,
				.sport = 49152,
				.dest_qp = 0x100,
				.psn = 1,
				.dscp = 26,
				.ecn = 2};
	double empty_t[MAX_TRIALS], fresh[MAX_TRIALS], full[MAX_TRIALS];
	__u32 fresh_flows = 1U << 20, full_flows = 1024, ns;
	size_t present = 0;
	__u64 inserts = 0, fails = 0, full_inserts = 0;
	__u8 buf[512];
	__u32 len = bench_frame_build(buf, &f);
	struct probe small, big;
	int err, t;

	err = load_fabprobe(&small, full_flows, false);
	if (err)
		return err;
	/* Fill the small table (and the PSN table) before timing anything. */
	err = test_run(bpf_program__fd(small.skel->progs.fp_xdp), buf, len, &ns);
	if (err)
		goto out_small;
	for (t = 0; t < trials; t++) {
		__u64 before;

		err = test_run(empty_fd, buf, len, &ns);
		if (err)
			goto out_small;
		empty_t[t] = ns;

		/* A fresh table per trial, so it never fills: 1Mi entries, 1M new flows. */
		err = load_fabprobe(&big, fresh_flows, false);
		if (err)
			goto out_small;
		err = test_run(bpf_program__fd(big.skel->progs.fp_xdp), buf, len, &ns);
		inserts += read_total(&big, FP_CNT_FLOW_NEW);
		fails += read_total(&big, FP_CNT_FLOW_INSERT_FAIL);
		if (t == 0) {
			/* Nothing evicted: every flow inserted is still there. */
			struct snapshot s = {};

			if (!collect_snapshot(&big, &s))
				present = s.n_flows;
			snapshot_free(&s);
		}
		probe_destroy(&big);
		if (err)
			goto out_small;
		fresh[t] = ns;

		before = read_total(&small, FP_CNT_FLOW_NEW);
		err = test_run(bpf_program__fd(small.skel->progs.fp_xdp), buf, len, &ns);
		if (err)
			goto out_small;
		full[t] = ns;
		full_inserts += read_total(&small, FP_CNT_FLOW_NEW) - before;
	}
	{
		double e = bench_median(empty_t, trials), a = bench_median(fresh, trials);
		double b = bench_median(full, trials);
		char v[64], base[64], vs[96], ub[64];

		fmt(base, sizeof(base), "%.0f ns", e);
		fmt(v, sizeof(v), "%.0f ns", a);
		snprintf(vs, sizeof(vs), "%+.0f ns; %.1fx update", a - e, a / update_ns);
		bench_row("per packet (test_run)", "new flow, table not full (1Mi entries)", v,
			  base, vs, "-", "-");
		fmt(v, sizeof(v), "%.0f ns", b);
		snprintf(vs, sizeof(vs), "%+.0f ns; %.1fx update", b - e, b / update_ns);
		fmt(ub, sizeof(ub), "<= 3x update (%.0f ns)", update_ns);
		bench_row("per packet (test_run)", "new flow, table full (1024 entries)", v, base,
			  vs, ub, b <= 3 * update_ns ? "met" : "MISSED");
	}
	bench_note("new flow: %s; %llu inserts for %llu runs into fresh tables (%llu failed, "
		   "%zu of the first trial's %d flows still present); %llu inserts for %llu runs "
		   "into the full table",
		   clock_of(&small), (unsigned long long)inserts,
		   (unsigned long long)trials * repeat, (unsigned long long)fails, present, repeat,
		   (unsigned long long)full_inserts, (unsigned long long)trials * repeat);
out_small:
	probe_destroy(&small);
	return err;
}
#endif

int main(int argc, char **argv)
{
	const char *empty_path = "build/bench/empty.bpf.o";
	struct bpf_object *empty = NULL;
	double update_ns = 0, empty_ns;
	int opt, empty_fd, err;

	while ((opt = getopt(argc, argv, "e:r:t:u:R")) != -1) {
		switch (opt) {
		case 'e':
			empty_path = optarg;
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 't':
			trials = atoi(optarg);
			break;
		case 'u':
			update_ns = atof(optarg);
			break;
		case 'R':
			replay_mode = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-e empty.bpf.o] [-r repeat] [-t trials] "
				"[-u update_ns] [-R]\n",
				argv[0]);
			return 2;
		}
	}
	if (trials < 1 || trials > MAX_TRIALS || repeat < 1)
		return 2;
	bench_pin_last_cpu();
	empty_fd = load_empty(empty_path, &empty);
	if (empty_fd < 0)
		return 1;
#ifndef BENCH_NEW_FLOW
	(void)update_ns;
	err = run_update(empty_fd, &empty_ns) ?: run_placement(empty_fd);
#else
	(void)empty_ns;
	if (update_ns <= 0) {
		fprintf(stderr, "pktcost-newflow: -u UPDATE_NS (the update path's cost) needed\n");
		return 2;
	}
	err = run_insert(empty_fd, update_ns);
#endif
	bpf_object__close(empty);
	if (err)
		fprintf(stderr, "pktcost: %s\n", strerror(-err));
	return err ? 1 : 0;
}
