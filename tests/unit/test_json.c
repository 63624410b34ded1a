// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting_and_commas),
	    cmocka_unit_test(test_string_escapes),
	    cmocka_unit_test(test_doubles),
	    cmocka_unit_test(test_u64_extremes),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
