// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - `fabprobe export`: serve a session's picture as Prometheus
 * metrics over HTTP (export_http.c) and/or send its flows as IPFIX records
 * (export_ipfix.c), live or from a recording. The loop here refreshes the
 * session every --interval (or --ipfix-interval when shorter), publishes
 * one rendering that every scrape until the next refresh is served from,
 * and hands each refresh to the IPFIX side; while it waits, it pumps the
 * IPFIX exporter every 100 ms or less, so a burst of records is paced and
 * never holds up a refresh.
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
#include "cmd/export_ipfix.h"
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
	const char *listen; /* "none": no HTTP server (IPFIX only) */
	struct export_ipfix_opts ipfix;
	double refresh_s;    /* the loop's period: the shorter of the two intervals */
	double slice_s;	     /* of the source's time between two IPFIX pumps */
	double start_time_s; /* UNIX time the session started, read once for every scrape */
};

static double unix_now(void)
{
	return fp_real_ns() / 1e9;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fabprobe export -i IF[,IF...] [--uplinks IF,...] [--listen ADDR:PORT] "
		"[--ipfix HOST:PORT] [OPTIONS]\n"
		"       fabprobe export --pcap FILE [--speed X] [--listen ADDR:PORT] "
		"[--ipfix HOST:PORT] [OPTIONS]\n"
		"       fabprobe export --sflow [ADDR:]PORT [--sflow-port-map FILE] "
		"[--listen ADDR:PORT] [--ipfix HOST:PORT] [OPTIONS]\n"
		"       fabprobe export --nic | --nic-root DIR [--listen ADDR:PORT] [OPTIONS]\n"
		"\n"
		"Serve the probe's counters, paths and alerts as Prometheus metrics:\n"
		"/metrics (text 0.0.4, or OpenMetrics 1.0 when the scraper asks for it),\n"
		"/healthz (200 while the probe refreshes, 503 when stale) and / (an index);\n"
		"with --ipfix, also send one IPFIX record per flow and interval to a collector.\n"
		"A recording is played at --speed (default 1, the recorded pace); once it has\n"
		"ended, its flows' last records are sent (forced end) and its final picture\n"
		"(rates and alerts over the whole recording) is served until fabprobe is\n"
		"stopped; with --listen none, export exits once the last records are out.\n"
		"\n"
		"Options:\n"
		"  -l, --listen ADDR:PORT  where to serve (default " EXPORT_LISTEN_DEFAULT "):\n"
		"                          IPv4 ADDR:PORT or [IPv6]:PORT; anything but\n"
		"                          loopback must be asked for explicitly; \"none\":\n"
		"                          no HTTP server (with --ipfix only)\n"
		"  -r, --interval SECONDS  how often the maps are read, 0.1 to 3600 (default 5;\n"
		"                          the --ipfix-interval when that is shorter)\n"
		"      --top-flows N       per-flow series for the N fastest flows (default %d,\n"
		"                          0 = none, at most %d)\n"
		"  -h, --help              this help\n" EXPORT_IPFIX_HELP OPT_SOURCE_HELP
		    OPT_ANALYSIS_HELP "\n"
		"Exit status: 0 stopped (or a recording sent, with --listen none), 1 failure (a\n"
		"taken port, no privileges; with --listen none, IPFIX records dropped or lost),\n"
		"2 usage error, 3 a capture cut short, or every interface watched gone (with NIC\n"
		"counters alone, every RDMA port read; what was read is served and sent).\n",
		METRICS_TOP_FLOWS_DEFAULT, METRICS_TOP_FLOWS_MAX);
}

enum { OPT_TOP_FLOWS = OPT_CMD_FIRST, OPT_IPFIX_FIRST };

static int parse(int argc, char **argv, struct export_opts *e, struct cli_source *cs,
		 struct analysis_opts *ao)
{
	static const struct option long_opts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"interval", required_argument, NULL, 'r'},
	    {"top-flows", required_argument, NULL, OPT_TOP_FLOWS},
	    {"help", no_argument, NULL, 'h'},
	    EXPORT_IPFIX_LONG_OPTS(OPT_IPFIX_FIRST),
	    OPT_SOURCE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	int opt, n;
	__u32 v;

	optind = 1;
	while ((opt = opt_getopt(argc, argv, ":i:l:r:T:h", long_opts)) != -1) {
		switch (opt) {
		case 'l':
			e->listen = optarg;
			break;
		case 'r':
			if (opt_parse_seconds("--interval", optarg, 0.1, 3600, &e->interval_s))
				return FP_EXIT_USAGE;
			break;
		case OPT_TOP_FLOWS:
			if (opt_parse_u32("--top-flows", optarg, 0, METRICS_TOP_FLOWS_MAX, &v))
				return FP_EXIT_USAGE;
			e->top_flows = v;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			n = export_ipfix_parse(&e->ipfix, OPT_IPFIX_FIRST, opt, optarg);
			if (n < 0)
				return FP_EXIT_USAGE;
			if (!n && cli_parse_common(cs, ao, opt, optarg, argv))
				return FP_EXIT_USAGE;
		}
	}
	if (opt_no_args("export", argc, argv) || export_ipfix_check(&e->ipfix))
		return FP_EXIT_USAGE;
	if (e->listen && !strcmp(e->listen, "none") && !e->ipfix.collector) {
		fp_err("export: --listen none needs --ipfix HOST:PORT: there would be nothing to "
		       "export");
		return FP_EXIT_USAGE;
	}
	return 0;
}

/* Wait seconds of wall time, pumping the IPFIX exporter in slices. */
static void wait_pumping(struct export_ipfix *xi, double seconds)
{
	__u64 end = fp_mono_ns() + (__u64)(seconds * 1e9);

	if (!xi) {
		fp_sleep(seconds);
		return;
	}
	while (!fp_stopping && fp_mono_ns() < end) {
		export_ipfix_pump(xi);
		fp_sleep(EXPORT_IPFIX_SLICE_S);
	}
}

/*
 * Let e->refresh_s of the source's time pass. Live without IPFIX in one
 * call to the source; else in slices (e->slice_s), pumping the exporter
 * (if any) after each. A recording read more slowly than its own time
 * (--speed 0 on a large capture) is refreshed after refresh_s of wall time
 * anyway, so /healthz stays fresh. Past the first minute of a silent
 * stretch of a recording, the whole intervals of it left pass in one call
 * (session_silence_s()). 0, 1 once the input has ended, or a negative errno.
 */
static int advance(struct session *ss, struct export_ipfix *xi, const struct export_opts *e)
{
	double target = session_clock_s(ss) + e->refresh_s;
	__u64 wall_end = fp_mono_ns() + (__u64)(e->refresh_s * 1e9);
	double silence = session_silence_s(ss, e->refresh_s);

	/* Nothing comes before its end: no slices, no refresh in between. */
	if (silence > 0) {
		int rc = session_advance(ss, silence);

		if (xi)
			export_ipfix_pump(xi);
		return rc;
	}
	/* Live, the source waits out the interval itself; a recording is sliced. */
	if (!xi && !ss->desc.finite)
		return session_advance(ss, e->refresh_s);
	for (;;) {
		double left = target - session_clock_s(ss);
		int rc;

		/* A recording's clock is whole ns: less than one is there. */
		if (left < 1e-9)
			return 0;
		/* Half a ns more: a recording truncates seconds to whole ns. */
		rc = session_advance(ss, (left < e->slice_s ? left : e->slice_s) + 0.5e-9);
		export_ipfix_pump(xi);
		if (rc || fp_stopping || fp_mono_ns() >= wall_end)
			return rc;
	}
}

/*
 * A recording's final picture: rates and findings over all of it, served
 * until stopped (fabprobe_input_ended 1). Until it is served, the page
 * holds the last refresh's, which says the input has not ended: /healthz
 * turns stale with it and says why, and the conclusion is tried again at
 * every interval.
 */
static int conclude(struct exporter *x, struct session *ss, const struct metrics_view *v,
		    struct metrics_self *self)
{
	int err = session_conclude(ss);

	if (err) {
		http_refresh_failed(x, "the recording's final analysis", err);
		return err;
	}
	err = http_publish(x, v, self);
	if (err) {
		fp_err("export: out of memory rendering the metrics");
		http_refresh_failed(x, "the rendering of the final picture", err);
		return err;
	}
	http_refreshed(x);
	return 0;
}

/* The end of a recording, said once: served, failed, or its last records on their way. */
static void say_ended(const struct session *ss, bool served, int err)
{
	char n[48];

	fprintf(stderr, "fabprobe: the capture has been read (%s); ",
		fmt_count(n, sizeof(n), ss->desc.frames, "frame"));
	if (err)
		fprintf(stderr,
			"its final analysis failed (%s): serving the picture of the refresh "
			"before, which says it has not ended, and trying again every interval\n",
			fp_strerror(err));
	else
		fprintf(stderr, "%s\n",
			served ? "serving its final picture (the whole capture) until stopped"
			       : "sending its last IPFIX records");
}

static int run(struct exporter *x, struct session *ss, const struct export_opts *e,
	       struct export_ipfix *xi)
{
	struct metrics_acc *acc = calloc(1, sizeof(*acc));
	struct metrics_self self = {
	    .version = FABPROBE_VERSION,
	    .interval_s = e->refresh_s,
	    .start_time_s = e->start_time_s,
	};
	struct metrics_view v = {
	    .snap = &ss->snap,
	    .an = &ss->an,
	    .src = &ss->desc,
	    .acc = acc,
	    .self = &self,
	    .top_flows = e->top_flows,
	};
	__u32 ids[SOURCE_MAX_POINTS];
	int rc = 0, err, n_ids = 0;
	bool concluded = false;

	if (!acc)
		return -ENOMEM;
	while (!fp_stopping) {
		__u64 t0;

		if (ss->ended) {
			/* A recording read: with nothing to serve, its last records go out. */
			if (!x) {
				if (xi)
					export_ipfix_drain(xi);
				break;
			}
			/* Else its final picture is served until stopped (fabprobe_input_ended). */
			wait_pumping(xi, e->refresh_s);
			if (concluded)
				http_refreshed(x);
			else if (!fp_stopping && !conclude(x, ss, &v, &self)) {
				concluded = true;
				say_ended(ss, true, 0);
			}
			continue;
		}
		rc = advance(ss, xi, e);
		if (rc < 0 || fp_stopping)
			break;
		t0 = fp_mono_ns();
		err = session_refresh(ss);
		if (err) {
			/* Keep serving the last picture; /healthz turns 503 when it ages. */
			if (x)
				http_refresh_failed(x, "the last refresh", err);
			continue;
		}
		self.refresh_duration_s = (fp_mono_ns() - t0) / 1e9;
		self.refreshes++;
		self.last_refresh_time_s = unix_now();
		self.input_ended = ss->ended;
		if (xi) {
			export_ipfix_observe(xi, ss);
			/* The recording's end is every remaining flow's end. */
			if (ss->ended)
				export_ipfix_end(xi);
			export_ipfix_pump(xi);
		}
		if (x) {
			metrics_accumulate(acc, &ss->snap, &ss->an);
			/*
			 * An interface made again: its series go on under its name.
			 * Points new since (sFlow ports as they appear) only start.
			 */
			for (int i = 0; i < ss->desc.n_points && i < SOURCE_MAX_POINTS; i++) {
				if (i < n_ids)
					metrics_acc_moved(acc, ids[i], ss->desc.points[i].id);
				ids[i] = ss->desc.points[i].id;
				n_ids = i + 1; /* points are only ever added */
			}
			if (ss->ended) {
				err = conclude(x, ss, &v, &self);
				concluded = !err;
				say_ended(ss, true, err);
				continue;
			}
			if (http_publish(x, &v, &self)) {
				fp_err("export: out of memory rendering the metrics");
				http_refresh_failed(x, "the rendering of the metrics", -ENOMEM);
				continue;
			}
			http_refreshed(x);
		}
		if (ss->ended)
			say_ended(ss, false, 0);
	}
	/* Stopped: what the flows did since the last refresh goes out as a forced end. */
	if (xi && rc >= 0 && !ss->ended && !session_refresh(ss))
		export_ipfix_observe(xi, ss);
	if (xi)
		export_ipfix_end(xi);
	free(acc);
	return rc < 0 ? rc : 0;
}

/* Something to serve before the first refresh: zero counters, no flows. */
static int publish_empty(struct exporter *x, struct session *ss, const struct export_opts *e)
{
	struct metrics_self self0 = {.version = FABPROBE_VERSION};
	struct metrics_acc *acc0 = calloc(1, sizeof(*acc0));
	struct metrics_view v0 = {
	    .snap = &ss->snap, .an = &ss->an, .src = &ss->desc, .acc = acc0, .self = &self0};
	int err;

	if (!acc0)
		return -ENOMEM;
	self0.interval_s = e->refresh_s;
	self0.start_time_s = e->start_time_s;
	err = http_publish(x, &v0, &self0);
	free(acc0);
	return err;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts e = {.interval_s = 5, .top_flows = METRICS_TOP_FLOWS_DEFAULT};
	struct exporter x = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct export_ipfix *xi = NULL;
	struct sockaddr_storage sa;
	struct analysis_opts aopts;
	struct cli_source cs;
	struct session ss;
	struct source *src;
	socklen_t salen;
	bool http;
	int err, fd = -1, code;

	cli_source_init(&cs, "export", 1);
	analysis_opts_default(&aopts);
	export_ipfix_opts_init(&e.ipfix);
	err = parse(argc, argv, &e, &cs, &aopts);
	if (err)
		return err < 0 ? FP_EXIT_OK : err;
	if (!e.listen)
		e.listen = EXPORT_LISTEN_DEFAULT;
	http = strcmp(e.listen, "none") != 0;
	if (http && http_parse_listen(e.listen, &sa, &salen))
		return FP_EXIT_USAGE;
	src = cli_source_new(&cs, false, &code);
	if (!src)
		return code;
	e.refresh_s = e.interval_s;
	if (e.ipfix.collector && e.ipfix.interval_s < e.refresh_s)
		e.refresh_s = e.ipfix.interval_s;
	/*
	 * A slice of the source's time that passes in about EXPORT_IPFIX_SLICE_S
	 * of wall time; a recording read at full speed in larger slices, each
	 * of them bounded in wall time by the source (pcap.c).
	 */
	e.slice_s = EXPORT_IPFIX_SLICE_S;
	if (cs.pcap.n_files)
		e.slice_s = cs.pcap.speed > 0 ? EXPORT_IPFIX_SLICE_S * cs.pcap.speed
					      : EXPORT_IPFIX_FAST_SLICE_S;
	x.stale_ns = (__u64)(EXPORT_STALE_INTERVALS * e.refresh_s * 1e9);

	/* Bind and open before attaching anything: a taken port fails fast and leaves nothing. */
	if (http) {
		fd = http_open_listener(e.listen, &sa, salen);
		if (fd < 0) {
			src->ops->destroy(src);
			return FP_EXIT_FAIL;
		}
	}
	if (e.ipfix.collector && export_ipfix_open(&xi, &e.ipfix)) {
		if (fd >= 0)
			close(fd);
		src->ops->destroy(src);
		return FP_EXIT_FAIL;
	}
	if (session_start(&ss, src, &aopts, false)) {
		if (fd >= 0)
			close(fd);
		export_ipfix_close(xi, 0);
		return FP_EXIT_FAIL;
	}
	if (cli_nic_check(&ss, &cs, "export", "exporting", "")) {
		session_stop(&ss);
		if (fd >= 0)
			close(fd);
		export_ipfix_close(xi, 0);
		return FP_EXIT_FAIL;
	}
	/* The top flows are chosen by rate, not read off an order by bytes. */
	ss.unordered = true;
	e.start_time_s = unix_now() - session_clock_s(&ss);
	if (http) {
		if (publish_empty(&x, &ss, &e)) {
			fp_err("export: out of memory");
			close(fd);
			code = FP_EXIT_FAIL;
			goto cleanup;
		}
		x.last_ok_ns = fp_mono_ns();
		if (xi) {
			x.tail = export_ipfix_render;
			x.tail_ctx = xi;
		}
		if (http_start(&x, fd)) {
			code = FP_EXIT_FAIL;
			goto cleanup;
		}
		fprintf(stderr, "fabprobe: serving metrics on http://%s/metrics%s\n", e.listen,
			http_is_loopback(&sa) ? "" : " (not loopback: reachable from the network)");
	}
	if (xi)
		fprintf(stderr,
			"fabprobe: sending IPFIX to %s over %s: a record per flow every %g s "
			"(PEN %u, observation domain %u)\n",
			e.ipfix.shown, e.ipfix.tcp ? "TCP" : "UDP", e.ipfix.interval_s, e.ipfix.pen,
			e.ipfix.domain_id);
	err = run(http ? &x : NULL, &ss, &e, xi);
	code = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
cleanup:
	/* The HTTP threads read the IPFIX counters: stop them first. */
	http_stop(&x);
	/*
	 * With --listen none (a job that sends a recording, or a live sender
	 * stopped): records that never reached the collector fail it, for the
	 * script or unit that runs it. Served, the metrics count them
	 * (fabprobe_ipfix_records_lost_total), and a stop is no failure.
	 */
	if (export_ipfix_close(xi, EXPORT_IPFIX_CLOSE_MS) && !http && code == FP_EXIT_OK) {
		fp_err("export: IPFIX records were not delivered (the line above counts them)");
		code = FP_EXIT_FAIL;
	}
	session_stop(&ss);
	return code;
}
