// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/json_parse.h"

static int parse(struct jp_doc *d, const char *text)
{
	return jp_parse(d, text, strlen(text), 1000);
}

static void test_document_order_and_subtrees(void **state)
{
	struct jp_doc d;
	const char *t = " {\"a\": [1, {\"x\": null}, \"s\"], \"b\": true, \"c\": {}} ";
	int a, b, c, el;
	__u64 v;

	(void)state;
	assert_int_equal(parse(&d, t), 0);
	/* {, "a", [, 1, {, "x", null, "s", "b", true, "c", {} */
	assert_int_equal(d.n, 12);
	assert_int_equal(d.tok[0].type, JP_OBJECT);
	assert_int_equal(d.tok[0].children, 3);
	assert_int_equal(d.tok[0].end, 12);
	a = jp_get(&d, 0, "a");
	assert_int_equal(a, 2);
	assert_int_equal(d.tok[a].type, JP_ARRAY);
	assert_int_equal(d.tok[a].children, 3);
	assert_int_equal(d.tok[a].end, 8);
	el = jp_first(&d, a);
	assert_int_equal(jp_u64(&d, el, &v), 0);
	assert_int_equal(v, 1);
	el = jp_next(&d, a, el);
	assert_int_equal(d.tok[el].type, JP_OBJECT);
	assert_int_equal(d.tok[jp_get(&d, el, "x")].type, JP_NULL);
	el = jp_next(&d, a, el);
	assert_true(jp_str_eq(&d, el, "s"));
	assert_int_equal(jp_next(&d, a, el), -1);
	b = jp_get(&d, 0, "b");
	assert_int_equal(d.tok[b].type, JP_TRUE);
	c = jp_get(&d, 0, "c");
	assert_int_equal(d.tok[c].type, JP_OBJECT);
	assert_int_equal(jp_first(&d, c), -1);
	assert_int_equal(jp_get(&d, 0, "nope"), -1);
	/* Text spans: the object's bytes, a string's without quotes. */
	assert_int_equal(d.tok[0].start, 1);
	assert_int_equal(d.tok[0].len, strlen(t) - 2);
	assert_int_equal(d.tok[1].len, 1);
	jp_free(&d);
}

static void test_strings_unescape(void **state)
{
	const char *t =
	    "[\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\","
	    " \"caf\xc3\xa9\", \"\\u0041\"]";
	struct jp_doc d;
	char buf[64];
	int i;

	(void)state;
	assert_int_equal(parse(&d, t), 0);
	i = jp_first(&d, 0);
	assert_int_equal(jp_str(&d, i, buf, sizeof(buf)), 11);
	assert_string_equal(buf, "a\"b\\c/\b\f\n\r\t");
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_str(&d, i, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "\xc3\xa9\xe2\x82\xac"); /* U+00E9 U+20AC */
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_str(&d, i, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "\xf0\x9f\x98\x80"); /* U+1F600 from a surrogate pair */
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_str(&d, i, buf, sizeof(buf)), 5); /* raw UTF-8 passes through */
	i = jp_next(&d, 0, i);
	assert_true(jp_str_eq(&d, i, "A")); /* escaped key text compares decoded */
	/* Too small a buffer: -ENOSPC and what fits, terminated. */
	assert_int_equal(jp_str(&d, jp_first(&d, 0), buf, 4), -ENOSPC);
	assert_string_equal(buf, "a\"b");
	assert_int_equal(jp_str(&d, 0, buf, sizeof(buf)), -EINVAL);
	jp_free(&d);
}

static void test_numbers(void **state)
{
	struct jp_doc d;
	__u64 v;
	int i;

	(void)state;
	assert_int_equal(parse(&d, "[0, 18446744073709551615, 18446744073709551616, -1, 1.5,"
				   " 2e3, -0.0e-5, 120]"),
			 0);
	i = jp_first(&d, 0);
	assert_int_equal(jp_u64(&d, i, &v), 0);
	assert_int_equal(v, 0);
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_u64(&d, i, &v), 0);
	assert_true(v == UINT64_MAX);
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_u64(&d, i, &v), -ERANGE);
	for (int k = 0; k < 4; k++) {
		i = jp_next(&d, 0, i);
		assert_int_equal(d.tok[i].type, JP_NUMBER);
		assert_int_equal(jp_u64(&d, i, &v), -EINVAL); /* not a non-negative integer */
	}
	i = jp_next(&d, 0, i);
	assert_int_equal(jp_u64(&d, i, &v), 0);
	assert_int_equal(v, 120);
	assert_int_equal(jp_u64(&d, 0, &v), -EINVAL); /* an array is no number */
	jp_free(&d);
}

/* Everything RFC 8259 does not allow is refused, with where and why. */
static void test_hostile_inputs_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    " ",
	    "[1,]",
	    "{\"a\":1,}",
	    "[01]",
	    "[+1]",
	    "[1.]",
	    "[.5]",
	    "[1e]",
	    "[-]",
	    "{a:1}",
	    "{\"a\" 1}",
	    "{\"a\":}",
	    "[1 2]",
	    "[1] x",
	    "[1][2]",
	    "\"abc",
	    "[\"a\tb\"]",
	    "[\"\\x\"]",
	    "[\"\\u12\"]",
	    "[\"\\ud800\"]",
	    "[\"\\udc00\"]",
	    "[\"\\ud800\\u0041\"]",
	    "[tru]",
	    "[nul]",
	    "[True]",
	    "{\"a\":1]",
	    "[1}",
	    "]",
	    "}",
	    "[NaN]",
	    "[Infinity]",
	    "['a']",
	    "/* c */ 1",
	    "\xef\xbb\xbf[1]",
	};
	struct jp_doc d;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = parse(&d, bad[i]);

		if (err != -EINVAL)
			fail_msg("accepted or wrong error %d: %s", err, bad[i]);
		assert_non_null(d.err);
		assert_null(d.tok);
	}
	/* An embedded NUL is a control character, not the end of the text. */
	assert_int_equal(jp_parse(&d, "[\"a\0b\"]", 7, 100), -EINVAL);
	assert_int_equal(jp_parse(&d, "[1]\0", 4, 100), -EINVAL);
	assert_int_equal(jp_parse(&d, "[1]", 3, 100), 0);
	jp_free(&d);
}

static void test_depth_and_token_bounds(void **state)
{
	char deep[2 * JP_MAX_DEPTH + 8];
	struct jp_doc d;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < JP_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < JP_MAX_DEPTH; i++)
		deep[n++] = ']';
	assert_int_equal(jp_parse(&d, deep, n, 1000), 0);
	assert_int_equal(d.tok[0].end, JP_MAX_DEPTH);
	jp_free(&d);
	/* One more level is refused where it starts. */
	memmove(deep + 1, deep, n);
	deep[0] = '[';
	deep[++n] = ']';
	n++;
	assert_int_equal(jp_parse(&d, deep, n, 1000), -EINVAL);
	assert_int_equal(d.err_offset, JP_MAX_DEPTH);
	/* A million-level bomb costs no stack and stops at the bound. */
	{
		size_t big = 1 << 20;
		char *bomb = malloc(big);

		assert_non_null(bomb);
		memset(bomb, '[', big);
		assert_int_equal(jp_parse(&d, bomb, big, big), -EINVAL);
		free(bomb);
	}
	/* The token bound holds: 3 tokens allowed, 4 needed. */
	assert_int_equal(jp_parse(&d, "[1,2,3]", 7, 3), -E2BIG);
	assert_int_equal(jp_parse(&d, "[1,2,3]", 7, 4), 0);
	jp_free(&d);
}

/* Random bytes and mutations of a valid file never crash (ASan and UBSan check). */
static void test_random_mutations(void **state)
{
	const char *seed = "[{\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":1234,\"rqpn\":881,"
			   "\"type\":\"RC\",\"comm\":\"ib_write_bw\\u00e9\"}]";
	size_t len = strlen(seed);
	char buf[256];
	unsigned int rnd = 12345;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		struct jp_doc d;
		size_t n = len;

		memcpy(buf, seed, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			rnd = rnd * 1103515245 + 12345;
			buf[(rnd >> 8) % len] = (char)(rnd >> 16);
		}
		if (round % 7 == 0)
			n = (rnd >> 4) % len;
		if (!jp_parse(&d, buf, n, 256)) {
			char s[64];
			__u64 v;

			for (size_t t = 0; t < d.n; t++) {
				jp_str(&d, t, s, sizeof(s));
				jp_u64(&d, t, &v);
				jp_get(&d, t, "lqpn");
			}
			jp_free(&d);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_document_order_and_subtrees),
	    cmocka_unit_test(test_strings_unescape),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_hostile_inputs_refused),
	    cmocka_unit_test(test_depth_and_token_bounds),
	    cmocka_unit_test(test_random_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
