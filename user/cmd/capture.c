// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - `fabprobe capture`: watch for a while (or read a recording),
 * then write one self-contained bundle for an incident ticket: report.json,
 * summary.txt, report.html, samples.pcapng and host.txt in a gzip'ed tar.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/series.h"
#include "core/session.h"
#include "render/bundle.h"
#include "render/html.h"
#include "render/report.h"
#include "render/report_nic.h"
#include "render/samples_pcapng.h"
#include "render/summary.h"
#include "source/hostinfo.h"
#include "util/format.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

/* summary.txt's flow rows: the busiest; report.json has every flow. */
#define SUMMARY_FLOWS 100

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: fabprobe capture -i IF[,IF...] [--uplinks IF,...] [-d SECONDS] -o FILE.tar.gz\n"
	    "       fabprobe capture --pcap [NAME=]FILE [-d SECONDS] -o FILE.tar.gz\n"
	    "       fabprobe capture --nic | --nic-root DIR [-d SECONDS] -o FILE.tar.gz\n"
	    "\n"
	    "Watch the interfaces for a while (or read a capture) and write a diagnostic\n"
	    "bundle for a ticket, a gzip'ed tar (mode 0600) holding:\n"
	    "  report.json     the JSON report (docs/json.md) with a per-second time series\n"
	    "  summary.txt     the findings first, in plain words, with what to check next,\n"
	    "                  then the busiest 100 flows\n"
	    "  report.html     the same with charts (inline SVG; opens offline)\n"
	    "  samples.pcapng  the first packets of each flow that raised an alert\n"
	    "  host.txt        kernel, interfaces, sysctls, RDMA and PFC counters\n"
	    "and with --nic or --nic-root (docs/nic.md):\n"
	    "  nic.json        the NIC counters, PFC, QPs and NIC alerts over the run\n"
	    "  nic/            the NIC state at the end as a recorded tree (when an RDMA\n"
	    "                  device was read): fabprobe nic --nic-root DIR/nic reads it\n"
	    "Ctrl-C ends early and still writes a complete bundle.\n"
	    "\n"
	    "Options:\n"
	    "  -d, --duration SECONDS  how long to watch, 1 to 86400 (default 30; with\n"
	    "                          --pcap: the whole capture unless given)\n"
	    "  -o, --output FILE       the bundle to write\n"
	    "      --force             overwrite FILE if it exists\n"
	    "  -h, --help              this help\n" OPT_SOURCE_HELP OPT_ANALYSIS_HELP "\n"
	    "With --pcap the default --speed is 0 (as fast as frames run).\n"
	    "Exit status: 0 done, 1 failure, 2 usage error, 3 a capture was cut short, or\n"
	    "every interface watched is gone (with NIC counters alone, every RDMA port read):\n"
	    "the bundle covers what was read.\n");
}

struct capture_opts {
	double duration_s;
	bool duration_given;
	const char *output;
	bool force;
};

static int parse(int argc, char **argv, struct capture_opts *c, struct cli_source *cs,
		 struct analysis_opts *ao)
{
	enum { OPT_FORCE = OPT_CMD_FIRST };
	static const struct option long_opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"help", no_argument, NULL, 'h'},
	    OPT_SOURCE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	int opt;

	optind = 1;
	while ((opt = opt_getopt(argc, argv, ":i:d:o:T:h", long_opts)) != -1) {
		switch (opt) {
		case 'd':
			if (opt_parse_seconds("--duration", optarg, 1, 86400, &c->duration_s))
				return FP_EXIT_USAGE;
			c->duration_given = true;
			break;
		case 'o':
			c->output = optarg;
			break;
		case OPT_FORCE:
			c->force = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			if (cli_parse_common(cs, ao, opt, optarg, argv))
				return FP_EXIT_USAGE;
		}
	}
	if (opt_no_args("capture", argc, argv))
		return FP_EXIT_USAGE;
	if (!c->output || !c->output[0]) {
		fp_err("capture: no output file: use -o FILE.tar.gz");
		return FP_EXIT_USAGE;
	}
	return 0;
}

/*
 * On a terminal one line redrawn, as wide as the terminal at most (the
 * RoCE count, then the percent of the file give way: a line that wraps
 * is repeated); in a log a line every 10 s of wall time, and at the end.
 */
static void progress(const struct session *ss, double total, bool tty, bool done)
{
	static __u64 last_ns;
	static int dropped; /* 1: the RoCE count, 2: the percent too */
	double elapsed = ss->desc.clock_s;
	char when[48], pct[48] = "", roce[32], f[48], fl[48], al[48], sz[32], line[256];
	int cols = tty ? fmt_term_cols(STDERR_FILENO) - 1 : INT_MAX;
	__u64 now = fp_mono_ns();

	if (!tty && !done && last_ns && now - last_ns < 10000000000ULL)
		return;
	last_ns = now;
	if (total > 0)
		snprintf(when, sizeof(when), "%3.0f/%.0f s", elapsed, total);
	else
		snprintf(when, sizeof(when), "%3.0f s of the capture", elapsed);
	/* A capture's time says nothing of how much of it is left; its bytes do. */
	if (ss->desc.bytes_total)
		snprintf(pct, sizeof(pct), " (%llu%% of %s)",
			 (unsigned long long)(ss->desc.bytes_read * 100 / ss->desc.bytes_total),
			 fmt_si(sz, sizeof(sz), ss->desc.bytes_total, "B"));
	snprintf(roce, sizeof(roce), ", %llu RoCE",
		 (unsigned long long)ss->snap.totals[FP_CNT_ROCE]);
	fmt_count(f, sizeof(f), ss->snap.totals[FP_CNT_FRAMES], "frame");
	fmt_count(fl, sizeof(fl), ss->snap.n_flows, "flow");
	/* The alerts of the last interval; the bundle's are the whole run's. */
	fmt_count(al, sizeof(al), ss->an.n_alerts, "alert");
	/* What gave way stays away: a figure that comes and goes with a digit blinks. */
	for (;; dropped++) {
		snprintf(line, sizeof(line), "capture: %s%s, %s%s, %s, %s now", when,
			 dropped < 2 ? pct : "", f, dropped < 1 ? roce : "", fl, al);
		if (dropped == 2 || fmt_cols(line) <= cols)
			break;
	}
	fprintf(stderr, "%s%s%s", tty ? "\r" : "", line, tty ? "\033[K" : "\n");
}

struct final_report {
	struct report r; /* the session's snapshot, the whole run's analysis, the series */
	const struct hostinfo *host;
	const char *elsewhere; /* the input, when it is not this host's traffic; else NULL */
	const struct sample_store *samples;
	double duration_s;
};

/* What the bundle says of where it came from; started: when the watch starts. */
static void provenance_begin(struct provenance *p, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	if (gethostname(p->host, sizeof(p->host) - 1))
		snprintf(p->host, sizeof(p->host), "?");
	p->version = FABPROBE_VERSION;
	p->argc = argc;
	p->argv = argv;
	p->started = time(NULL);
}

static void render_json(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	report_json(out, &f->r);
}

static void render_summary(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	summary_text(out, &f->r, f->duration_s);
}

static void render_html(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	html_report(out, &f->r, f->duration_s);
}

static void render_samples(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	if (samples_write_pcapng(out, f->samples, f->r.an, f->r.src, f->r.snap->clock_offset_ns) <
	    0)
		fp_err("capture: cannot render samples.pcapng");
}

static void render_host(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	if (f->elsewhere)
		fprintf(out,
			"(This is the host that made the bundle; the input, %s, did not come "
			"from its interfaces, so what follows describes this host, not it.)\n\n",
			f->elsewhere);
	hostinfo_text(out, f->host);
}

static void render_nic_json(FILE *out, const void *arg)
{
	const struct final_report *f = arg;

	report_nic_doc(out, &f->r);
}

/* One file of the NIC tree, under nic/ in the bundle. */
static int put_nic_file(void *ctx, const char *path, const void *data, size_t len)
{
	char name[4096];

	if (snprintf(name, sizeof(name), "nic/%s", path) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	return bundle_add(ctx, name, data, len);
}

/* tty: say which file is being written, on a line of its own, as it takes seconds. */
static int write_bundle(struct bundle *b, const struct final_report *f, bool tty)
{
	const struct {
		const char *name;
		void (*render)(FILE *out, const void *arg);
	} files[] = {
	    {"report.json", render_json}, {"summary.txt", render_summary},
	    {"report.html", render_html}, {"samples.pcapng", render_samples},
	    {"host.txt", render_host},	  {"nic.json", f->r.nic ? render_nic_json : NULL},
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !err; i++) {
		if (!files[i].render)
			continue;
		if (tty)
			fprintf(stderr, "\rcapture: writing %s...\033[K", files[i].name);
		err = bundle_add_rendered(b, files[i].name, files[i].render, f);
	}
	if (!err && f->r.nic)
		err = nic_record(&f->r.nic->st, put_nic_file, b);
	return err;
}

/* On a terminal, a recording's read between refreshes: a second of it can be millions of frames. */
static void reading(const struct session *ss, void *start_ns)
{
	cli_read_progress("capture", ss, *(__u64 *)start_ns, false);
}

/*
 * Why the bundle covers a part of its input, or NULL: what stderr says,
 * said in the bundle too, as its reader on a ticket sees no stderr. The
 * frames are those the bundle counts.
 */
static const char *partial_text(char *buf, size_t len, const struct session *ss,
				const struct capture_opts *c)
{
	char fl[48];

	fmt_count(fl, sizeof(fl), ss->snap.totals[FP_CNT_FRAMES], "frame");
	if (ss->desc.damaged)
		snprintf(buf, len, "%s; the bundle covers %s before it", ss->desc.event,
			 strcmp(ss->desc.mode, "nic") ? "the frames" : "the NIC reads");
	else if (ss->desc.finite && !ss->ended && fp_stopping)
		snprintf(buf, len,
			 "stopped before the end of the capture: the bundle covers its first "
			 "%.1f s (%s)",
			 ss->desc.clock_s, fl);
	else if (ss->desc.finite && !ss->ended && c->duration_given)
		snprintf(buf, len,
			 "-d %g s ended the watch before the end of the capture: the bundle "
			 "covers its first %.1f s (%s)",
			 c->duration_s, ss->desc.clock_s, fl);
	else
		return NULL;
	return buf;
}

/* Watch until the duration has passed, the recording ends, or Ctrl-C. */
static int watch(struct session *ss, struct series *series, const struct capture_opts *c, bool tty)
{
	double total = c->duration_given || !ss->desc.finite ? c->duration_s : 0;
	__u64 start_ns = fp_mono_ns();
	int rc = 0, err = 0;

	/*
	 * What a watching refresh keeps (the series, the alert log) follows
	 * no order of the flows: they stay unsorted, as export's. The bundle's
	 * own refresh, after, sorts them for its tables.
	 */
	ss->unordered = true;
	series->sampled = !ss->desc.every_packet;
	if (tty && ss->desc.finite) {
		ss->reading = reading;
		ss->reading_arg = &start_ns;
	}
	while (!fp_stopping && rc != 1 && (!total || ss->desc.clock_s < total)) {
		double silence = session_silence_s(ss, 1.0);

		if (total && silence > total - ss->desc.clock_s)
			silence = total - ss->desc.clock_s;
		rc = session_advance_by(ss, silence > 0 ? silence : 1.0);
		if (rc < 0) {
			err = rc;
			break;
		}
		/* The watch's last refresh: no frame runs after it, before the bundle's. */
		if (fp_stopping || (total && session_clock_s(ss) >= total))
			session_last_refresh(ss);
		err = session_refresh(ss);
		if (err)
			break;
		series_add(series, &ss->an, ss->desc.clock_s);
		progress(ss, total, tty, rc == 1 || (total && ss->desc.clock_s >= total));
	}
	ss->unordered = false;
	ss->reading = NULL;
	return err;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_opts c = {.duration_s = 30};
	struct analysis_opts aopts;
	struct series series = {};
	struct hostinfo host = {};
	struct provenance prov;
	struct cli_source cs;
	struct session ss;
	struct source *src;
	struct bundle b;
	bool tty = isatty(STDERR_FILENO);
	char fl[48], al[48], unseen[512], partial[640], observed[32];
	bool blind = false;
	int err, code;

	cli_source_init(&cs, "capture", 0);
	analysis_opts_default(&aopts);
	err = parse(argc, argv, &c, &cs, &aopts);
	if (err)
		return err < 0 ? FP_EXIT_OK : err;
	src = cli_source_new(&cs, true, &code);
	if (!src)
		return code;

	/* Fail on an unwritable destination before watching for minutes. */
	if (bundle_open(&b, c.output, c.force)) {
		src->ops->destroy(src);
		return FP_EXIT_FAIL;
	}
	if (session_start(&ss, src, &aopts, true)) {
		bundle_abort(&b);
		return FP_EXIT_FAIL;
	}
	if (cli_nic_check(&ss, &cs, "capture", "capturing", " (nic.json says so)")) {
		session_stop(&ss);
		bundle_abort(&b);
		return FP_EXIT_FAIL;
	}
	hostinfo_begin(&host, ss.desc.points, ss.desc.n_points);
	provenance_begin(&prov, argc, argv);
	err = watch(&ss, &series, &c, tty);
	if (tty)
		fputc('\n', stderr);
	/* Stopped before a recording's end (Ctrl-C, SIGTERM): the bundle is of a part. */
	if (!err && fp_stopping && ss.desc.finite && !ss.ended)
		fprintf(stderr,
			"capture: stopped before the end of the capture: the bundle covers "
			"its first %.1f s (%s)\n",
			ss.desc.clock_s, fmt_count(fl, sizeof(fl), ss.desc.frames, "frame"));
	if (!err) {
		struct final_report f = {.host = &host, .samples = &ss.samples};

		if (ss.src->probe)
			samples_poll(ss.src->probe, 0);
		/* On a terminal, the seconds each of these takes at a million flows are named. */
		if (tty)
			fputs("capture: reading the flows...", stderr);
		/*
		 * The flows as the watch left them, sorted for the tables: the
		 * findings are the whole run's (session_conclude()), the moments
		 * since the watch's last refresh no interval to raise alerts over.
		 */
		err = session_collect(&ss);
		if (tty)
			fputs("\r\033[K", stderr);
		if (!err) {
			/* That and the files take seconds at a million flows. */
			fprintf(stderr,
				"capture: writing %s: the findings over the whole run, %s\n",
				c.output, fmt_count(fl, sizeof(fl), ss.snap.n_flows, "flow"));
			if (tty)
				fputs("capture: analysing the whole run...", stderr);
			err = session_conclude(&ss);
		}
		f.r = report_of(&ss);
		f.r.series = &series;
		f.r.max_flows = SUMMARY_FLOWS;
		f.r.all_flows = "report.json";
		f.r.no_paths = cli_no_paths(&cs);
		prov.partial = partial_text(partial, sizeof(partial), &ss, &c);
		f.r.prov = &prov;
		f.r.log = ss.log;
		/* The NIC over the whole run, read again by session_whole(). */
		f.r.nic = ss.nic ? &ss.nic->whole : NULL;
		f.duration_s = ss.desc.clock_s;
		if (ss.desc.finite)
			f.elsewhere = ss.desc.what;
		else if (cs.sflow.listen)
			f.elsewhere = "the switches' sFlow";
		else if (cs.nic.root && !ss.desc.n_points)
			f.elsewhere = cs.nic.root;
		hostinfo_end(&host);
		blind = report_unseen(&f.r, unseen, sizeof(unseen));
		if (!err)
			err = write_bundle(&b, &f, tty);
	}
	if (err)
		bundle_abort(&b);
	else
		err = bundle_commit(&b);
	if (tty)
		fputs("\r\033[K", stderr);
	if (!err && blind)
		fprintf(stderr, "capture: %s: the findings judge nothing (summary.txt says why)\n",
			unseen);
	if (!err)
		fprintf(stderr, "capture: wrote %s (%s, %s, %s over the whole run)\n", c.output,
			report_observed(observed, sizeof(observed), ss.desc.clock_s),
			fmt_count(fl, sizeof(fl), ss.snap.n_flows, "flow"),
			fmt_count(al, sizeof(al), ss.an.n_alerts, "alert"));
	code = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
	hostinfo_free(&host);
	series_free(&series);
	session_stop(&ss);
	return code;
}
