// SPDX-License-Identifier: GPL-2.0
/* The dashboard's table layout (user/top/table.c): which columns a width holds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "top/ui.h"

/* Every column shown ends within width: none is drawn cut at the edge. */
static void assert_within(const struct column *c, int n, int width)
{
	for (int i = 0; i < n; i++)
		if (c[i].on && c[i].x + c[i].width > width)
			fail_msg("column %d (%s) spans %d..%d, past %d", i, c[i].title, c[i].x,
				 c[i].x + c[i].width, width);
}

/*
 * Fixed columns none of which may be dropped (the VNIs view's): at 40
 * columns RATE, at x 35, held 5 of its 9 ("515 M" of 515 Mb/s). Those
 * that do not fit whole are not shown.
 */
static void test_fixed_columns_fit_whole(void **state)
{
	struct column c[] = {
	    {.title = "VNI", COL_NUMBER(8)},  {.title = "FLOWS", COL_NUMBER(7)},
	    {.title = "QPS", COL_NUMBER(7)},  {.title = "ELEPHANTS", COL_NUMBER(9)},
	    {.title = "RATE", COL_NUMBER(9)}, {.title = "PPS", COL_NUMBER(9)},
	    {.title = "CE/s", COL_NUMBER(7)},
	};
	int n = sizeof(c) / sizeof(c[0]);

	(void)state;
	table_layout(c, n, 40, 0);
	assert_within(c, n, 40);
	assert_true(c[0].on && c[1].on && c[2].on && c[3].on);
	assert_false(c[4].on);
	/* Wide enough: all of them. */
	table_layout(c, n, 80, 0);
	assert_within(c, n, 80);
	for (int i = 0; i < n; i++)
		assert_true(c[i].on);
}

/*
 * A flexible column at its minimum pushes the last fixed one past the
 * edge (the QPs view at 40: FLG kept 2 of its 3, "EC" of "ECP").
 */
static void test_flexible_at_minimum(void **state)
{
	struct column c[] = {
	    {.title = "QUEUE PAIR (req > resp)", .min = 15},
	    {.title = "VNI", .width = 3, .right = true, .drop = 20},
	    {.title = "QP", .width = 2, .right = true},
	    {.title = "PATH d/a", .width = 8, .max = 17},
	    {.title = "DATA", .width = 9, .right = true},
	    {.title = "CE%", .width = 6, .right = true, .drop = 1},
	    {.title = "FLG", .width = 3},
	};
	int n = sizeof(c) / sizeof(c[0]);

	(void)state;
	table_layout(c, n, 40, 31);
	assert_within(c, n, 40);
	assert_int_equal(c[0].width, 15);
	assert_true(c[4].on);
	assert_false(c[6].on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixed_columns_fit_whole),
	    cmocka_unit_test(test_flexible_at_minimum),
	};

	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
