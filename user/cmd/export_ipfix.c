// SPDX-License-Identifier: GPL-2.0
/*
 * export_ipfix.c - the IPFIX side of `fabprobe export`: options, the
 * conversion of a flow's delta into an IPFIX record, the pump the export
 * loop calls between slices, and the fabprobe_ipfix_* metrics that HTTP
 * threads read from the last pump's copy of the counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/export_ipfix.h"
#include "core/flow_export.h"
#include "core/mirror.h"
#include "render/ipfix.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

struct export_ipfix {
	struct ipfix_exporter *x;
	struct flow_export fx;
	struct export_ipfix_opts o;
	const struct source_desc *desc; /* the session's: observation points, for paths */
	const struct session *ss;	/* its flows' paths, sampling rates, mirror sessions */
	__s64 clock_offset_ns;		/* flows' clock to UNIX time, from the last snapshot */
	/* What scrapes show, copied at each pump (HTTP threads read it). */
	pthread_mutex_t lock;
	struct ipfix_stats pub;
	struct flow_export_stats pub_fx;
};

void export_ipfix_opts_init(struct export_ipfix_opts *o)
{
	*o = (struct export_ipfix_opts){
	    .interval_s = EXPORT_IPFIX_INTERVAL_DEFAULT,
	    .pen = IPFIX_PEN_DEFAULT,
	    .mtu = IPFIX_MAX_MSG_DEFAULT,
	    .rate_bytes = IPFIX_RATE_BYTES_DEFAULT,
	};
}

/*
 * "HOST:PORT", "[IPv6]:PORT", or a host alone (port 4739): the syntax is
 * checked here, so that a typo is a usage error; a name is resolved when
 * the exporter opens.
 */
static int check_collector(const char *arg)
{
	const char *colon, *port = NULL;
	char host[INET6_ADDRSTRLEN + 1];
	struct in6_addr a6;
	__u16 p;

	if (arg[0] == '[') {
		const char *end = strchr(arg, ']');
		size_t len = end ? (size_t)(end - arg - 1) : 0;

		if (!end || (end[1] && end[1] != ':') || !len || len >= sizeof(host))
			goto bad;
		memcpy(host, arg + 1, len);
		host[len] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			fp_err("--ipfix: '%s' is not an IPv6 address", host);
			return -EINVAL;
		}
		if (end[1] == ':')
			port = end + 2;
	} else {
		colon = strchr(arg, ':');
		if (colon && strchr(colon + 1, ':')) {
			fp_err("--ipfix: '%s': an IPv6 collector goes in brackets, e.g. [::1]:4739",
			       arg);
			return -EINVAL;
		}
		if (!arg[0] || colon == arg)
			goto bad;
		if (colon)
			port = colon + 1;
	}
	if (port && opt_parse_port("--ipfix port", port, &p))
		return -EINVAL;
	return 0;
bad:
	fp_err("--ipfix: '%s' is not HOST:PORT or [IPv6]:PORT, e.g. 127.0.0.1:4739", arg);
	return -EINVAL;
}

int export_ipfix_parse(struct export_ipfix_opts *o, int base, int opt, const char *arg)
{
	if (opt < base || opt >= base + EXPORT_IPFIX_N_OPTS)
		return 0;
	if (opt != base)
		o->given = true;
	switch (opt - base) {
	case 0:
		if (check_collector(arg))
			return -EINVAL;
		o->collector = arg;
		/* A host alone goes to the IANA port: say which. */
		if (arg[0] == '[' ? strstr(arg, "]:") : strchr(arg, ':'))
			snprintf(o->shown, sizeof(o->shown), "%s", arg);
		else
			snprintf(o->shown, sizeof(o->shown), "%s:%u", arg, IPFIX_PORT_DEFAULT);
		return 1;
	case 1:
		o->tcp = true;
		return 1;
	case 2:
		return opt_parse_seconds("--ipfix-interval", arg, 0.1, 86400, &o->interval_s) ?: 1;
	case 3:
		return opt_parse_u32("--ipfix-pen", arg, 1, UINT32_MAX, &o->pen) ?: 1;
	case 4:
		return opt_parse_u32("--ipfix-domain", arg, 0, UINT32_MAX, &o->domain_id) ?: 1;
	case 5:
		return opt_parse_u32("--ipfix-mtu", arg, IPFIX_MAX_MSG_MIN, IPFIX_MAX_MSG_MAX,
				     &o->mtu)
			   ?: 1;
	default:
		return opt_parse_bytes("--ipfix-rate", arg, 0, UINT32_MAX, &o->rate_bytes) ?: 1;
	}
}

int export_ipfix_check(const struct export_ipfix_opts *o)
{
	if (o->given && !o->collector) {
		fp_err("export: the --ipfix-* options need --ipfix HOST:PORT");
		return -EINVAL;
	}
	return 0;
}

int export_ipfix_open(struct export_ipfix **out, const struct export_ipfix_opts *o)
{
	struct export_ipfix *xi = calloc(1, sizeof(*xi));
	struct ipfix_config cfg;
	__u64 timeout_ns = (__u64)(o->interval_s * 1e9);
	int err;

	*out = NULL;
	if (!xi) {
		fp_err("export: out of memory");
		return -ENOMEM;
	}
	ipfix_config_init(&cfg);
	cfg.transport = o->tcp ? IPFIX_TCP : IPFIX_UDP;
	cfg.collector = o->collector;
	cfg.pen = o->pen;
	cfg.domain_id = o->domain_id;
	cfg.max_msg_bytes = o->mtu;
	cfg.rate_bytes_per_s = o->rate_bytes;
	/* A burst of what 20 ms of a rate above the default carry: pumps come every 10 ms. */
	if (o->rate_bytes / 50 > cfg.burst_bytes)
		cfg.burst_bytes = o->rate_bytes / 50;
	err = ipfix_open(&xi->x, &cfg);
	if (err) {
		free(xi);
		return err;
	}
	xi->o = *o;
	/* The idle timeout is the interval too: a flow silent that long has ended. */
	flow_export_init(&xi->fx, timeout_ns, timeout_ns, 0);
	pthread_mutex_init(&xi->lock, NULL);
	ipfix_get_stats(xi->x, &xi->pub);
	*out = xi;
	return 0;
}

void export_ipfix_observe(struct export_ipfix *xi, const struct session *ss)
{
	xi->desc = &ss->desc;
	xi->ss = ss;
	xi->clock_offset_ns = ss->snap.clock_offset_ns;
	/* Out of memory skips this snapshot; the next one carries its counts. */
	if (flow_export_observe(&xi->fx, &ss->snap))
		fp_err("export: ipfix: out of memory; the next refresh catches up");
}

void export_ipfix_end(struct export_ipfix *xi)
{
	flow_export_force(&xi->fx);
}

static __u64 unix_ms(const struct export_ipfix *xi, __u64 ns)
{
	return (__u64)((__s64)ns + xi->clock_offset_ns) / 1000000;
}

/*
 * Where a flow's packets came from decides its template: every packet
 * (today's sources), one in N (an sFlow-fed flow: IPFIX_FLOW_SAMPLED with
 * sampling_rate and samples; its retransmits and PSN gaps are then not
 * sent, being unknown), or a mirror session (IPFIX_FLOW_MIRROR with
 * mirror_session). The sFlow and ERSPAN sources attach these to the flow;
 * this is where they become the record's.
 */
static void flow_origin(const struct export_ipfix *xi, struct ipfix_flow *f,
			const struct flow_export_record *r)
{
	const struct flow_key *k = r->key;
	const struct analysis *a = xi->ss ? &xi->ss->an : NULL;
	int i = a ? analysis_find(a, k) : -1;
	const struct flow_view *v = i >= 0 ? &a->flows[i] : NULL;

	/* ERSPAN I and GRE without a key carry no session: unknown is absent, not 0. */
	if (mirror_has_session(k)) {
		f->flags |= IPFIX_FLOW_MIRROR;
		f->mirror_session = mirror_session_id(k);
	}
	/* The analysis' path: an uplink, a mirror session, an sFlow port. */
	if (v && v->path >= 0)
		f->path = a->paths[v->path].name;
	/*
	 * The samples behind this record and its own mean rate, not the
	 * flow's: the rate may have changed since its first sample, and a
	 * flow that left the table is in no analysis.
	 */
	if (xi->desc && !xi->desc->every_packet) {
		const struct obs_point *pt = source_point(xi->desc, k->ifindex);

		f->flags |= IPFIX_FLOW_SAMPLED;
		flow_export_sampling(r, &f->sampling_rate, &f->samples);
		/*
		 * A sample's point is the switch's output port (its key is
		 * egress, so flowDirection says so): the record names it by
		 * the switch's ifIndex, as the switch's own flow records
		 * would, never by fabprobe's point id.
		 */
		f->ingress_ifindex = 0;
		f->egress_ifindex = pt ? pt->port_ifindex : 0;
	}
}

static int emit_record(void *ctx, const struct flow_export_record *r)
{
	struct export_ipfix *xi = ctx;
	const struct flow_key *k = r->key;
	const struct flow_counters *c = r->last;
	const struct obs_point *pt = xi->desc ? source_point(xi->desc, k->ifindex) : NULL;
	struct ipfix_flow f = {
	    .flags = k->flags & FP_FLOW_IPV6 ? IPFIX_FLOW_IPV6 : 0,
	    .sport = k->sport,
	    .dport = k->dport,
	    .protocol = IPPROTO_UDP,
	    /* Its class: a flow's CNPs in a class of their own are a record apart. */
	    .tos = r->dscp << 2,
	    .direction = k->dir == FP_DIR_EGRESS,
	    .end_reason = r->reason,
	    .opcode_classes = ipfix_opcode_classes(c->opcodes),
	    .dest_qp = k->dest_qp,
	    .octets = r->delta.v[FX_BYTES],
	    .packets = r->delta.v[FX_PACKETS],
	    .start_ms = unix_ms(xi, r->start_ns),
	    .end_ms = unix_ms(xi, r->end_ns),
	    .not_ect = r->delta.v[FX_NOT_ECT],
	    .ect0 = r->delta.v[FX_ECT0],
	    .ect1 = r->delta.v[FX_ECT1],
	    .ce = r->delta.v[FX_CE],
	    .cnp = r->delta.v[FX_CNP],
	    .acks = r->delta.v[FX_ACKS],
	    .naks = r->delta.v[FX_NAKS],
	    .rnr_naks = r->delta.v[FX_RNR_NAKS],
	    .retransmits = r->delta.v[FX_RETRANSMITS],
	    .psn_gaps = r->delta.v[FX_PSN_GAPS],
	    /* The session's path for the flow: the uplink (point) that saw it. */
	    .path = pt && pt->uplink ? pt->name : NULL,
	};

	/* No room now: the flow keeps its counts for a later call, nothing is refused. */
	if (!ipfix_room(xi->x))
		return -ENOBUFS;
	memcpy(f.src, k->src, sizeof(f.src));
	memcpy(f.dst, k->dst, sizeof(f.dst));
	if (k->dir == FP_DIR_EGRESS)
		f.egress_ifindex = k->ifindex;
	else
		f.ingress_ifindex = k->ifindex;
	if (k->flags & FP_FLOW_VXLAN) {
		f.flags |= IPFIX_FLOW_VXLAN;
		f.vni = k->vni;
	}
	flow_origin(xi, &f, r);
	return ipfix_add(xi->x, &f);
}

static void publish(struct export_ipfix *xi)
{
	struct ipfix_stats st;
	struct flow_export_stats fst;

	ipfix_get_stats(xi->x, &st);
	flow_export_get_stats(&xi->fx, &fst);
	pthread_mutex_lock(&xi->lock);
	xi->pub = st;
	xi->pub_fx = fst;
	pthread_mutex_unlock(&xi->lock);
}

void export_ipfix_pump(struct export_ipfix *xi)
{
	if (!xi)
		return;
	flow_export_emit(&xi->fx, emit_record, xi);
	ipfix_tick(xi->x, ipfix_now_ms());
	publish(xi);
}

void export_ipfix_drain(struct export_ipfix *xi)
{
	__u64 gone = ~0ULL, moved_ms = ipfix_now_ms();

	for (;;) {
		struct ipfix_stats st;
		__u64 now, out;

		export_ipfix_pump(xi);
		ipfix_get_stats(xi->x, &st);
		if (fp_stopping || (!flow_export_due(&xi->fx) && !st.queue_records))
			return;
		now = ipfix_now_ms();
		out = st.records_sent + st.records_lost + st.records_dropped;
		if (out != gone) {
			gone = out;
			moved_ms = now;
		} else if (now - moved_ms >= EXPORT_IPFIX_CLOSE_MS) {
			return; /* a TCP collector away: export_ipfix_close() counts the rest */
		}
		fp_sleep(EXPORT_IPFIX_SLICE_S);
	}
}

__u64 export_ipfix_close(struct export_ipfix *xi, int timeout_ms)
{
	__u64 deadline = ipfix_now_ms() + timeout_ms, now, undelivered;
	struct flow_export_stats fst;
	struct ipfix_stats st;

	if (!xi)
		return 0;
	/* Due records first, as the queue drains; then the exporter flushes its queue. */
	for (now = ipfix_now_ms(); flow_export_due(&xi->fx) && now < deadline;
	     now = ipfix_now_ms()) {
		export_ipfix_pump(xi);
		if (flow_export_due(&xi->fx))
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	flow_export_get_stats(&xi->fx, &fst);
	ipfix_close(xi->x, deadline > now ? deadline - now : 0, &st);
	undelivered = st.records_dropped + fst.dropped + fst.due + st.records_lost;
	/* A run that never got to its first refresh (it failed to start) has nothing to say. */
	if (xi->desc) {
		fprintf(
		    stderr,
		    "fabprobe: ipfix: %llu records in %llu messages to %s, %llu dropped, %llu lost "
		    "to %llu send errors",
		    (unsigned long long)st.records_sent, (unsigned long long)st.messages_sent,
		    xi->o.shown, (unsigned long long)(st.records_dropped + fst.dropped + fst.due),
		    (unsigned long long)st.records_lost, (unsigned long long)st.send_errors);
		/* Sent is not delivered: those an ICMP error came back for are lost too. */
		if (st.records_refused)
			fprintf(stderr,
				" (%llu of them sent, then refused: nothing listened there)",
				(unsigned long long)st.records_refused);
		fputc('\n', stderr);
	}
	flow_export_free(&xi->fx);
	pthread_mutex_destroy(&xi->lock);
	free(xi);
	return undelivered;
}

void export_ipfix_render(FILE *out, enum metrics_format fmt, void *ctx)
{
	struct export_ipfix *xi = ctx;
	struct flow_export_stats fst;
	struct ipfix_stats st;

	pthread_mutex_lock(&xi->lock);
	st = xi->pub;
	fst = xi->pub_fx;
	pthread_mutex_unlock(&xi->lock);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_messages",
			       "IPFIX messages the transport took (templates included)",
			       st.messages_sent);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_bytes", "Bytes of those IPFIX messages",
			       st.bytes_sent);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_records",
			       "IPFIX flow records in messages the transport took (over UDP, "
			       "those refused after are lost too)",
			       st.records_sent);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_send_errors",
			       "IPFIX sends, connects and TCP sessions that failed, and UDP "
			       "datagrams refused after they were sent (an ICMP error came back)",
			       st.send_errors);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_records_lost",
			       "IPFIX flow records not delivered: in messages that failed to send, "
			       "or sent over UDP and refused (nothing listens there)",
			       st.records_lost);
	metrics_render_counter(out, fmt, "fabprobe_ipfix_records_dropped",
			       "IPFIX flow records given up before sending: refused by a full "
			       "queue, or too many flows waiting for room",
			       st.records_dropped + fst.dropped);
	metrics_render_gauge(out, "fabprobe_ipfix_queue_records",
			     "IPFIX flow records encoded and waiting to be sent", st.queue_records);
	metrics_render_gauge(out, "fabprobe_ipfix_queue_bytes",
			     "Bytes of the IPFIX records waiting to be sent", st.queue_bytes);
	metrics_render_gauge(out, "fabprobe_ipfix_records_waiting",
			     "Flow records due and waiting for room in the IPFIX queue", fst.due);
	metrics_render_gauge(out, "fabprobe_ipfix_flows",
			     "Flows with an IPFIX baseline (their counts since the last record)",
			     fst.flows);
	metrics_render_gauge(out, "fabprobe_ipfix_connected",
			     "1 while the IPFIX transport is up (UDP: always; TCP: a session)",
			     st.connected);
}
