// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the record queue (user/util/recq.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "util/recq.h"

/* Record i: i % 97 + 1 bytes, each byte (i + k) & 0xFF, tag i & 0xFFFF. */
static size_t rec_len(unsigned int i)
{
	return i % 97 + 1;
}

static void rec_fill(__u8 *buf, unsigned int i)
{
	for (size_t k = 0; k < rec_len(i); k++)
		buf[k] = (i + k) & 0xFF;
}

static void expect_rec(struct recq *q, unsigned int i)
{
	__u8 want[100];
	__u16 tag, len;
	const __u8 *p = recq_peek(q, &tag, &len);

	rec_fill(want, i);
	assert_int_equal(tag, i & 0xFFFF);
	assert_int_equal(len, rec_len(i));
	assert_memory_equal(p, want, len);
	recq_pop(q);
}

/* Exactly full, then refused; empty again after popping everything. */
static void test_fill_exactly(void **state)
{
	struct recq q;
	__u8 rec[12] = {0};

	(void)state;
	assert_int_equal(recq_init(&q, 4 * (RECQ_HDR + 12)), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(recq_push(&q, i, rec, 12), 0);
	assert_int_equal(recq_push(&q, 9, rec, 0), -ENOBUFS);
	assert_int_equal(q.records, 4);
	assert_int_equal(q.bytes, q.cap);
	for (int i = 0; i < 4; i++) {
		__u16 tag, len;

		recq_peek(&q, &tag, &len);
		assert_int_equal(tag, i);
		recq_pop(&q);
	}
	assert_int_equal(q.records, 0);
	assert_int_equal(q.bytes, 0);
	assert_int_equal(recq_push(&q, 1, rec, 12), 0);
	recq_free(&q);
}

/*
 * Pushes and pops interleaved so the writer wraps at every offset: records
 * come out whole and in order, and a refusal only ever means "full".
 */
static void test_wrap_keeps_order(void **state)
{
	struct recq q;
	unsigned int in = 0, out = 0;
	__u8 rec[100];

	(void)state;
	assert_int_equal(recq_init(&q, 1000), 0);
	for (int round = 0; round < 20000; round++) {
		int pushes = round % 3 + 1, pops = round % 4;

		for (int k = 0; k < pushes; k++) {
			rec_fill(rec, in);
			if (recq_push(&q, in & 0xFFFF, rec, rec_len(in)) == 0) {
				in++;
			} else {
				/* Refused only when no contiguous room: never with a half-empty
				 * queue. */
				assert_true(q.bytes + RECQ_HDR + rec_len(in) > q.cap / 2);
				break;
			}
		}
		for (int k = 0; k < pops && out < in; k++)
			expect_rec(&q, out++);
		assert_int_equal(q.records, in - out);
		assert_true(q.bytes <= q.cap);
	}
	while (out < in)
		expect_rec(&q, out++);
	assert_true(in > 10000);
	assert_int_equal(q.bytes, 0);
	recq_free(&q);
}

static void test_too_long(void **state)
{
	struct recq q;

	(void)state;
	assert_int_equal(recq_init(&q, 1 << 17), 0);
	assert_int_equal(recq_push(&q, 1, q.buf, 70000), -EINVAL);
	recq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fill_exactly),
	    cmocka_unit_test(test_wrap_keeps_order),
	    cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests_name("recq", tests, NULL, NULL);
}
