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
 * Takes that span and up to one tick more (about 14 ms at HZ=250). 0, or
 * a negative errno with c zeroed: the caller then reads the precise clock.
 */
#define PROBE_CLOCK_SPAN_NS 10000000ULL
int probe_clock_measure(struct probe_clock *c);

/*
 * The tick rate of a kernel whose ticks measured span_ns over n ticks: the
 * nearest rate a kernel is built with, or 0 when none is within 1%.
 */
unsigned int probe_clock_hz(__u64 span_ns, __u64 n);

/* The kernel's TICK_NSEC: a second over hz, rounded to the nearest ns. */
static inline __u64 probe_clock_tick_ns(unsigned int hz)
{
	return (1000000000ULL + hz / 2) / hz;
}

#endif /* __FP_PROBE_CLOCK_H */
