// SPDX-License-Identifier: GPL-2.0
/*
 * test_clock.c - the live programs' clock (core.h, live_clock(); probe/clock.c):
 * the tick rate read from a measured span, and, on this kernel, the times a
 * live fp_xdp gives a flow against CLOCK_MONOTONIC read around its runs, on
 * the tick and with --precise-clock.
 */
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

/* A span measured within 1% of a rate the kernel is built with gives that rate. */
static void test_hz_of_span(void **state)
{
	(void)state;
	assert_int_equal(probe_clock_hz(4000000, 1), 250);
	assert_int_equal(probe_clock_hz(12060000, 3), 250); /* a step 60 us late */
	assert_int_equal(probe_clock_hz(10000000, 1), 100);
	assert_int_equal(probe_clock_hz(10000000, 10), 1000);
	assert_int_equal(probe_clock_hz(9765625, 10), 1024);
	assert_int_equal(probe_clock_hz(9900000, 10), 0); /* 1010 Hz: 1000 and 1024 too far */
	assert_int_equal(probe_clock_hz(13333333, 4), 300);
	assert_int_equal(probe_clock_hz(3663003, 1), 0); /* 273 Hz */
	assert_int_equal(probe_clock_hz(0, 1), 0);
	assert_int_equal(probe_clock_hz(4000000, 0), 0);
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
	    cmocka_unit_test(test_hz_of_span),	  cmocka_unit_test(test_tick_ns),
	    cmocka_unit_test(test_measure),	  cmocka_unit_test(test_live_times),
	    cmocka_unit_test(test_precise_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
