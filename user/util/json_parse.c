// SPDX-License-Identifier: GPL-2.0
/*
 * json_parse.c - the strict JSON tokeniser of json_parse.h: one pass, a
 * state machine over an explicit stack of open containers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/json_parse.h"

enum want {
	WANT_VALUE,	     /* at the top, or after ':' or ',' in an array */
	WANT_VALUE_OR_CLOSE, /* after '[' */
	WANT_KEY,	     /* after ',' in an object */
	WANT_KEY_OR_CLOSE,   /* after '{' */
	WANT_COLON,
	WANT_COMMA_OR_CLOSE,
	WANT_NOTHING, /* the top-level value is complete */
};

struct parser {
	struct jp_doc *d;
	size_t pos, max_tokens;
	int stack[JP_MAX_DEPTH]; /* token indices of the open containers */
	int depth;
};

static int fail(struct parser *p, const char *why)
{
	p->d->err = why;
	p->d->err_offset = p->pos;
	return -EINVAL;
}

static int token_new(struct parser *p, enum jp_type type, size_t start)
{
	struct jp_doc *d = p->d;
	struct jp_token *t;

	if (d->n >= p->max_tokens) {
		d->err = "too many tokens";
		d->err_offset = start;
		return -E2BIG;
	}
	if (buf_grow((void **)&d->tok, &d->cap, d->n + 1, sizeof(*d->tok)))
		return -ENOMEM;
	t = &d->tok[d->n];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->start = start;
	t->end = d->n + 1;
	return d->n++;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hex4(const char *s, size_t avail, unsigned int *out)
{
	unsigned int v = 0;

	if (avail < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* p->pos is on the opening quote; leaves it after the closing one. */
static int scan_string(struct parser *p, int tok)
{
	const char *s = p->d->text;
	size_t len = p->d->len, open = p->pos, i = open + 1;

	while (i < len) {
		unsigned char c = s[i];
		unsigned int u, lo;

		if (c == '"') {
			p->d->tok[tok].start = open + 1;
			p->d->tok[tok].len = i - open - 1;
			p->pos = i + 1;
			return 0;
		}
		if (c < 0x20) {
			p->pos = i;
			return fail(p, "control character in string");
		}
		if (c != '\\') {
			i++;
			continue;
		}
		if (i + 1 >= len)
			break;
		switch (s[i + 1]) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			i += 2;
			continue;
		case 'u':
			break;
		default:
			p->pos = i;
			return fail(p, "invalid escape");
		}
		p->pos = i;
		if (hex4(s + i + 2, len - i - 2, &u))
			return fail(p, "invalid \\u escape");
		i += 6;
		if (u >= 0xDC00 && u <= 0xDFFF)
			return fail(p, "unpaired low surrogate");
		if (u >= 0xD800 && u <= 0xDBFF) {
			/* UTF-16 high surrogate: a low one must follow (RFC 8259 section 7). */
			if (i + 1 >= len || s[i] != '\\' || s[i + 1] != 'u' ||
			    hex4(s + i + 2, len - i - 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
				return fail(p, "unpaired high surrogate");
			i += 6;
		}
	}
	p->pos = len;
	return fail(p, "unterminated string");
}

static size_t digits(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* number = [ minus ] int [ frac ] [ exp ] (RFC 8259 section 6) */
static int scan_number(struct parser *p, int tok)
{
	const char *s = p->d->text;
	size_t len = p->d->len, i = p->pos, j;

	if (i < len && s[i] == '-')
		i++;
	if (i >= len)
		return fail(p, "truncated number");
	if (s[i] == '0')
		i++;
	else if (s[i] >= '1' && s[i] <= '9')
		i = digits(s, i, len);
	else
		return fail(p, "invalid number");
	if (i < len && s[i] == '.') {
		j = digits(s, i + 1, len);
		if (j == i + 1) {
			p->pos = i;
			return fail(p, "digits must follow '.'");
		}
		i = j;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		j = digits(s, i, len);
		if (j == i) {
			p->pos = i;
			return fail(p, "digits must follow the exponent");
		}
		i = j;
	}
	p->d->tok[tok].len = i - p->pos;
	p->pos = i;
	return 0;
}

static int scan_literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->d->len - p->pos < n || memcmp(p->d->text + p->pos, word, n))
		return fail(p, "invalid literal");
	p->pos += n;
	return 0;
}

static enum want after_value(const struct parser *p)
{
	return p->depth ? WANT_COMMA_OR_CLOSE : WANT_NOTHING;
}

static int value(struct parser *p, enum want *w)
{
	const char *s = p->d->text;
	char c = s[p->pos];
	int tok, err = 0;
	enum jp_type type;

	switch (c) {
	case '{':
		type = JP_OBJECT;
		break;
	case '[':
		type = JP_ARRAY;
		break;
	case '"':
		type = JP_STRING;
		break;
	case 't':
		type = JP_TRUE;
		break;
	case 'f':
		type = JP_FALSE;
		break;
	case 'n':
		type = JP_NULL;
		break;
	default:
		if (c != '-' && (c < '0' || c > '9'))
			return fail(p, "expected a value");
		type = JP_NUMBER;
	}
	tok = token_new(p, type, p->pos);
	if (tok < 0)
		return tok;
	if (p->depth && p->d->tok[p->stack[p->depth - 1]].type == JP_ARRAY)
		p->d->tok[p->stack[p->depth - 1]].children++;
	switch (type) {
	case JP_OBJECT:
	case JP_ARRAY:
		if (p->depth == JP_MAX_DEPTH)
			return fail(p, "nested too deeply");
		p->stack[p->depth++] = tok;
		p->pos++;
		*w = type == JP_OBJECT ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
		return 0;
	case JP_STRING:
		err = scan_string(p, tok);
		break;
	case JP_NUMBER:
		err = scan_number(p, tok);
		break;
	default:
		err = scan_literal(p, type == JP_TRUE	 ? "true"
				      : type == JP_FALSE ? "false"
							 : "null");
		p->d->tok[tok].len = p->pos - p->d->tok[tok].start;
	}
	*w = after_value(p);
	return err;
}

static int key(struct parser *p, enum want *w)
{
	int tok, err;

	if (p->d->text[p->pos] != '"')
		return fail(p, "expected a string key");
	tok = token_new(p, JP_STRING, p->pos);
	if (tok < 0)
		return tok;
	p->d->tok[p->stack[p->depth - 1]].children++;
	err = scan_string(p, tok);
	*w = WANT_COLON;
	return err;
}

static int close_container(struct parser *p, enum want *w)
{
	int open = p->stack[p->depth - 1];
	char want = p->d->tok[open].type == JP_OBJECT ? '}' : ']';

	if (p->d->text[p->pos] != want)
		return fail(p, want == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	p->d->tok[open].end = p->d->n;
	p->d->tok[open].len = p->pos + 1 - p->d->tok[open].start;
	p->depth--;
	p->pos++;
	*w = after_value(p);
	return 0;
}

int jp_parse(struct jp_doc *d, const char *text, size_t len, size_t max_tokens)
{
	struct parser p = {.d = d, .max_tokens = max_tokens};
	enum want w = WANT_VALUE;
	int err = 0;

	memset(d, 0, sizeof(*d));
	d->text = text;
	d->len = len;
	if (len >= UINT32_MAX) {
		d->err = "text too long";
		return -E2BIG;
	}
	while (!err) {
		char c;

		while (p.pos < len && is_ws(text[p.pos]))
			p.pos++;
		if (p.pos == len)
			break;
		c = text[p.pos];
		switch (w) {
		case WANT_VALUE_OR_CLOSE:
			if (c == ']') {
				err = close_container(&p, &w);
				break;
			}
			/* fall through */
		case WANT_VALUE:
			err = value(&p, &w);
			break;
		case WANT_KEY_OR_CLOSE:
			if (c == '}') {
				err = close_container(&p, &w);
				break;
			}
			/* fall through */
		case WANT_KEY:
			err = key(&p, &w);
			break;
		case WANT_COLON:
			if (c != ':')
				err = fail(&p, "expected ':'");
			p.pos++;
			w = WANT_VALUE;
			break;
		case WANT_COMMA_OR_CLOSE:
			if (c == ',') {
				p.pos++;
				w = d->tok[p.stack[p.depth - 1]].type == JP_OBJECT ? WANT_KEY
										   : WANT_VALUE;
			} else {
				err = close_container(&p, &w);
			}
			break;
		case WANT_NOTHING:
			err = fail(&p, "trailing characters after the value");
			break;
		}
	}
	if (!err && w != WANT_NOTHING)
		err = fail(&p, d->n ? "unexpected end of text" : "empty text");
	if (err) {
		free(d->tok);
		d->tok = NULL;
		d->n = d->cap = 0;
	}
	return err;
}

void jp_free(struct jp_doc *d)
{
	free(d->tok);
	d->tok = NULL;
	d->n = d->cap = 0;
}

static bool valid(const struct jp_doc *d, int i)
{
	return i >= 0 && (size_t)i < d->n;
}

int jp_first(const struct jp_doc *d, int i)
{
	if (!valid(d, i) || (d->tok[i].type != JP_OBJECT && d->tok[i].type != JP_ARRAY) ||
	    !d->tok[i].children)
		return -1;
	return i + 1;
}

int jp_next(const struct jp_doc *d, int parent, int i)
{
	__u32 next;

	if (!valid(d, parent) || !valid(d, i) || i <= parent)
		return -1;
	if (d->tok[parent].type == JP_OBJECT) {
		if (!valid(d, i + 1))
			return -1;
		next = d->tok[i + 1].end; /* past the key's value */
	} else {
		next = d->tok[i].end;
	}
	return next < d->tok[parent].end ? (int)next : -1;
}

int jp_get(const struct jp_doc *d, int obj, const char *key)
{
	if (!valid(d, obj) || d->tok[obj].type != JP_OBJECT)
		return -1;
	for (int k = jp_first(d, obj); k >= 0; k = jp_next(d, obj, k))
		if (jp_str_eq(d, k, key))
			return k + 1;
	return -1;
}

int jp_u64(const struct jp_doc *d, int i, __u64 *out)
{
	const struct jp_token *t;
	__u64 v = 0;

	if (!valid(d, i) || d->tok[i].type != JP_NUMBER)
		return -EINVAL;
	t = &d->tok[i];
	for (__u32 k = 0; k < t->len; k++) {
		unsigned int digit = d->text[t->start + k] - '0';

		if (digit > 9)
			return -EINVAL; /* a sign, a fraction or an exponent */
		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = 0xC0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3F);
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = 0xE0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3F);
		o[2] = 0x80 | (cp & 0x3F);
		return 3;
	}
	o[0] = 0xF0 | cp >> 18;
	o[1] = 0x80 | (cp >> 12 & 0x3F);
	o[2] = 0x80 | (cp >> 6 & 0x3F);
	o[3] = 0x80 | (cp & 0x3F);
	return 4;
}

/* The tokeniser validated every escape, so decoding cannot fail on input. */
int jp_str(const struct jp_doc *d, int i, char *buf, size_t size)
{
	const struct jp_token *t;
	const char *s;
	size_t o = 0;
	int err = 0;

	if (!valid(d, i) || d->tok[i].type != JP_STRING || !size)
		return -EINVAL;
	t = &d->tok[i];
	s = d->text + t->start;
	for (__u32 k = 0; k < t->len;) {
		char one[4];
		size_t n = 1;
		unsigned int cp, lo;

		one[0] = s[k];
		if (s[k] != '\\') {
			k++;
		} else if (s[k + 1] != 'u') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

			one[0] = to[strchr(from, s[k + 1]) - from];
			k += 2;
		} else {
			hex4(s + k + 2, 4, &cp);
			k += 6;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				hex4(s + k + 2, 4, &lo);
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				k += 6;
			}
			n = put_utf8(one, cp);
		}
		if (o + n >= size) {
			err = -ENOSPC;
			break;
		}
		memcpy(buf + o, one, n);
		o += n;
	}
	buf[o] = '\0';
	return err ? err : (int)o;
}

bool jp_str_eq(const struct jp_doc *d, int i, const char *s)
{
	size_t n = strlen(s);
	char buf[256];

	if (!valid(d, i) || d->tok[i].type != JP_STRING)
		return false;
	/* Keys without escapes compare in place; others are decoded first. */
	if (d->tok[i].len == n && !memcmp(d->text + d->tok[i].start, s, n))
		return true;
	if (!memchr(d->text + d->tok[i].start, '\\', d->tok[i].len) || n >= sizeof(buf))
		return false;
	return jp_str(d, i, buf, sizeof(buf)) == (int)n && !memcmp(buf, s, n);
}
