// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the most replay threads can give on this machine: fabprobe's
 * program run by BPF_PROG_TEST_RUN on one thread, then on every online CPU
 * at once, each thread with a flow and a program descriptor of its own
 * (probe_run_fd, as the replay workers have), nothing else running: no
 * capture to read, no batches to hand over. Replay on N threads cannot
 * scale better than this; what the VM does to a syscall on two CPUs at once
 * is in it, and nothing of fabprobe's userspace. Twice: one frame a run
 * (fp_xdp), and fp_replay's batches as full as the frame allows, which is
 * how replay runs them; the two per-frame costs on one thread split a
 * frame's cost into the test run's own and the program's. First, replay's
 * start: the program's load (mostly the verifier) and the instructions the
 * verifier processed.
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
	bool batched;
	__u8 buf[sizeof(struct fp_replay_meta) + 512];
	__u32 len;
	struct probe_batch batch; /* the frame as often as it fits */
	__u32 batch_pos, batch_frames;
};

static void *run(void *arg)
{
	struct worker *w = arg;

	if (!w->batched) {
		for (int i = 0; i < w->runs && !w->err; i++)
			w->err = probe_run_prepared(w->p, w->fd, w->buf, w->len);
		return NULL;
	}
	for (int i = 0; i < w->runs && !w->err; i += w->batch_frames) {
		/* A run empties the batch but leaves its bytes: fill it again as it was. */
		w->batch.pos = w->batch_pos;
		w->batch.frames = w->batch_frames;
		w->err = probe_batch_run(w->p, w->fd, &w->batch);
	}
	return NULL;
}

/* ns per frame with the first n workers running at once. */
static double run_threads(struct worker *w, int n, bool batched)
{
	__u64 t0 = bench_now_ns();
	int runs = 0;

	for (int i = 0; i < n; i++) {
		w[i].batched = batched;
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		runs += w[i].runs;
	}
	return (double)(bench_now_ns() - t0) / runs;
}

/* Each worker's own program descriptor; -1 when one cannot be had. */
static int open_fds(struct worker *w, int n, const struct probe *p)
{
	for (int i = 0; i < n; i++) {
		w[i].fd = probe_run_fd(p);
		if (w[i].fd < 0) {
			fprintf(stderr, "threads: no program descriptor: %s\n", strerror(-w[i].fd));
			return -1;
		}
	}
	return 0;
}

/* Close them; -1 when a worker's run failed. */
static int close_fds(struct worker *w, int n)
{
	int err = 0;

	for (int i = 0; i < n; i++) {
		if (w[i].err && !err) {
			fprintf(stderr, "threads: a run failed: %s\n", strerror(-w[i].err));
			err = -1;
		}
		close(w[i].fd);
	}
	return err;
}

/* One mode: trials of one thread and then all, the median ratio and costs as a row. */
static void measure(struct worker *w, int n, int trials, bool batched)
{
	double one[MAX_TRIALS], all[MAX_TRIALS], ratio[MAX_TRIALS];
	char v[64], base[64], vs[64];

	run_threads(w, n, batched); /* warm-up: every flow inserted */
	for (int t = 0; t < trials; t++) {
		one[t] = run_threads(w, 1, batched);
		all[t] = run_threads(w, n, batched);
		ratio[t] = one[t] / all[t];
	}
	snprintf(v, sizeof(v), "%.2fx", bench_median(ratio, trials));
	snprintf(base, sizeof(base), "%.0f ns/frame on 1 thread", bench_median(one, trials));
	snprintf(vs, sizeof(vs), "%.0f ns/frame on %d", bench_median(all, trials), n);
	if (batched) {
		char fig[96];

		snprintf(fig, sizeof(fig),
			 "BPF_PROG_TEST_RUN of batches (%u frames), all threads vs 1",
			 w[0].batch_frames);
		bench_row("replay ceiling", fig, v, base, vs, "-", "-");
	} else {
		bench_row("replay ceiling", "BPF_PROG_TEST_RUN alone, all threads vs 1", v, base,
			  vs, "-", "-");
	}
}

/*
 * Replay's start: probe_load() of fp_replay, which is mostly the verifier,
 * timed over the trials, and the instructions the verifier processed
 * (bpf_prog_info.verified_insns).
 */
static int load_cost(struct probe_opts opts, int trials)
{
	double ms[MAX_TRIALS];
	__u32 insns = 0;
	char v[64], vs[96];

	opts.hooks = PROBE_HOOK_REPLAY;
	for (int t = 0; t < trials; t++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct probe p = {0};
		__u64 t0 = bench_now_ns();
		int fd;

		if (probe_load(&p, &opts))
			return -1;
		ms[t] = (double)(bench_now_ns() - t0) / 1e6;
		fd = probe_run_fd(&p);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			insns = info.verified_insns;
		if (fd >= 0)
			close(fd);
		probe_destroy(&p);
	}
	snprintf(v, sizeof(v), "%.1f ms", bench_median(ms, trials));
	snprintf(vs, sizeof(vs), "%u instructions verified", insns);
	bench_row("replay start", "probe_load of fp_replay (the verifier, the maps)", v, "-", vs,
		  "-", "-");
	return 0;
}

int main(int argc, char **argv)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN), runs = 200000, trials = 7, opt;
	static struct worker w[RUNPOOL_MAX_THREADS];
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
	if (n < 1)
		n = 1;
	if (n > RUNPOOL_MAX_THREADS)
		n = RUNPOOL_MAX_THREADS;
	opts.replay = true;
	if (load_cost(opts, trials))
		return 1;
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
	}
	if (open_fds(w, n, &p))
		return 1;
	measure(w, n, trials, false);
	if (close_fds(w, n))
		return 1;
	probe_destroy(&p);

	/* Replay's own entry point, as replay loads it. */
	opts.hooks = PROBE_HOOK_REPLAY;
	if (probe_load(&p, &opts) || open_fds(w, n, &p))
		return 1;
	for (int i = 0; i < n; i++) {
		const struct fp_replay_meta *m = (const void *)w[i].buf;

		probe_batch_reset(&w[i].batch, &p);
		while (probe_batch_add(&w[i].batch, m + 1, w[i].len - sizeof(*m), m))
			;
		if (!w[i].batch.frames) {
			fprintf(stderr, "threads: the kernel runs no batches\n");
			return 1;
		}
		w[i].batch_pos = w[i].batch.pos;
		w[i].batch_frames = w[i].batch.frames;
	}
	measure(w, n, trials, true);
	if (close_fds(w, n))
		return 1;
	bench_note("replay ceiling: %d threads x %d frames of a 256-byte WRITE, a flow and a "
		   "program descriptor each, median of %d trials; no capture read; one frame a run "
		   "(fp_xdp), then fp_replay's batches of %u",
		   n, runs, trials, w[0].batch_frames);
	probe_destroy(&p);
	return 0;
usage:
	fprintf(stderr, "usage: threads [-n frames per thread] [-t trials (1-%d)]\n", MAX_TRIALS);
	return 2;
}
