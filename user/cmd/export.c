// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - `fabprobe export`: serve a session's picture as Prometheus
 * metrics over HTTP (libmicrohttpd), live or from a recording.
 *
 * Two sides that never wait on each other. The main thread refreshes the
 * probe every --interval, renders the whole text (0.0.4 and OpenMetrics)
 * into fresh buffers and swaps them in under a mutex. HTTP threads take a
 * reference to the current buffer and send it as is: a scrape costs a
 * lock, a reference and a write, whatever the number of flows, and never
 * touches a BPF map.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/session.h"
#include "render/metrics.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

#define EXPORT_LISTEN_DEFAULT "127.0.0.1:9469"
/*
 * Limits against slow, idle and hostile clients. A scrape request is a few
 * hundred bytes; 16 KiB per connection covers any sane header, anything
 * larger gets 431 and is closed. Idle connections are dropped after the
 * timeout; per-IP and total limits cap what one peer can hold.
 */
#define EXPORT_CONN_LIMIT      1024
#define EXPORT_CONN_PER_IP     256
#define EXPORT_CONN_TIMEOUT_S  10
#define EXPORT_CONN_MEMORY     (16 * 1024)
#define EXPORT_THREADS	       2
#define EXPORT_STALE_INTERVALS 3
#define EXPORT_NOFILE_WANT     4096

struct export_opts {
	double interval_s;
	unsigned int top_flows;
	const char *listen;
};

/* One rendering, shared by every scrape that takes it. */
struct metrics_buf {
	int refs;
	size_t len;
	char *text;
};

struct exporter {
	pthread_mutex_t lock;
	struct metrics_buf *cur[2]; /* by enum metrics_format */
	__u64 last_ok_ns;	    /* CLOCK_MONOTONIC of the last good refresh */
	__u64 stale_ns;
	char listen[80];
};

/* What a scrape's response owns: its buffer reference and the per-scrape tail. */
struct scrape {
	struct exporter *x;
	struct metrics_buf *buf;
	size_t tail_len;
	char tail[512];
};

static __u64 mono_ns(void)
{
	return fp_mono_ns();
}

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

/*
 * "ADDR:PORT" or "[ADDR6]:PORT", numeric only: an exporter should not
 * depend on name resolution to come up. Port 1-65535.
 */
static int parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	const char *port, *colon;
	size_t hlen;
	bool v6 = arg[0] == '[';
	__u16 p;

	if (v6) {
		const char *end = strchr(arg, ']');

		if (!end || end[1] != ':') {
			fp_err("--listen: '%s' is not [IPv6]:PORT, e.g. [::1]:9469", arg);
			return -EINVAL;
		}
		hlen = end - arg - 1;
		colon = end + 1;
		arg++;
	} else {
		colon = strrchr(arg, ':');
		if (!colon) {
			fp_err("--listen: '%s' has no port: use ADDR:PORT, e.g. %s", arg,
			       EXPORT_LISTEN_DEFAULT);
			return -EINVAL;
		}
		hlen = colon - arg;
	}
	port = colon + 1;
	if (hlen == 0 || hlen >= sizeof(host)) {
		fp_err("--listen: '%.*s' is not an IPv4 address or a bracketed IPv6 address",
		       (int)hlen, arg);
		return -EINVAL;
	}
	memcpy(host, arg, hlen);
	host[hlen] = '\0';
	if (!*port) {
		fp_err("--listen: no port after '%s': use ADDR:PORT, e.g. %s", host,
		       EXPORT_LISTEN_DEFAULT);
		return -EINVAL;
	}
	if (opt_parse_port("--listen port", port, &p))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (v6 && inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		*len = sizeof(*sin6);
	} else if (!v6 && inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		*len = sizeof(*sin);
	} else {
		fp_err("--listen: '%s' is not an %s address%s", host, v6 ? "IPv6" : "IPv4",
		       v6 || strchr(host, ':') ? " (IPv6 goes in brackets: [::1]:9469)" : "");
		return -EINVAL;
	}
	return 0;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Our own socket, so that a bind error names its cause; then MHD takes it over. */
static int open_listener(const char *arg, const struct sockaddr_storage *ss, socklen_t len)
{
	int one = 1, fd, err;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = -errno;
		fp_err("--listen %s: cannot open a socket: %s", arg, strerror(-err));
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 128)) {
		err = -errno;
		fp_err("--listen %s: cannot listen: %s%s", arg, strerror(-err),
		       err == -EADDRNOTAVAIL ? " (the address is not on this host)" : "");
		close(fd);
		return err;
	}
	return fd;
}

/* Room for the idle, slow and concurrent connections the limits allow. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= EXPORT_NOFILE_WANT)
		return;
	rl.rlim_cur = rl.rlim_max < EXPORT_NOFILE_WANT ? rl.rlim_max : EXPORT_NOFILE_WANT;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void buf_unref(struct exporter *x, struct metrics_buf *b)
{
	bool last;

	if (!b)
		return;
	pthread_mutex_lock(&x->lock);
	last = --b->refs == 0;
	pthread_mutex_unlock(&x->lock);
	if (last) {
		free(b->text);
		free(b);
	}
}

static void publish(struct exporter *x, enum metrics_format fmt, struct metrics_buf *b)
{
	struct metrics_buf *old;

	b->refs = 1;
	pthread_mutex_lock(&x->lock);
	old = x->cur[fmt];
	x->cur[fmt] = b;
	pthread_mutex_unlock(&x->lock);
	buf_unref(x, old);
}

static struct metrics_buf *render(const struct metrics_view *v, enum metrics_format fmt)
{
	struct metrics_buf *b = calloc(1, sizeof(*b));
	FILE *f;

	if (!b)
		return NULL;
	f = open_memstream(&b->text, &b->len);
	if (!f) {
		free(b);
		return NULL;
	}
	/* OpenMetrics' "# EOF" goes after the per-scrape tail, at serve time. */
	metrics_render(f, fmt, v, false);
	if (fclose(f)) {
		free(b->text);
		free(b);
		return NULL;
	}
	return b;
}

static int render_and_publish(struct exporter *x, const struct metrics_view *v,
			      struct metrics_self *self)
{
	__u64 t0 = mono_ns();
	struct metrics_buf *prom = render(v, METRICS_PROMETHEUS);
	struct metrics_buf *om = render(v, METRICS_OPENMETRICS);

	if (!prom || !om) {
		if (prom)
			free(prom->text);
		if (om)
			free(om->text);
		free(prom);
		free(om);
		return -ENOMEM;
	}
	publish(x, METRICS_PROMETHEUS, prom);
	publish(x, METRICS_OPENMETRICS, om);
	self->render_duration_s = (mono_ns() - t0) / 1e9;
	return 0;
}

static void scrape_free(void *cls)
{
	struct scrape *s = cls;

	buf_unref(s->x, s->buf);
	free(s);
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *type,
				  const char *body)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve_metrics(struct exporter *x, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	enum metrics_format fmt =
	    metrics_wants_openmetrics(accept) ? METRICS_OPENMETRICS : METRICS_PROMETHEUS;
	struct scrape *s = calloc(1, sizeof(*s));
	struct MHD_Response *r;
	struct MHD_IoVec iov[2];
	enum MHD_Result ret;
	__u64 t0 = mono_ns();
	FILE *f;

	if (!s)
		return MHD_NO;
	s->x = x;
	pthread_mutex_lock(&x->lock);
	s->buf = x->cur[fmt];
	s->buf->refs++;
	pthread_mutex_unlock(&x->lock);

	f = fmemopen(s->tail, sizeof(s->tail), "w");
	if (f) {
		metrics_render_gauge(f, "fabprobe_scrape_duration_seconds",
				     "Time the exporter took to serve this scrape",
				     (mono_ns() - t0) / 1e9);
		if (fmt == METRICS_OPENMETRICS)
			fputs("# EOF\n", f);
		s->tail_len = ftell(f);
		fclose(f);
	}
	iov[0] = (struct MHD_IoVec){s->buf->text, s->buf->len};
	iov[1] = (struct MHD_IoVec){s->tail, s->tail_len};
	r = MHD_create_response_from_iovec(iov, 2, scrape_free, s);
	if (!r) {
		scrape_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				fmt == METRICS_OPENMETRICS ? METRICS_CT_OPENMETRICS
							   : METRICS_CT_PROMETHEUS);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve_health(struct exporter *x, struct MHD_Connection *c)
{
	__u64 last = __atomic_load_n(&x->last_ok_ns, __ATOMIC_RELAXED);
	__u64 now = mono_ns();
	char body[128];

	if (now - last <= x->stale_ns)
		return reply_text(c, MHD_HTTP_OK, "text/plain; charset=utf-8", "ok\n");
	snprintf(body, sizeof(body), "stale: last refresh %.1f s ago\n", (now - last) / 1e9);
	return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", body);
}

static const char index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fabprobe exporter</title>"
    "</head>\n<body><h1>fabprobe exporter</h1>\n<p>RoCEv2 fabric probe, version " FABPROBE_VERSION
    ".</p>\n<ul>\n<li><a href=\"/metrics\">/metrics</a>: Prometheus metrics</li>\n"
    "<li><a href=\"/healthz\">/healthz</a>: 200 while the probe refreshes</li>\n</ul>\n"
    "</body></html>\n";

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	static int started;
	struct exporter *x = cls;

	(void)version;
	(void)upload_data;
	/* First call: headers only. Then any body is read and dropped. */
	if (!*req_cls) {
		*req_cls = &started;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				  "only GET and HEAD\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(x, c);
	if (!strcmp(url, "/healthz"))
		return serve_health(x, c);
	if (!strcmp(url, "/"))
		return reply_text(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_html);
	return reply_text(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			  "not found: try /metrics\n");
}

/* libmicrohttpd's own messages (a client's broken request) only with -v. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!fp_verbose)
		return;
	fputs("fabprobe: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static struct MHD_Daemon *start_http(struct exporter *x, int fd)
{
	return MHD_start_daemon(
	    MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, x,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)EXPORT_THREADS, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)EXPORT_CONN_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned int)EXPORT_CONN_PER_IP, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)EXPORT_CONN_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)EXPORT_CONN_MEMORY, MHD_OPTION_END);
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
			__atomic_store_n(&x->last_ok_ns, mono_ns(), __ATOMIC_RELAXED);
			continue;
		}
		rc = session_advance(ss, e->interval_s);
		if (rc < 0 || fp_stopping)
			break;
		t0 = mono_ns();
		err = session_refresh(ss);
		if (err) {
			/* Keep serving the last picture; /healthz turns 503 when it ages. */
			self.refresh_errors++;
			continue;
		}
		self.refresh_duration_s = (mono_ns() - t0) / 1e9;
		self.refreshes++;
		self.last_refresh_time_s = unix_now();
		metrics_accumulate(acc, &ss->snap, &ss->an);
		if (render_and_publish(x, &v, &self)) {
			fp_err("export: out of memory rendering the metrics");
			self.refresh_errors++;
			continue;
		}
		__atomic_store_n(&x->last_ok_ns, mono_ns(), __ATOMIC_RELAXED);
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
	struct MHD_Daemon *d = NULL;
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
	if (parse_listen(e.listen, &sa, &salen))
		return FP_EXIT_USAGE;
	src = cli_source_new(&cs, false, &code);
	if (!src)
		return code;
	snprintf(x.listen, sizeof(x.listen), "%s", e.listen);
	x.stale_ns = (__u64)(EXPORT_STALE_INTERVALS * e.interval_s * 1e9);

	/* Bind before attaching anything: a taken port fails fast and leaves nothing. */
	raise_nofile();
	fd = open_listener(e.listen, &sa, salen);
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
		err = render_and_publish(&x, &v0, &self0);
		free(acc0);
	}
	if (!acc0 || err) {
		fp_err("export: out of memory");
		err = FP_EXIT_FAIL;
		goto cleanup;
	}
	x.last_ok_ns = mono_ns();

	d = start_http(&x, fd);
	if (!d) {
		fp_err("export: cannot start the HTTP server on %s", e.listen);
		err = FP_EXIT_FAIL;
		goto cleanup;
	}
	fd = -1; /* MHD owns it now */
	fprintf(stderr, "fabprobe: serving metrics on http://%s/metrics%s\n", e.listen,
		is_loopback(&sa) ? "" : " (not loopback: reachable from the network)");
	err = run(&x, &ss, &e) ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;

cleanup:
	if (d)
		MHD_stop_daemon(d);
	if (fd >= 0)
		close(fd);
	buf_unref(&x, x.cur[METRICS_PROMETHEUS]);
	buf_unref(&x, x.cur[METRICS_OPENMETRICS]);
	session_stop(&ss);
	return err;
}
