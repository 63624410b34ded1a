/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small streaming JSON writer: it tracks nesting and commas so
 * that callers only say what to write. It buffers what it writes and
 * hands it to its FILE whenever a document (the outermost value) ends:
 * write nothing else to that FILE in the middle of one, or json_flush()
 * first.
 */
#ifndef __FP_JSON_H
#define __FP_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define JSON_MAX_DEPTH 32
#define JSON_BUF       8192

struct json {
	FILE *out;
	char buf[JSON_BUF]; /* written, not yet handed to out */
	size_t len;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
	bool after_key;
};

void json_init(struct json *j, FILE *out);
/* Hand what is buffered to the FILE (a document's end does it). */
void json_flush(struct json *j);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, __u64 v);
void json_double(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* key + value in one call, for the common case. */
void json_kv_str(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, __u64 v);
void json_kv_double(struct json *j, const char *key, double v, int decimals);
void json_kv_bool(struct json *j, const char *key, bool v);

#endif /* __FP_JSON_H */
