// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - render a snapshot and its analysis as Prometheus text
 * (exposition format 0.0.4) or OpenMetrics 1.0 text. Every family and its
 * labels are documented in docs/metrics.md; keep the two in step.
 *
 * Label cardinality is bounded by construction: interfaces (at most 64,
 * two directions), DSCP (64), VNI (METRICS_MAX_VNIS, then "other"), alert
 * type x severity, and per-flow series only for the top-K flows by rate.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/counters.h"
#include "render/metrics.h"
#include "render/metrics_write.h"
#include "util/format.h"

const char *const metrics_dir_names[2] = {"ingress", "egress"};

/* ---- accumulators ---- */

static void delta_add(struct flow_delta *to, const struct flow_delta *d)
{
	for (int i = 0; i < FC_MAX; i++)
		to->v[i] += d->v[i];
}

/*
 * The analysis counts a flow evicted and back since the last refresh from
 * zero when it has fewer packets than before; should any other counter of
 * it be below its old value, the difference would wrap. No delta can be
 * more than the flow's whole count: clamp to that.
 */
static void delta_clamp(struct flow_delta *d, const struct flow_counters *c)
{
	for (int i = 0; i < FC_MAX; i++) {
		__u64 whole = flow_counter(c, i);

		if (d->v[i] > whole)
			d->v[i] = whole;
	}
}

static struct metrics_iface_acc *iface_acc(struct metrics_acc *acc, __u32 ifindex)
{
	for (int i = 0; i < acc->n_ifaces; i++)
		if (acc->ifaces[i].ifindex == ifindex)
			return &acc->ifaces[i];
	if (acc->n_ifaces >= METRICS_MAX_IFACES) {
		acc->have_iface_other = true;
		return &acc->iface_other;
	}
	acc->ifaces[acc->n_ifaces].ifindex = ifindex;
	return &acc->ifaces[acc->n_ifaces++];
}

void metrics_acc_moved(struct metrics_acc *acc, __u32 from, __u32 to)
{
	struct metrics_iface_acc *old = NULL, *now = NULL;

	if (from == to)
		return;
	for (int i = 0; i < acc->n_ifaces; i++) {
		if (acc->ifaces[i].ifindex == from)
			old = &acc->ifaces[i];
		else if (acc->ifaces[i].ifindex == to)
			now = &acc->ifaces[i];
	}
	if (!old)
		return;
	if (!now) {
		old->ifindex = to;
		return;
	}
	for (int d = 0; d < 2; d++)
		delta_add(&now->dir[d], &old->dir[d]);
	*old = acc->ifaces[--acc->n_ifaces];
}

static struct flow_delta *vni_acc(struct metrics_acc *acc, __u32 vni)
{
	for (int i = 0; i < acc->n_vnis; i++)
		if (acc->vnis[i].vni == vni)
			return &acc->vnis[i].c;
	if (acc->n_vnis >= METRICS_MAX_VNIS) {
		acc->have_vni_other = true;
		return &acc->vni_other;
	}
	acc->vnis[acc->n_vnis].vni = vni;
	return &acc->vnis[acc->n_vnis++].c;
}

void metrics_accumulate(struct metrics_acc *acc, const struct snapshot *s, const struct analysis *a)
{
	struct metrics_iface_acc *last = NULL;

	if (a->n_flows != s->n_flows)
		return;
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];
		const struct flow_key *k = &v->r->key;
		struct flow_delta d = v->d, part[2];
		__u8 dscp[2];
		int n;

		delta_clamp(&d, &v->r->c);
		if (!d.packets && !d.bytes)
			continue;
		/* Flows come in bursts per interface: try the last one first. */
		if (!last || last == &acc->iface_other || last->ifindex != k->ifindex)
			last = iface_acc(acc, k->ifindex);
		delta_add(&last->dir[k->dir & 1], &d);
		/* The reverse direction of a QP carries ACKs and CNPs, each in its class. */
		n = flow_delta_by_class(v->r, &d, dscp, part);
		for (int j = 0; j < n; j++) {
			delta_add(&acc->dscp[dscp[j]], &part[j]);
			acc->dscp_seen |= 1ULL << dscp[j];
		}
		if (k->flags & FP_FLOW_VXLAN)
			delta_add(vni_acc(acc, k->vni), &d);
	}
}

/* ---- content negotiation ---- */

static double media_q(const char *params)
{
	const char *q = strstr(params, ";q=");

	if (!q)
		q = strstr(params, "; q=");
	if (!q)
		return 1;
	return strtod(strchr(q, '=') + 1, NULL);
}

bool metrics_wants_openmetrics(const char *accept)
{
	double om_q = 0, text_q = 0;
	const char *p = accept;

	if (!accept)
		return false;
	while (*p) {
		size_t len = strcspn(p, ",");
		char range[256];
		size_t tlen;
		double q;

		if (len < sizeof(range)) {
			memcpy(range, p, len);
			range[len] = '\0';
			while (range[0] == ' ')
				memmove(range, range + 1, strlen(range));
			tlen = strcspn(range, "; ");
			q = media_q(range + tlen);
			if (tlen == 28 &&
			    !strncasecmp(range, "application/openmetrics-text", tlen)) {
				if (q > om_q)
					om_q = q;
			} else if ((tlen == 10 && !strncasecmp(range, "text/plain", tlen)) ||
				   (tlen == 3 && !strncmp(range, "*/*", 3))) {
				if (q > text_q)
					text_q = q;
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return om_q > 0 && om_q >= text_q;
}

/* ---- families ---- */

static void render_self(struct mw *w, const struct metrics_view *v)
{
	const struct metrics_self *s = v->self;
	struct label ver = {"version", s->version ? s->version : "unknown"};

	mw_family(w, "fabprobe_build", MT_INFO, "fabprobe's version");
	mw_sample_u64(w, &ver, 1, 1);
	mw_family(w, "fabprobe_start_time_seconds", MT_GAUGE,
		  "UNIX time the probe was attached, in seconds");
	mw_sample_double(w, NULL, 0, s->start_time_s);
	mw_family(w, "fabprobe_last_refresh_timestamp_seconds", MT_GAUGE,
		  "UNIX time of the last successful refresh of the maps, 0 before the first");
	mw_sample_double(w, NULL, 0, s->last_refresh_time_s);
	mw_family(w, "fabprobe_refresh_interval_seconds", MT_GAUGE,
		  "How often the probe's maps are read (--interval, or --ipfix-interval when "
		  "shorter)");
	mw_sample_double(w, NULL, 0, s->interval_s);
	mw_family(w, "fabprobe_input_ended", MT_GAUGE,
		  "1 once a recording has been read to its end: its final picture is served "
		  "and refreshed no more");
	mw_sample_u64(w, NULL, 0, s->input_ended);
	mw_family(w, "fabprobe_refresh_duration_seconds", MT_GAUGE,
		  "Time the last refresh took to read the maps and analyse them");
	mw_sample_double(w, NULL, 0, s->refresh_duration_s);
	mw_family(w, "fabprobe_render_duration_seconds", MT_GAUGE,
		  "Time the previous rendering of this metrics text took");
	mw_sample_double(w, NULL, 0, s->render_duration_s);
	mw_family(w, "fabprobe_refreshes", MT_COUNTER, "Successful refreshes of the maps");
	mw_sample_u64(w, NULL, 0, s->refreshes);
	/* fabprobe_refresh_errors_total is the server's, in every scrape (export_http.c). */
}

static void render_totals(struct mw *w, const struct metrics_view *v)
{
	char name[128];

	for (size_t i = 0; i < n_total_defs; i++) {
		const struct total_def *d = &total_defs[i];

		if (!d->metric)
			continue;
		snprintf(name, sizeof(name), "fabprobe_%s", d->metric);
		mw_family(w, name, d->kind == CK_COUNTER ? MT_COUNTER : MT_GAUGE, d->help);
		mw_sample_u64(w, NULL, 0, v->snap->totals[d->id]);
	}
}

static const struct metrics_iface_acc *find_iface_acc(const struct metrics_acc *acc, __u32 ifindex)
{
	for (int i = 0; i < acc->n_ifaces; i++)
		if (acc->ifaces[i].ifindex == ifindex)
			return &acc->ifaces[i];
	return NULL;
}

/*
 * Whether the source knows flow counter f of its flows: not the ones that
 * need every packet (FF_EVERY_PACKET) when it sees one in N. In
 * Prometheus a series left out is the way to say unknown (0 would read
 * as none); the family stays, its HELP and TYPE say what it would hold.
 */
bool metrics_known(const struct metrics_view *v, int f)
{
	return v->src->every_packet || !(flow_defs[f].flags & FF_EVERY_PACKET);
}

/*
 * The interfaces the series name: the source's points, then those only the
 * accumulators know (an unnamed capture's "capture"): ids[], *n of them.
 */
/*
 * The interfaces every interface family names, at most METRICS_MAX_IFACES:
 * those the accumulators count (the first METRICS_MAX_IFACES to carry
 * traffic; the rest count in "other"), and while there is room the named
 * ones without traffic yet, so that rate() has a series from the start.
 * Named ones in their order, then the others.
 */
static void interface_ids(const struct metrics_view *v, __u32 ids[METRICS_MAX_IFACES], int *n)
{
	const struct source_desc *src = v->src;
	const struct metrics_acc *acc = v->acc;
	int room = METRICS_MAX_IFACES - acc->n_ifaces; /* for quiet ones */

	*n = 0;
	for (int i = 0; i < src->n_points && *n < METRICS_MAX_IFACES; i++) {
		bool counted = find_iface_acc(acc, src->points[i].id);

		if (counted || room > 0)
			ids[(*n)++] = src->points[i].id;
		room -= !counted;
	}
	for (int i = 0; i < acc->n_ifaces && *n < METRICS_MAX_IFACES; i++)
		if (!source_point(src, acc->ifaces[i].ifindex))
			ids[(*n)++] = acc->ifaces[i].ifindex;
}

static void render_interfaces(struct mw *w, const struct metrics_view *v)
{
	const struct source_desc *src = v->src;
	const struct metrics_acc *acc = v->acc;
	__u64 flows[METRICS_MAX_IFACES][2] = {};
	static const struct flow_delta zero;
	__u32 ids[METRICS_MAX_IFACES];
	char name[128], buf[32];
	struct label l[2];
	int n;

	interface_ids(v, ids, &n);
	mw_family(w, "fabprobe_interface_uplink", MT_GAUGE,
		  "1 for each interface of the ECMP group (--uplinks), 0 for the others");
	for (int i = 0; i < n; i++) {
		const struct obs_point *pt = source_point(src, ids[i]);

		l[0] =
		    (struct label){"interface", source_point_name(src, ids[i], buf, sizeof(buf))};
		mw_sample_u64(w, l, 1, pt && pt->uplink);
	}

	for (size_t i = 0; i < v->snap->n_flows; i++) {
		const struct flow_key *k = &v->snap->flows[i].key;

		for (int j = 0; j < n; j++)
			if (ids[j] == k->ifindex)
				flows[j][k->dir & 1]++;
	}
	mw_family(w, "fabprobe_interface_flows", MT_GAUGE,
		  "Flows in the flow table now, per interface and direction");
	for (int i = 0; i < n; i++) {
		for (int d = 0; d < 2; d++) {
			l[0] = (struct label){"interface",
					      source_point_name(src, ids[i], buf, sizeof(buf))};
			l[1] = (struct label){"direction", metrics_dir_names[d]};
			mw_sample_u64(w, l, 2, flows[i][d]);
		}
	}

	/*
	 * The interfaces of interface_ids(), both directions, zero until
	 * traffic, so that rate() has a series from the start. What needs
	 * every packet (retransmits, PSN gaps) is unknown when the source
	 * samples (sFlow): no series says so, as JSON's null does. Past
	 * METRICS_MAX_IFACES (sFlow ports) an interface without an
	 * accumulator of its own counts in "other": a series of its own
	 * would be a 0 it did not count.
	 */
	for (int f = 0; f < FC_MAX; f++) {
		if (!(flow_defs[f].flags & FF_IFACE))
			continue;
		snprintf(name, sizeof(name), "fabprobe_interface_%s", flow_defs[f].metric);
		mw_family(w, name, MT_COUNTER, flow_defs[f].help);
		if (!metrics_known(v, f))
			continue;
		for (int i = 0; i < n; i++) {
			const struct metrics_iface_acc *a = find_iface_acc(acc, ids[i]);

			for (int d = 0; d < 2; d++) {
				l[0] = (struct label){
				    "interface", source_point_name(src, ids[i], buf, sizeof(buf))};
				l[1] = (struct label){"direction", metrics_dir_names[d]};
				mw_sample_u64(w, l, 2, (a ? &a->dir[d] : &zero)->v[f]);
			}
		}
		for (int d = 0; acc->have_iface_other && d < 2; d++) {
			l[0] = (struct label){"interface", "other"};
			l[1] = (struct label){"direction", metrics_dir_names[d]};
			mw_sample_u64(w, l, 2, acc->iface_other.dir[d].v[f]);
		}
	}
}

static void render_classes(struct mw *w, const struct metrics_view *v)
{
	const struct metrics_acc *acc = v->acc;
	char name[128], val[16];
	struct label l;

	for (int f = 0; f < FC_MAX; f++) {
		if (!(flow_defs[f].flags & FF_DSCP))
			continue;
		snprintf(name, sizeof(name), "fabprobe_dscp_%s", flow_defs[f].metric);
		mw_family(w, name, MT_COUNTER, flow_defs[f].help);
		for (int d = 0; d < 64; d++) {
			if (!(acc->dscp_seen & (1ULL << d)))
				continue;
			snprintf(val, sizeof(val), "%d", d);
			l = (struct label){"dscp", val};
			mw_sample_u64(w, &l, 1, acc->dscp[d].v[f]);
		}
	}
	for (int f = 0; f < FC_MAX; f++) {
		if (!(flow_defs[f].flags & FF_VNI))
			continue;
		snprintf(name, sizeof(name), "fabprobe_vni_%s", flow_defs[f].metric);
		mw_family(w, name, MT_COUNTER, flow_defs[f].help);
		if (!metrics_known(v, f))
			continue;
		for (int n = 0; n < acc->n_vnis; n++) {
			snprintf(val, sizeof(val), "%u", acc->vnis[n].vni);
			l = (struct label){"vni", val};
			mw_sample_u64(w, &l, 1, acc->vnis[n].c.v[f]);
		}
		if (acc->have_vni_other) {
			l = (struct label){"vni", "other"};
			mw_sample_u64(w, &l, 1, acc->vni_other.v[f]);
		}
	}
}

/*
 * sFlow: a switch port's own counters beside the estimates, one sample
 * per path (bounded like the paths), families only when some port has them.
 */
static void render_ports(struct mw *w, const struct analysis *a)
{
	static const struct {
		const char *name, *help;
	} fams[] = {
	    {"fabprobe_port_out_bytes_per_second",
	     "Port's transmit rate from its own octet counters"},
	    {"fabprobe_port_out_discards_per_second", "Port's transmit discards per second"},
	    {"fabprobe_port_out_errors_per_second", "Port's transmit errors per second"},
	    {"fabprobe_port_oper_up", "Port's operational status from its counters (1 up, 0 down)"},
	};
	struct label l[2];
	bool any = false;

	for (int i = 0; i < a->n_paths; i++)
		any |= a->paths[i].counters != NULL;
	for (size_t f = 0; any && f < sizeof(fams) / sizeof(fams[0]); f++) {
		mw_family(w, fams[f].name, MT_GAUGE, fams[f].help);
		for (int i = 0; i < a->n_paths; i++) {
			const struct port_counters *pc = a->paths[i].counters;
			double v[] = {pc ? pc->out_bps / 8 : 0, pc ? pc->out_discards_per_s : 0,
				      pc ? pc->out_errors_per_s : 0, pc ? (pc->status & 2) / 2 : 0};

			if (!pc || (f < 3 && !pc->have_rate))
				continue;
			l[0] = (struct label){"interface", a->paths[i].name};
			l[1] = (struct label){"group", a->paths[i].group >= 0
							   ? a->groups[a->paths[i].group].name
							   : ""};
			mw_sample_double(w, l, 2, v[f]);
		}
	}
}

static void render_paths(struct mw *w, const struct metrics_view *v)
{
	const struct analysis *a = v->an;
	struct label l[1];
	__u64 observed = 0, predicted = 0;

#define PATH_GAUGE(base, help, field, as_double)                                                   \
	do {                                                                                       \
		mw_family(w, base, MT_GAUGE, help);                                                \
		for (int i = 0; i < a->n_paths; i++) {                                             \
			l[0] = (struct label){"interface", a->paths[i].name};                      \
			if (as_double)                                                             \
				mw_sample_double(w, l, 1, (double)a->paths[i].field);              \
			else                                                                       \
				mw_sample_u64(w, l, 1, (__u64)a->paths[i].field);                  \
		}                                                                                  \
	} while (0)

	PATH_GAUGE("fabprobe_uplink_bytes_per_second",
		   "Rate of the RoCEv2 flows on the uplink over the last interval", bps / 8, true);
	PATH_GAUGE("fabprobe_uplink_speed_bytes_per_second",
		   "Link speed the kernel reports for the uplink, 0 when unknown", speed_bps / 8,
		   true);
	PATH_GAUGE("fabprobe_uplink_flows", "RoCEv2 flows on the uplink in the flow table", flows,
		   false);
	PATH_GAUGE("fabprobe_uplink_elephants", "Elephant flows on the uplink now", elephants,
		   false);
	PATH_GAUGE("fabprobe_uplink_flow_bytes",
		   "Bytes of the flows on the uplink now in the flow table (falls on eviction; "
		   "use fabprobe_interface_roce_bytes_total for rates)",
		   bytes, false);
	PATH_GAUGE("fabprobe_uplink_flow_packets",
		   "Packets of the flows on the uplink now in the flow table (falls on eviction)",
		   packets, false);
#undef PATH_GAUGE
	render_ports(w, a);

	mw_family(w, "fabprobe_uplink_imbalance_ratio", MT_GAUGE,
		  "Busiest uplink over the group's mean, by rate or by flow count (0: fewer than "
		  "two uplinks or no traffic)");
	l[0] = (struct label){"by", "rate"};
	mw_sample_double(w, l, 1, a->imbalance_bytes);
	l[0] = (struct label){"by", "flows"};
	mw_sample_double(w, l, 1, a->imbalance_flows);

	mw_family(w, "fabprobe_elephant_threshold_bytes_per_second", MT_GAUGE,
		  "Rate above which a flow is an elephant");
	mw_sample_double(w, NULL, 0, a->elephant_bps / 8);

	for (size_t i = 0; i < a->n_collisions; i++) {
		if (a->collisions[i].predicted)
			predicted++;
		else
			observed++;
	}
	mw_family(w, "fabprobe_elephant_collisions", MT_GAUGE,
		  "Uplinks with two or more elephants while another has room, seen now or "
		  "predicted by the hash model");
	l[0] = (struct label){"kind", "observed"};
	mw_sample_u64(w, l, 1, observed);
	l[0] = (struct label){"kind", "predicted"};
	mw_sample_u64(w, l, 1, predicted);
}

static void render_alerts(struct mw *w, const struct metrics_view *v)
{
	static const enum severity sevs[] = {SEV_INFO, SEV_WARNING, SEV_CRITICAL};
	__u64 count[ALERT_TYPE_MAX][3] = {};
	struct label l[2];

	for (size_t i = 0; i < v->an->n_alerts; i++) {
		const struct alert *al = &v->an->alerts[i];

		if (al->type < ALERT_TYPE_MAX && al->severity <= SEV_CRITICAL)
			count[al->type][al->severity]++;
	}
	/* Every type and severity, 0 when quiet: alert rules see a series either way. */
	mw_family(w, "fabprobe_alerts", MT_GAUGE, "Alerts raised by the last analysis");
	for (int t = 0; t < ALERT_TYPE_MAX; t++) {
		for (int s = 0; s < 3; s++) {
			l[0] = (struct label){"type", alert_type_name(t)};
			l[1] = (struct label){"severity", severity_name(sevs[s])};
			mw_sample_u64(w, l, 2, count[t][sevs[s]]);
		}
	}
}

void metrics_render(FILE *out, enum metrics_format fmt, const struct metrics_view *v, bool eof)
{
	struct mw w = {.out = out, .fmt = fmt};

	render_self(&w, v);
	render_totals(&w, v);
	render_interfaces(&w, v);
	render_classes(&w, v);
	render_paths(&w, v);
	render_alerts(&w, v);
	metrics_render_flows(&w, v);
	if (v->src->nic)
		metrics_render_nic(&w, v->src->nic);
	if (eof && fmt == METRICS_OPENMETRICS)
		fputs("# EOF\n", out);
}
