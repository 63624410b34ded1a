// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probe/collect.h"

/* The kernel keeps no packet count: every packet counts in one ECN codepoint. */
static void test_flow_packets_from_ecn(void **state)
{
	struct flow_counters map = {}, out;

	(void)state;
	map.packets = 99; /* never written by the kernel; ignored */
	map.bytes = 500;
	map.ecn[0] = 1;
	map.ecn[2] = 3;
	map.ecn[3] = 1;
	map.inner_ecn[3] = 4;
	map.first_seen_ns = 0;
	map.last_seen_ns = 120;
	map.dscp = 46;
	map.opcodes[0] = (1ULL << 6) | (1ULL << 17);
	map.naks = 1;
	flow_counters_read(&out, &map);
	assert_int_equal(out.packets, 5);
	assert_int_equal(out.bytes, 500);
	assert_int_equal(out.inner_ecn[3], 4);
	assert_int_equal(out.first_seen_ns, 0);
	assert_int_equal(out.last_seen_ns, 120);
	assert_int_equal(out.dscp, 46);
	assert_int_equal(out.opcodes[0], (1ULL << 6) | (1ULL << 17));
	assert_int_equal(out.naks, 1);
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
	    cmocka_unit_test(test_flow_packets_from_ecn),
	    cmocka_unit_test(test_totals_sum),
	    cmocka_unit_test(test_evictions_and_sort),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}
