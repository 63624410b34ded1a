// SPDX-License-Identifier: GPL-2.0
/*
 * report_nic.c - a NIC picture as JSON (docs/json.md, "NIC") and as text.
 * Counter names are the canonical (mlx5) ones (source/nic_names.c); rates
 * are over the interval between the picture's last two reads, and a
 * counter read once has a value and no rate.
 */
#include <stdlib.h>
#include <string.h>

#include "render/report_nic.h"
#include "util/format.h"

#define REPORT_VERSION 1

/* ---- JSON ---- */

static bool has_rate(const struct nic_counter *c)
{
	return !(c->flags & NIC_CNT_NEW);
}

/*
 * "counters", "rates", "wraps", "resets" of one or two sets (an RDMA
 * port's hw_counters and PMA counters: a name in both is the first's).
 */
static void json_counter_sets(struct json *j, const struct nic_counters *a,
			      const struct nic_counters *b)
{
	static const char *const keys[] = {"counters", "rates", "wraps", "resets"};

	for (int k = 0; k < 4; k++) {
		json_key(j, keys[k]);
		if (k < 2)
			json_obj_begin(j);
		else
			json_arr_begin(j);
		for (int s = 0; s < 2; s++) {
			const struct nic_counters *set = s ? b : a;

			for (size_t i = 0; set && i < set->n; i++) {
				const struct nic_counter *c = &set->v[i];

				if (s && a && nic_counter_get(a, c->name))
					continue;
				if (k == 0)
					json_kv_u64(j, c->name, c->value);
				else if (k == 1 && has_rate(c))
					json_kv_double(j, c->name, c->per_s, 3);
				else if ((k == 2 && (c->flags & NIC_CNT_WRAPPED)) ||
					 (k == 3 && (c->flags & NIC_CNT_RESET)))
					json_str(j, c->name);
			}
		}
		if (k < 2)
			json_obj_end(j);
		else
			json_arr_end(j);
	}
}

static void json_ports(struct json *j, const struct nic_state *s)
{
	char gid[FP_ADDR_STRLEN];

	json_key(j, "nics");
	json_arr_begin(j);
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct nic_port *p = &s->ports[i];

		json_obj_begin(j);
		json_kv_str(j, "device", p->device);
		json_kv_u64(j, "port", p->port);
		json_key(j, "netdev");
		if (p->netdev[0])
			json_str(j, p->netdev);
		else
			json_null(j);
		json_kv_str(j, "link_layer", p->link_layer);
		json_key(j, "address");
		if (p->has_gid_addr)
			json_str(j, fmt_addr(gid, sizeof(gid), p->gid_addr, p->gid_v6));
		else
			json_null(j);
		json_counter_sets(j, &p->hw, &p->pma);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_netdevs(struct json *j, const struct nic_state *s)
{
	json_key(j, "netdevs");
	json_arr_begin(j);
	for (size_t i = 0; i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];

		json_obj_begin(j);
		json_kv_str(j, "name", nd->name);
		json_key(j, "error");
		if (nd->error[0])
			json_str(j, nd->error);
		else
			json_null(j);
		json_counter_sets(j, &nd->ethtool, NULL);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static bool prio_has_pfc(const struct nic_netdev *nd, int prio)
{
	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++)
		if (nic_pfc(nd, prio, f))
			return true;
	return false;
}

static void json_pfc(struct json *j, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;

	json_key(j, "pfc");
	json_arr_begin(j);
	for (size_t i = 0; i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];

		for (int prio = 0; prio < NIC_PRIOS; prio++) {
			if (!prio_has_pfc(nd, prio))
				continue;
			json_obj_begin(j);
			json_kv_str(j, "netdev", nd->name);
			json_kv_u64(j, "priority", prio);
			json_kv_bool(j, "lossless", prio == p->lossless_prio);
			for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
				const struct nic_counter *c = nic_pfc(nd, prio, f);

				json_key(j, nic_pfc_fields[f].json_key);
				if (c)
					json_u64(j, c->value);
				else
					json_null(j);
			}
			json_key(j, "rates");
			json_obj_begin(j);
			for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
				const struct nic_counter *c = nic_pfc(nd, prio, f);

				if (c && has_rate(c))
					json_kv_double(j, nic_pfc_fields[f].json_key, c->per_s, 3);
			}
			json_obj_end(j);
			json_obj_end(j);
		}
	}
	json_arr_end(j);
}

static void json_qp_ref(struct json *j, const struct nic_qp *q)
{
	json_kv_str(j, "device", q->device);
	json_kv_u64(j, "lqpn", q->lqpn);
	json_key(j, "pid");
	if (q->has_pid)
		json_u64(j, q->pid);
	else
		json_null(j);
	json_kv_str(j, "comm", q->comm);
}

static void json_qps(struct json *j, const struct nic_state *s)
{
	json_key(j, "qps");
	json_arr_begin(j);
	for (size_t i = 0; i < s->n_qps; i++) {
		const struct nic_qp *q = &s->qps[i];

		json_obj_begin(j);
		json_qp_ref(j, q);
		json_kv_u64(j, "port", q->port);
		json_key(j, "netdev");
		if (q->netdev[0])
			json_str(j, q->netdev);
		else
			json_null(j);
		json_key(j, "rqpn");
		if (q->has_rqpn)
			json_u64(j, q->rqpn);
		else
			json_null(j);
		json_kv_str(j, "type", nic_qp_type_name(q->type));
		json_kv_str(j, "state", nic_qp_state_name(q->state));
		json_kv_bool(j, "kernel", q->kernel);
		json_key(j, "predicted_sport");
		if (q->predicted_sport)
			json_u64(j, q->predicted_sport);
		else
			json_null(j);
		json_key(j, "predicted_path");
		if (q->predicted_path >= 0)
			json_u64(j, q->predicted_path);
		else
			json_null(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_collisions(struct json *j, const struct nic_picture *p)
{
	json_key(j, "qp_collisions");
	json_arr_begin(j);
	for (size_t i = 0; i < p->n_coll; i++) {
		const struct nic_qp_collision *c = &p->coll[i];

		json_obj_begin(j);
		json_kv_str(j, "device", c->device);
		json_kv_u64(j, "port", c->port);
		json_kv_u64(j, "path", c->path);
		json_kv_u64(j, "idle_path", c->idle_path);
		json_kv_u64(j, "queue_pairs", c->total);
		json_key(j, "qps");
		json_arr_begin(j);
		for (int q = 0; q < c->n_qps; q++) {
			json_obj_begin(j);
			json_qp_ref(j, &p->st.qps[c->qps[q]]);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void report_nic_json(struct json *j, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;

	json_key(j, "nic");
	json_obj_begin(j);
	json_kv_str(j, "source", s->root ? "recorded" : "live");
	json_key(j, "root");
	if (s->root)
		json_str(j, s->root);
	else
		json_null(j);
	json_kv_str(j, "info", s->info);
	json_kv_str(j, "qp_error", s->qp_error);
	json_kv_double(j, "interval_s", s->interval_s, 6);
	json_kv_u64(j, "refreshes", s->refreshes);
	json_kv_u64(j, "lossless_priority", p->lossless_prio);
	json_obj_end(j);
	json_ports(j, s);
	json_netdevs(j, s);
	json_pfc(j, p);
	json_qps(j, s);
	json_collisions(j, p);
}

void report_nic_qp_owner(struct json *j, const struct nic_picture *p, size_t flow)
{
	const struct nic_qp *q = p ? nic_flow_owner(p, flow) : NULL;

	json_key(j, "qp_owner");
	if (!q) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_qp_ref(j, q);
	json_obj_end(j);
}

/* The NIC alerts of an analysis, as the JSON report writes alerts. */
static void nic_alerts_json(struct json *j, const struct analysis *a)
{
	struct analysis only = *a;
	struct alert *kept = calloc(a->n_alerts + 1, sizeof(*kept));

	only.n_alerts = 0;
	for (size_t i = 0; kept && i < a->n_alerts; i++)
		if (nic_alert_type(a->alerts[i].type))
			kept[only.n_alerts++] = a->alerts[i];
	only.alerts = kept;
	report_json_alerts(j, &only);
	free(kept);
}

void report_nic_doc(FILE *out, const struct report *r)
{
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j);
	json_kv_u64(&j, "version", REPORT_VERSION);
	json_kv_str(&j, "mode", r->src->mode);
	if (r->prov)
		report_json_provenance(&j, r->prov);
	if (r->nic)
		report_nic_json(&j, r->nic);
	if (r->an)
		nic_alerts_json(&j, r->an);
	json_obj_end(&j);
}

/* ---- text ---- */

void report_alerts_text(FILE *out, const struct analysis *a)
{
	if (!a->n_alerts) {
		fprintf(out, "no alerts\n\n");
		return;
	}
	fprintf(out, "ALERTS\n");
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];

		fprintf(out, "  %-8s %-20s %s\n  %-8s %-20s %s\n", severity_name(al->severity),
			alert_type_name(al->type), al->message, "", "", al->evidence);
	}
	fprintf(out, "\n");
}

static const char *rate(char *buf, size_t len, const struct nic_counter *c)
{
	if (!has_rate(c))
		snprintf(buf, len, "-");
	else if (c->per_s > 0 && c->per_s < 10)
		snprintf(buf, len, "%.2f/s", c->per_s);
	else
		snprintf(buf, len, "%.0f/s", c->per_s);
	return buf;
}

static const char *mark(const struct nic_counter *c)
{
	return c->flags & NIC_CNT_WRAPPED ? " (32-bit wrap)"
	       : c->flags & NIC_CNT_RESET ? " (reset)"
					  : "";
}

static void text_ports(FILE *out, const struct nic_state *s)
{
	char gid[FP_ADDR_STRLEN], r[32];

	for (size_t i = 0; i < s->n_ports; i++) {
		const struct nic_port *p = &s->ports[i];
		int shown = 0;

		fprintf(out, "RDMA %s/%u (%s%s%s) %s, %zu counters", p->device, p->port,
			p->netdev[0] ? p->netdev : "no netdev", p->has_gid_addr ? ", RoCEv2 " : "",
			p->has_gid_addr ? fmt_addr(gid, sizeof(gid), p->gid_addr, p->gid_v6) : "",
			p->link_layer, p->hw.n + p->pma.n);
		if (p->hw.unreadable + p->pma.unreadable)
			fprintf(out, ", %zu unreadable", p->hw.unreadable + p->pma.unreadable);
		fputc('\n', out);
		for (size_t k = 0; k < nic_n_known_rdma; k++) {
			const struct nic_counter *c =
			    nic_counter_get(&p->hw, nic_known_rdma[k].name);

			if (!c)
				continue;
			fprintf(out, "  %-28s %16llu %12s%s\n", c->name,
				(unsigned long long)c->value, rate(r, sizeof(r), c), mark(c));
			shown++;
		}
		if (!shown)
			fprintf(out, "  (none of the counters fabprobe knows; --json lists all)\n");
	}
	if (s->n_ports)
		fputc('\n', out);
}

/* The PFC fields a row of the table shows, in its columns' order. */
static const enum nic_pfc_field pfc_shown[] = {
    NIC_PFC_RX_PAUSE,	 NIC_PFC_TX_PAUSE,    NIC_PFC_RX_PAUSE_US,
    NIC_PFC_TX_PAUSE_US, NIC_PFC_BUF_DISCARD, NIC_PFC_CONG_DISCARD,
};

#define PFC_MARKS_LEN (2 * NIC_NAME_LEN * (sizeof(pfc_shown) / sizeof(pfc_shown[0])) + 48)

/*
 * A row's counters that wrapped or reset in the interval, as the RDMA
 * counter lines mark theirs (mark()), named as JSON's "wraps" and
 * "resets" list them: " (reset: rx_prio3_pause; 32-bit wrap: ...)", or "".
 */
static const char *pfc_marks(char *buf, size_t len, const struct nic_counter *const *c)
{
	static const struct {
		unsigned int flag;
		const char *says;
	} kinds[] = {{NIC_CNT_RESET, "reset"}, {NIC_CNT_WRAPPED, "32-bit wrap"}};
	size_t at = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		bool any = false;

		for (size_t f = 0; f < sizeof(pfc_shown) / sizeof(pfc_shown[0]); f++) {
			const struct nic_counter *x = c[pfc_shown[f]];

			if (!x || !(x->flags & kinds[k].flag) || at + 1 >= len)
				continue;
			if (any)
				at += snprintf(buf + at, len - at, ", %s", x->name);
			else
				at += snprintf(buf + at, len - at, "%s%s: %s", at ? "; " : " (",
					       kinds[k].says, x->name);
			any = true;
		}
	}
	if (at && at + 1 < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}

/* Priorities worth a line: the lossless one, and any other that counted anything. */
static bool prio_shown(const struct nic_netdev *nd, int prio, int lossless)
{
	if (!prio_has_pfc(nd, prio))
		return false;
	if (prio == lossless)
		return true;
	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
		const struct nic_counter *c = nic_pfc(nd, prio, f);

		if (c && c->value)
			return true;
	}
	return false;
}

static void text_pfc(FILE *out, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;
	double us = s->interval_s * 1e6;
	bool head = false;

	for (size_t i = 0; i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];

		for (int prio = 0; prio < NIC_PRIOS; prio++) {
			const struct nic_counter *c[NIC_PFC_FIELD_MAX];
			char v[NIC_PFC_FIELD_MAX][40], share[2][16], marks[PFC_MARKS_LEN];

			if (!prio_shown(nd, prio, p->lossless_prio))
				continue;
			if (!head)
				fprintf(out, "%-15s %-5s %20s %20s %9s %9s %10s %10s\n",
					"PFC NETDEV", "PRIO", "RX PAUSE (/s)", "TX PAUSE (/s)",
					"RX PAUSED", "TX PAUSED", "BUF DISC", "CONG DISC");
			head = true;
			for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
				char r[32];

				c[f] = nic_pfc(nd, prio, f);
				if (!c[f])
					snprintf(v[f], sizeof(v[f]), "-");
				else if (f == NIC_PFC_RX_PAUSE || f == NIC_PFC_TX_PAUSE)
					snprintf(v[f], sizeof(v[f]), "%llu (%s)",
						 (unsigned long long)c[f]->value,
						 rate(r, sizeof(r), c[f]));
				else
					snprintf(v[f], sizeof(v[f]), "%llu",
						 (unsigned long long)c[f]->value);
			}
			/* Share of the interval paused: the durations' deltas are microseconds. */
			for (int d = 0; d < 2; d++) {
				const struct nic_counter *u =
				    c[d ? NIC_PFC_TX_PAUSE_US : NIC_PFC_RX_PAUSE_US];

				if (u && has_rate(u) && us > 0)
					fmt_pct(share[d], sizeof(share[d]),
						nic_paused_share(u, s->interval_s), 1);
				else
					snprintf(share[d], sizeof(share[d]), "-");
			}
			fprintf(out, "%-15s %d%-4s %20s %20s %9s %9s %10s %10s%s\n", nd->name, prio,
				prio == p->lossless_prio ? "*" : "", v[NIC_PFC_RX_PAUSE],
				v[NIC_PFC_TX_PAUSE], share[0], share[1], v[NIC_PFC_BUF_DISCARD],
				v[NIC_PFC_CONG_DISCARD], pfc_marks(marks, sizeof(marks), c));
		}
	}
	if (head)
		fprintf(out, "(* the lossless priority %d; PAUSED: share of the last %.1f s)\n\n",
			p->lossless_prio, s->interval_s);
}

/* Netdevs without an RDMA port (a veth, a mirror port): their counters that moved. */
static void text_netdevs(FILE *out, const struct nic_state *s, size_t max_rows)
{
	char r[32];

	for (size_t i = 0; i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];
		size_t n_moved = 0, shown = 0;
		bool rdma = false;

		for (size_t p = 0; p < s->n_ports; p++)
			rdma |= !strcmp(s->ports[p].netdev, nd->name);
		if (nd->error[0]) {
			fprintf(out, "NETDEV %s: %s\n", nd->name, nd->error);
			continue;
		}
		for (size_t k = 0; k < nd->ethtool.n; k++)
			n_moved += nic_counter_moved(&nd->ethtool.v[k]);
		fprintf(out, "NETDEV %s: %zu ethtool statistics, ", nd->name, nd->ethtool.n);
		if (nd->ethtool.unreadable)
			fprintf(out, "%zu unreadable, ", nd->ethtool.unreadable);
		fprintf(out, "%zu moved", n_moved);
		if (rdma || !s->refreshes || s->refreshes < 2) {
			fprintf(out, "%s\n", rdma ? " (PFC above; --json lists all)" : "");
			continue;
		}
		fprintf(out, " in the last %.1f s\n", s->interval_s);
		for (size_t k = 0; k < nd->ethtool.n; k++) {
			const struct nic_counter *c = &nd->ethtool.v[k];

			if (!nic_counter_moved(c))
				continue;
			if (max_rows && shown++ >= max_rows) {
				fprintf(out, "  ... %zu more (--json lists all)\n",
					n_moved - max_rows);
				break;
			}
			fprintf(out, "  %-28s %16llu %12s%s\n", c->name,
				(unsigned long long)c->value, rate(r, sizeof(r), c), mark(c));
		}
	}
	if (s->n_netdevs)
		fputc('\n', out);
}

static void text_qps(FILE *out, const struct nic_picture *p, size_t max_rows)
{
	const struct nic_state *s = &p->st;
	size_t n = s->n_qps;
	char owner[NIC_COMM_LEN + 16], where[NIC_DEV_LEN + 16], rq[16], sp[16], path[16];

	if (s->qp_error[0])
		fprintf(out, "QPs: %s\n\n", s->qp_error);
	if (!n)
		return;
	if (max_rows && max_rows < n)
		n = max_rows;
	fprintf(out, "%-14s %8s %8s %-4s %-5s %6s %5s  %s\n", "QP DEVICE/PORT", "LQPN", "RQPN",
		"TYPE", "STATE", "SPORT", "PATH", "OWNER");
	for (size_t i = 0; i < n; i++) {
		const struct nic_qp *q = &s->qps[i];

		nic_qp_where(where, sizeof(where), q);
		snprintf(rq, sizeof(rq), q->has_rqpn ? "%u" : "-", q->rqpn);
		snprintf(sp, sizeof(sp), q->predicted_sport ? "%u" : "-", q->predicted_sport);
		snprintf(path, sizeof(path), q->predicted_path >= 0 ? "%d" : "-",
			 q->predicted_path);
		fprintf(out, "%-14s %8u %8s %-4s %-5s %6s %5s  %s\n", where, q->lqpn, rq,
			nic_qp_type_name(q->type), nic_qp_state_name(q->state), sp, path,
			nic_owner_text(owner, sizeof(owner), q));
	}
	if (n < s->n_qps)
		fprintf(out, "... %zu more QPs (--json shows all)\n", s->n_qps - n);
	for (size_t i = 0; i < p->n_coll; i++) {
		const struct nic_qp_collision *c = &p->coll[i];

		fprintf(out,
			"QPs sharing next-tier path %d of %s/%u (path %d has none): %d:", c->path,
			c->device, c->port, c->idle_path, c->total);
		for (int k = 0; k < c->n_qps; k++)
			fprintf(out, "%s %s QP %u", k ? "," : "",
				nic_owner_text(owner, sizeof(owner), &s->qps[c->qps[k]]),
				s->qps[c->qps[k]].lqpn);
		fprintf(out, "%s\n", c->total > c->n_qps ? ", ..." : "");
	}
	fputc('\n', out);
}

void report_nic_text(FILE *out, const struct nic_picture *p, size_t max_rows)
{
	const struct nic_state *s = &p->st;

	if (s->info[0])
		fprintf(out, "%s\n", s->info);
	if (s->info[0] && !s->n_netdevs)
		return;
	if (s->info[0])
		fputc('\n', out);
	text_ports(out, s);
	text_pfc(out, p);
	text_netdevs(out, s, max_rows);
	text_qps(out, p, max_rows);
}
