// SPDX-License-Identifier: GPL-2.0
/*
 * test_clock.c - the live programs' clock (core.h, live_clock(); probe/clock.c):
 * the tick rate and phase fit to measured steps, and, on this kernel, the times a
 * live fp_xdp gives a flow against CLOCK_MONOTONIC read around its runs, on
 * the tick and with --precise-clock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "frames.h"
#include "probe/clock.h"
#include "probe/collect.h"
#include "probe/probe.h"

#define RC_SEND_ONLY 0x04

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Steps of a kernel ticking at hz from a count far from 0: step i at its
 * tick's time plus off_us[i] (negative: placed before it; positive: late),
 * n_ticks apart each.
 */
static int fit(unsigned int hz, int n, int n_ticks, const int *off_us, struct probe_clock *c)
{
	struct fp_clock_sample steps[64];
	__u64 tick_ns = probe_clock_tick_ns(hz), j0 = 4294892296ULL + 123456789;

	for (int i = 0; i < n; i++) {
		__u64 j = j0 + (__u64)i * n_ticks;

		steps[i] = (struct fp_clock_sample){
		    .jiffies = j, .mono_ns = 77000000000ULL + j * tick_ns + off_us[i] * 1000LL};
	}
	return probe_clock_fit(steps, n, c);
}

/*
 * The rate of a kernel is the one a kernel is built with that its steps fit,
 * late or placed early as they are; the phase is the earliest step's.
 */
static void test_fit(void **state)
{
	static const int on_time[32], first_late[32] = {200};
	/* A late step at each end, early ones between. */
	static const int ends_late[11] = {300, -90, -20, 0, -100, -50, 0, -10, -30, -80, 250};
	/* Two steps of three late, by up to 2 ms. */
	static const int mostly_late[11] = {0, 900, 2000, 0, 1500, 700, -50, 1100, 1800, 0, 600};
	struct probe_clock c;

	(void)state;
	assert_int_equal(fit(250, 11, 1, on_time, &c), 0);
	assert_int_equal(c.hz, 250);
	assert_int_equal(c.tick_ns, 4000000);
	assert_int_equal(c.base_ns, 77000000000ULL);
	/* The first rule (first to last step) read these 4 as 256 Hz: too short to tell. */
	assert_int_equal(fit(250, 4, 1, first_late, &c), -ERANGE); /* 12 ms: too short */
	assert_int_equal(fit(250, 11, 1, first_late, &c), 0);
	assert_int_equal(c.hz, 250);
	assert_int_equal(c.base_ns, 77000000000ULL);
	assert_int_equal(fit(250, 11, 1, ends_late, &c), 0);
	assert_int_equal(c.hz, 250);
	assert_int_equal(c.base_ns, 77000000000ULL - 100000);
	assert_int_equal(fit(250, 11, 1, mostly_late, &c), 0);
	assert_int_equal(c.hz, 250);
	assert_int_equal(c.base_ns, 77000000000ULL - 50000);
	for (int i = 0; i < 3; i++) {
		static const unsigned int rates[] = {1000, 1024, 256};

		assert_int_equal(fit(rates[i], 11, rates[i] / 250, ends_late, &c), 0);
		assert_int_equal(c.hz, rates[i]);
	}
	assert_int_equal(fit(300, 14, 1, on_time, &c), 0);
	assert_int_equal(c.hz, 300);
	assert_int_equal(fit(24, 2, 1, on_time, &c), 0);
	assert_int_equal(c.hz, 24);
	assert_int_equal(fit(1200, 32, 2, on_time, &c), 0);
	assert_int_equal(c.hz, 1200);
	/* 273 Hz and 1050 Hz: no kernel's rate; one step is none. */
	assert_int_equal(fit(273, 11, 1, on_time, &c), -ERANGE);
	assert_int_equal(fit(1050, 11, 4, on_time, &c), -ERANGE);
	assert_int_equal(fit(250, 1, 1, on_time, &c), -ERANGE);
}

/* The kernel's TICK_NSEC, rounded to the nearest ns. */
static void test_tick_ns(void **state)
{
	(void)state;
	assert_int_equal(probe_clock_tick_ns(250), 4000000);
	assert_int_equal(probe_clock_tick_ns(300), 3333333);
	assert_int_equal(probe_clock_tick_ns(1024), 976563);
	assert_int_equal(probe_clock_tick_ns(24), 41666667);
}

/*
 * A measure skips the steps it was preempted over, and fails only when no
 * two it can place come within its time (the loader then reads the precise
 * clock). Under a loaded test run the test asks again before it fails.
 */
static void test_measure(void **state)
{
	struct probe_clock c, again;
	int err = -1;

	(void)state;
	for (int i = 0; i < 20 && err; i++)
		err = probe_clock_measure(&c);
	assert_int_equal(err, 0);
	assert_true(c.hz >= 24 && c.hz <= 1200);
	assert_int_equal(c.tick_ns, probe_clock_tick_ns(c.hz));
	/* A second measure finds the same rate and, to within its error, the same phase. */
	err = -1;
	for (int i = 0; i < 20 && err; i++)
		err = probe_clock_measure(&again);
	assert_int_equal(err, 0);
	assert_int_equal(again.hz, c.hz);
	assert_true(llabs((long long)(again.base_ns - c.base_ns)) < 500000);
}

static void send_only(struct frame *f, __u32 psn)
{
	fr_init(f);
	fr_eth(f, FP_ETH_P_IP);
	fr_ipv4(f, &(struct fr_ip){.src = "10.0.0.1", .dst = "10.0.0.2", .ecn = FR_ECT0});
	fr_udp(f, 49152, FP_ROCE_PORT_DEFAULT);
	fr_bth(f, &(struct fr_bth){.opcode = RC_SEND_ONLY, .dest_qp = 0x11, .psn = psn});
	fr_payload(f, 64);
	fr_icrc(f);
	fr_finish(f);
}

static const struct flow_counters *only_flow(struct probe *p, struct snapshot *s)
{
	assert_int_equal(collect_snapshot(p, s), 0);
	assert_int_equal(s->n_flows, 1);
	return &s->flows[0].c;
}

/*
 * fp_xdp loaded live, run on frames through BPF_PROG_TEST_RUN: a flow's
 * times are CLOCK_MONOTONIC at the tick's resolution, never after the
 * moment the packet ran nor more than a tick (and the measure's error)
 * before it, and two packets two ticks apart are whole ticks apart.
 */
static void test_live_times(void **state)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;
	const struct flow_counters *c;
	static struct frame f;
	struct snapshot s = {};
	__u64 before, after, slack;
	struct probe p = {};

	(void)state;
	opts.hooks = PROBE_HOOK_XDP;
	opts.flow_entries = 1024;
	for (int i = 0; i < 20; i++) {
		assert_int_equal(probe_load(&p, &opts), 0);
		if (p.clock.hz)
			break;
		probe_destroy(&p);
	}
	assert_int_not_equal(p.clock.hz, 0);
	/*
	 * A time is the start of its tick: up to a tick before the packet, and
	 * up to a late step and a step's placement (STEP_GAP_MAX_NS,
	 * probe/clock.c) more. 1 ms covers both.
	 */
	slack = p.clock.tick_ns + 1000000;

	send_only(&f, 1);
	before = mono_ns();
	assert_int_equal(probe_run_frame(&p, f.data, f.len, f.len, 0, 0), 0);
	after = mono_ns();
	c = only_flow(&p, &s);
	assert_true(c->first_seen_ns <= after);
	assert_true(c->first_seen_ns + slack >= before);
	assert_int_equal(c->last_seen_ns, c->first_seen_ns);
	assert_int_equal((c->first_seen_ns - p.clock.base_ns) % p.clock.tick_ns, 0);

	/* Two ticks and a bit later: the same flow, a later tick, whole ticks on. */
	{
		struct timespec nap = {.tv_nsec = 2 * p.clock.tick_ns + 1000000};
		__u64 first = c->first_seen_ns;

		nanosleep(&nap, NULL);
		send_only(&f, 2);
		before = mono_ns();
		assert_int_equal(probe_run_frame(&p, f.data, f.len, f.len, 0, 0), 0);
		after = mono_ns();
		c = only_flow(&p, &s);
		assert_int_equal(c->first_seen_ns, first);
		assert_true(c->last_seen_ns <= after);
		assert_true(c->last_seen_ns + slack >= before);
		assert_true(c->last_seen_ns >= first + 2 * p.clock.tick_ns);
		assert_int_equal((c->last_seen_ns - first) % p.clock.tick_ns, 0);
	}
	snapshot_free(&s);
	probe_destroy(&p);
}

/* --precise-clock: no tick measured, and a packet's time lies between the reads around it. */
static void test_precise_clock(void **state)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;
	const struct flow_counters *c;
	static struct frame f;
	struct snapshot s = {};
	struct probe p = {};
	__u64 before, after;

	(void)state;
	opts.hooks = PROBE_HOOK_XDP;
	opts.flow_entries = 1024;
	opts.precise_clock = true;
	assert_int_equal(probe_load(&p, &opts), 0);
	assert_int_equal(p.clock.hz, 0);
	send_only(&f, 1);
	before = mono_ns();
	assert_int_equal(probe_run_frame(&p, f.data, f.len, f.len, 0, 0), 0);
	after = mono_ns();
	c = only_flow(&p, &s);
	assert_true(c->first_seen_ns >= before && c->first_seen_ns <= after);
	snapshot_free(&s);
	probe_destroy(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fit),		  cmocka_unit_test(test_tick_ns),
	    cmocka_unit_test(test_measure),	  cmocka_unit_test(test_live_times),
	    cmocka_unit_test(test_precise_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
