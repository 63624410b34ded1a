// SPDX-License-Identifier: GPL-2.0
/*
 * The writer gathers its output in a buffer of its own, handed to stdio
 * a buffer at a time and whenever a document ends, and formats numbers
 * itself, not through printf: a JSON report of a million flows is some
 * 650 MB, about 40 keys and 30 numbers a flow, and printf and stdio's
 * calls of a few bytes each were most of the time spent writing it
 * (BENCHMARKS.md, part 14).
 */
#include <math.h>
#include <string.h>

#include "util/format.h"
#include "util/json.h"

void json_flush(struct json *j)
{
	if (j->len)
		fwrite(j->buf, 1, j->len, j->out);
	j->len = 0;
}

static inline void put(struct json *j, const char *s, size_t n)
{
	if (j->len + n > sizeof(j->buf)) {
		json_flush(j);
		if (n > sizeof(j->buf)) {
			fwrite(s, 1, n, j->out);
			return;
		}
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static inline void put_ch(struct json *j, char c)
{
	if (j->len == sizeof(j->buf))
		json_flush(j);
	j->buf[j->len++] = c;
}

/* A value ends; where it was the whole document, the document goes out. */
static inline void ended(struct json *j)
{
	if (!j->depth)
		json_flush(j);
}

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->len = 0;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

/* Separator before a value or a key at the current level. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		put_ch(j, ',');
	j->first[j->depth] = false;
}

static void nest_open(struct json *j, char c)
{
	sep(j);
	put_ch(j, c);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void nest_close(struct json *j, char c)
{
	put_ch(j, c);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		put_ch(j, '\n');
		json_flush(j);
	}
}

void json_obj_begin(struct json *j)
{
	nest_open(j, '{');
}

void json_obj_end(struct json *j)
{
	nest_close(j, '}');
}

void json_arr_begin(struct json *j)
{
	nest_open(j, '[');
}

void json_arr_end(struct json *j)
{
	nest_close(j, ']');
}

/*
 * Bytes a JSON string cannot hold as they are: controls, '"' and '\\' (and
 * the end, 0); 2: a byte past ASCII, held as it is within valid UTF-8.
 */
static const unsigned char escaped[256] = {
    [0 ... 0x1f] = 1,
    ['"'] = 1,
    ['\\'] = 1,
    [0x80 ... 0xff] = 2,
};

/*
 * A JSON string: plain runs in one write each, not a character a call (100k
 * flows: 66 MB). JSON text is Unicode: a byte of no valid UTF-8 sequence (a
 * Latin-1 file or interface name) is U+FFFD, never passed on to break a
 * reader's json.load().
 */
static void write_escaped(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char u[8];

	put_ch(j, '"');
	for (;; p++) {
		const char *esc;
		size_t n;

		if (!escaped[*p])
			continue;
		if (escaped[*p] == 2 && (n = fmt_utf8_len((const char *)p))) {
			p += n - 1;
			continue;
		}
		put(j, (const char *)run, p - run);
		if (!*p)
			break;
		switch (*p) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\r':
			esc = "\\r";
			break;
		default:
			if (*p >= 0x80) {
				esc = "\\ufffd";
				break;
			}
			snprintf(u, sizeof(u), "\\u%04x", *p);
			esc = u;
		}
		put(j, esc, strlen(esc));
		run = p + 1;
	}
	put_ch(j, '"');
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	write_escaped(j, key);
	put_ch(j, ':');
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	sep(j);
	write_escaped(j, s);
	ended(j);
}

/* v's decimal digits, ending at end: returns where they start. */
static char *digits(char *end, __u64 v)
{
	static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
				       "25262728293031323334353637383940414243444546474849"
				       "50515253545556575859606162636465666768697071727374"
				       "75767778798081828384858687888990919293949596979899";
	char *p = end;

	while (v >= 100) {
		unsigned int two = v % 100;

		v /= 100;
		p -= 2;
		memcpy(p, &pairs[2 * two], 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, &pairs[2 * v], 2);
	} else {
		*--p = '0' + v;
	}
	return p;
}

void json_u64(struct json *j, __u64 v)
{
	char buf[20], *p = digits(buf + sizeof(buf), v);

	sep(j);
	put(j, p, buf + sizeof(buf) - p);
	ended(j);
}

#define FAST_DECIMALS 9

/*
 * printf's "%.*f" of v, from v * 10^decimals rounded in integers, where
 * that is exact: the product below 2^52, so a half is representable; then
 * rounding to the nearest double keeps the product on its side of every
 * half (and 10^decimals is exact), so only a product that lands on a half
 * can round other than the exact value would, which printf rounds (ties
 * to even). Those, and the rest, printf writes: returns false.
 */
static bool fast_fixed(struct json *j, double v, int decimals)
{
	static const double scale[FAST_DECIMALS + 1] = {1e0, 1e1, 1e2, 1e3, 1e4,
							1e5, 1e6, 1e7, 1e8, 1e9};
	static const __u64 uscale[FAST_DECIMALS + 1] = {
	    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
	char buf[48], *end = buf + sizeof(buf), *p;
	double s, whole, frac;
	__u64 n, ip, fp;

	if (decimals < 0 || decimals > FAST_DECIMALS)
		return false;
	s = fabs(v) * scale[decimals];
	if (!(s < 0x1p52))
		return false;
	whole = floor(s);
	frac = s - whole;
	if (frac == 0.5)
		return false;
	n = (__u64)whole + (frac > 0.5);
	ip = n / uscale[decimals];
	fp = n % uscale[decimals];
	p = end;
	if (decimals) {
		char *f = digits(end, fp);

		while (end - f < decimals)
			*--f = '0';
		p = f;
		*--p = '.';
	}
	p = digits(p, ip);
	if (signbit(v))
		*--p = '-';
	put(j, p, end - p);
	return true;
}

void json_double(struct json *j, double v, int decimals)
{
	sep(j);
	/* JSON has no NaN or infinity. */
	if (!isfinite(v)) {
		put(j, "null", 4);
	} else if (!fast_fixed(j, v, decimals)) {
		char text[512];
		int n = snprintf(text, sizeof(text), "%.*f", decimals, v);

		if (n >= 0 && (size_t)n < sizeof(text)) {
			put(j, text, n);
		} else {
			json_flush(j);
			fprintf(j->out, "%.*f", decimals, v);
		}
	}
	ended(j);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
	ended(j);
}

void json_null(struct json *j)
{
	sep(j);
	put(j, "null", 4);
	ended(j);
}

void json_kv_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_kv_u64(struct json *j, const char *key, __u64 v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_double(struct json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	json_double(j, v, decimals);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
