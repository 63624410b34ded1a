/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_parse.h - a small, strict JSON reader (RFC 8259) for the files
 * fabprobe reads back, such as `rdma -j res show qp` in a recorded NIC tree.
 *
 * The whole text is tokenised into one flat array, in document order (the
 * jsmn approach): no recursion, nesting bounded by JP_MAX_DEPTH and the
 * token count by the caller, so hostile input costs O(length) time and
 * bounded memory. Every token records where its subtree ends, so skipping
 * an unknown member is O(1). Strings are validated (no control characters,
 * valid escapes, paired surrogates) and decoded on demand; bytes >= 0x80
 * pass through as they are, since the tools that write these files copy
 * task names verbatim.
 */
#ifndef __FP_JSON_PARSE_H
#define __FP_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define JP_MAX_DEPTH 64

enum jp_type {
	JP_OBJECT = 1,
	JP_ARRAY,
	JP_STRING,
	JP_NUMBER,
	JP_TRUE,
	JP_FALSE,
	JP_NULL,
};

struct jp_token {
	enum jp_type type;
	__u32 start, len; /* the value's bytes; a string's without its quotes */
	__u32 children;	  /* an object's members, an array's elements */
	__u32 end;	  /* index of the first token after this value's subtree */
};

/*
 * An object's tokens are its members in order, each a key (a JP_STRING)
 * followed by its value's subtree.
 */
struct jp_doc {
	const char *text;
	size_t len;
	struct jp_token *tok;
	size_t n, cap;
	size_t err_offset; /* where parsing stopped, and why */
	const char *err;
};

/*
 * Tokenise text[0..len) (which need not be NUL-terminated) with at most
 * max_tokens tokens. 0, or -EINVAL (d->err, d->err_offset say where),
 * -E2BIG (too many tokens or too long), -ENOMEM. d refers to text; keep it.
 */
int jp_parse(struct jp_doc *d, const char *text, size_t len, size_t max_tokens);
void jp_free(struct jp_doc *d);

/* The first child of container i (an object's first key), or -1 when empty. */
int jp_first(const struct jp_doc *d, int i);
/* The next sibling of token i in its container, or -1 after the last. */
int jp_next(const struct jp_doc *d, int parent, int i);
/* The value of key in object obj (the first, if repeated), or -1. */
int jp_get(const struct jp_doc *d, int obj, const char *key);

/* A non-negative integer that fits: -EINVAL otherwise, -ERANGE when too big. */
int jp_u64(const struct jp_doc *d, int i, __u64 *out);
/*
 * A string, unescaped into buf (NUL-terminated): its length, -EINVAL when
 * not a string, -ENOSPC when it does not fit (buf holds what did).
 */
int jp_str(const struct jp_doc *d, int i, char *buf, size_t size);
/* Whether string token i equals s (after unescaping). */
bool jp_str_eq(const struct jp_doc *d, int i, const char *s);

#endif /* __FP_JSON_PARSE_H */
