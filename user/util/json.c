// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "util/json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
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
		fputc(',', j->out);
	j->first[j->depth] = false;
}

static void nest_open(struct json *j, char c)
{
	sep(j);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void nest_close(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0)
		fputc('\n', j->out);
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

/* A JSON string: plain runs in one write each, not a character a call (100k flows: 66 MB). */
static void write_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char u[8];

	fputc('"', out);
	for (;; p++) {
		const char *esc;

		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		fwrite(run, 1, p - run, out);
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
			snprintf(u, sizeof(u), "\\u%04x", *p);
			esc = u;
		}
		fputs(esc, out);
		run = p + 1;
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	write_escaped(j->out, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	sep(j);
	write_escaped(j->out, s);
}

void json_u64(struct json *j, __u64 v)
{
	sep(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, double v, int decimals)
{
	sep(j);
	/* JSON has no NaN or infinity. */
	if (!isfinite(v))
		fputs("null", j->out);
	else
		fprintf(j->out, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	sep(j);
	fputs("null", j->out);
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
