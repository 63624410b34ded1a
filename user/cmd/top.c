// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - `fabprobe top`: the live view. On a terminal it is the
 * full-screen dashboard (top_ui.c); --plain prints a table every interval,
 * --once prints one snapshot (text or --json) and exits.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "source/live.h"
#include "util/log.h"
#include "util/options.h"
#include "top/top.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fabprobe top -i IF[,IF...] [--uplinks IF,...] [OPTIONS]\n"
		"\n"
		"Live RoCE flows, paths and alerts, refreshed every interval.\n"
		"\n"
		"Options:\n" LIVE_HELP "  -r, --interval SECONDS  refresh interval (default 1)\n"
		"  -d, --duration SECONDS  stop after this long (default: until q or Ctrl-C)\n"
		"      --once              wait one interval, print one snapshot, exit\n"
		"  -j, --json              with --once: the JSON report instead of text\n"
		"      --plain             print a table every interval instead of the dashboard\n"
		"  -n, --rows N            flows per table (default 20, 0 = all)\n"
		"  -h, --help              this help\n" OPT_ANALYSIS_HELP);
}

static void print_header(const struct live *l, FILE *out)
{
	const __u64 *d = l->an.totals_delta;
	double dt = l->an.interval_s;

	bool uplinks = false;

	fprintf(out, "fabprobe top:");
	for (int i = 0; i < l->n_names; i++) {
		fprintf(out, " %s%s", l->names[i].name, l->names[i].uplink ? "*" : "");
		uplinks |= l->names[i].uplink;
	}
	fprintf(out, " (%s%s), up %.0f s, every %.1f s\n", l->hook_desc,
		uplinks ? "; * uplink" : "", live_uptime_s(l), dt);
	fprintf(out, "per second: frames %.0f, RoCE %.0f, VXLAN %.0f, CNP %.0f, malformed %.0f\n",
		d[FP_CNT_FRAMES] / dt, d[FP_CNT_ROCE] / dt, d[FP_CNT_VXLAN] / dt,
		d[FP_CNT_CNP] / dt, d[FP_CNT_MALFORMED] / dt);
}

static int run_plain(struct live *l, const struct top_opts *t)
{
	double waited = 0;
	int err = 0;

	while (live_sleep(t->interval_s)) {
		waited += t->interval_s;
		err = live_refresh(l);
		if (err)
			break;
		print_header(l, stdout);
		report_text(stdout, &l->snap, &l->an, &l->ropts);
		fputs("\n", stdout);
		fflush(stdout);
		if (t->duration_s > 0 && waited >= t->duration_s)
			break;
	}
	return err;
}

static int run_once(struct live *l, const struct top_opts *t)
{
	int err;

	if (!live_sleep(t->interval_s))
		return 0;
	err = live_refresh(l);
	if (err)
		return err;
	if (t->json) {
		report_json(stdout, &l->snap, &l->an, &l->ropts);
	} else {
		print_header(l, stdout);
		report_text(stdout, &l->snap, &l->an, &l->ropts);
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option long_opts[] = {
	    {"interval", required_argument, NULL, 'r'},
	    {"duration", required_argument, NULL, 'd'},
	    {"once", no_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {"plain", no_argument, NULL, 'P'},
	    {"rows", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    LIVE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	struct top_opts t = {.interval_s = 1, .rows = 20};
	struct analysis_opts aopts;
	struct live_opts lo;
	struct live l;
	int opt, err;
	__u32 rows;

	live_opts_init(&lo);
	analysis_opts_default(&aopts);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:r:d:jn:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (opt_parse_seconds("--interval", optarg, 0.1, 3600, &t.interval_s))
				return 2;
			break;
		case 'd':
			if (opt_parse_seconds("--duration", optarg, 0.1, 31 * 86400, &t.duration_s))
				return 2;
			break;
		case 'o':
			t.once = true;
			break;
		case 'j':
			t.json = true;
			break;
		case 'P':
			t.plain = true;
			break;
		case 'n':
			if (opt_parse_u32("--rows", optarg, 0, 1000000, &rows))
				return 2;
			t.rows = rows;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (live_parse_common("top", &lo, &aopts, opt, optarg, argv))
				return 2;
		}
	}
	if (opt_no_args("top", argc, argv))
		return 2;
	if (t.json && !t.once) {
		fp_err("top: --json needs --once (for a stream of reports use 'fabprobe export')");
		return 2;
	}
	err = live_start(&l, &lo, &aopts);
	if (err)
		return 1;
	l.ropts.max_flows = t.rows;
	if (t.once)
		err = run_once(&l, &t);
	else if (t.plain || !isatty(STDOUT_FILENO))
		err = run_plain(&l, &t);
	else
		err = top_ui_run(&l, &t);
	live_stop(&l);
	return err ? 1 : 0;
}
