/* SPDX-License-Identifier: GPL-2.0 */
/* bench.h - what the benchmark programs share: clocks, medians, result rows. */
#ifndef __BENCH_H
#define __BENCH_H

#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of n values; sorts them in place. */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least of n values: a floor, the best the host allowed. */
static inline double bench_min(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/* Run on CPU cpu alone from now on: 0 if it does. */
static inline int bench_pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Keep one benchmark on one CPU: the last one, away from most housekeeping. */
static inline void bench_pin_last_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	bench_pin(n > 1 ? n - 1 : 0);
}

/* Undo bench_pin_last_cpu(): every online CPU (for threads started after). */
static inline void bench_unpin(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * One line of the results table, read by bench/run.sh:
 * ROW|section|figure|value|baseline|vs baseline|target|verdict
 */
static inline void bench_row(const char *section, const char *figure, const char *value,
			     const char *baseline, const char *vs, const char *target,
			     const char *verdict)
{
	printf("ROW|%s|%s|%s|%s|%s|%s|%s\n", section, figure, value, baseline, vs, target, verdict);
	fflush(stdout);
}

/* A note under the table (what was checked, what a figure means). */
static inline void bench_note(const char *fmt, ...)
{
	va_list ap;

	printf("NOTE|");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif /* __BENCH_H */
