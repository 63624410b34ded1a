// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_write.c - the exposition writer: family headers (HELP, TYPE) in
 * Prometheus text 0.0.4 or OpenMetrics 1.0, label sets and samples, with
 * the escaping each format asks for.
 */
#include <math.h>
#include <stdio.h>

#include "render/metrics_write.h"
#include "util/format.h"

/*
 * A label value is UTF-8 text: a byte of no valid sequence (an interface or
 * capture named in Latin-1) is U+FFFD, else Prometheus refuses the whole
 * scrape ("invalid UTF-8 label value").
 */
void metrics_escape_label(FILE *out, const char *value)
{
	for (const char *p = value; *p; p++) {
		size_t n;

		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (!(*p & 0x80))
			fputc(*p, out);
		else if ((n = fmt_utf8_len(p))) {
			fwrite(p, 1, n, out);
			p += n - 1;
		} else
			fputs("\xef\xbf\xbd", out);
	}
}

/* HELP text: 0.0.4 escapes \\ and \n; OpenMetrics also \" (its help is a quoted-string grammar). */
static void escape_help(FILE *out, const char *help, enum metrics_format fmt)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '"' && fmt == METRICS_OPENMETRICS)
			fputs("\\\"", out);
		else
			fputc(*p, out);
	}
}

/*
 * Counters are named without _total in OpenMetrics' TYPE/HELP lines and
 * with it in 0.0.4; samples always carry it (OpenMetrics 1.0, "Counter").
 * An info family is "X" in OpenMetrics with the sample X_info; 0.0.4 has
 * no info type, so it is the gauge X_info there.
 */
void mw_family(struct mw *w, const char *base, enum mtype type, const char *help)
{
	bool om = w->fmt == METRICS_OPENMETRICS;
	const char *suffix = type == MT_COUNTER ? "_total" : type == MT_INFO ? "_info" : "";
	const char *type_name = type == MT_COUNTER	? "counter"
				: type == MT_INFO && om ? "info"
							: "gauge";
	const char *fam;

	snprintf(w->name, sizeof(w->name), "%s%s", base, suffix);
	fam = om ? base : w->name;
	fprintf(w->out, "# HELP %s ", fam);
	escape_help(w->out, help, w->fmt);
	fprintf(w->out, "\n# TYPE %s %s\n", fam, type_name);
}

static void labels(struct mw *w, const struct label *l, int n)
{
	if (!n)
		return;
	fputc('{', w->out);
	for (int i = 0; i < n; i++) {
		fprintf(w->out, "%s%s=\"", i ? "," : "", l[i].name);
		metrics_escape_label(w->out, l[i].value);
		fputc('"', w->out);
	}
	fputc('}', w->out);
}

void mw_sample_u64(struct mw *w, const struct label *l, int n, __u64 v)
{
	fputs(w->name, w->out);
	labels(w, l, n);
	fprintf(w->out, " %llu\n", (unsigned long long)v);
}

static void put_double(FILE *out, double v)
{
	if (isnan(v))
		fputs("NaN", out);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", out);
	else
		fprintf(out, "%.15g", v);
}

void mw_sample_double(struct mw *w, const struct label *l, int n, double v)
{
	fputs(w->name, w->out);
	labels(w, l, n);
	fputc(' ', w->out);
	put_double(w->out, v);
	fputc('\n', w->out);
}

void metrics_render_gauge(FILE *out, const char *name, const char *help, double value)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n%s ", name, help, name, name);
	put_double(out, value);
	fputc('\n', out);
}

void metrics_render_counter(FILE *out, enum metrics_format fmt, const char *base, const char *help,
			    __u64 value)
{
	struct mw w = {.out = out, .fmt = fmt};

	mw_family(&w, base, MT_COUNTER, help);
	mw_sample_u64(&w, NULL, 0, value);
}
