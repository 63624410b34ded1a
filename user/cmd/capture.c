// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - `fabprobe capture`: watch for a while, then write one
 * self-contained bundle for an incident ticket: report.json, summary.txt,
 * report.html, samples.pcapng and host.txt in a gzip'ed tar.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "render/bundle.h"
#include "cmd/commands.h"
#include "source/hostinfo.h"
#include "render/html.h"
#include "util/json.h"
#include "source/live.h"
#include "util/log.h"
#include "util/options.h"
#include "probe/samples.h"
#include "core/series.h"
#include "render/summary.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: fabprobe capture -i IF[,IF...] [--uplinks IF,...] -d SECONDS -o FILE.tar.gz\n"
	    "\n"
	    "Watch the interfaces for a while and write a diagnostic bundle for a ticket:\n"
	    "report.json, summary.txt (findings first) and host.txt. Ctrl-C ends early and\n"
	    "still writes a complete bundle.\n"
	    "\n"
	    "Options:\n" LIVE_HELP "  -d, --duration SECONDS  how long to watch (default 30)\n"
	    "  -o, --output FILE       the bundle to write (mode 0600)\n"
	    "      --force             overwrite FILE if it exists\n"
	    "  -h, --help              this help\n" OPT_ANALYSIS_HELP);
}

struct capture_opts {
	double duration_s;
	const char *output;
	bool force;
};

static int parse(int argc, char **argv, struct capture_opts *c, struct live_opts *lo,
		 struct analysis_opts *ao)
{
	static const struct option long_opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    LIVE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:d:o:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (opt_parse_seconds("--duration", optarg, 1, 86400, &c->duration_s))
				return 2;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 'f':
			c->force = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (live_parse_common("capture", lo, ao, opt, optarg, argv))
				return 2;
		}
	}
	if (opt_no_args("capture", argc, argv))
		return 2;
	if (!c->output) {
		fp_err("capture: no output file: use -o FILE.tar.gz");
		return 2;
	}
	return 0;
}

static void progress(const struct live *l, double elapsed, double total, bool tty)
{
	static double last_line;

	if (!tty && elapsed - last_line < 10 && elapsed < total)
		return;
	last_line = elapsed;
	fprintf(stderr, "%scapture: %3.0f/%.0f s, %llu frames, %llu RoCE, %zu flows, %zu alerts%s",
		tty ? "\r" : "", elapsed, total, (unsigned long long)l->snap.totals[FP_CNT_FRAMES],
		(unsigned long long)l->snap.totals[FP_CNT_ROCE], l->snap.n_flows, l->an.n_alerts,
		tty ? "\033[K" : "\n");
}

/* Render into memory with a stdio writer, then add to the bundle. */
static int add_rendered(struct bundle *b, const char *name,
			void (*render)(FILE *out, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	render(f, arg);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	err = bundle_add(b, name, buf, len);
	free(buf);
	return err;
}

struct final_report {
	const struct live *l;
	const struct analysis *an;
	const struct series *series;
	const struct hostinfo *host;
	const struct sample_store *samples;
	double duration_s;
};

static void render_json(FILE *out, const void *arg)
{
	const struct final_report *r = arg;

	report_json_with(out, &r->l->snap, r->an, &r->l->ropts, r->series);
}

static void render_summary(FILE *out, const void *arg)
{
	const struct final_report *r = arg;

	summary_text(out, &r->l->snap, r->an, &r->l->ropts, r->duration_s);
}

static void render_html(FILE *out, const void *arg)
{
	const struct final_report *r = arg;

	html_report(out, &r->l->snap, r->an, r->series, r->duration_s);
}

static void render_samples(FILE *out, const void *arg)
{
	const struct final_report *r = arg;

	if (samples_write_pcapng(out, r->samples, r->an, r->l->snap.clock_offset_ns) < 0)
		fp_err("capture: cannot render samples.pcapng");
}

static void render_host(FILE *out, const void *arg)
{
	const struct final_report *r = arg;

	hostinfo_text(out, r->host);
}

static int write_bundle(struct bundle *b, const struct final_report *r)
{
	int err = add_rendered(b, "report.json", render_json, r);

	if (!err)
		err = add_rendered(b, "summary.txt", render_summary, r);
	if (!err)
		err = add_rendered(b, "report.html", render_html, r);
	if (!err)
		err = add_rendered(b, "samples.pcapng", render_samples, r);
	if (!err)
		err = add_rendered(b, "host.txt", render_host, r);
	return err;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_opts c = {.duration_s = 30};
	struct analysis whole = {};
	struct analysis_opts aopts;
	struct series series = {};
	struct sample_store samples = {};
	struct hostinfo host = {};
	struct live_opts lo;
	struct bundle b;
	struct live l;
	bool tty = isatty(STDERR_FILENO);
	double elapsed = 0;
	int err;

	live_opts_init(&lo);
	analysis_opts_default(&aopts);
	err = parse(argc, argv, &c, &lo, &aopts);
	if (err)
		return err == 1 ? 0 : err;

	/* Fail on an unwritable destination before watching for minutes. */
	err = bundle_open(&b, c.output, c.force);
	if (err)
		return 1;
	lo.popts.sample_per_flow = SAMPLES_PER_FLOW;
	lo.popts.sample_max_per_cpu = SAMPLES_MAX;
	err = live_start(&l, &lo, &aopts);
	if (!err)
		err = live_collect_samples(&l, &samples);
	if (err) {
		if (l.probe.skel)
			live_stop(&l);
		bundle_abort(&b);
		return 1;
	}
	hostinfo_begin(&host, l.names, l.n_names);
	while (elapsed < c.duration_s && live_wait(&l, 1.0)) {
		elapsed = live_uptime_s(&l);
		err = live_refresh(&l);
		if (err)
			break;
		series_add(&series, &l.an, elapsed);
		progress(&l, elapsed, c.duration_s, tty);
	}
	if (tty)
		fputc('\n', stderr);
	if (!err) {
		struct final_report r = {&l, &whole, &series, &host, &samples, live_uptime_s(&l)};

		ring_buffer__consume(l.samples_rb);

		/* Findings over the whole capture: one analysis without a previous refresh. */
		err = live_refresh(&l);
		if (!err)
			err = analysis_update(&whole, &l.snap, &l.ropts, &aopts, r.duration_s);
		hostinfo_end(&host);
		if (!err)
			err = write_bundle(&b, &r);
	}
	if (err)
		bundle_abort(&b);
	else
		err = bundle_commit(&b);
	if (!err)
		fprintf(stderr, "capture: wrote %s (%.0f s, %zu flows, %zu alerts)\n", c.output,
			live_uptime_s(&l), l.snap.n_flows, whole.n_alerts);
	hostinfo_free(&host);
	samples_free(&samples);
	series_free(&series);
	analysis_free(&whole);
	live_stop(&l);
	return err ? 1 : 0;
}
