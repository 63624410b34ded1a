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
#include <stdint.h>
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
#define MEASURE_TRIES  3

/*
 * A step's placed time is the true one, up to a placement before it
 * (STEP_GAP_MAX_NS) and whatever delay the kernel took to make it. Steps
 * within this of the earliest, at a tick length, sit on its line.
 */
#define FIT_WINDOW_NS (2 * STEP_GAP_MAX_NS)

/* Tick rates Linux is built with (Kconfig HZ_*, and the arch-specific ones). */
static const unsigned int known_hz[] = {24,  32,  48,  64,  100,  128,	200, 250,
					256, 300, 500, 512, 1000, 1024, 1200};

/*
 * The steps on the line of one tick length: their count, the time they
 * span, and the phase of the earliest. A step's offset from the line is
 * its time less its count's ticks, compared modulo 2^64.
 */
struct line_fit {
	int n;
	__u64 span_ns, base_ns;
};

static struct line_fit fit_line(const struct fp_clock_sample *steps, int n, __u64 tick_ns)
{
	struct line_fit f = {.base_ns = steps[0].mono_ns - steps[0].jiffies * tick_ns};
	__u64 first = UINT64_MAX, last = 0;

	for (int i = 1; i < n; i++) {
		__u64 base = steps[i].mono_ns - steps[i].jiffies * tick_ns;

		if ((__s64)(base - f.base_ns) < 0)
			f.base_ns = base;
	}
	for (int i = 0; i < n; i++) {
		__u64 off = steps[i].mono_ns - steps[i].jiffies * tick_ns - f.base_ns;

		if (off > FIT_WINDOW_NS)
			continue;
		f.n++;
		first = steps[i].mono_ns < first ? steps[i].mono_ns : first;
		last = steps[i].mono_ns > last ? steps[i].mono_ns : last;
	}
	f.span_ns = last - first;
	return f;
}

int probe_clock_fit(const struct fp_clock_sample *steps, int n, struct probe_clock *c)
{
	struct line_fit best = {}, f;
	unsigned int hz = 0;

	if (n < 2)
		return -ERANGE;
	for (size_t i = 0; i < sizeof(known_hz) / sizeof(known_hz[0]); i++) {
		f = fit_line(steps, n, probe_clock_tick_ns(known_hz[i]));
		if (f.n < 2 || f.span_ns < PROBE_CLOCK_SPAN_NS / 2)
			continue;
		/* Two rates that both fit: the steps cannot tell them apart. */
		if (hz)
			return -ERANGE;
		hz = known_hz[i];
		best = f;
	}
	if (!hz)
		return -ERANGE;
	*c = (struct probe_clock){
	    .hz = hz, .tick_ns = probe_clock_tick_ns(hz), .base_ns = best.base_ns};
	return 0;
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
 * PROBE_CLOCK_SPAN_NS later, each step placed at the run before it, and fit
 * them (probe_clock_fit()). -ETIME when the count does not step where it
 * can be placed.
 */
#define STEPS_MAX 128

static int measure(int fd, struct probe_clock *c)
{
	struct fp_clock_sample prev, s, steps[STEPS_MAX];
	__u64 deadline;
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
	return probe_clock_fit(steps, n, c);
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
	/* A host too busy to give one measure steps it can fit may give the next. */
	for (int i = 0; i < MEASURE_TRIES; i++) {
		err = measure(fd, c);
		if (err != -ETIME && err != -ERANGE)
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
