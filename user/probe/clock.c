// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - measure the kernel's tick for the live programs' clock (core.h,
 * live_clock()). The kernel advances jiffies from CLOCK_MONOTONIC itself
 * (tick_do_update_jiffies64(): one step each TICK_NSEC of it), so
 * monotonic ns = base + jiffies * TICK_NSEC holds for as long as the host
 * runs, to within the moment a step lands. Userspace cannot read jiffies:
 * clock.bpf.c reads it and the clock in one run, and this file runs it
 * until the count steps, notes when, and runs it until the count steps
 * again at least PROBE_CLOCK_SPAN_NS later.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.h"
#include "clock.skel.h"
#include "util/log.h"
#include "probe/clock.h"

/*
 * A step is placed at the last run before it: the tick that makes it is an
 * interrupt, and where it lands on this CPU its handler (20 to 30 us on
 * this VM) runs between the two. A wider gap is a preemption, which leaves
 * the step anywhere in it: that measurement starts over.
 */
#define STEP_GAP_MAX_NS 100000ULL
/* Ticks are at most 1/24 s (HZ=24): give up well after two of them. */
#define MEASURE_MAX_NS 200000000ULL
#define MEASURE_TRIES  3

/* Tick rates Linux is built with (Kconfig HZ_*, and the arch-specific ones). */
static const unsigned int known_hz[] = {24,  32,  48,  64,  100,  128,	200, 250,
					256, 300, 500, 512, 1000, 1024, 1200};

unsigned int probe_clock_hz(__u64 span_ns, __u64 n)
{
	double hz, best_err = 0.01;
	unsigned int best = 0;

	if (!span_ns || !n)
		return 0;
	hz = 1e9 * (double)n / (double)span_ns;
	for (size_t i = 0; i < sizeof(known_hz) / sizeof(known_hz[0]); i++) {
		double err = fabs(hz - known_hz[i]) / known_hz[i];

		if (err < best_err) {
			best_err = err;
			best = known_hz[i];
		}
	}
	return best;
}

static int sample(int fd, struct fp_clock_sample *s)
{
	/* A syscall program's run writes its context back in place (no ctx_out). */
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = s, .ctx_size_in = sizeof(*s));

	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	return 0;
}

/*
 * Run until the count steps past `after`, at least span_ns after from_ns;
 * *at is the run after the step, at its own count and at the time of the
 * run before it. -EAGAIN when that run is too far back to place the step,
 * -ETIME when no step comes.
 */
static int next_step(int fd, __u64 after, __u64 from_ns, __u64 span_ns, struct fp_clock_sample *at)
{
	__u64 deadline = from_ns + span_ns + MEASURE_MAX_NS;
	struct fp_clock_sample prev, s;
	int err = sample(fd, &prev);

	while (!err) {
		err = sample(fd, &s);
		if (err)
			return err;
		if (s.mono_ns > deadline)
			return -ETIME;
		if (s.jiffies != prev.jiffies && s.jiffies > after &&
		    prev.mono_ns >= from_ns + span_ns) {
			if (s.mono_ns - prev.mono_ns > STEP_GAP_MAX_NS)
				return -EAGAIN;
			*at =
			    (struct fp_clock_sample){.jiffies = s.jiffies, .mono_ns = prev.mono_ns};
			return 0;
		}
		prev = s;
	}
	return err;
}

/*
 * The tick's length from two steps PROBE_CLOCK_SPAN_NS or more apart, its
 * phase from the earlier of the two: a step the kernel made late (the CPU
 * that keeps jiffies was slow to take its tick, up to 60 us here) would
 * put every time after the packet it stands for.
 */
static int measure(int fd, struct probe_clock *c)
{
	struct fp_clock_sample first, a, b;
	__u64 base_a, base_b;
	int err = sample(fd, &first);

	if (err)
		return err;
	err = next_step(fd, first.jiffies, first.mono_ns, 0, &a);
	if (!err)
		err = next_step(fd, a.jiffies, a.mono_ns, PROBE_CLOCK_SPAN_NS, &b);
	if (err)
		return err;
	c->hz = probe_clock_hz(b.mono_ns - a.mono_ns, b.jiffies - a.jiffies);
	if (!c->hz)
		return -ERANGE;
	c->tick_ns = probe_clock_tick_ns(c->hz);
	base_a = a.mono_ns - a.jiffies * c->tick_ns;
	base_b = b.mono_ns - b.jiffies * c->tick_ns;
	c->base_ns = (__s64)(base_b - base_a) < 0 ? base_b : base_a;
	return 0;
}

int probe_clock_measure(struct probe_clock *c)
{
	struct clock_bpf *skel;
	int err, fd;

	memset(c, 0, sizeof(*c));
	skel = clock_bpf__open_and_load();
	if (!skel)
		return -errno;
	fd = bpf_program__fd(skel->progs.fp_clock);
	for (int i = 0; i < MEASURE_TRIES; i++) {
		err = measure(fd, c);
		if (err != -EAGAIN)
			break;
	}
	clock_bpf__destroy(skel);
	if (err) {
		memset(c, 0, sizeof(*c));
		return err;
	}
	fp_dbg("clock: the kernel ticks at %u Hz; live times have %llu us resolution", c->hz,
	       (unsigned long long)c->tick_ns / 1000);
	return 0;
}
