// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - `fabprobe replay`: read captures whole, as fast as frames
 * run, through the probe's own XDP program (the recording source), and
 * print one report. The same session the watching commands use.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/session.h"
#include "render/report.h"
#include "util/format.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

/*
 * Frames that could not run, in one line with every count: a recording's
 * are too short or too long for the kernel; sFlow's may also be headers of
 * another header protocol or of a port past those tracked (docs/sflow.md).
 */
static void say_skipped(const __u64 *t)
{
	const struct {
		__u64 n;
		const char *why;
	} reasons[] = {
	    {t[SNAP_CNT_SFLOW_OTHER_PROTO], "of another header protocol"},
	    {t[SNAP_CNT_SFLOW_UNTRACKED], "of a port beyond those tracked"},
	    {t[SNAP_CNT_SKIPPED] - t[SNAP_CNT_SFLOW_OTHER_PROTO] - t[SNAP_CNT_SFLOW_UNTRACKED],
	     "too short or too long to run"},
	};
	char n[48], why[256] = "";
	const char *only = NULL;
	size_t len = 0;
	int given = 0;

	if (!t[SNAP_CNT_SKIPPED])
		return;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (!reasons[i].n)
			continue;
		only = reasons[i].why;
		len += snprintf(why + len, sizeof(why) - len, "%s%llu %s", given++ ? ", " : "",
				(unsigned long long)reasons[i].n, reasons[i].why);
	}
	fmt_count(n, sizeof(n), t[SNAP_CNT_SKIPPED], "frame");
	if (given == 1)
		/* One reason: the line as it always read, "N frames <why> skipped". */
		fp_err("replay: %s %s skipped (counted in totals.skipped_frames)", n, only);
	else
		fp_err("replay: %s skipped: %s (counted in totals.skipped_frames)", n, why);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fabprobe replay [OPTIONS] FILE\n"
		"       fabprobe replay [OPTIONS] --path NAME=FILE [--path NAME=FILE ...]\n"
		"       fabprobe replay [OPTIONS] --sflow FILE\n"
		"\n"
		"Run every frame of a pcap/pcapng capture through fabprobe's BPF parser\n"
		"(BPF_PROG_TEST_RUN: the parser and accounting of the XDP program a live\n"
		"probe attaches, up to 64 frames a run) and report.\n"
		"\n"
		"Options:\n"
		"  -j, --json             print the JSON report (docs/json.md) instead of a table\n"
		"  -p, --path NAME=FILE   a capture taken on uplink NAME; repeat for each uplink\n"
		"                         of one ECMP group (flows report \"path\": NAME)\n"
		"  -n, --rows N           table rows to print (default 50, 0 = all)\n"
		"  -T, --threads N        run frames on N worker threads, each flow's frames in\n"
		"                         order, beside the thread that reads (default: one per\n"
		"                         CPU, as nproc counts; flows move between them to even\n"
		"                         their load); the report is the same for any N unless\n"
		"                         the flow table evicts\n"
		"      --sflow            FILE is a capture of sFlow v5 datagrams sent to a\n"
		"                         collector: their sampled headers run through the\n"
		"                         parser, counts are estimates (docs/sflow.md)\n"
		"      --sflow-port N     the datagrams' UDP destination port (default 6343)\n"
		"      --sflow-port-map FILE  name and group switch ports: lines\n"
		"                         \"AGENT IFINDEX NAME [GROUP]\"\n" OPT_PROBE_HELP
		"  -h, --help             this help\n" OPT_ANALYSIS_HELP "\n"
		"Captures: pcap or pcapng, plain or gzip; Ethernet, Linux cooked (SLL, SLL2)\n"
		"or raw IP. Needs root (BPF).\n"
		"Exit status: 0 done, 1 failure, 2 usage error, 3 a capture was cut short or\n"
		"corrupt (the report covers the frames before the damage).\n");
}

int cmd_replay(int argc, char **argv)
{
	static const struct option long_opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"path", required_argument, NULL, 'p'},
	    {"rows", required_argument, NULL, 'n'},
	    {"threads", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {"sflow", no_argument, NULL, OPT_SFLOW},
	    {"sflow-port", required_argument, NULL, OPT_SFLOW_PORT},
	    {"sflow-port-map", required_argument, NULL, OPT_SFLOW_PORT_MAP},
	    OPT_PROBE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	struct pcap_opts po;
	struct sflow_opts so;
	struct analysis_opts aopts;
	struct session ss;
	struct source *src;
	char n[48];
	struct report r;
	__u64 start_ns = fp_mono_ns();
	bool json = false, sflow = false, sflow_opts = false, tty = isatty(STDERR_FILENO);
	int n_paths = 0, opt, err, rc, code;
	size_t max_flows = 50;
	__u32 rows;

	pcap_opts_init(&po);
	po.speed = 0;
	po.read_ahead = true; /* read in one advance: frames queue while the program loads */
	sflow_opts_init(&so);
	analysis_opts_default(&aopts);
	optind = 1;
	while ((opt = opt_getopt(argc, argv, ":jp:n:T:h", long_opts)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			if (cli_add_capture(&po, "--path", optarg, true))
				return FP_EXIT_USAGE;
			n_paths++;
			break;
		case 'n':
			if (opt_parse_u32("--rows", optarg, 0, 1000000, &rows))
				return FP_EXIT_USAGE;
			max_flows = rows;
			break;
		case 'T':
			if (opt_parse_threads(optarg, &po.threads) < 0)
				return FP_EXIT_USAGE;
			so.threads = po.threads;
			break;
		case 'h':
			usage(stdout);
			return FP_EXIT_OK;
		case OPT_SFLOW:
			sflow = true;
			break;
		case OPT_SFLOW_PORT:
		case OPT_SFLOW_PORT_MAP:
			if (opt_parse_sflow(&so, opt, optarg) < 0)
				return FP_EXIT_USAGE;
			sflow_opts = true;
			break;
		default:
			err = opt_parse_probe(&po.popts, opt, optarg);
			if (!err)
				err = opt_parse_analysis(&aopts, opt, optarg);
			if (err < 0)
				return FP_EXIT_USAGE;
			if (!err)
				return opt_bad("replay", opt, argv);
		}
	}
	if (cli_check_path_names(&po, "--path", NULL, &aopts.mirror_names))
		return FP_EXIT_USAGE;
	for (; optind < argc; optind++) {
		if (n_paths) {
			fp_err("replay: give either FILE or --path NAME=FILE, not both");
			return FP_EXIT_USAGE;
		}
		if (po.n_files) {
			fp_err(
			    "replay: one FILE at a time; use --path NAME=FILE for several uplinks");
			return FP_EXIT_USAGE;
		}
		po.files[po.n_files++].path = argv[optind];
	}
	if (!po.n_files) {
		fp_err("replay: no capture given; see 'fabprobe replay --help'");
		return FP_EXIT_USAGE;
	}
	if (cli_check_probe(&po.popts))
		return FP_EXIT_USAGE;
	if (sflow_opts && !sflow) {
		fp_err("replay: --sflow-port and --sflow-port-map need --sflow");
		return FP_EXIT_USAGE;
	}
	if (sflow && n_paths) {
		fp_err("replay: --sflow reads one FILE; --path is for captures of RoCE itself");
		return FP_EXIT_USAGE;
	}
	if (sflow && so.port_map) {
		err = sflow_check_port_map(so.port_map);
		if (err)
			return err == -EINVAL ? FP_EXIT_USAGE : FP_EXIT_FAIL;
	}
	if (sflow) {
		so.capture = po.files[0].path;
		so.popts.flow_entries = po.popts.flow_entries;
		so.popts.flow6_entries = po.popts.flow6_entries;
		so.popts.roce_port = po.popts.roce_port;
		so.popts.vxlan_port = po.popts.vxlan_port;
	}
	src = sflow ? sflow_source_new(&so) : pcap_source_new(&po);
	if (!src) {
		fp_err("replay: out of memory");
		return FP_EXIT_FAIL;
	}
	if (session_start(&ss, src, &aopts, false))
		return FP_EXIT_FAIL;
	/* The report first, then what went wrong with the capture, as tcpdump does. */
	ss.quiet = true;
	while ((rc = session_advance(&ss, 1e12)) == 0 && !fp_stopping)
		if (tty)
			cli_read_progress("replay", &ss, start_ns, false);
	if (tty)
		cli_read_progress("replay", &ss, start_ns, true);
	/* At a million flows the analysis and the report take seconds each: say which runs. */
	if (tty && rc >= 0)
		fputs("replay: analysing the flows...", stderr);
	err = rc < 0 ? rc : session_refresh(&ss);
	if (tty && rc >= 0)
		fputs("\r\033[K", stderr);
	if (!err) {
		say_skipped(ss.snap.totals);
		r = report_of(&ss);
		r.max_flows = max_flows;
		/* Not over the report itself, on the same terminal. */
		if (tty && !isatty(STDOUT_FILENO))
			fprintf(stderr, "replay: writing the report of %s...",
				fmt_count(n, sizeof(n), ss.snap.n_flows, "flow"));
		if (json)
			report_json(stdout, &r);
		else
			report_text(stdout, &r);
		err = cli_flush_stdout("replay");
		if (tty && !isatty(STDOUT_FILENO))
			fputs("\r\033[K", stderr);
	}
	/* Stopped before the end (Ctrl-C, SIGTERM): a report that looks whole is not. */
	if (!err && rc == 0 && fp_stopping)
		fp_err(
		    "replay: stopped before the end of the capture: the report covers its first %s",
		    fmt_count(n, sizeof(n), ss.desc.frames, "frame"));
	if (ss.desc.damaged)
		fp_err("%s; the report covers the frames before it", ss.desc.event);
	else if (ss.desc.event[0])
		fp_err("%s", ss.desc.event); /* a note on the input, after the report too */
	if (ss.notice[0])
		fp_err("%s", ss.notice);
	code = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
	session_stop(&ss);
	return code;
}
