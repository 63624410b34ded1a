// SPDX-License-Identifier: GPL-2.0
/*
 * util/radix.c: the keys of doubles keep their order (-0 and +0 one key),
 * and the sort is stable and sorted, against qsort of the same entries.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/radix.h"

/* Doubles in ascending order, each with a key above the one before. */
static void test_keys_keep_order(void **state)
{
	/* Infinities, normals, subnormals (1e-310) and the least normal (0x1p-1022). */
	static const double v[] = {-INFINITY, -1e300, -2.5, -1.0, -1e-310, 0.0,	    1e-310,
				   0x1p-1022, 1e-300, 1.0,  2.5,  1e300,   INFINITY};

	(void)state;
	for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++)
		assert_true(radix_key_of_double(v[i - 1]) < radix_key_of_double(v[i]));
	assert_true(radix_key_of_double(-0.0) == radix_key_of_double(0.0));
}

static int cmp_ent(const void *a, const void *b)
{
	const struct radix_ent *x = a, *y = b;

	/* By key, then by idx: the input order, so qsort gives the stable order. */
	return (x->key > y->key) - (x->key < y->key) ?: (x->idx > y->idx) - (x->idx < y->idx);
}

/* Keys with few values (many ties) and spread over every byte. */
static void test_sort_is_stable(void **state)
{
	enum { N = 5000 };
	static struct radix_ent a[N], tmp[N], want[N];
	unsigned int seed = 7;

	(void)state;
	for (int round = 0; round < 2; round++) {
		const struct radix_ent *got;

		for (size_t i = 0; i < N; i++) {
			__u64 k = round ? (__u64)rand_r(&seed) << 40 ^ (__u64)rand_r(&seed)
					: (__u64)(rand_r(&seed) % 13) << 56;

			a[i] = (struct radix_ent){.key = k, .idx = i};
		}
		for (size_t i = 0; i < N; i++)
			want[i] = a[i];
		qsort(want, N, sizeof(want[0]), cmp_ent);
		got = radix_sort(a, tmp, N);
		assert_true(got == a || got == tmp);
		for (size_t i = 0; i < N; i++) {
			assert_int_equal(got[i].key, want[i].key);
			assert_int_equal(got[i].idx, want[i].idx);
		}
	}
	/* One entry, and keys all the same: no pass, the input back. */
	a[0] = (struct radix_ent){.key = 42, .idx = 0};
	assert_ptr_equal(radix_sort(a, tmp, 1), a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_keep_order),
	    cmocka_unit_test(test_sort_is_stable),
	};

	return cmocka_run_group_tests_name("radix", tests, NULL, NULL);
}
