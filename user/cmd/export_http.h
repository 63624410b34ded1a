/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export_http.h - the exporter's HTTP side (libmicrohttpd): /metrics,
 * /healthz and /, served from the last rendering, never from BPF maps,
 * and kept answering while hostile or idle clients hold connections.
 */
#ifndef __FP_EXPORT_HTTP_H
#define __FP_EXPORT_HTTP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <linux/types.h>

#include "render/metrics.h"

#define EXPORT_LISTEN_DEFAULT "127.0.0.1:9469"

struct metrics_buf;
struct conn_guard;
struct MHD_Daemon;

/* What the refresh loop publishes and the HTTP threads serve. */
struct exporter {
	pthread_mutex_t lock;
	struct metrics_buf *cur[2]; /* by enum metrics_format */
	__u64 last_ok_ns;	    /* CLOCK_MONOTONIC of the last good refresh */
	__u64 stale_ns;		    /* /healthz turns 503 past this age */
	/*
	 * Failed refreshes, drawn into every scrape: a failed refresh renders
	 * nothing, so a count in the page would move only after a good one.
	 */
	__u64 refresh_errors;
	/* What failed last and how (negative errno), for /healthz; 0 after a good refresh. */
	const char *failed_what;
	int failed_err;
	struct conn_guard *guard;
	struct MHD_Daemon *daemon;
	/*
	 * More families drawn into every scrape's tail, from an HTTP thread
	 * (export --ipfix: its counters, which change between refreshes).
	 */
	void (*tail)(FILE *out, enum metrics_format fmt, void *ctx);
	void *tail_ctx;
};

/* "ADDR:PORT" or "[ADDR6]:PORT", numeric; one line and -EINVAL if not. */
int http_parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len);
bool http_is_loopback(const struct sockaddr_storage *ss);
/* A listening socket, bound before anything is attached: a taken port fails fast. */
int http_open_listener(const char *arg, const struct sockaddr_storage *ss, socklen_t len);

/* Render both formats of v and make them what scrapes get; -ENOMEM. */
int http_publish(struct exporter *x, const struct metrics_view *v, struct metrics_self *self);
/*
 * A refresh failed (what: "the last refresh", ...; err a negative errno):
 * counted, and said by /healthz once it turns stale. http_refreshed():
 * one succeeded, and /healthz is fresh again.
 */
void http_refresh_failed(struct exporter *x, const char *what, int err);
void http_refreshed(struct exporter *x);
/* Serve on the listening socket fd (taken over); -errno with one line. */
int http_start(struct exporter *x, int fd);
void http_stop(struct exporter *x);

#endif /* __FP_EXPORT_HTTP_H */
