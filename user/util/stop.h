/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stop.h - being told to stop: SIGINT and SIGTERM set one flag that every
 * loop polls, and sleeps wake early when it is set.
 */
#ifndef __FP_STOP_H
#define __FP_STOP_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <linux/types.h>

/* Set by SIGINT/SIGTERM (or fp_stop_request); loops poll it. */
extern volatile sig_atomic_t fp_stopping;

/* Catch SIGINT and SIGTERM into fp_stopping; ignore SIGPIPE. */
void fp_stop_on_signals(void);
void fp_stop_request(void);

/* Sleep up to seconds in short slices; false once told to stop. */
bool fp_sleep(double seconds);

/* A clock's time in ns (0 if it cannot be read); CLOCK_MONOTONIC's and CLOCK_REALTIME's. */
__u64 fp_clock_ns(clockid_t id);
__u64 fp_mono_ns(void);
__u64 fp_real_ns(void);

#endif /* __FP_STOP_H */
