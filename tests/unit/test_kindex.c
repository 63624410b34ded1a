// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/kindex.h"

struct rec {
	__u32 key[3];
	int value;
};

/* Insert many records, find each again, and miss keys that are absent. */
static void test_insert_and_find(void **state)
{
	enum { N = 5000 };
	struct rec *r = calloc(N, sizeof(*r));
	struct kindex_ent *before;
	struct kindex x = {};

	(void)state;
	assert_non_null(r);
	assert_int_equal(kindex_reset(&x, N), 0);
	assert_true(x.size >= 2 * N);
	for (int i = 0; i < N; i++) {
		__u32 *slot;

		r[i].key[0] = i * 7919;
		r[i].key[1] = i % 3; /* many keys share words: collisions in the hash's input */
		slot = kindex_slot(&x, r[i].key, sizeof(r[i].key), r, sizeof(*r));
		assert_int_equal(*slot, 0);
		*slot = i + 1;
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(kindex_find(&x, r[i].key, sizeof(r[i].key), r, sizeof(*r)), i + 1);
		assert_int_equal(*kindex_slot(&x, r[i].key, sizeof(r[i].key), r, sizeof(*r)),
				 i + 1);
	}
	/* A miss finds nothing and, looked up with kindex_find, leaves the index as it was. */
	before = malloc(x.size * sizeof(*x.slot));
	assert_non_null(before);
	memcpy(before, x.slot, x.size * sizeof(*x.slot));
	for (int i = 0; i < 100; i++) {
		__u32 absent[3] = {i * 7919 + 1, 5, 9};

		assert_int_equal(kindex_find(&x, absent, sizeof(absent), r, sizeof(*r)), 0);
	}
	assert_memory_equal(before, x.slot, x.size * sizeof(*x.slot));
	for (int i = 0; i < 100; i++) {
		__u32 absent[3] = {i * 7919 + 1, 5, 9};

		assert_int_equal(*kindex_slot(&x, absent, sizeof(absent), r, sizeof(*r)), 0);
	}
	free(before);
	/* A reset empties the index. */
	assert_int_equal(kindex_reset(&x, N), 0);
	assert_int_equal(kindex_find(&x, r[0].key, sizeof(r[0].key), r, sizeof(*r)), 0);
	kindex_free(&x);
	free(r);
}

/* Lengths that are not a multiple of 8 hash every byte. */
static void test_hash_tail_bytes(void **state)
{
	__u8 a[11] = {0}, b[11] = {0};

	(void)state;
	b[10] = 1;
	assert_int_not_equal(kindex_hash(a, sizeof(a), 0), kindex_hash(b, sizeof(b), 0));
	assert_int_equal(kindex_hash(a, sizeof(a), 0), kindex_hash(a, sizeof(a), 0));
	assert_int_not_equal(kindex_hash(a, sizeof(a), 0), kindex_hash(a, sizeof(a), 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_insert_and_find),
	    cmocka_unit_test(test_hash_tail_bytes),
	};

	return cmocka_run_group_tests_name("kindex", tests, NULL, NULL);
}
