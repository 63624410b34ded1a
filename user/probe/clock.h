/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the live programs' clock: the kernel's tick count, turned into
 * CLOCK_MONOTONIC ns with a tick length and phase measured at load.
 */
#ifndef __FP_PROBE_CLOCK_H
#define __FP_PROBE_CLOCK_H

#include <linux/types.h>

struct probe_clock {
	unsigned int hz; /* the kernel's tick rate; 0: not measured, the precise clock */
	__u64 tick_ns;	 /* the kernel's TICK_NSEC for hz */
	__u64 base_ns;	 /* CLOCK_MONOTONIC of tick 0, modulo 2^64 */
};

/*
 * Watch the tick count step over at least PROBE_CLOCK_SPAN_NS and fill c.
 * Takes that span and up to one tick more (about 44 ms at HZ=250), again
 * up to twice on a host too busy for it. 0, or a negative errno with c
 * zeroed: the caller then reads the precise clock.
 */
#define PROBE_CLOCK_SPAN_NS 40000000ULL
int probe_clock_measure(struct probe_clock *c);

/*
 * The tick that n steps of the count fit, each at the count it stepped to
 * and a time at most STEP_GAP_MAX_NS before the step (clock.c), or late by
 * as long as the kernel took to make it. Of the rates a kernel is built
 * with, the one whose line through the earliest step (the phase: a time is
 * never after its packet) holds steps at least half PROBE_CLOCK_SPAN_NS
 * apart. On the line of a rate 2.4% off (250 and 256 Hz, 1000 and 1024)
 * such steps would be 480 us apart, more than a step's placement: the
 * steps pin the rate. -ERANGE when no rate fits, or two do.
 */
struct fp_clock_sample;
int probe_clock_fit(const struct fp_clock_sample *steps, int n, struct probe_clock *c);

/* The kernel's TICK_NSEC: a second over hz, rounded to the nearest ns. */
static inline __u64 probe_clock_tick_ns(unsigned int hz)
{
	return (1000000000ULL + hz / 2) / hz;
}

#endif /* __FP_PROBE_CLOCK_H */
