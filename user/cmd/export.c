// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - `fabprobe export`: serve a session's picture as Prometheus
 * metrics over HTTP (export_http.c), live or from a recording. The loop
 * here refreshes the session every --interval and publishes one rendering
 * that every scrape until the next refresh is served from.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/export_http.h"
#include "core/session.h"
#include "render/metrics.h"
#include "util/format.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

#define EXPORT_STALE_INTERVALS 3

struct export_opts {
	double interval_s;
	unsigned int top_flows;
	const char *listen;
};

static double unix_now(void)
{
	return fp_real_ns() / 1e9;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fabprobe export -i IF[,IF...] [--uplinks IF,...] [--listen ADDR:PORT] "
		"[OPTIONS]\n"
		"       fabprobe export --pcap FILE [--speed X] [--listen ADDR:PORT] [OPTIONS]\n"
		"\n"
		"Serve the probe's counters, paths and alerts as Prometheus metrics:\n"
		"/metrics (text 0.0.4, or OpenMetrics 1.0 when the scraper asks for it),\n"
		"/healthz (200 while the probe refreshes, 503 when stale) and / (an index).\n"
		"A recording is played at --speed (default 1, the recorded pace); once it has\n"
		"ended, its final picture is served until fabprobe is stopped.\n"
		"\n"
		"Options:\n"
		"  -l, --listen ADDR:PORT  where to serve (default " EXPORT_LISTEN_DEFAULT "):\n"
		"                          IPv4 ADDR:PORT or [IPv6]:PORT; anything but\n"
		"                          loopback must be asked for explicitly\n"
		"  -r, --interval SECONDS  how often the maps are read (default 5)\n"
		"      --top-flows N       per-flow series for the N fastest flows (default %d,\n"
		"                          0 = none, at most %d)\n"
		"  -h, --help              this help\n" OPT_SOURCE_HELP OPT_ANALYSIS_HELP "\n"
		"Exit status: 0 stopped, 1 failure (a taken port, no privileges), 2 usage error.\n",
		METRICS_TOP_FLOWS_DEFAULT, METRICS_TOP_FLOWS_MAX);
}

enum { OPT_TOP_FLOWS = OPT_CMD_FIRST };

static int parse(int argc, char **argv, struct export_opts *e, struct cli_source *cs,
		 struct analysis_opts *ao)
{
	static const struct option long_opts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"interval", required_argument, NULL, 'r'},
	    {"top-flows", required_argument, NULL, OPT_TOP_FLOWS},
	    {"help", no_argument, NULL, 'h'},
	    OPT_SOURCE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	int opt;
	__u32 n;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:l:r:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			e->listen = optarg;
			break;
		case 'r':
			if (opt_parse_seconds("--interval", optarg, 0.1, 3600, &e->interval_s))
				return FP_EXIT_USAGE;
			break;
		case OPT_TOP_FLOWS:
			if (opt_parse_u32("--top-flows", optarg, 0, METRICS_TOP_FLOWS_MAX, &n))
				return FP_EXIT_USAGE;
			e->top_flows = n;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			if (cli_parse_common(cs, ao, opt, optarg, argv))
				return FP_EXIT_USAGE;
		}
	}
	if (opt_no_args("export", argc, argv))
		return FP_EXIT_USAGE;
	return 0;
}

static int run(struct exporter *x, struct session *ss, const struct export_opts *e)
{
	struct metrics_acc *acc = calloc(1, sizeof(*acc));
	struct metrics_self self = {
	    .version = FABPROBE_VERSION,
	    .interval_s = e->interval_s,
	    .start_time_s = unix_now() - session_clock_s(ss),
	};
	struct metrics_view v = {
	    .snap = &ss->snap,
	    .an = &ss->an,
	    .src = &ss->desc,
	    .acc = acc,
	    .self = &self,
	    .top_flows = e->top_flows,
	};
	int rc = 0, err;

	if (!acc)
		return -ENOMEM;
	while (!fp_stopping) {
		__u64 t0;

		if (ss->ended) {
			/* A recording has been read: serve its last picture until stopped. */
			fp_sleep(e->interval_s);
			__atomic_store_n(&x->last_ok_ns, fp_mono_ns(), __ATOMIC_RELAXED);
			continue;
		}
		rc = session_advance(ss, e->interval_s);
		if (rc < 0 || fp_stopping)
			break;
		t0 = fp_mono_ns();
		err = session_refresh(ss);
		if (err) {
			/* Keep serving the last picture; /healthz turns 503 when it ages. */
			self.refresh_errors++;
			continue;
		}
		self.refresh_duration_s = (fp_mono_ns() - t0) / 1e9;
		self.refreshes++;
		self.last_refresh_time_s = unix_now();
		metrics_accumulate(acc, &ss->snap, &ss->an);
		if (http_publish(x, &v, &self)) {
			fp_err("export: out of memory rendering the metrics");
			self.refresh_errors++;
			continue;
		}
		__atomic_store_n(&x->last_ok_ns, fp_mono_ns(), __ATOMIC_RELAXED);
		if (ss->ended)
			fprintf(stderr,
				"fabprobe: the capture has been read (%llu frames); serving "
				"its final picture until stopped\n",
				(unsigned long long)ss->desc.frames);
	}
	free(acc);
	return rc < 0 ? rc : 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts e = {.interval_s = 5, .top_flows = METRICS_TOP_FLOWS_DEFAULT};
	struct exporter x = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct metrics_self self0 = {.version = FABPROBE_VERSION};
	struct metrics_acc *acc0 = NULL;
	struct sockaddr_storage sa;
	struct analysis_opts aopts;
	struct cli_source cs;
	struct session ss;
	struct source *src;
	socklen_t salen;
	int err, fd, code;

	cli_source_init(&cs, "export", 1);
	analysis_opts_default(&aopts);
	err = parse(argc, argv, &e, &cs, &aopts);
	if (err)
		return err < 0 ? FP_EXIT_OK : err;
	if (!e.listen)
		e.listen = EXPORT_LISTEN_DEFAULT;
	if (http_parse_listen(e.listen, &sa, &salen))
		return FP_EXIT_USAGE;
	src = cli_source_new(&cs, false, &code);
	if (!src)
		return code;
	x.stale_ns = (__u64)(EXPORT_STALE_INTERVALS * e.interval_s * 1e9);

	/* Bind before attaching anything: a taken port fails fast and leaves nothing. */
	fd = http_open_listener(e.listen, &sa, salen);
	if (fd < 0) {
		src->ops->destroy(src);
		return FP_EXIT_FAIL;
	}
	if (session_start(&ss, src, &aopts, false)) {
		close(fd);
		return FP_EXIT_FAIL;
	}

	/* Something to serve before the first refresh: zero counters, no flows. */
	acc0 = calloc(1, sizeof(*acc0));
	if (acc0) {
		struct metrics_view v0 = {
		    .snap = &ss.snap, .an = &ss.an, .src = &ss.desc, .acc = acc0, .self = &self0};

		self0.interval_s = e.interval_s;
		self0.start_time_s = unix_now();
		err = http_publish(&x, &v0, &self0);
		free(acc0);
	}
	if (!acc0 || err) {
		fp_err("export: out of memory");
		close(fd);
		code = FP_EXIT_FAIL;
		goto cleanup;
	}
	x.last_ok_ns = fp_mono_ns();
	if (http_start(&x, fd)) {
		code = FP_EXIT_FAIL;
		goto cleanup;
	}
	fprintf(stderr, "fabprobe: serving metrics on http://%s/metrics%s\n", e.listen,
		http_is_loopback(&sa) ? "" : " (not loopback: reachable from the network)");
	err = run(&x, &ss, &e);
	code = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
cleanup:
	http_stop(&x);
	session_stop(&ss);
	return code;
}
