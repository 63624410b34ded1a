// SPDX-License-Identifier: GPL-2.0
/*
 * export_http.c - the exporter's HTTP side. Two sides that never wait on
 * each other: the refresh loop renders the whole text (0.0.4 and
 * OpenMetrics) into fresh buffers and swaps them in under a mutex; HTTP
 * threads take a reference to the current buffer and send it as is. A
 * scrape costs a lock, a reference and a write, whatever the number of
 * flows, and never touches a BPF map.
 *
 * Connections are guarded (struct conn_guard): a client that holds many
 * idle connections from one address, or from many, never locks a scraper
 * out. When a peer or the whole server reaches its limit, the oldest
 * connection that has not sent a request is closed to make room, instead
 * of the new one being refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/export_http.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

/*
 * Limits against slow, idle and hostile clients. A scrape request is a few
 * hundred bytes; 16 KiB per connection covers any sane header, anything
 * larger gets 431 and is closed. Idle connections are dropped after the
 * timeout; the guard keeps per-address and total connections within
 * CONN_PER_IP and CONN_LIMIT by closing idle ones; MHD's own hard limit
 * sits above, so that a new connection always arrives to be let in.
 */
#define CONN_LIMIT	1024
#define CONN_PER_IP	256
#define CONN_HARD_LIMIT (CONN_LIMIT + 64)
#define CONN_TIMEOUT_S	10
#define CONN_MEMORY	(16 * 1024)
#define HTTP_THREADS	2
#define NOFILE_WANT	4096

/* One rendering, shared by every scrape that takes it. */
struct metrics_buf {
	int refs;
	size_t len;
	char *text;
};

/* What a scrape's response owns: its buffer reference and the per-scrape tail. */
struct scrape {
	struct exporter *x;
	struct metrics_buf *buf;
	size_t tail_len;
	char tail[4096];
};

/* One TCP connection as the guard sees it. */
struct conn {
	struct MHD_Connection *c;
	int fd;
	struct sockaddr_storage peer;
	__u64 started_ns;
	bool active;  /* has sent a request */
	bool closing; /* shut down by the guard, waiting for MHD to clean up */
};

struct conn_guard {
	pthread_mutex_t lock;
	struct conn *conns[CONN_HARD_LIMIT];
	int n;
	__u64 closed_idle; /* idle connections closed to make room */
};

static __u64 mono_ns(void)
{
	return fp_mono_ns();
}

/*
 * "ADDR:PORT" or "[ADDR6]:PORT", numeric only: an exporter should not
 * depend on name resolution to come up. Port 1-65535.
 */
int http_parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
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
	} else if (v6 && strchr(host, '%')) {
		fp_err("--listen: '%s': a link-local zone (%%IF) is not supported; use a global or "
		       "the loopback address",
		       host);
		return -EINVAL;
	} else {
		fp_err("--listen: '%s' is not an %s address%s", host, v6 ? "IPv6" : "IPv4",
		       !v6 && strchr(host, ':') ? " (IPv6 goes in brackets: [::1]:9469)" : "");
		return -EINVAL;
	}
	/* The socket is IPv6 only: an IPv4-mapped address cannot be bound. */
	if (v6 && IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
		fp_err("--listen: '%s' is an IPv4-mapped address: give the IPv4 address itself",
		       host);
		return -EINVAL;
	}
	return 0;
}

bool http_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Our own socket, so that a bind error names its cause; then MHD takes it over. */
static void raise_nofile(void);

int http_open_listener(const char *arg, const struct sockaddr_storage *ss, socklen_t len)
{
	int one = 1, fd, err;

	raise_nofile();
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

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= NOFILE_WANT)
		return;
	rl.rlim_cur = rl.rlim_max < NOFILE_WANT ? rl.rlim_max : NOFILE_WANT;
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

int http_publish(struct exporter *x, const struct metrics_view *v, struct metrics_self *self)
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

void http_refresh_failed(struct exporter *x, const char *what, int err)
{
	__atomic_store_n(&x->failed_what, what, __ATOMIC_RELAXED);
	__atomic_store_n(&x->failed_err, err, __ATOMIC_RELEASE);
	__atomic_add_fetch(&x->refresh_errors, 1, __ATOMIC_RELAXED);
}

void http_refreshed(struct exporter *x)
{
	__atomic_store_n(&x->failed_err, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&x->last_ok_ns, mono_ns(), __ATOMIC_RELAXED);
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
		metrics_render_counter(f, fmt, "fabprobe_http_idle_closed",
				       "Idle HTTP connections closed to make room for new ones",
				       __atomic_load_n(&x->guard->closed_idle, __ATOMIC_RELAXED));
		metrics_render_counter(f, fmt, "fabprobe_refresh_errors", "Refreshes that failed",
				       __atomic_load_n(&x->refresh_errors, __ATOMIC_RELAXED));
		if (x->tail)
			x->tail(f, fmt, x->tail_ctx);
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
	int err = __atomic_load_n(&x->failed_err, __ATOMIC_ACQUIRE);
	__u64 now = mono_ns();
	char body[256];

	if (now - last <= x->stale_ns)
		return reply_text(c, MHD_HTTP_OK, "text/plain; charset=utf-8", "ok\n");
	if (err)
		snprintf(body, sizeof(body), "stale: last good refresh %.1f s ago; %s failed: %s\n",
			 (now - last) / 1e9, __atomic_load_n(&x->failed_what, __ATOMIC_RELAXED),
			 strerror(-err));
	else
		snprintf(body, sizeof(body), "stale: last refresh %.1f s ago\n",
			 (now - last) / 1e9);
	return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", body);
}

static const char index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fabprobe exporter</title>"
    "</head>\n<body><h1>fabprobe exporter</h1>\n<p>RoCEv2 fabric probe, version " FABPROBE_VERSION
    ".</p>\n<ul>\n<li><a href=\"/metrics\">/metrics</a>: Prometheus metrics</li>\n"
    "<li><a href=\"/healthz\">/healthz</a>: 200 while the probe refreshes</li>\n</ul>\n"
    "</body></html>\n";

static void guard_mark_active(struct conn_guard *g, struct MHD_Connection *c);

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
		guard_mark_active(x->guard, c);
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* The absolute form (RFC 9112 3.2.2), as a proxy sends it: the path is what counts. */
	if (!strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8)) {
		const char *path = strchr(strstr(url, "//") + 2, '/');

		url = path ? path : "/";
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

/*
 * A path's %XX unescaped as libmicrohttpd does, but one with %00 kept as
 * sent: its NUL would end the path early, and "/%00" serve "/".
 */
static size_t unescape_path(void *cls, struct MHD_Connection *c, char *uri)
{
	(void)cls;
	(void)c;
	for (const char *p = strchr(uri, '%'); p; p = strchr(p + 1, '%'))
		if (p[1] == '0' && p[2] == '0')
			return strlen(uri);
	return MHD_http_unescape(uri);
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

static bool same_peer(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

/*
 * Close the oldest connection that never sent a request, from the new
 * connection's peer when peer_only, to make room. Called with the lock
 * held: MHD closes a socket only after it has told us (CLOSED), which
 * waits for the lock, so the descriptor is still this connection's.
 */
static void close_oldest_idle(struct conn_guard *g, const struct conn *fresh, bool peer_only)
{
	struct conn *oldest = NULL;

	for (int i = 0; i < g->n; i++) {
		struct conn *k = g->conns[i];

		if (k == fresh || k->active || k->closing)
			continue;
		if (peer_only && !same_peer(&k->peer, &fresh->peer))
			continue;
		if (!oldest || k->started_ns < oldest->started_ns)
			oldest = k;
	}
	if (!oldest)
		return;
	oldest->closing = true;
	shutdown(oldest->fd, SHUT_RDWR);
	__atomic_add_fetch(&g->closed_idle, 1, __ATOMIC_RELAXED);
}

static void guard_started(struct conn_guard *g, struct MHD_Connection *c, void **socket_context)
{
	const union MHD_ConnectionInfo *fd =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *addr =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct conn *k = calloc(1, sizeof(*k));
	int same = 0, live = 0;

	if (!k)
		return;
	k->c = c;
	k->fd = fd ? fd->connect_fd : -1;
	k->started_ns = mono_ns();
	if (addr && addr->client_addr)
		memcpy(&k->peer, addr->client_addr,
		       addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								: sizeof(struct sockaddr_in));
	pthread_mutex_lock(&g->lock);
	if (g->n >= CONN_HARD_LIMIT) {
		/* MHD's own limit is the same; it cannot happen. Leave this one untracked. */
		pthread_mutex_unlock(&g->lock);
		free(k);
		return;
	}
	g->conns[g->n++] = k;
	*socket_context = k;
	for (int i = 0; i < g->n; i++) {
		if (g->conns[i]->closing)
			continue;
		live++;
		same += same_peer(&g->conns[i]->peer, &k->peer);
	}
	if (same > CONN_PER_IP)
		close_oldest_idle(g, k, true);
	else if (live > CONN_LIMIT)
		close_oldest_idle(g, k, false);
	pthread_mutex_unlock(&g->lock);
}

static void guard_closed(struct conn_guard *g, void **socket_context)
{
	struct conn *k = *socket_context;

	if (!k)
		return;
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->n; i++) {
		if (g->conns[i] == k) {
			g->conns[i] = g->conns[--g->n];
			break;
		}
	}
	pthread_mutex_unlock(&g->lock);
	free(k);
	*socket_context = NULL;
}

static void guard_mark_active(struct conn_guard *g, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ctx =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ctx ? ctx->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&g->lock);
	k->active = true;
	pthread_mutex_unlock(&g->lock);
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct exporter *x = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
		guard_started(x->guard, c, socket_context);
	else if (toe == MHD_CONNECTION_NOTIFY_CLOSED)
		guard_closed(x->guard, socket_context);
}

int http_start(struct exporter *x, int fd)
{
	x->guard = calloc(1, sizeof(*x->guard));
	if (!x->guard) {
		close(fd);
		fp_err("export: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&x->guard->lock, NULL);
	/* The guard enforces the per-peer and total limits; MHD's per-IP limit is off. */
	x->daemon = MHD_start_daemon(
	    MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, x,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_UNESCAPE_CALLBACK, unescape_path,
	    NULL, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_CONNECTION, notify_connection, x,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)CONN_HARD_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)CONN_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
	    MHD_OPTION_END);
	if (!x->daemon) {
		close(fd);
		fp_err("export: cannot start the HTTP server");
		return -EIO;
	}
	return 0;
}

void http_stop(struct exporter *x)
{
	if (x->daemon)
		MHD_stop_daemon(x->daemon);
	x->daemon = NULL;
	buf_unref(x, x->cur[METRICS_PROMETHEUS]);
	buf_unref(x, x->cur[METRICS_OPENMETRICS]);
	x->cur[METRICS_PROMETHEUS] = x->cur[METRICS_OPENMETRICS] = NULL;
	if (x->guard) {
		for (int i = 0; i < x->guard->n; i++)
			free(x->guard->conns[i]);
		pthread_mutex_destroy(&x->guard->lock);
		free(x->guard);
		x->guard = NULL;
	}
}
