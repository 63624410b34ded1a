// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probe/collect.h"

/* Per-CPU values as the kernel lays them out: 8-byte aligned strides. */
static void test_flow_sum_over_cpus(void **state)
{
	struct flow_counters cpu[3] = {}, sum;

	(void)state;
	cpu[0].packets = 2;
	cpu[0].bytes = 200;
	cpu[0].ecn[3] = 1;
	cpu[0].first_seen_ns = 50;
	cpu[0].last_seen_ns = 90;
	cpu[0].dscp = 26;
	cpu[0].opcodes[0] = 1ULL << 6;
	cpu[0].retransmits = 1;
	/* CPU 1 never saw the flow: its zero timestamps must not win. */
	cpu[2].packets = 3;
	cpu[2].bytes = 300;
	cpu[2].ecn[2] = 3;
	cpu[2].first_seen_ns = 40;
	cpu[2].last_seen_ns = 120;
	cpu[2].dscp = 46;
	cpu[2].opcodes[0] = 1ULL << 17;
	cpu[2].naks = 1;
	cpu[2].last_nak_code = 0;

	flow_counters_sum(&sum, cpu, 3, sizeof(cpu[0]));
	assert_int_equal(sum.packets, 5);
	assert_int_equal(sum.bytes, 500);
	assert_int_equal(sum.ecn[3], 1);
	assert_int_equal(sum.ecn[2], 3);
	assert_int_equal(sum.first_seen_ns, 40);
	assert_int_equal(sum.last_seen_ns, 120);
	assert_int_equal(sum.dscp, 46); /* from the CPU with the newest packet */
	assert_int_equal(sum.opcodes[0], (1ULL << 6) | (1ULL << 17));
	assert_int_equal(sum.retransmits, 1);
	assert_int_equal(sum.naks, 1);
}

/* A capture may start at time 0: that is a timestamp, not "unset". */
static void test_first_seen_at_time_zero(void **state)
{
	struct flow_counters cpu[2] = {}, sum;

	(void)state;
	cpu[0].packets = 1;
	cpu[0].first_seen_ns = 5;
	cpu[0].last_seen_ns = 5;
	cpu[1].packets = 1;
	cpu[1].first_seen_ns = 0;
	cpu[1].last_seen_ns = 0;
	flow_counters_sum(&sum, cpu, 2, sizeof(cpu[0]));
	assert_int_equal(sum.first_seen_ns, 0);
	assert_int_equal(sum.last_seen_ns, 5);
}

static void test_totals_sum(void **state)
{
	struct fp_totals cpu[2] = {};
	__u64 out[FP_CNT_MAX];

	(void)state;
	cpu[0].cnt[FP_CNT_FRAMES] = 10;
	cpu[1].cnt[FP_CNT_FRAMES] = 5;
	cpu[1].cnt[FP_CNT_MALFORMED] = 2;
	totals_sum(out, cpu, 2, sizeof(cpu[0]));
	assert_int_equal(out[FP_CNT_FRAMES], 15);
	assert_int_equal(out[FP_CNT_MALFORMED], 2);
	assert_int_equal(out[FP_CNT_ROCE], 0);
}

static void test_evictions_and_sort(void **state)
{
	struct flow_record flows[3] = {};
	struct snapshot s = {.flows = flows, .n_flows = 3};

	(void)state;
	flows[0].c.bytes = 10;
	flows[1].c.bytes = 30;
	flows[2].c.bytes = 20;
	s.totals[FP_CNT_FLOW_NEW] = 5;
	snapshot_flow_totals(&s);
	assert_int_equal(snapshot_evictions(&s), 2);
	assert_int_equal(s.totals[SNAP_CNT_FLOWS], 3);
	/* Inserts read before flows can lag: evictions never go back. */
	s.totals[FP_CNT_FLOW_NEW] = 4;
	snapshot_flow_totals(&s);
	assert_int_equal(snapshot_evictions(&s), 2);
	/* Never negative either. */
	memset(s.totals, 0, sizeof(s.totals));
	s.totals[FP_CNT_FLOW_NEW] = 2;
	snapshot_flow_totals(&s);
	assert_int_equal(snapshot_evictions(&s), 0);
	snapshot_sort_by_bytes(&s);
	assert_int_equal(flows[0].c.bytes, 30);
	assert_int_equal(flows[1].c.bytes, 20);
	assert_int_equal(flows[2].c.bytes, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow_sum_over_cpus),
	    cmocka_unit_test(test_first_seen_at_time_zero),
	    cmocka_unit_test(test_totals_sum),
	    cmocka_unit_test(test_evictions_and_sort),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}
