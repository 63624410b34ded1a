/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export_ipfix.h - `fabprobe export --ipfix`: the session's flows as IPFIX
 * delta records (render/ipfix.h) to a collector. Each refresh is observed
 * by the delta bookkeeping (core/flow_export.h), and the export loop pumps
 * in short slices while it waits: due records go into the exporter's queue
 * as far as it has room, and the queue onto the network at its budget's
 * pace. Nothing here waits on the network.
 */
#ifndef __FP_EXPORT_IPFIX_H
#define __FP_EXPORT_IPFIX_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "core/session.h"
#include "render/metrics.h"

#define EXPORT_IPFIX_INTERVAL_DEFAULT 10.0
/* At exit or stop, what is due and queued gets this long to go out. */
#define EXPORT_IPFIX_CLOSE_MS 3000
/*
 * The export loop's pace while it waits: at most this long between two
 * pumps. The UDP pacing sends what its rate allowed since the last pump
 * (render/ipfix.h), so pumps far apart would make fewer, larger bursts.
 */
#define EXPORT_IPFIX_SLICE_S 0.01
/* A recording read as fast as it goes (--speed 0): of its time between two pumps. */
#define EXPORT_IPFIX_FAST_SLICE_S 0.1

struct export_ipfix_opts {
	const char *collector; /* "HOST:PORT", "[IPv6]:PORT"; NULL: no IPFIX */
	char shown[300];       /* the collector with its port, as the messages name it */
	bool tcp;
	double interval_s; /* active and idle timeout, in the source's time */
	__u32 pen;
	__u32 domain_id;
	__u32 mtu;	  /* largest message, bytes */
	__u64 rate_bytes; /* UDP pacing, bytes a second; 0: unpaced */
	bool given;	  /* some --ipfix-* option was given */
};

/* The command's long options (values from base on) and their help lines. */
#define EXPORT_IPFIX_LONG_OPTS(base)                                                               \
	{"ipfix", required_argument, NULL, (base)}, {"ipfix-tcp", no_argument, NULL, (base) + 1},  \
	    {"ipfix-interval", required_argument, NULL, (base) + 2},                               \
	    {"ipfix-pen", required_argument, NULL, (base) + 3},                                    \
	    {"ipfix-domain", required_argument, NULL, (base) + 4},                                 \
	    {"ipfix-mtu", required_argument, NULL, (base) + 5},                                    \
	{                                                                                          \
		"ipfix-rate", required_argument, NULL, (base) + 6                                  \
	}
#define EXPORT_IPFIX_N_OPTS 7
#define EXPORT_IPFIX_HELP                                                                          \
	"IPFIX (RFC 7011) flow records, one per flow and interval, two when its CNPs\n"            \
	"ride another class than its other packets (docs/ipfix.md):\n"                             \
	"      --ipfix HOST:PORT   send them to this collector, UDP unless --ipfix-tcp;\n"         \
	"                          [IPv6]:PORT for IPv6 (port default 4739)\n"                     \
	"      --ipfix-tcp         over TCP (reconnects with backoff)\n"                           \
	"      --ipfix-interval SECONDS  a record per active flow this often, and when\n"          \
	"                          a flow is silent this long or leaves the table\n"               \
	"                          (default 10, 0.1 to 86400, in the recording's time\n"           \
	"                          with --pcap)\n"                                                 \
	"      --ipfix-pen N       private enterprise number of the RoCE elements\n"               \
	"                          (default 32473, RFC 5612's documentation number:\n"             \
	"                          use your organisation's own)\n"                                 \
	"      --ipfix-domain N    observation domain ID (default 0)\n"                            \
	"      --ipfix-mtu BYTES   largest message (default 1400, 512-65535)\n"                    \
	"      --ipfix-rate BYTES  over UDP, bytes a second at most (default 4000000,\n"           \
	"                          about 26,000 records a second; K, M, G: powers of\n"            \
	"                          1024; 0 = unpaced): raise it for a collector that\n"            \
	"                          reads faster, with a receive buffer to match\n"

void export_ipfix_opts_init(struct export_ipfix_opts *o);
/* Option opt (base + n) with its argument: 1 handled, 0 not ours, -EINVAL bad value. */
int export_ipfix_parse(struct export_ipfix_opts *o, int base, int opt, const char *arg);
/* After the options: -EINVAL with one line when --ipfix-* came without --ipfix. */
int export_ipfix_check(const struct export_ipfix_opts *o);

struct export_ipfix;

/*
 * Resolve the collector and open the socket (TCP connects later, in the
 * background). One line on stderr and a negative errno on failure.
 */
int export_ipfix_open(struct export_ipfix **out, const struct export_ipfix_opts *o);
/* After each refresh: the session's new snapshot decides which records are due. */
void export_ipfix_observe(struct export_ipfix *xi, const struct session *ss);
/* The end of the input or of the run: every flow's remaining counts, as a forced end. */
void export_ipfix_end(struct export_ipfix *xi);
/*
 * Queue what is due as far as there is room, and send at the budget's
 * pace; never waits. NULL: nothing to do.
 */
void export_ipfix_pump(struct export_ipfix *xi);
/*
 * A recording's end with nothing left to serve: pump until every record is
 * out, at the budget's pace however long that takes, or until none has
 * gone out for EXPORT_IPFIX_CLOSE_MS (a TCP collector away).
 */
void export_ipfix_drain(struct export_ipfix *xi);
/*
 * Send what is left for up to timeout_ms, withdraw the templates (TCP),
 * close, print one summary line (after a first refresh), free. NULL is fine.
 * Returns the records that never reached the collector (dropped or lost
 * to send errors): 0 when every one went out.
 */
__u64 export_ipfix_close(struct export_ipfix *xi, int timeout_ms);

/* The fabprobe_ipfix_* families of docs/metrics.md, from the last pump (any thread). */
void export_ipfix_render(FILE *out, enum metrics_format fmt, void *xi);

#endif /* __FP_EXPORT_IPFIX_H */
