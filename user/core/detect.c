// SPDX-License-Identifier: GPL-2.0
/*
 * detect.c - each detector looks at the analysed flows and raises alerts
 * with a one-line explanation and the numbers behind it. Alerts of one
 * kind are grouped, naming up to AN_ALERT_FLOWS flows, so that a fabric
 * with a thousand bad flows still gives a readable list.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "core/alert_log.h"
#include "core/detect.h"
#include "core/roce_sport.h"
#include "util/format.h"
#include "probe/par.h"

/* RoCEv2 source ports live in 0xC000-0xFFFF (IBTA A17.5.1.2 recommends it). */
#define ROCE_SPORT_MIN 0xC000
#define ROCE_SPORT_MAX 0xFFFF

static struct alert *alert_new(struct analysis *a, enum alert_type type, enum severity sev,
			       int path)
{
	return alert_push(&a->alerts, &a->n_alerts, &a->cap_alerts, type, sev, path, "");
}

static void alert_flow(struct alert *al, const struct flow_key *k)
{
	if (al->n_flows < AN_ALERT_FLOWS)
		al->flows[al->n_flows++] = *k;
}

#define say alert_printf

/*
 * The window an alert's numbers cover: the interval since the previous
 * refresh, "the last 5.0 s", or for the first (a replay, a bundle's
 * findings) the whole run so far, "the whole 56s".
 */
static const char *window(const struct analysis *a)
{
	static __thread char buf[48];

	return analysis_window(a, false, buf, sizeof(buf));
}

/* The totals' window: a whole run's frames are not only its RoCE's. */
static const char *totals_window(const struct analysis *a)
{
	static __thread char buf[48];

	return analysis_window(a, true, buf, sizeof(buf));
}

static const char *flow_name(char *buf, size_t len, const struct flow_key *k)
{
	char src[FP_ENDPOINT_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = k->flags & FP_FLOW_IPV6;

	snprintf(buf, len, "%s>%s qp %u", fmt_endpoint(src, sizeof(src), k->src, v6, k->sport),
		 fmt_addr(dst, sizeof(dst), k->dst, v6), k->dest_qp);
	return buf;
}

/*
 * A queue pair's own name: in VXLAN its inner hosts and the source port
 * its NIC chose (the VNI beside), as the entropy groups count them.
 */
static const char *qp_name(char *buf, size_t len, const struct flow_key *k)
{
	char src[FP_ENDPOINT_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = roce_flow_v6(k);

	if (!roce_flow_vxlan(k))
		return flow_name(buf, len, k);
	snprintf(buf, len, "%s>%s vni %u qp %u",
		 fmt_endpoint(src, sizeof(src), roce_flow_src(k), v6, roce_flow_sport(k)),
		 fmt_addr(dst, sizeof(dst), roce_flow_dst(k), v6), k->vni, k->dest_qp);
	return buf;
}

__u16 hash_nearest_sport(const struct hash_config *c, const struct flow_key *k, __u32 want)
{
	struct flow_key probe = *k;

	for (int delta = 1; delta <= ROCE_SPORT_MAX - ROCE_SPORT_MIN; delta++) {
		for (int sign = 1; sign >= -1; sign -= 2) {
			int port = k->sport + sign * delta;

			if (port < ROCE_SPORT_MIN || port > ROCE_SPORT_MAX)
				continue;
			probe.sport = port;
			if (hash_path(c, &probe) == want)
				return port;
		}
	}
	return 0;
}

/* How a message names a path: a mirror session is no uplink of this host. */
static const char *path_kind(const struct path_view *p)
{
	return path_is_mirror_session(p) ? "mirror session" : "uplink";
}

/* "" for the one unnamed group, else " (group NAME)": messages name the group when there are names.
 */
static const char *group_label(char *buf, size_t len, const struct analysis *a, int g)
{
	if (g < 0 || !a->groups[g].name[0])
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " (group %s)", a->groups[g].name);
	return buf;
}

static int collision_alerts(struct analysis *a, const struct analysis_opts *o)
{
	char rate[32], idle_rate[32], name[96], grp[FP_NAME_LEN + 16];

	for (size_t i = 0; i < a->n_collisions; i++) {
		const struct collision *c = &a->collisions[i];
		const struct flow_view *first = &a->flows[c->flows[0]];
		struct alert *al;

		al = alert_new(
		    a, c->predicted ? ALERT_PREDICTED_COLLISION : ALERT_ELEPHANT_COLLISION,
		    c->predicted ? SEV_WARNING : SEV_CRITICAL, c->predicted ? -1 : c->path);
		if (!al)
			return -ENOMEM;
		for (int f = 0; f < c->n_flows; f++)
			alert_flow(al, &a->flows[c->flows[f]].r->key);
		if (!c->predicted) {
			const struct path_view *p = &a->paths[c->path],
					       *idle = &a->paths[c->idle_path];

			snprintf(al->subject, sizeof(al->subject), "%s", p->name);
			al->mirror_sessions =
			    path_is_mirror_session(p) || path_is_mirror_session(idle);
			/*
			 * Mirror sessions are one group by design, not because
			 * they are one ECMP group: say only what is known.
			 */
			if (al->mirror_sessions)
				say(al->message,
				    "%d elephant flows share %s %s%s while %s %s has room: the "
				    "mirrored ports' loads differ (if they are one ECMP group's "
				    "members, ECMP put them on one path)",
				    c->count, path_kind(p), p->name,
				    group_label(grp, sizeof(grp), a, p->group), path_kind(idle),
				    idle->name);
			else
				say(al->message,
				    "%d elephant flows share uplink %s%s while %s has room: ECMP "
				    "put them on one path",
				    c->count, p->name, group_label(grp, sizeof(grp), a, p->group),
				    idle->name);
			/* The message's count: QPs (a mirror session's copies count once). */
			say(al->evidence,
			    "%s carries %s with %d elephants; %s carries %s (over %s)", p->name,
			    fmt_si(rate, sizeof(rate), p->bps, "b/s"), c->count, idle->name,
			    fmt_si(idle_rate, sizeof(idle_rate), idle->bps, "b/s"), window(a));
		} else {
			__u16 sport = hash_nearest_sport(&o->hash, &first->r->key, c->idle_path);
			bool vx = roce_flow_vxlan(&first->r->key);

			snprintf(al->subject, sizeof(al->subject), "next-tier path %d", c->path);
			flow_name(name, sizeof(name), &first->r->key);
			/*
			 * No port at all when the model hashes no source port; in
			 * VXLAN the port is the VTEP's, made from the inner headers.
			 */
			if (!sport)
				say(al->message,
				    "%s predicts %d elephants on next-tier path %d; no source port "
				    "moves %s to path %d (the model's fields leave the port out)",
				    hash_model_name(o->hash.model), c->count, c->path, name,
				    c->idle_path);
			else
				say(al->message,
				    "%s predicts %d elephants on next-tier path %d; %ssport %u "
				    "would "
				    "move %s to path %d%s",
				    hash_model_name(o->hash.model), c->count, c->path,
				    vx ? "outer " : "", sport, name, c->idle_path,
				    vx ? " (the VTEP makes it from the inner headers)" : "");
			/* The seed the model really starts from (ecmp_hash.c). */
			if (o->hash.model == HASH_TOEPLITZ)
				say(al->evidence, "model %s over %u paths, its key (no seed)",
				    hash_model_name(o->hash.model), o->hash.n_paths);
			else
				say(al->evidence, "model %s over %u paths, seed 0x%x",
				    hash_model_name(o->hash.model), o->hash.n_paths,
				    o->hash.model != HASH_CRC16_CCITT ? o->hash.seed
								      : crc16_start(o->hash.seed));
		}
	}
	return 0;
}

/*
 * A grouped alert's flows, found in one pass over the flows: how many,
 * the largest AN_ALERT_FLOWS of them in byte order (the first's numbers
 * are the evidence), and their path while they share one. The alert is
 * made after the pass.
 */
struct group {
	int count;
	int path;		   /* the first flow's; -1 once another's differs */
	int flows[AN_ALERT_FLOWS]; /* indices into analysis.flows */
	int n_flows;
};

static void group_add(struct group *g, const struct analysis *a, size_t i)
{
	int path = a->flows[i].path;

	if (!g->count)
		g->path = path;
	else if (g->path != path)
		g->path = -1; /* flows on several paths */
	analysis_rank(a, g->flows, &g->n_flows, i);
	g->count++;
}

/* The alert of a group that found flows, naming them; NULL when out of memory. */
static struct alert *group_alert(struct analysis *a, const struct group *g, enum alert_type t,
				 enum severity sev)
{
	struct alert *al = alert_new(a, t, sev, g->path);

	for (int k = 0; al && k < g->n_flows; k++)
		alert_flow(al, &a->flows[g->flows[k]].r->key);
	return al;
}

/* The largest flow of a group that found flows. */
static const struct flow_view *group_first(const struct analysis *a, const struct group *g)
{
	return &a->flows[g->flows[0]];
}

static const struct flow_view *reverse_of(const struct analysis *a, const struct flow_view *v)
{
	return v->reverse >= 0 ? &a->flows[v->reverse] : NULL;
}

/* What the per-flow detectors look for, gathered in one pass over the flows. */
struct flow_findings {
	struct group not_ect, ce_no_cnp, cnp_no_ce; /* ECN and DCQCN */
	struct group rtx, rnr, gaps;		    /* loss */
	struct group wrong_class;
};

/* The flow carried operation low (FP_OP_*) of any transport. */
static bool has_op(const struct flow_counters *c, __u8 low)
{
	static const __u8 transports[] = {FP_TRANSPORT_RC, FP_TRANSPORT_UC, FP_TRANSPORT_RD,
					  FP_TRANSPORT_UD, FP_TRANSPORT_XRC};

	for (size_t i = 0; i < sizeof(transports); i++) {
		__u8 op = transports[i] | low;

		if (c->opcodes[op >> 6] & 1ULL << (op & 63))
			return true;
	}
	return false;
}

/*
 * The DSCPs a flow is judged by: over the whole run every one it used;
 * over an interval its last packet's (the map keeps no mask per interval),
 * so that a class put right clears the alert. Data and its responses ride
 * in the lossless class, CNPs in their own: the map keeps the DSCPs of
 * each apart. *seen: the first DSCP outside the plan (64 + it for a
 * CNP's), or -1 - the PCP.
 */
bool detect_wrong_class(const struct flow_record *r, const struct analysis_opts *o, bool is_data,
			bool whole, int *seen)
{
	const struct flow_counters *c = &r->c;
	/* ACKs, NAKs and atomic ACKs answer data: they ride with it. */
	bool responses = c->acks || c->naks || c->rnr_naks || has_op(c, FP_OP_ATOMIC_ACK);
	bool lossless = is_data || responses, last_cnp = c->last_opcode == FP_OPCODE_CNP;
	__u64 used = whole ? c->dscp_mask : last_cnp ? 0 : 1ULL << (c->dscp & 63);
	__u64 cnp_used = whole ? r->cnp_dscp_mask : last_cnp ? 1ULL << (c->dscp & 63) : 0;

	if (lossless && (used & ~(1ULL << o->data_dscp))) {
		*seen = __builtin_ctzll(used & ~(1ULL << o->data_dscp)); /* the lowest outside */
		return true;
	}
	if (cnp_used & ~(1ULL << o->cnp_dscp)) {
		*seen = 64 + __builtin_ctzll(cnp_used & ~(1ULL << o->cnp_dscp));
		return true;
	}
	/*
	 * The last packet's PCP (the map keeps no set of them), against the
	 * plan for its kind, when given: a CNP's --cnp-pcp, data's and its
	 * responses' --data-pcp.
	 */
	if (c->vlan_tagged && (last_cnp ? o->cnp_pcp >= 0 && c->pcp != o->cnp_pcp
					: lossless && o->data_pcp >= 0 && c->pcp != o->data_pcp)) {
		*seen = -1 - c->pcp;
		return true;
	}
	return false;
}

/*
 * Not-ECT packets that were data: a flow that carries data may carry the
 * other direction's CNPs (Not-ECT by design) and responses (often
 * Not-ECT) too, and the map counts ECN per flow, not per kind. So the
 * Not-ECT beyond every CNP and response: the data the flow surely sent so.
 */
static __u64 data_not_ect(const struct flow_view *v)
{
	__u64 other = v->d.cnp + v->d.acks + v->d.naks + v->d.rnr_naks;

	return v->d.not_ect > other ? v->d.not_ect - other : 0;
}

/* RNR NAKs per second, over the interval and never less than a second: one is no storm. */
static double rnr_rate(const struct analysis *a, const struct flow_view *v)
{
	return v->d.rnr_naks / (a->interval_s > 1.0 ? a->interval_s : 1.0);
}

/* g's flows after into's: as if added to into in their order (groups of one loop's parts). */
static void group_join(struct group *into, const struct group *g, const struct analysis *a)
{
	if (!g->count)
		return;
	if (!into->count)
		into->path = g->path;
	else if (into->path != g->path)
		into->path = -1;
	/* The first flows of the whole are among the first of each part. */
	for (int k = 0; k < g->n_flows; k++)
		analysis_rank(a, into->flows, &into->n_flows, g->flows[k]);
	into->count += g->count;
}

struct scan_job {
	const struct analysis *a;
	const struct analysis_opts *o;
	struct flow_findings f[PAR_MAX];
};

static void scan_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct scan_job *j = ctx;
	const struct analysis *a = j->a;
	struct flow_findings *f = &j->f[part];

	for (size_t i = lo; i < hi; i++) {
		const struct flow_view *v = &a->flows[i];
		const struct flow_view *rev = reverse_of(a, v);

		/* Data sent Not-ECT: DCQCN cannot slow it. */
		if (v->is_data && data_not_ect(v))
			group_add(&f->not_ect, a, i);
		/*
		 * DCQCN: CE marks must come back as CNPs from the receiver. Only
		 * with the reverse direction in view can missing CNPs be told.
		 */
		if (v->is_data && rev && rev->d.packets) {
			if (v->d.ce && !rev->d.cnp)
				group_add(&f->ce_no_cnp, a, i);
			else if (!v->d.ce && rev->d.cnp)
				group_add(&f->cnp_no_ce, a, i);
		}
		if (v->d.rtx)
			group_add(&f->rtx, a, i);
		if (v->d.rnr_naks && rnr_rate(a, v) >= j->o->rnr_storm_per_s)
			group_add(&f->rnr, a, i);
		if (v->d.gaps)
			group_add(&f->gaps, a, i);
		if (v->off_plan)
			group_add(&f->wrong_class, a, i);
	}
}

/* Every flow's findings, in parts (probe/par.h) joined in order. */
static void scan_flows(const struct analysis *a, const struct analysis_opts *o,
		       struct flow_findings *f)
{
	struct scan_job j = {.a = a, .o = o};

	par_for(a->n_flows, ANALYSIS_PART_MIN, scan_part, &j);
	memset(f, 0, sizeof(*f));
	for (int part = 0; part < PAR_MAX; part++) {
		const struct flow_findings *p = &j.f[part];

		group_join(&f->not_ect, &p->not_ect, a);
		group_join(&f->ce_no_cnp, &p->ce_no_cnp, a);
		group_join(&f->cnp_no_ce, &p->cnp_no_ce, a);
		group_join(&f->rtx, &p->rtx, a);
		group_join(&f->rnr, &p->rnr, a);
		group_join(&f->gaps, &p->gaps, a);
		group_join(&f->wrong_class, &p->wrong_class, a);
	}
}

static int ecn_alerts(struct analysis *a, const struct flow_findings *f)
{
	char name[96], c1[48], c2[32];
	const struct flow_view *v;
	struct alert *al;

	if (f->not_ect.count) {
		al = group_alert(a, &f->not_ect, ALERT_NOT_ECT_ROCE, SEV_WARNING);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->not_ect);
		say(al->evidence, "%s: %llu data of %s Not-ECT in %s",
		    flow_name(name, sizeof(name), &v->r->key), (unsigned long long)data_not_ect(v),
		    fmt_count(c1, sizeof(c1), v->d.packets, "packet"), window(a));
		say(al->message,
		    "%s %s sent Not-ECT: switches cannot mark %s and DCQCN cannot slow %s down",
		    fmt_count(c1, sizeof(c1), f->not_ect.count, "RoCE data flow"),
		    f->not_ect.count == 1 ? "is" : "are", f->not_ect.count == 1 ? "it" : "them",
		    f->not_ect.count == 1 ? "it" : "them");
	}
	if (f->ce_no_cnp.count) {
		al = group_alert(a, &f->ce_no_cnp, ALERT_CE_WITHOUT_CNP, SEV_CRITICAL);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->ce_no_cnp);
		say(al->evidence, "%s: %llu CE of %s, 0 CNPs in %s back, in %s",
		    flow_name(name, sizeof(name), &v->r->key), (unsigned long long)v->d.ce,
		    fmt_count(c1, sizeof(c1), v->d.packets, "packet"),
		    fmt_count(c2, sizeof(c2), reverse_of(a, v)->d.packets, "packet"), window(a));
		say(al->message,
		    "%s %s CE marks but no CNP comes back: the receiver is not reacting "
		    "(check ECN/DCQCN on the NIC)",
		    fmt_count(c1, sizeof(c1), f->ce_no_cnp.count, "flow"),
		    f->ce_no_cnp.count == 1 ? "carries" : "carry");
	}
	if (f->cnp_no_ce.count) {
		al = group_alert(a, &f->cnp_no_ce, ALERT_CNP_WITHOUT_CE, SEV_INFO);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->cnp_no_ce);
		say(al->evidence, "%s: %s back, 0 CE in %s, in %s",
		    flow_name(name, sizeof(name), &v->r->key),
		    fmt_count(c1, sizeof(c1), reverse_of(a, v)->d.cnp, "CNP"),
		    fmt_count(c2, sizeof(c2), v->d.packets, "packet"), window(a));
		say(al->message,
		    "%s %s CNPs without CE marks seen here: marking happens past this point, or a "
		    "NIC sends CNPs on its own",
		    fmt_count(c1, sizeof(c1), f->cnp_no_ce.count, "flow"),
		    f->cnp_no_ce.count == 1 ? "receives" : "receive");
	}
	return 0;
}

static int loss_alerts(struct analysis *a, const struct flow_findings *f)
{
	char name[96], c1[48], c2[32];
	const struct flow_view *v;
	struct alert *al;

	if (f->rtx.count) {
		const struct flow_view *rev;

		al = group_alert(a, &f->rtx, ALERT_RETRANSMITS, SEV_WARNING);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->rtx);
		rev = reverse_of(a, v);
		/* A responder resends READ responses on a duplicate READ: no NAK then. */
		say(al->evidence, "%s: %s resent%s%s in %s (%.1f/s)",
		    flow_name(name, sizeof(name), &v->r->key),
		    fmt_count(c1, sizeof(c1), v->d.rtx, "packet"),
		    rev && rev->d.naks ? " after " : "",
		    rev && rev->d.naks ? fmt_count(c2, sizeof(c2), rev->d.naks, "NAK") : "",
		    window(a), analysis_per_s(a, v->d.rtx));
		say(al->message, "%s %s packets (go-back-N): loss on the path or in the receiver",
		    fmt_count(c1, sizeof(c1), f->rtx.count, "flow"),
		    f->rtx.count == 1 ? "resends" : "resend");
	}
	if (f->rnr.count) {
		al = group_alert(a, &f->rnr, ALERT_RNR_NAKS, SEV_WARNING);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->rnr);
		say(al->evidence, "%s: %s, %.0f/s over %s",
		    flow_name(name, sizeof(name), &v->r->key),
		    fmt_count(c1, sizeof(c1), v->d.rnr_naks, "RNR NAK"), rnr_rate(a, v), window(a));
		say(al->message,
		    "RNR NAK storm on %s: receivers are not posting receive buffers in time",
		    fmt_count(c1, sizeof(c1), f->rnr.count, "flow"));
	}
	if (f->gaps.count) {
		al = group_alert(a, &f->gaps, ALERT_PSN_GAPS, SEV_WARNING);
		if (!al)
			return -ENOMEM;
		v = group_first(a, &f->gaps);
		say(al->evidence, "%s: %s in %s", flow_name(name, sizeof(name), &v->r->key),
		    fmt_count(c1, sizeof(c1), v->d.gaps, "gap"), window(a));
		say(al->message, "%s %s PSN gaps: packets were lost before this point",
		    fmt_count(c1, sizeof(c1), f->gaps.count, "flow"),
		    f->gaps.count == 1 ? "shows" : "show");
	}
	return 0;
}

static int class_alerts(struct analysis *a, const struct analysis_opts *o,
			const struct flow_findings *f)
{
	const struct flow_view *v;
	struct alert *al;
	char name[96], c1[48];
	int seen = 0;

	if (!f->wrong_class.count)
		return 0;
	al = group_alert(a, &f->wrong_class, ALERT_WRONG_TRAFFIC_CLASS, SEV_CRITICAL);
	if (!al)
		return -ENOMEM;
	/* The evidence: what put the largest flow outside the plan. */
	v = group_first(a, &f->wrong_class);
	detect_wrong_class(v->r, o, v->is_data, a->whole_run, &seen);
	if (seen >= 64)
		say(al->evidence, "%s: CNPs in DSCP %d", flow_name(name, sizeof(name), &v->r->key),
		    seen - 64);
	else if (seen >= 0)
		say(al->evidence, "%s: DSCP %d", flow_name(name, sizeof(name), &v->r->key), seen);
	else
		say(al->evidence, "%s: %s PCP %d, expected %d",
		    flow_name(name, sizeof(name), &v->r->key),
		    v->r->c.last_opcode == FP_OPCODE_CNP ? "a CNP in" : "data in", -1 - seen,
		    v->r->c.last_opcode == FP_OPCODE_CNP ? o->cnp_pcp : o->data_pcp);
	say(al->message,
	    "%s outside the lossless plan (data DSCP %d, CNP DSCP %d): PFC and the CNP queue do "
	    "not protect %s",
	    fmt_count(c1, sizeof(c1), f->wrong_class.count, "RoCE flow"), o->data_dscp, o->cnp_dscp,
	    f->wrong_class.count == 1 ? "it" : "them");
	return 0;
}

/* Many queue pairs between two hosts on few source ports (the groups come from analysis.c). */
static int entropy_alerts(struct analysis *a)
{
	const struct entropy_group *first = NULL;
	struct group g = {};
	struct alert *al;
	char name[2 * FP_ENDPOINT_STRLEN + 48], ports[48], dests[48];

	for (size_t i = 0; i < a->n_entropy; i++) {
		const struct entropy_group *eg = &a->entropy[i];

		if (eg->qps < 2 || eg->sports >= eg->qps)
			continue;
		/* The evidence: the group of the largest flow. */
		if (!first || analysis_before(a, eg->flow, first->flow))
			first = eg;
		group_add(&g, a, eg->flow);
	}
	if (!first)
		return 0;
	al = group_alert(a, &g, ALERT_LOW_ENTROPY, SEV_WARNING);
	if (!al)
		return -ENOMEM;
	say(al->evidence, "%s: %d queue pairs over %s",
	    qp_name(name, sizeof(name), &a->flows[first->flow].r->key), first->qps,
	    fmt_count(ports, sizeof(ports), first->sports, "source port"));
	say(al->message,
	    "queue pairs share UDP source ports between %s: ECMP cannot spread them "
	    "(pinned RoCE source port?)",
	    fmt_count(dests, sizeof(dests), g.count, "host pair"));
	return 0;
}

/* How many of group g's paths are mirror sessions. */
static int group_sessions(const struct analysis *a, int g)
{
	int n = 0;

	for (int i = 0; i < a->n_paths; i++)
		n += a->paths[i].group == g && path_is_mirror_session(&a->paths[i]);
	return n;
}

/*
 * Each ECMP group of two paths or more is balanced on its own. The mirror
 * sessions are one group by design (paths.c): mirrored switch ports,
 * perhaps of several switches, whose loads may differ for reasons no hash
 * has, so their message says only what is known.
 */
static int imbalance_alerts(struct analysis *a, const struct analysis_opts *o)
{
	char rate[32], mean[32];

	for (int g = 0; g < a->n_groups; g++) {
		const struct path_group *pg = &a->groups[g];
		const struct path_view *busiest;
		struct alert *al;
		int sessions;

		if (pg->n_paths < 2 || pg->imbalance_bytes <= o->imbalance_ratio)
			continue;
		busiest = &a->paths[pg->busiest];
		al = alert_new(a, ALERT_PATH_IMBALANCE, SEV_WARNING, pg->busiest);
		if (!al)
			return -ENOMEM;
		snprintf(al->subject, sizeof(al->subject), "%s", busiest->name);
		sessions = group_sessions(a, g);
		al->mirror_sessions = sessions > 0;
		if (!sessions)
			say(al->message,
			    "uplink %s carries %.2fx the group's mean load: the ECMP group%s%s is "
			    "out of balance",
			    busiest->name, pg->imbalance_bytes, pg->name[0] ? " " : "", pg->name);
		else
			say(al->message,
			    "%s %s carries %.2fx the %s mean: the mirrored ports' loads differ (if "
			    "they are one ECMP group's members, its hashing is uneven)",
			    path_kind(busiest), busiest->name, pg->imbalance_bytes,
			    sessions == pg->n_paths ? "sessions'" : "uplinks' and sessions'");
		say(al->evidence, "%s at %s, %s mean %s over %s; flows max/mean %.2f",
		    busiest->name, fmt_si(rate, sizeof(rate), busiest->bps, "b/s"),
		    !sessions		      ? "group"
		    : sessions == pg->n_paths ? "sessions'"
					      : "paths'",
		    fmt_si(mean, sizeof(mean), busiest->bps / pg->imbalance_bytes, "b/s"),
		    window(a), pg->imbalance_flows);
	}
	return 0;
}

/*
 * Which table to raise: the IPv6 one (fp_flows6) when it is the fuller,
 * else the IPv4 one. LRU evicts in a table nearly full, so the fuller
 * table is the one evicting.
 */
static const char *flow_table_knob(const struct snapshot *s, size_t n6)
{
	__u32 cap4 = s->flow_capacity - s->flow_capacity6;
	size_t n4 = s->n_flows - n6;

	if (s->flow_capacity6 && (!cap4 || (double)n6 / s->flow_capacity6 > (double)n4 / cap4))
		return "--flows6, flows with an IPv6 address";
	return "--flows";
}

static int group_alerts(struct analysis *a, const struct snapshot *s, const struct analysis_opts *o)
{
	__u64 malformed = a->totals_delta[FP_CNT_MALFORMED];
	__u64 failed = a->totals_delta[FP_CNT_FLOW_INSERT_FAIL];
	/* Over the interval (the whole run when there is none), so that the alert clears. */
	__u64 evicted = a->totals_delta[SNAP_CNT_EVICTIONS];
	char frames[48], bad[48];
	struct alert *al;
	int err = imbalance_alerts(a, o);

	if (err)
		return err;
	if (malformed) {
		al = alert_new(a, ALERT_MALFORMED, SEV_WARNING, -1);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s on the RoCE/VXLAN ports: mirror headers sent cut short, a bad "
		    "encapsulation, or corruption",
		    fmt_count(bad, sizeof(bad), malformed, "malformed frame"));
		say(al->evidence, "%llu malformed of %s in %s", (unsigned long long)malformed,
		    fmt_count(frames, sizeof(frames), a->totals_delta[FP_CNT_FRAMES], "frame"),
		    totals_window(a));
	}
	if (failed || evicted) {
		size_t n6 = 0;

		al = alert_new(a, ALERT_FLOW_TABLE_PRESSURE, failed ? SEV_WARNING : SEV_INFO, -1);
		if (!al)
			return -ENOMEM;
		for (size_t i = 0; i < s->n_flows; i++)
			n6 += !!(s->flows[i].key.flags & FP_FLOW_ANY_IPV6);
		say(al->message, "a flow table is full: old flows are evicted (raise %s)",
		    flow_table_knob(s, n6));
		say(al->evidence,
		    "IPv4 table %zu of %u entries, IPv6 table %zu of %u, %llu evicted, %llu insert "
		    "failures in %s",
		    s->n_flows - n6, s->flow_capacity - s->flow_capacity6, n6, s->flow_capacity6,
		    (unsigned long long)evicted, (unsigned long long)failed, totals_window(a));
	}
	return 0;
}

/*
 * RoCE counted earlier in the run and none for this long (the source's
 * time): a job stalled, a path down, or the job over. Long enough that a
 * job's compute phase between collectives at a short -r is not one.
 */
#define ROCE_STOPPED_S 2.0

static int stopped_alert(struct analysis *a, const struct snapshot *s)
{
	double quiet = a->roce_quiet_s;
	char fl[48];
	struct alert *al;
	__u64 last;

	if (quiet < ROCE_STOPPED_S)
		return 0;
	last = a->last_seen_ns;
	/* Counted from the refresh that last saw RoCE; the last packet may be older. */
	if (last && s->taken_ns > last && (s->taken_ns - last) / 1e9 > quiet)
		quiet = (s->taken_ns - last) / 1e9;
	al = alert_new(a, ALERT_ROCE_STOPPED, SEV_WARNING, -1);
	if (!al)
		return -ENOMEM;
	if (a->whole_run)
		say(al->message,
		    "RoCE traffic stopped %.1f s before the end and did not resume (a stalled job, "
		    "a path down, or the job ended)",
		    quiet);
	else
		say(al->message,
		    "RoCE traffic stopped: no RoCE packet for %.1f s after traffic was seen (a "
		    "stalled job, a path down, or the job ended)",
		    quiet);
	say(al->evidence, "0 RoCE packets in the last %.1f s, %s in the table", quiet,
	    fmt_count(fl, sizeof(fl), s->n_flows, "flow"));
	return 0;
}

static int cmp_severity(const void *pa, const void *pb)
{
	return alert_cmp(pa, pb);
}

int detect_all(struct analysis *a, const struct snapshot *s, const struct analysis_opts *o)
{
	struct flow_findings f;
	int err = collision_alerts(a, o);

	scan_flows(a, o, &f);
	if (!err)
		err = ecn_alerts(a, &f);
	if (!err)
		err = loss_alerts(a, &f);
	if (!err)
		err = class_alerts(a, o, &f);
	if (!err)
		err = entropy_alerts(a);
	if (!err)
		err = group_alerts(a, s, o);
	if (!err)
		err = stopped_alert(a, s);
	/* Worst first. */
	if (!err && a->n_alerts > 1)
		qsort(a->alerts, a->n_alerts, sizeof(*a->alerts), cmp_severity);
	return err;
}
