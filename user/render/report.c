// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "core/counters.h"
#include "core/roce_sport.h"
#include "core/series.h"
#include "render/report.h"
#include "render/report_mirror.h"
#include "render/report_nic.h"
#include "util/format.h"
#include "util/json.h"

#define REPORT_VERSION 1

struct report report_of(const struct session *ss)
{
	return (struct report){.snap = &ss->snap,
			       .an = &ss->an,
			       .src = &ss->desc,
			       .nic = ss->nic ? &ss->nic->now : NULL};
}

static void json_ecn(struct json *j, const char *key, const __u64 ecn[4])
{
	/* Codepoints (RFC 3168 section 5): 00 Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE. */
	json_key(j, key);
	json_obj_begin(j);
	json_kv_u64(j, "not_ect", ecn[0]);
	json_kv_u64(j, "ect0", ecn[2]);
	json_kv_u64(j, "ect1", ecn[1]);
	json_kv_u64(j, "ce", ecn[3]);
	json_obj_end(j);
}

static void json_addr(struct json *j, const char *key, const __u8 addr[16], bool v6)
{
	char buf[FP_ADDR_STRLEN];

	json_kv_str(j, key, fmt_addr(buf, sizeof(buf), addr, v6));
}

/* The VXLAN VNI, or null for bare RoCEv2. */
static void json_vni(struct json *j, const struct flow_key *k)
{
	json_key(j, "vni");
	if (k->flags & FP_FLOW_VXLAN)
		json_u64(j, k->vni);
	else
		json_null(j);
}

static void json_time(struct json *j, const char *key, __u64 ns, __s64 offset_ns)
{
	json_kv_double(j, key, (double)((__s64)ns + offset_ns) / 1e9, 6);
}

bool report_flow_sampled(const struct report *r, const struct flow_record *f)
{
	return f->samples || !r->src->every_packet;
}

/* A flow counter, or null where the input cannot know it (sampled flows). */
static void json_flow_counter(struct json *j, const struct report *r, const struct flow_record *f,
			      enum flow_cnt i)
{
	json_key(j, flow_defs[i].json);
	if ((flow_defs[i].flags & FF_EVERY_PACKET) && report_flow_sampled(r, f))
		json_null(j);
	else
		json_u64(j, flow_counter(&f->c, i));
}

/* What a sampled flow's estimates rest on; null for a flow whose every packet was seen. */
static void json_sampled(struct json *j, const struct flow_record *r, const struct obs_point *pt)
{
	json_key(j, "sampled");
	if (!r->samples) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_u64(j, "samples", r->samples);
	json_kv_u64(j, "rate", r->rate);
	json_key(j, "point");
	if (pt)
		json_str(j, pt->name);
	else
		json_null(j);
	json_obj_end(j);
}

static void json_flow(struct json *j, const struct report *rep, const struct flow_record *r,
		      const struct flow_view *v)
{
	static const enum flow_cnt tail[] = {FC_CNP, FC_ACKS, FC_NAKS, FC_RNR_NAKS,
					     FC_RTX, FC_GAPS, FC_FECN, FC_BECN};
	const struct flow_key *k = &r->key;
	const struct flow_counters *c = &r->c;
	const struct obs_point *pt = source_point(rep->src, k->ifindex);
	bool vxlan = k->flags & FP_FLOW_VXLAN;

	json_obj_begin(j);
	json_addr(j, "src", k->src, k->flags & FP_FLOW_IPV6);
	json_addr(j, "dst", k->dst, k->flags & FP_FLOW_IPV6);
	json_kv_u64(j, "sport", k->sport);
	json_kv_u64(j, "dport", k->dport);
	json_vni(j, k);
	json_key(j, "inner");
	if (vxlan) {
		json_obj_begin(j);
		json_addr(j, "src", k->inner_src, k->flags & FP_FLOW_INNER_IPV6);
		json_addr(j, "dst", k->inner_dst, k->flags & FP_FLOW_INNER_IPV6);
		json_kv_u64(j, "sport", k->inner_sport);
		json_kv_u64(j, "dport", k->inner_dport);
		json_obj_end(j);
	} else {
		json_null(j);
	}
	json_kv_u64(j, "dest_qp", k->dest_qp);
	json_flow_counter(j, rep, r, FC_PACKETS);
	json_flow_counter(j, rep, r, FC_BYTES);
	json_sampled(j, r, pt);
	json_ecn(j, "ecn", c->ecn);
	if (vxlan) {
		json_ecn(j, "inner_ecn", c->inner_ecn);
	} else {
		json_key(j, "inner_ecn");
		json_null(j);
	}
	json_kv_u64(j, "dscp", c->dscp);
	json_key(j, "dscps");
	json_arr_begin(j);
	for (int d = 0; d < 64; d++)
		if (flow_dscps(r) & (1ULL << d))
			json_u64(j, d);
	json_arr_end(j);
	json_key(j, "vlan");
	if (c->vlan_tagged)
		json_u64(j, c->vlan);
	else
		json_null(j);
	json_key(j, "pcp");
	if (c->vlan_tagged)
		json_u64(j, c->pcp);
	else
		json_null(j);
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		json_flow_counter(j, rep, r, tail[i]);
	json_key(j, "opcodes");
	json_arr_begin(j);
	for (int op = 0; op < 256; op++)
		if (c->opcodes[op >> 6] & (1ULL << (op & 63)))
			json_u64(j, op);
	json_arr_end(j);
	json_kv_u64(j, "last_opcode", c->last_opcode);
	json_time(j, "first_seen", c->first_seen_ns, rep->snap->clock_offset_ns);
	json_time(j, "last_seen", c->last_seen_ns, rep->snap->clock_offset_ns);
	json_key(j, "interface");
	if (pt && pt->interface)
		json_str(j, pt->name);
	else
		json_null(j);
	json_kv_str(j, "dir", fmt_dir(k->dir));
	json_key(j, "path");
	if (v && rep->an && v->path >= 0)
		json_str(j, rep->an->paths[v->path].name);
	else if (!v && pt && pt->uplink)
		json_str(j, pt->name);
	else
		json_null(j);
	report_json_mirror(j, k);
	if (v) {
		json_kv_double(j, "bps", v->bps, 0);
		json_kv_double(j, "pps", analysis_per_s(rep->an, v->d.packets), 1);
		json_kv_double(j, "ce_fraction", flow_ce_fraction(c), 4);
		json_kv_bool(j, "elephant", v->elephant);
		json_key(j, "predicted_path");
		if (v->predicted_path >= 0)
			json_u64(j, v->predicted_path);
		else
			json_null(j);
	}
	report_nic_qp_owner(j, rep->nic, r - rep->snap->flows);
	json_obj_end(j);
}

/* A flow named by the fields that identify it, for alerts and collisions. */
static void json_flow_ref(struct json *j, const struct flow_key *k)
{
	json_obj_begin(j);
	json_addr(j, "src", k->src, k->flags & FP_FLOW_IPV6);
	json_addr(j, "dst", k->dst, k->flags & FP_FLOW_IPV6);
	json_kv_u64(j, "sport", k->sport);
	json_kv_u64(j, "dport", k->dport);
	json_vni(j, k);
	json_kv_u64(j, "dest_qp", k->dest_qp);
	json_obj_end(j);
}

static void json_path_name(struct json *j, const char *key, const struct analysis *a, int path)
{
	json_key(j, key);
	if (path >= 0 && path < a->n_paths)
		json_str(j, a->paths[path].name);
	else
		json_null(j);
}

/* A group's name; null for the one unnamed group and for a path in none. */
static void json_group_name(struct json *j, const char *key, const struct analysis *a, int g)
{
	json_key(j, key);
	if (g >= 0 && a->groups[g].name[0])
		json_str(j, a->groups[g].name);
	else
		json_null(j);
}

static void json_imbalance(struct json *j, double bytes, double flows, bool known)
{
	/* Balance needs two paths at least: null, not a misleading 0. */
	json_key(j, "imbalance");
	if (known) {
		json_obj_begin(j);
		json_kv_double(j, "bytes", bytes, 3);
		json_kv_double(j, "flows", flows, 3);
		json_obj_end(j);
	} else {
		json_null(j);
	}
}

/* The port's own counters (sFlow counter samples), or null. */
static void json_port_counters(struct json *j, const struct port_counters *pc)
{
	json_key(j, "port_counters");
	if (!pc) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_u64(j, "counter_samples", pc->counter_samples);
	json_kv_u64(j, "speed_bps", pc->speed_bps);
	json_kv_bool(j, "oper_up", pc->status & 2);
	json_kv_bool(j, "admin_up", pc->status & 1);
	json_key(j, "out_bps");
	if (pc->have_rate)
		json_double(j, pc->out_bps, 0);
	else
		json_null(j);
	json_key(j, "in_bps");
	if (pc->have_rate)
		json_double(j, pc->in_bps, 0);
	else
		json_null(j);
	json_kv_u64(j, "out_octets", pc->out_octets);
	json_kv_u64(j, "in_octets", pc->in_octets);
	json_key(j, "out_discards_per_s");
	if (pc->have_rate)
		json_double(j, pc->out_discards_per_s, 1);
	else
		json_null(j);
	json_kv_u64(j, "out_discards", pc->out_discards);
	json_kv_u64(j, "in_discards", pc->in_discards);
	json_kv_u64(j, "out_errors", pc->out_errors);
	json_kv_u64(j, "in_errors", pc->in_errors);
	json_obj_end(j);
}

static void json_paths(struct json *j, const struct analysis *a)
{
	json_key(j, "paths");
	json_arr_begin(j);
	for (int i = 0; i < a->n_paths; i++) {
		const struct path_view *p = &a->paths[i];

		json_obj_begin(j);
		json_kv_str(j, "name", p->name);
		json_group_name(j, "group", a, p->group);
		json_kv_u64(j, "flows", p->flows);
		json_kv_u64(j, "elephants", p->elephants);
		json_kv_u64(j, "packets", p->packets);
		json_kv_u64(j, "bytes", p->bytes);
		json_kv_double(j, "bps", p->bps, 0);
		json_kv_double(j, "speed_bps", p->speed_bps, 0);
		json_kv_u64(j, "predicted_elephants", p->predicted_elephants);
		json_port_counters(j, p->counters);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "groups");
	json_arr_begin(j);
	for (int g = 0; g < a->n_groups; g++) {
		const struct path_group *pg = &a->groups[g];

		json_obj_begin(j);
		json_group_name(j, "name", a, g);
		json_key(j, "paths");
		json_arr_begin(j);
		for (int i = 0; i < a->n_paths; i++)
			if (a->paths[i].group == g)
				json_str(j, a->paths[i].name);
		json_arr_end(j);
		json_imbalance(j, pg->imbalance_bytes, pg->imbalance_flows, pg->n_paths >= 2);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* The least balanced group's. */
	json_imbalance(j, a->imbalance_bytes, a->imbalance_flows, a->imbalance_group >= 0);
	json_kv_double(j, "elephant_bps", a->elephant_bps, 0);
	json_kv_double(j, "interval_s", a->interval_s, 3);
}

static void json_elephants(struct json *j, const struct analysis *a)
{
	json_key(j, "elephants");
	json_arr_begin(j);
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];

		if (!v->elephant)
			continue;
		json_obj_begin(j);
		json_key(j, "flow");
		json_flow_ref(j, &v->r->key);
		json_path_name(j, "path", a, v->path);
		json_kv_double(j, "bps", v->bps, 0);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_collisions(struct json *j, const struct analysis *a)
{
	json_key(j, "collisions");
	json_arr_begin(j);
	for (size_t i = 0; i < a->n_collisions; i++) {
		const struct collision *c = &a->collisions[i];

		json_obj_begin(j);
		json_kv_str(j, "kind", c->predicted ? "predicted" : "observed");
		if (c->predicted) {
			json_kv_u64(j, "path", c->path);
			json_kv_u64(j, "idle_path", c->idle_path);
		} else {
			json_path_name(j, "path", a, c->path);
			json_path_name(j, "idle_path", a, c->idle_path);
			json_group_name(j, "group", a, a->paths[c->path].group);
		}
		json_key(j, "flows");
		json_arr_begin(j);
		for (int f = 0; f < c->n_flows; f++)
			json_flow_ref(j, &a->flows[c->flows[f]].r->key);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_entropy(struct json *j, const struct analysis *a)
{
	json_key(j, "entropy");
	json_arr_begin(j);
	for (size_t i = 0; i < a->n_entropy; i++) {
		const struct entropy_group *e = &a->entropy[i];
		const struct flow_key *k = &a->flows[e->flow].r->key;

		/* The queue pairs' own hosts, as the joins group them (roce_sport.h). */
		json_obj_begin(j);
		json_addr(j, "src", roce_flow_src(k), roce_flow_v6(k));
		json_addr(j, "dst", roce_flow_dst(k), roce_flow_v6(k));
		json_vni(j, k);
		json_kv_u64(j, "queue_pairs", e->qps);
		json_kv_u64(j, "source_ports", e->sports);
		json_obj_end(j);
	}
	json_arr_end(j);
}

const char *provenance_started(char *buf, size_t len, const struct provenance *p)
{
	struct tm tm;

	if (!gmtime_r(&p->started, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

void report_json_provenance(struct json *j, const struct provenance *p)
{
	char started[32];

	json_key(j, "provenance");
	json_obj_begin(j);
	json_kv_str(j, "host", p->host);
	json_kv_str(j, "fabprobe_version", p->version);
	json_key(j, "command");
	json_arr_begin(j);
	json_str(j, "fabprobe");
	for (int i = 0; i < p->argc; i++)
		json_str(j, p->argv[i]);
	json_arr_end(j);
	json_kv_str(j, "started", provenance_started(started, sizeof(started), p));
	json_key(j, "partial");
	if (p->partial)
		json_str(j, p->partial);
	else
		json_null(j);
	json_obj_end(j);
}

void report_json_alerts(struct json *j, const struct analysis *a)
{
	json_key(j, "alerts");
	json_arr_begin(j);
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];

		json_obj_begin(j);
		json_kv_str(j, "type", alert_type_name(al->type));
		json_kv_str(j, "severity", severity_name(al->severity));
		json_kv_str(j, "message", al->message);
		json_kv_str(j, "evidence", al->evidence);
		json_key(j, "flows");
		json_arr_begin(j);
		for (int f = 0; f < al->n_flows; f++)
			json_flow_ref(j, &al->flows[f]);
		json_arr_end(j);
		json_path_name(j, "path", a, al->path);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* A bundle's alerts as the refreshes raised them, in the log's display order. */
static void json_alert_log(struct json *j, const struct alert_log *log)
{
	json_key(j, "alert_log");
	json_arr_begin(j);
	for (size_t i = 0; i < log->n; i++) {
		const struct alert_entry *e = &log->e[log->order[i]];

		json_obj_begin(j);
		json_kv_str(j, "type", alert_type_name(e->last.type));
		json_kv_str(j, "severity", severity_name(e->last.severity));
		json_kv_str(j, "subject", e->last.subject);
		json_kv_str(j, "message", e->last.message);
		json_kv_str(j, "evidence", e->last.evidence);
		json_kv_double(j, "first_s", e->first_s, 3);
		json_kv_double(j, "last_s", e->last_s, 3);
		json_kv_u64(j, "refreshes", e->count);
		json_kv_bool(j, "active", e->active);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_totals(struct json *j, const struct snapshot *s)
{
	json_key(j, "totals");
	json_obj_begin(j);
	for (size_t i = 0; i < n_total_defs; i++)
		json_kv_u64(j, total_defs[i].json, s->totals[total_defs[i].id]);
	json_obj_end(j);
}

void report_json(FILE *out, const struct report *r)
{
	const struct analysis *a = r->an;
	const struct snapshot *s = r->snap;
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j);
	json_kv_u64(&j, "version", REPORT_VERSION);
	json_kv_str(&j, "mode", r->src->mode);
	if (r->prov)
		report_json_provenance(&j, r->prov);
	json_totals(&j, s);
	json_key(&j, "flows");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->n_flows; i++)
		json_flow(&j, r, &s->flows[i], a && i < a->n_flows ? &a->flows[i] : NULL);
	json_arr_end(&j);
	if (a) {
		json_paths(&j, a);
		json_elephants(&j, a);
		json_collisions(&j, a);
		json_entropy(&j, a);
		report_json_alerts(&j, a);
	}
	if (r->log)
		json_alert_log(&j, r->log);
	if (r->nic)
		report_nic_json(&j, r->nic);
	if (r->series)
		series_json(&j, r->series);
	json_obj_end(&j);
}

static void text_totals(FILE *out, const struct snapshot *s)
{
	const __u64 *t = s->totals;
	char bytes[32];

	fprintf(out, "frames %llu (%s)", (unsigned long long)t[FP_CNT_FRAMES],
		fmt_si(bytes, sizeof(bytes), (double)t[FP_CNT_BYTES], "B"));
	for (size_t i = 0; i < n_total_defs; i++) {
		const struct total_def *d = &total_defs[i];

		if ((d->flags & TF_TEXT) && ((d->flags & TF_ALWAYS) || t[d->id]))
			fprintf(out, ", %s %llu", d->label, (unsigned long long)t[d->id]);
	}
	fprintf(out, "\nflows %zu", s->n_flows);
	/* sFlow: a flow sampled at two rates is two entries, one flow (totals.flows: entries). */
	if (t[SNAP_CNT_FLOWS] != s->n_flows)
		fprintf(out, " (%llu entries: sampled at several rates)",
			(unsigned long long)t[SNAP_CNT_FLOWS]);
	fprintf(out,
		" of %u table entries (IPv4 %u + IPv6 %u), %llu evicted, %llu insert failures\n\n",
		s->flow_capacity, s->flow_capacity - s->flow_capacity6, s->flow_capacity6,
		(unsigned long long)snapshot_evictions(s),
		(unsigned long long)t[FP_CNT_FLOW_INSERT_FAIL]);
}

static const char *flow_endpoints(char *buf, size_t len, const struct flow_key *k)
{
	char src[FP_ENDPOINT_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = k->flags & FP_FLOW_IPV6;

	snprintf(buf, len, "%s > %s", fmt_endpoint(src, sizeof(src), k->src, v6, k->sport),
		 fmt_addr(dst, sizeof(dst), k->dst, v6));
	return buf;
}

/* At least min, or the longest of the names: the columns after it stay in line. */
static int name_width(int min, const char *name)
{
	int len = (int)strlen(name);

	return len > min ? len : min;
}

void report_port_cells(struct port_cells *c, const struct port_counters *pc)
{
	snprintf(c->out, sizeof(c->out), "-");
	snprintf(c->discards, sizeof(c->discards), "-");
	c->oper = "-";
	if (!pc)
		return;
	if (pc->have_rate)
		fmt_si(c->out, sizeof(c->out), pc->out_bps, "b/s");
	else
		snprintf(c->out, sizeof(c->out), "?");
	snprintf(c->discards, sizeof(c->discards), "%llu", (unsigned long long)pc->out_discards);
	c->oper = pc->status & 2 ? "up" : "down";
}

const char *report_group_balance(char *buf, size_t len, const struct path_group *pg)
{
	if (pg->n_paths >= 2)
		snprintf(buf, len, "imbalance (max/mean): load %.2f, flows %.2f",
			 pg->imbalance_bytes, pg->imbalance_flows);
	else
		snprintf(buf, len, "imbalance: n/a (one path)");
	return buf;
}

const char *report_balance(char *buf, size_t len, const struct analysis *a)
{
	if (a->imbalance_group >= 0)
		snprintf(buf, len, "imbalance (max/mean): load %.2f, flows %.2f",
			 a->imbalance_bytes, a->imbalance_flows);
	else
		snprintf(buf, len, "imbalance: n/a (%s; balance needs two or more paths)",
			 a->n_groups ? "one path" : "no ECMP group");
	return buf;
}

bool report_paths_named(const struct analysis *a, bool *ports)
{
	bool named = false;

	*ports = false;
	for (int i = 0; i < a->n_paths; i++) {
		named |= a->paths[i].group >= 0 && a->groups[a->paths[i].group].name[0];
		*ports |= a->paths[i].counters != NULL;
	}
	return named;
}

static void text_paths(FILE *out, const struct analysis *a)
{
	char rate[32], bytes[32], bal[96];
	bool ports, named = report_paths_named(a, &ports);
	int path_w = 16, group_w = 12;

	if (!a->n_paths)
		return;
	/* Mirror sessions (erspan:101@192.0.2.1) and sFlow ports run long. */
	for (int i = 0; i < a->n_paths; i++) {
		const struct path_view *p = &a->paths[i];

		path_w = name_width(path_w, p->name);
		if (p->group >= 0)
			group_w = name_width(group_w, a->groups[p->group].name);
	}
	fprintf(out, "%-*s ", path_w, "PATH");
	if (named)
		fprintf(out, "%-*s ", group_w, "GROUP");
	fprintf(out, "%7s %9s %12s %10s %12s", "FLOWS", "ELEPHANTS", "PACKETS", "BYTES", "RATE");
	if (ports)
		fprintf(out, " %12s %9s %4s", "PORT OUT", "DISCARDS", "OPER");
	fputc('\n', out);
	for (int i = 0; i < a->n_paths; i++) {
		const struct path_view *p = &a->paths[i];
		struct port_cells pc;

		fprintf(out, "%-*s ", path_w, p->name);
		if (named)
			fprintf(out, "%-*s ", group_w,
				p->group >= 0 ? a->groups[p->group].name : "-");
		fprintf(out, "%7llu %9llu %12llu %10s %12s", (unsigned long long)p->flows,
			(unsigned long long)p->elephants, (unsigned long long)p->packets,
			fmt_si(bytes, sizeof(bytes), p->bytes, "B"),
			fmt_si(rate, sizeof(rate), p->bps, "b/s"));
		report_port_cells(&pc, p->counters);
		if (ports)
			fprintf(out, " %12s %9s %4s", pc.out, pc.discards, pc.oper);
		fputc('\n', out);
	}
	report_copies_note(out, a);
	if (named || a->n_groups > 1) {
		for (int g = 0; g < a->n_groups; g++)
			fprintf(out, "group %s %s\n",
				a->groups[g].name[0] ? a->groups[g].name : "-",
				report_group_balance(bal, sizeof(bal), &a->groups[g]));
		fputc('\n', out);
	} else {
		fprintf(out, "%s\n\n", report_balance(bal, sizeof(bal), a));
	}
}

/* The NIC's rows: all of them where a file holds the rest of the flows (a bundle). */
static size_t nic_rows(const struct report *rep)
{
	return rep->all_flows ? 0 : rep->max_flows;
}

/* After the flows: the NIC counters beside them. */
static void text_nic(FILE *out, const struct report *rep)
{
	if (!rep->nic)
		return;
	fprintf(out, "\nNIC COUNTERS (%s)\n", rep->nic->st.root ? rep->nic->st.root : "this host");
	report_nic_text(out, rep->nic, nic_rows(rep));
}

const char *report_flow_path(const struct report *rep, size_t i)
{
	const struct analysis *a = rep->an;
	const struct flow_record *r = &rep->snap->flows[i];
	const struct flow_view *v = a && i < a->n_flows ? &a->flows[i] : NULL;
	const struct obs_point *pt = source_point(rep->src, r->key.ifindex);

	if (v && v->path >= 0 && v->path < a->n_paths)
		return a->paths[v->path].name;
	return pt && pt->uplink ? pt->name : "-";
}

void report_text(FILE *out, const struct report *rep)
{
	const struct snapshot *s = rep->snap;
	const struct analysis *a = rep->an;
	size_t n = s->n_flows;
	char ep[128], bytes[32], vni[16], op[32], more[48];
	int path_w = 8, flow_w = 40;

	/* A NIC-only session has no flows to speak of: its alerts, then the NIC. */
	if (rep->nic && !strcmp(rep->src->mode, "nic")) {
		if (a)
			report_alerts_text(out, a);
		report_nic_text(out, rep->nic, nic_rows(rep));
		return;
	}
	text_totals(out, s);
	if (a) {
		report_alerts_text(out, a);
		text_paths(out, a);
	}
	if (!n) {
		fprintf(out, "no RoCE flows\n");
		text_nic(out, rep);
		return;
	}
	if (rep->max_flows && rep->max_flows < n)
		n = rep->max_flows;
	if (s->n_flows && s->flows[0].samples) {
		char rates[48];

		fprintf(out,
			"(sampled %s: PACKETS, BYTES, CE, CNP, ACK and NAK are estimates, each "
			"sample times its rate; RTX and GAPS need every packet)\n",
			flow_sampling_text(rates, sizeof(rates), s->flows, s->n_flows));
	}
	/* Two windows in one table: say which column covers which. */
	if (a) {
		char w[48];

		fprintf(out,
			"RATE: over %s; PACKETS to GAPS: since the flow entered the table; "
			"NAK: RNR NAKs included\n",
			analysis_window(a, false, w, sizeof(w)));
	}
	/*
	 * IPv6 endpoints run past 40 (up to 89: "[8 groups]:65535 > 8 groups"),
	 * IPv4 ones never do: their rows print as they always did. No cap: the
	 * address format bounds it, and a cut address would name another host.
	 */
	for (size_t i = 0; i < n; i++) {
		path_w = name_width(path_w, report_flow_path(rep, i));
		flow_w = name_width(flow_w, flow_endpoints(ep, sizeof(ep), &s->flows[i].key));
	}
	fprintf(out, "%-*s %6s %7s %-*s %9s %9s %10s %6s %6s %6s %6s %6s %6s  %s\n", flow_w,
		"FLOW (src:sport > dst)", "VNI", "QP", path_w, "PATH", "RATE", "PACKETS", "BYTES",
		"CE", "CNP", "ACK", "NAK", "RTX", "GAPS", "LAST OPCODE");
	for (size_t i = 0; i < n; i++) {
		const struct flow_record *r = &s->flows[i];
		const struct flow_view *v = a && i < a->n_flows ? &a->flows[i] : NULL;
		const struct flow_counters *c = &r->c;
		char rate[32], rtx[24], gaps[24], at[48];

		if (r->key.flags & FP_FLOW_VXLAN)
			snprintf(vni, sizeof(vni), "%u", r->key.vni);
		else
			snprintf(vni, sizeof(vni), "-");
		snprintf(rate, sizeof(rate), "-");
		if (v)
			fmt_si(rate, sizeof(rate), v->bps, "b/s");
		snprintf(rtx, sizeof(rtx), "%llu", (unsigned long long)c->retransmits);
		snprintf(gaps, sizeof(gaps), "%llu", (unsigned long long)c->psn_gaps);
		if (report_flow_sampled(rep, r)) {
			snprintf(rtx, sizeof(rtx), "-");
			snprintf(gaps, sizeof(gaps), "-");
		}
		fprintf(
		    out,
		    "%-*s %6s %7u %-*s %9s %9llu %10s %6llu %6llu %6llu %6llu %6s %6s  %s%s%s\n",
		    flow_w, flow_endpoints(ep, sizeof(ep), &r->key), vni, r->key.dest_qp, path_w,
		    report_flow_path(rep, i), rate, (unsigned long long)c->packets,
		    fmt_si(bytes, sizeof(bytes), (double)c->bytes, "B"),
		    (unsigned long long)flow_ce(c), (unsigned long long)c->cnp,
		    (unsigned long long)c->acks, (unsigned long long)(c->naks + c->rnr_naks), rtx,
		    gaps, fmt_opcode(op, sizeof(op), c->last_opcode),
		    v && v->elephant ? " [elephant]" : "",
		    report_copied_at(at, sizeof(at), &r->key));
	}
	if (n < s->n_flows)
		fprintf(out, "... %s (%s shows all)\n",
			fmt_count(more, sizeof(more), s->n_flows - n, "more flow"),
			rep->all_flows ? rep->all_flows : "--json");
	text_nic(out, rep);
}
