// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/json.h"

/* Render with the writer into a string. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
	struct json j;
};

static void cap_open(struct capture *c)
{
	c->f = open_memstream(&c->buf, &c->len);
	json_init(&c->j, c->f);
}

static const char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static void test_nesting_and_commas(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	json_obj_begin(&c.j);
	json_kv_u64(&c.j, "a", 1);
	json_key(&c.j, "b");
	json_arr_begin(&c.j);
	json_u64(&c.j, 2);
	json_obj_begin(&c.j);
	json_obj_end(&c.j);
	json_null(&c.j);
	json_arr_end(&c.j);
	json_kv_bool(&c.j, "c", false);
	json_obj_end(&c.j);
	assert_string_equal(cap_close(&c), "{\"a\":1,\"b\":[2,{},null],\"c\":false}\n");
	free(c.buf);
}

static void test_string_escapes(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	json_str(&c.j, "q\"b\\n\n\x01t\t");
	assert_string_equal(cap_close(&c), "\"q\\\"b\\\\n\\n\\u0001t\\t\"");
	free(c.buf);
}

/*
 * JSON text is Unicode: valid UTF-8 passes as it is, any byte that is not
 * part of a valid sequence (a pcap path, an interface or process name in
 * Latin-1) is U+FFFD, so json.load() of a report never fails on a name.
 */
static void test_string_utf8(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	json_arr_begin(&c.j);
	json_str(&c.j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é, €, an emoji */
	json_str(&c.j, "a\xff"
		       "b");			 /* Latin-1's ÿ */
	json_str(&c.j, "\xc3");			 /* cut at the end */
	json_str(&c.j, "\xc0\xaf \xe0\x80\xaf"); /* overlong '/' */
	json_str(&c.j, "\xed\xa0\x80");		 /* a surrogate */
	json_str(&c.j, "\xf4\x90\x80\x80");	 /* past U+10FFFF */
	json_arr_end(&c.j);
	assert_string_equal(cap_close(&c),
			    "[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\",\"a\\ufffdb\","
			    "\"\\ufffd\",\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\","
			    "\"\\ufffd\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
	free(c.buf);
}

static void test_doubles(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	json_arr_begin(&c.j);
	json_double(&c.j, 1.5, 3);
	json_double(&c.j, 0.0 / 0.0, 3);
	json_double(&c.j, 1e300 * 1e300, 1);
	json_arr_end(&c.j);
	/* NaN and infinity have no JSON form: null. */
	assert_string_equal(cap_close(&c), "[1.500,null,null]\n");
	free(c.buf);
}

static void test_u64_extremes(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	json_arr_begin(&c.j);
	json_u64(&c.j, 0);
	json_u64(&c.j, UINT64_MAX);
	json_arr_end(&c.j);
	assert_string_equal(cap_close(&c), "[0,18446744073709551615]\n");
	free(c.buf);
}

/* One double as the writer puts it, into buf. */
static void one_double(char *buf, size_t len, double v, int decimals)
{
	struct capture c;

	cap_open(&c);
	json_double(&c.j, v, decimals);
	snprintf(buf, len, "%s", cap_close(&c));
	free(c.buf);
}

/*
 * The writer formats doubles itself: each must read as printf's "%.*f"
 * of it, byte for byte, ties (printf rounds the exact binary value, to
 * even) and signs included.
 */
static void test_doubles_as_printf(void **state)
{
	static const double edge[] = {
	    0.0,     -0.0,   0.5,     1.5,	 2.5,	    0.125,
	    0.375,   1.0005, 2.675,   1e-7,	 -1e-7,	    -0.4,
	    0.05,    0.15,   0.25,    999.9995,	 123456.5,  4503599627370495.5,
	    1e15,    1e16,   1e300,   -123.4567, 0.1 + 0.2, 1.0 / 3,
	    2.0 / 3, 1104.0, 0.32768, 1e-300,	 4.35e-5,   9.5};
	char got[400], want[400];
	__u64 x = 88172645463325252ULL;

	(void)state;
	for (int d = 0; d <= 12; d++) {
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			one_double(got, sizeof(got), edge[i], d);
			snprintf(want, sizeof(want), "%.*f", d, edge[i]);
			assert_string_equal(got, want);
		}
		for (int i = 0; i < 20000; i++) {
			double v;

			/* xorshift: bits of every kind, and halves of small integers (ties). */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			switch (i % 4) {
			case 0:
				v = (double)(x % 100000000) / (double)(1ULL << (x >> 56) % 40);
				break;
			case 1:
				v = ((double)(x >> 11) / (1ULL << 53)) * 1e6 - 5e5;
				break;
			case 2:
				v = (double)(x % 2000001) / 2000 - 500;
				break;
			default:
				memcpy(&v, &x, sizeof(v));
				if (!isfinite(v))
					continue;
			}
			one_double(got, sizeof(got), v, d);
			snprintf(want, sizeof(want), "%.*f", d, v);
			assert_string_equal(got, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting_and_commas), cmocka_unit_test(test_string_escapes),
	    cmocka_unit_test(test_string_utf8),	       cmocka_unit_test(test_doubles),
	    cmocka_unit_test(test_doubles_as_printf),  cmocka_unit_test(test_u64_extremes),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
