// SPDX-License-Identifier: GPL-2.0
/*
 * abcost.c - per-packet cost of several builds of the XDP program, paired
 * in one run: the before/after of a change to bpf/, on a VM whose speed
 * drifts by more than the change costs.
 *
 *   abcost [-r repeat] [-t trials] [-f] EMPTY.bpf.o NAME=OBJ.bpf.o NAME=OBJ.bpf.o ...
 *
 * Each object's xdp.frags program is loaded as it was compiled (maps at
 * their default sizes, load-time settings at their defaults), in live mode
 * with the clock and tables the loader would set (set_loader_settings()). Each trial of
 * each frame runs the empty program, every build in an order rotated per
 * trial, and the empty program again, BPF_PROG_TEST_RUN with `repeat` runs
 * each; a build's figure is its mean ns per run minus the two empty runs'
 * average. The table gives each build's median over the trials and, for
 * every build after the first, the median of its paired difference from
 * the first
 * with a 90% bootstrap interval: drift hits both sides of a pair alike.
 * -f: each frame's flow is first seen on CPU 0 (one run of every build
 * there), then timed on the last CPU as always: a flow whose packets come
 * in on a CPU other than the one that claimed its slot (live, the slot's
 * owner; flows.h, slot_account()). Needs two CPUs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "frames.h"

#define MAX_BUILDS 8
#define MAX_TRIALS 101
#define BOOTSTRAP  2000

struct build {
	const char *name;
	int fd;
};

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* An object's rodata variable of that name, set to v where it has one. */
static void set_rodata(const struct btf *btf, const struct btf_type *sec, char *data, size_t size,
		       const char *name, __u64 v, size_t width)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(sec);

	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (!strcmp(btf__name_by_offset(btf, var->name_off), name) &&
		    vs->offset + width <= size)
			memcpy(data + vs->offset, &v, width); /* little-endian: the low bytes */
	}
}

/*
 * Live mode as the loader sets it up (probe/clock.c): the programs read the
 * tick clock (core.h, live_clock()), not bpf_ktime_get_ns(). An object
 * older than that has no clock_tick_ns and pays for the precise clock, as
 * it did live. Any tick will do: the cost is the same. An object with a
 * slot table (fp_slots) gets it sized as the loader sizes it for the
 * default --flows (fp_slot_buckets_for()), fp_flows4 the rest.
 */
static void set_loader_settings(struct bpf_object *obj)
{
	__u32 buckets = fp_slot_buckets_for(FP_FLOWS_DEFAULT);
	struct bpf_map *slots = bpf_object__find_map_by_name(obj, "fp_slots");
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *sec;
	struct bpf_map *rodata = NULL, *m;
	size_t size;
	char *data;
	int id;

	bpf_object__for_each_map(m, obj)
	{
		if (strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	}
	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (!rodata || id < 0)
		return;
	sec = btf__type_by_id(btf, id);
	/* libbpf 1.1 hands it out const; before load it is the object's writable copy. */
	data = (char *)bpf_map__initial_value(rodata, &size);
	if (!data)
		return;
	set_rodata(btf, sec, data, size, "clock_tick_ns", 4000000, sizeof(__u64));
	if (slots && !bpf_map__set_max_entries(slots, buckets) &&
	    !bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "fp_flows4"),
				      FP_FLOWS_DEFAULT - buckets * FP_SLOT_WAYS))
		set_rodata(btf, sec, data, size, "slot_buckets", buckets, sizeof(__u32));
}

/*
 * The object's live XDP program (fp_xdp; an object without one, its only
 * xdp.frags program), loaded alone; its fd, or -1. fabprobe's object also
 * holds replay's entry point (fp_replay), in the same section.
 */
static int load_xdp(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog, *xdp = NULL;

	if (!obj) {
		fprintf(stderr, "abcost: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(prog, obj)
	{
		bool is_xdp = !strcmp(bpf_program__section_name(prog), "xdp.frags");

		if (is_xdp && (!xdp || !strcmp(bpf_program__name(prog), "fp_xdp")))
			xdp = prog;
	}
	bpf_object__for_each_program(prog, obj)
	{
		bpf_program__set_autoload(prog, prog == xdp);
	}
	set_loader_settings(obj);
	if (!xdp || bpf_object__load(obj)) {
		fprintf(stderr, "abcost: cannot load the XDP program of %s\n", path);
		return -1;
	}
	/* The object stays open for the program's life: the process's. */
	return bpf_program__fd(xdp);
}

static double test_run(int fd, const void *frame, __u32 len, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len, .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o)) {
		fprintf(stderr, "abcost: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		exit(1);
	}
	return o.duration;
}

/* Median of the paired differences and its 90% bootstrap interval. */
static void paired(const double *d, int n, double *med, double *lo, double *hi)
{
	double v[MAX_TRIALS], m[BOOTSTRAP];
	unsigned int seed = 1;

	for (int b = 0; b < BOOTSTRAP; b++) {
		for (int i = 0; i < n; i++)
			v[i] = d[rand_r(&seed) % n];
		m[b] = bench_median(v, n);
	}
	bench_median(m, BOOTSTRAP);
	*lo = m[BOOTSTRAP / 20];
	*hi = m[BOOTSTRAP - BOOTSTRAP / 20 - 1];
	memcpy(v, d, n * sizeof(*d));
	*med = bench_median(v, n);
}

int main(int argc, char **argv)
{
	struct {
		const char *name;
		struct bench_frame f;
	} cases[] = {
	    {"bare RoCEv2 WRITE", {.kind = BENCH_WRITE, .payload = 64}},
	    {"RoCEv2 WRITE in VXLAN", {.kind = BENCH_VXLAN_WRITE, .payload = 64, .vni = 100}},
	    {"RoCEv2 ACK", {.kind = BENCH_ACK}},
	    {"RoCEv2 CNP", {.kind = BENCH_CNP}},
	    {"non-RoCE TCP", {.kind = BENCH_TCP}},
	    {"RoCEv2 WRITE in ERSPAN II", {.kind = BENCH_ERSPAN2_WRITE, .payload = 64}},
	    {"RoCEv2 WRITE in ERSPAN III", {.kind = BENCH_ERSPAN3_WRITE, .payload = 64}},
	};
	static double cost[MAX_BUILDS][MAX_TRIALS];
	struct build builds[MAX_BUILDS];
	int repeat = 300000, trials = 21, n = 0, empty, opt;
	bool foreign = false;

	while ((opt = getopt(argc, argv, "r:t:f")) != -1) {
		if (opt == 'r')
			repeat = atoi(optarg);
		else if (opt == 't')
			trials = atoi(optarg);
		else if (opt == 'f')
			foreign = true;
		else
			goto usage;
	}
	if (foreign && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "abcost: -f needs two online CPUs\n");
		return 2;
	}
	if (argc - optind < 2 || argc - optind - 1 > MAX_BUILDS || trials < 3 ||
	    trials > MAX_TRIALS || repeat < 1)
		goto usage;
	libbpf_set_print(quiet_print);
	bench_pin_last_cpu();
	empty = load_xdp(argv[optind]);
	for (int i = optind + 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			goto usage;
		*eq = '\0';
		builds[n] = (struct build){.name = argv[i], .fd = load_xdp(eq + 1)};
		if (builds[n++].fd < 0)
			return 1;
	}
	if (empty < 0)
		return 1;

	printf("| frame |");
	for (int b = 0; b < n; b++)
		printf(" %s |", builds[b].name);
	for (int b = 1; b < n; b++)
		printf(" %s - %s |", builds[b].name, builds[0].name);
	printf("\n|---|");
	for (int b = 0; b < 2 * n - 1; b++)
		printf("---|");
	printf("\n");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct bench_frame *f = &cases[c].f;
		__u8 frame[512];
		__u32 len;

		f->src_ip = 0x0a000001;
		f->dst_ip = 0x0a000002;
		f->sport = 49152 + c;
		f->dest_qp = 0x100 + c;
		f->psn = 1;
		f->dscp = 26;
		f->ecn = 2;
		len = bench_frame_build(frame, f);
		if (foreign) {
			if (bench_pin(0)) {
				fprintf(stderr, "abcost: cannot run on CPU 0: %s\n",
					strerror(errno));
				return 1;
			}
			for (int b = 0; b < n; b++)
				test_run(builds[b].fd, frame, len, 1);
			bench_pin_last_cpu();
		}
		for (int t = 0; t < trials; t++) {
			double before = test_run(empty, frame, len, repeat), after;
			double run[MAX_BUILDS];

			for (int k = 0; k < n; k++) {
				int b = (k + t) % n;

				run[b] = test_run(builds[b].fd, frame, len, repeat);
			}
			after = test_run(empty, frame, len, repeat);
			for (int b = 0; b < n; b++)
				cost[b][t] = run[b] - (before + after) / 2;
		}
		printf("| %s |", cases[c].name);
		for (int b = 0; b < n; b++) {
			double v[MAX_TRIALS];

			memcpy(v, cost[b], trials * sizeof(*v));
			printf(" %+.1f ns |", bench_median(v, trials));
		}
		for (int b = 1; b < n; b++) {
			double d[MAX_TRIALS], med, lo, hi;

			for (int t = 0; t < trials; t++)
				d[t] = cost[b][t] - cost[0][t];
			paired(d, trials, &med, &lo, &hi);
			printf(" %+.1f ns [%+.1f, %+.1f] |", med, lo, hi);
		}
		printf("\n");
		fflush(stdout);
	}
	printf("\nns over the empty XDP_PASS program; %d trials of %d runs%s; differences: median "
	       "of the paired trials [90%% bootstrap interval]\n",
	       trials, repeat, foreign ? ", each flow first seen on CPU 0" : "");
	return 0;
usage:
	fprintf(stderr, "usage: %s [-r repeat] [-t trials] [-f] EMPTY.bpf.o NAME=OBJ.bpf.o ...\n",
		argv[0]);
	return 2;
}
