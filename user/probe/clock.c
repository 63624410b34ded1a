// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - measure the kernel's tick for the live programs' clock (core.h,
 * live_clock()). The kernel advances jiffies from CLOCK_MONOTONIC itself
 * (tick_do_update_jiffies64(): one step each TICK_NSEC of it), so
 * monotonic ns = base + jiffies * TICK_NSEC holds for as long as the host
 * runs, to within the moment a step lands. Userspace cannot read jiffies:
 * clock.bpf.c reads it and the clock in one run, and this file runs it
 * over PROBE_CLOCK_SPAN_NS and more, noting when the count steps.
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
 * the step anywhere in it.
 */
#define STEP_GAP_MAX_NS 100000ULL
/* Ticks are at most 1/24 s (HZ=24): give up well after two of them. */
#define MEASURE_MAX_NS 200000000ULL

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
 * Run the probe from one step of the count to the first step at least
 * PROBE_CLOCK_SPAN_NS later. The rate comes from the first and last steps;
 * the phase from the earliest of them all, each placed at the run before
 * it: a step the kernel made late (the CPU that keeps jiffies was slow to
 * take its tick, up to 60 us here) would put times after their packets.
 * -ETIME when the count does not step where it can be placed.
 */
#define STEPS_MAX 64

static int measure(int fd, struct probe_clock *c)
{
	struct fp_clock_sample prev, s, steps[STEPS_MAX];
	__u64 deadline, base;
	int n = 0, err;

	err = sample(fd, &prev);
	if (err)
		return err;
	deadline = prev.mono_ns + PROBE_CLOCK_SPAN_NS + MEASURE_MAX_NS;
	while (n < STEPS_MAX) {
		err = sample(fd, &s);
		if (err)
			return err;
		if (s.mono_ns > deadline)
			return -ETIME;
		/* A step that came during a preemption cannot be placed: skipped. */
		if (s.jiffies != prev.jiffies && s.mono_ns - prev.mono_ns <= STEP_GAP_MAX_NS) {
			steps[n++] =
			    (struct fp_clock_sample){.jiffies = s.jiffies, .mono_ns = prev.mono_ns};
			if (n > 1 && prev.mono_ns - steps[0].mono_ns >= PROBE_CLOCK_SPAN_NS)
				break;
		}
		prev = s;
	}
	if (n < 2)
		return -ETIME;
	c->hz = probe_clock_hz(steps[n - 1].mono_ns - steps[0].mono_ns,
			       steps[n - 1].jiffies - steps[0].jiffies);
	if (!c->hz)
		return -ERANGE;
	c->tick_ns = probe_clock_tick_ns(c->hz);
	c->base_ns = steps[0].mono_ns - steps[0].jiffies * c->tick_ns;
	for (int i = 1; i < n; i++) {
		base = steps[i].mono_ns - steps[i].jiffies * c->tick_ns;
		if ((__s64)(base - c->base_ns) < 0)
			c->base_ns = base;
	}
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
	err = measure(fd, c);
	clock_bpf__destroy(skel);
	if (err) {
		memset(c, 0, sizeof(*c));
		return err;
	}
	fp_dbg("clock: the kernel ticks at %u Hz; live times have %llu us resolution", c->hz,
	       (unsigned long long)c->tick_ns / 1000);
	return 0;
}
