// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the most replay threads can give on this machine: fabprobe's
 * program run by BPF_PROG_TEST_RUN on one thread, then on every online CPU
 * at once, each thread with a flow and a program descriptor of its own
 * (probe_run_fd, as the replay workers have), nothing else running: no
 * capture to read, no batches to hand over. Replay on N threads cannot
 * scale better than this; what the VM does to a syscall on two CPUs at once
 * is in it, and nothing of fabprobe's userspace.
 *
 *   threads [-n runs per thread] [-t trials]
 *
 * Each trial runs one thread and then all, back to back, so drift hits both;
 * the figure is the median over the trials of one thread's time per frame
 * divided by the all-thread time per frame.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "frames.h"
#include "probe/probe.h"
#include "probe/runpool.h"

#define MAX_TRIALS 31

struct worker {
	const struct probe *p;
	pthread_t thread;
	int fd, runs, err;
	__u8 buf[sizeof(struct fp_replay_meta) + 512];
	__u32 len;
};

static void *run(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < w->runs && !w->err; i++)
		w->err = probe_run_prepared(w->p, w->fd, w->buf, w->len);
	return NULL;
}

/* ns per frame with the first n workers running at once. */
static double run_threads(struct worker *w, int n)
{
	__u64 t0 = bench_now_ns();
	int runs = 0;

	for (int i = 0; i < n; i++)
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		runs += w[i].runs;
	}
	return (double)(bench_now_ns() - t0) / runs;
}

int main(int argc, char **argv)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;
	int n = runpool_default_threads(), runs = 200000, trials = 7, opt;
	double one[MAX_TRIALS], all[MAX_TRIALS], ratio[MAX_TRIALS];
	struct worker w[RUNPOOL_MAX_THREADS] = {0};
	char v[64], base[64], vs[64];
	struct probe p = {0};

	while ((opt = getopt(argc, argv, "n:t:")) != -1) {
		if (opt == 'n')
			runs = atoi(optarg);
		else if (opt == 't')
			trials = atoi(optarg);
		else
			goto usage;
	}
	if (runs < 1 || trials < 1 || trials > MAX_TRIALS)
		goto usage;
	opts.replay = true;
	opts.hooks = PROBE_HOOK_XDP;
	if (probe_load(&p, &opts))
		return 1;
	for (int i = 0; i < n; i++) {
		struct bench_frame f = {.kind = BENCH_WRITE,
					.payload = 256,
					.src_ip = 0x0a000001 + i,
					.dst_ip = 0x0a010001,
					.sport = 49152 + i,
					.dscp = 26,
					.ecn = 2};
		struct fp_replay_meta m = {.ts_ns = 1, .path_id = 1};
		size_t len = bench_frame_build(w[i].buf + sizeof(m), &f);

		m.wire_len = len;
		memcpy(w[i].buf, &m, sizeof(m));
		w[i].len = sizeof(m) + len;
		w[i].p = &p;
		w[i].runs = runs;
		w[i].fd = probe_run_fd(&p);
		if (w[i].fd < 0) {
			fprintf(stderr, "threads: no program descriptor: %s\n", strerror(-w[i].fd));
			return 1;
		}
	}
	run_threads(w, n); /* warm-up: every flow inserted */
	for (int t = 0; t < trials; t++) {
		one[t] = run_threads(w, 1);
		all[t] = run_threads(w, n);
		ratio[t] = one[t] / all[t];
	}
	for (int i = 0; i < n; i++) {
		if (w[i].err) {
			fprintf(stderr, "threads: a run failed: %s\n", strerror(-w[i].err));
			return 1;
		}
		close(w[i].fd);
	}
	snprintf(v, sizeof(v), "%.2fx", bench_median(ratio, trials));
	snprintf(base, sizeof(base), "%.0f ns/frame on 1 thread", bench_median(one, trials));
	snprintf(vs, sizeof(vs), "%.0f ns/frame on %d", bench_median(all, trials), n);
	bench_row("replay ceiling", "BPF_PROG_TEST_RUN alone, all threads vs 1", v, base, vs, "-",
		  "-");
	bench_note("replay ceiling: %d threads x %d runs of a 256-byte WRITE, a flow and a program "
		   "descriptor each, median of %d trials; no capture read, no batches",
		   n, runs, trials);
	probe_destroy(&p);
	return 0;
usage:
	fprintf(stderr, "usage: threads [-n runs per thread] [-t trials (1-%d)]\n", MAX_TRIALS);
	return 2;
}
