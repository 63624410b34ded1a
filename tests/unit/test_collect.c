// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probe/collect.h"
#include "probe/par.h"

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

static int cmp_reference(const void *a, const void *b)
{
	const struct flow_record *x = a, *y = b;

	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/*
 * n records sorted four times, as refreshes do: bytes in runs of ties
 * short (insertion) and long (a key word at a time), spread over all 64
 * bits so the radix sort takes every pass, and all the same (one run of
 * n, whose keys differ in words 0, 7 and 8 and agree in those between).
 */
static void sort_case(size_t n, bool own)
{
	struct snapshot s = {};
	struct flow_record *want = calloc(n, sizeof(*want)), *caller;
	unsigned int seed = (unsigned int)n;

	assert_non_null(want);
	caller = s.flows = calloc(n, sizeof(*s.flows));
	assert_non_null(s.flows);
	s.n_flows = s.cap = n;
	s.own_flows = own;
	for (size_t i = 0; i < n; i++) {
		s.flows[i].key.sport = (__u16)rand_r(&seed);
		s.flows[i].key.dest_qp = (__u32)i;
		s.flows[i].key.src[0] = (__u8)(i % 7);
		s.flows[i].key.inner_dst[15] = (__u8)(i % 5);
	}
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < n; i++) {
			__u64 *b = &s.flows[i].c.bytes;

			if (round == 0)
				*b = (__u64)(rand_r(&seed) % 50) << (8 * (i % 8));
			else if (round == 1)
				*b = (__u64)(i % 97) * 62;
			else if (round == 2)
				*b += (__u64)rand_r(&seed) << 33 | (__u64)(i % 3);
			else
				*b = 4096;
		}
		memcpy(want, s.flows, n * sizeof(*want));
		qsort(want, n, sizeof(*want), cmp_reference);
		snapshot_sort_by_bytes(&s);
		assert_int_equal(s.n_flows, n);
		assert_memory_equal(s.flows, want, n * sizeof(*want));
	}
	if (!own) {
		/* Sorted in the caller's array, which the snapshot never frees. */
		assert_ptr_equal(s.flows, caller);
		s.flows = NULL;
		free(caller);
	}
	snapshot_free(&s);
	free(want);
}

/* The radix sort and the record gather give exactly qsort's order, in one part or four. */
static void test_sort_matches_qsort(void **state)
{
	(void)state;
	sort_case(255, true); /* below the radix path: qsort itself */
	sort_case(256, true);
	sort_case(5000, true);
	sort_case(5000, false); /* the caller's array: sorted in place */
	sort_case(100000, true);
	/* The gather in four parts: runs of ties across their edges, one run of all. */
	par_set_parts(PAR_MAX);
	sort_case(100000, true);
	sort_case(100000, false);
	par_set_parts(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow_packets_from_ecn),
	    cmocka_unit_test(test_totals_sum),
	    cmocka_unit_test(test_evictions_and_sort),
	    cmocka_unit_test(test_sort_matches_qsort),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}
