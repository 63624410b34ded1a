// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - `fabprobe top`: the live view, over interfaces or a recording.
 * On a terminal it is the full-screen dashboard (top/); --plain prints a
 * table every interval, --once prints one snapshot (text or --json).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/counters.h"
#include "core/session.h"
#include "render/report.h"
#include "top/top.h"
#include "util/format.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: fabprobe top -i IF[,IF...] [--uplinks IF,...] [OPTIONS]\n"
	    "       fabprobe top --pcap FILE [--speed X] [OPTIONS]\n"
	    "       fabprobe top --sflow [ADDR:]PORT [--sflow-port-map FILE] [OPTIONS]\n"
	    "       fabprobe top --nic | --nic-root DIR [OPTIONS]\n"
	    "\n"
	    "RoCE flows, paths and alerts, refreshed every interval: live on this host's\n"
	    "interfaces, played back from a capture, or estimated from the sFlow of the\n"
	    "fabric's switches (docs/sflow.md). With --nic (or --nic-root) the RDMA NICs'\n"
	    "counters, PFC per priority and QPs too, in the NIC view, and each flow of a\n"
	    "local QP names its process; alone, they are the whole picture and the\n"
	    "dashboard opens on the NIC view.\n"
	    "\n"
	    "Options:\n"
	    "  -r, --interval SECONDS  refresh interval, 0.1 to 3600 (default 1)\n"
	    "  -d, --duration SECONDS  stop after this long, 0.1 to 2678400 (31 days;\n"
	    "                          default: until q or Ctrl-C)\n"
	    "      --once              wait one interval, print one snapshot, exit (with\n"
	    "                          --pcap: the whole capture)\n"
	    "  -j, --json              with --once: the JSON report instead of text\n"
	    "      --plain             print a table every interval instead of the dashboard\n"
	    "      --view NAME         the dashboard's first view: %s\n"
	    "                          (not with --plain or --once, which print them all)\n"
	    "  -n, --rows N            flows per table with --plain or --once (default 20,\n"
	    "                          0 = all); the dashboard's tables fill the screen\n"
	    "  -h, --help              this help\n" OPT_SOURCE_HELP OPT_ANALYSIS_HELP "\n"
	    "With --pcap the default --speed is 1 (the recorded pace); with --once it is 0\n"
	    "(the whole capture as fast as it reads).\n"
	    "Exit status: 0 done, 1 failure, 2 usage error, 3 a capture was cut short, or\n"
	    "every interface watched is gone (with NIC counters alone, every RDMA port read).\n",
	    top_view_names());
}

/*
 * The table's first lines. whole: the table is a whole recording's, whose
 * rates are over all of it, not over the last interval.
 */
/*
 * A table's header: over the whole run, or every interval_s; a table that
 * covers less (-d ends part way through one) says over the last how long.
 */
static void print_header(const struct session *ss, FILE *out, bool whole, double interval_s)
{
	const __u64 *d = ss->an.totals_delta;
	double dt = ss->an.totals_s;
	const char *over = whole		    ? "over the whole"
			   : dt < interval_s - 0.05 ? "over the last"
						    : "every";
	char v[32], flows[64] = "";
	/* A whole run whose RoCE spans less: the flows' rates are over that. */
	if (whole && analysis_flows_narrower(&ss->an)) {
		char w[48];

		snprintf(flows, sizeof(flows), " (flow rates: %s)",
			 analysis_window(&ss->an, false, w, sizeof(w)));
	}
	/* The clock to the second, or to a tenth off one (-r 0.2, a capture's end). */
	fprintf(out, "fabprobe top: %s (%s%s), %s %.*f s, %s %.1f s%s\n", ss->desc.what,
		ss->desc.how, source_uplink_note(&ss->desc), ss->desc.finite ? "at" : "up",
		fabs(ss->desc.clock_s - round(ss->desc.clock_s)) < 0.05 ? 0 : 1, ss->desc.clock_s,
		over, dt, flows);
	/* NIC counters alone: no frames to count (the NIC's own rates follow). */
	if (!strcmp(ss->desc.mode, "nic"))
		return;
	/* A capture of one instant has no rate to speak of. */
	if (dt < 0.05) {
		fprintf(out, "per second: - (%s spans under 0.05 s)\n",
			whole ? "the capture" : "the interval");
		return;
	}
	fprintf(out, "per second (%s %.1f s):", whole ? "over the whole" : "last", dt);
	for (size_t i = 0; i < n_total_defs; i++) {
		const struct total_def *t = &total_defs[i];

		if (t->flags & TF_RATE)
			fprintf(out, "%s %s %s", i ? "," : "", t->label,
				fmt_si_compact(v, sizeof(v), d[t->id] / dt));
	}
	fputc('\n', out);
}

static int run_plain(struct session *ss, const struct top_opts *t)
{
	struct report r = report_of(ss);
	__u64 start = fp_mono_ns();
	double waited = 0;
	int rc = 0, err;

	r.max_flows = t->rows;
	r.all_flows = "-n 0"; /* --json is --once's */
	while (!fp_stopping && rc != 1) {
		double silence = session_silence_s(ss, t->interval_s);
		double step = silence > 0 ? silence : t->interval_s;

		/* -d ends on time: the last table covers what is left of it. */
		if (t->duration_s > 0 && t->duration_s - waited < step)
			step = t->duration_s - waited;
		rc = session_advance_by(ss, step);
		if (rc < 0 || fp_stopping)
			break;
		/*
		 * Live, the time that passed (the refreshes and a stopped
		 * process take some too); a recording's, in its own time.
		 */
		waited = ss->desc.finite ? waited + step : (fp_mono_ns() - start) / 1e9;
		err = session_refresh(ss);
		/* A recording's last block is the whole of it, as the dashboard's end. */
		if (!err && rc == 1)
			err = session_conclude(ss);
		if (err)
			return err;
		print_header(ss, stdout, rc == 1, t->interval_s);
		report_text(stdout, &r);
		fputs("\n", stdout);
		err = cli_flush_stdout("top");
		if (err)
			return err;
		if (t->duration_s > 0 && waited >= t->duration_s)
			break;
	}
	return rc < 0 ? rc : 0;
}

static int run_once(struct session *ss, const struct top_opts *t, __u64 start_ns)
{
	struct report r = report_of(ss);
	bool tty = isatty(STDERR_FILENO), reading = tty && ss->desc.finite;
	/* Not over the report itself, on the same terminal. */
	bool writing = tty && !isatty(STDOUT_FILENO);
	char n[48];
	int rc, err;

	r.max_flows = t->rows;
	/* A recording is read whole; live, one interval passes. */
	do {
		rc = session_advance(ss, ss->desc.finite ? 1e12 : t->interval_s);
		if (reading && rc == 0 && !fp_stopping)
			cli_read_progress("top", ss, start_ns, false);
	} while (ss->desc.finite && rc == 0 && !fp_stopping);
	if (rc < 0)
		return rc;
	if (reading)
		cli_read_progress("top", ss, start_ns, true);
	/* At a million flows the analysis and the report take seconds each: say which runs. */
	if (tty)
		fputs("top: analysing the flows...", stderr);
	/* Stopped before the interval ended (Ctrl-C): the report is of the time it ran. */
	err = session_refresh(ss);
	if (tty)
		fputs("\r\033[K", stderr);
	if (err)
		return err;
	if (writing)
		fprintf(stderr, "top: writing the report of %s...",
			fmt_count(n, sizeof(n), ss->snap.n_flows, "flow"));
	if (t->json) {
		report_json(stdout, &r);
	} else {
		print_header(ss, stdout, ss->desc.finite, t->interval_s);
		report_text(stdout, &r);
	}
	err = cli_flush_stdout("top");
	if (writing)
		fputs("\r\033[K", stderr);
	return err;
}

int cmd_top(int argc, char **argv)
{
	enum { OPT_ONCE = OPT_CMD_FIRST, OPT_PLAIN, OPT_VIEW };
	static const struct option long_opts[] = {
	    {"interval", required_argument, NULL, 'r'},
	    {"duration", required_argument, NULL, 'd'},
	    {"once", no_argument, NULL, OPT_ONCE},
	    {"json", no_argument, NULL, 'j'},
	    {"plain", no_argument, NULL, OPT_PLAIN},
	    {"view", required_argument, NULL, OPT_VIEW},
	    {"rows", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    OPT_SOURCE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	struct top_opts t = {.interval_s = 1, .rows = 20};
	struct analysis_opts aopts;
	struct cli_source cs;
	struct session ss;
	struct source *src;
	__u64 start_ns = fp_mono_ns();
	int opt, err, code;
	__u32 rows;

	cli_source_init(&cs, "top", 1);
	analysis_opts_default(&aopts);
	optind = 1;
	while ((opt = opt_getopt(argc, argv, ":i:r:d:jn:T:h", long_opts)) != -1) {
		switch (opt) {
		case 'r':
			if (opt_parse_seconds("--interval", optarg, 0.1, 3600, &t.interval_s))
				return FP_EXIT_USAGE;
			break;
		case 'd':
			if (opt_parse_seconds("--duration", optarg, 0.1, 31 * 86400, &t.duration_s))
				return FP_EXIT_USAGE;
			break;
		case OPT_ONCE:
			t.once = true;
			break;
		case 'j':
			t.json = true;
			break;
		case OPT_PLAIN:
			t.plain = true;
			break;
		case OPT_VIEW:
			if (top_view_check(optarg)) {
				fp_err("top: --view: no view '%s' (one of %s)", optarg,
				       top_view_names());
				return FP_EXIT_USAGE;
			}
			t.view = optarg;
			break;
		case 'n':
			if (opt_parse_u32("--rows", optarg, 0, 1000000, &rows))
				return FP_EXIT_USAGE;
			t.rows = rows;
			break;
		case 'h':
			usage(stdout);
			return FP_EXIT_OK;
		default:
			if (cli_parse_common(&cs, &aopts, opt, optarg, argv))
				return FP_EXIT_USAGE;
		}
	}
	if (opt_no_args("top", argc, argv))
		return FP_EXIT_USAGE;
	/* One report of a whole recording: no one watches it play. */
	if (t.once)
		cs.default_speed = 0;
	if (t.view && (t.plain || t.once)) {
		fp_err("top: --view opens the dashboard on a view; %s prints every section",
		       t.once ? "--once" : "--plain");
		return FP_EXIT_USAGE;
	}
	if (t.json && !t.once) {
		fp_err("top: --json needs --once (for a stream of reports use 'fabprobe export')");
		return FP_EXIT_USAGE;
	}
	src = cli_source_new(&cs, false, &code);
	if (!src)
		return code;
	if (session_start(&ss, src, &aopts, false))
		return FP_EXIT_FAIL;
	if (t.once)
		err = run_once(&ss, &t, start_ns);
	else if (t.plain || !isatty(STDOUT_FILENO))
		err = run_plain(&ss, &t);
	else
		err = top_ui_run(&ss, &t);
	code = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
	session_stop(&ss);
	return code;
}
