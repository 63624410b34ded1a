// SPDX-License-Identifier: GPL-2.0
/*
 * html_nic.c - the NIC section of report.html: each RDMA port's known
 * counters over the run, PFC per priority, the QPs with their predicted
 * source port and path and their owners, and the QPs sharing a path.
 */
#include <stdio.h>

#include "render/html.h"
#include "util/format.h"

static void cell_u64(FILE *out, const struct nic_counter *c)
{
	if (c)
		fprintf(out, "<td>%llu</td><td>%.2f</td>", (unsigned long long)c->value,
			c->flags & NIC_CNT_NEW ? 0.0 : c->per_s);
	else
		fprintf(out, "<td>-</td><td>-</td>");
}

static void ports(FILE *out, const struct nic_state *s)
{
	fprintf(out, "<table><tr><th>counter</th>");
	for (size_t i = 0; i < s->n_ports; i++) {
		fprintf(out, "<th colspan='2'>");
		fmt_markup(out, s->ports[i].device);
		fprintf(out, "/%u ", s->ports[i].port);
		fmt_markup(out, s->ports[i].netdev);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n<tr><th></th>");
	for (size_t i = 0; i < s->n_ports; i++)
		fprintf(out, "<th>total</th><th>/s</th>");
	fprintf(out, "</tr>\n");
	for (size_t k = 0; k < nic_n_known_rdma; k++) {
		fprintf(out, "<tr><td style='text-align:left'>%s</td>", nic_known_rdma[k].name);
		for (size_t i = 0; i < s->n_ports; i++)
			cell_u64(out, nic_counter_get(&s->ports[i].hw, nic_known_rdma[k].name));
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

static void pfc(FILE *out, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;

	fprintf(out,
		"<h3>PFC per priority (lossless: %d)</h3>\n<table><tr><th>netdev</th>"
		"<th>priority</th>",
		p->lossless_prio);
	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++)
		fprintf(out, "<th>%s</th>", nic_pfc_fields[f].json_key);
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];

		for (int prio = 0; prio < NIC_PRIOS; prio++) {
			bool any = false;

			for (int f = 0; f < NIC_PFC_FIELD_MAX; f++)
				any |= nic_pfc(nd, prio, f) != NULL;
			if (!any)
				continue;
			fprintf(out, "<tr%s><td>",
				prio == p->lossless_prio ? " class='elephant'" : "");
			fmt_markup(out, nd->name);
			fprintf(out, "</td><td>%d</td>", prio);
			for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
				const struct nic_counter *c = nic_pfc(nd, prio, f);

				if (c)
					fprintf(out, "<td>%llu</td>", (unsigned long long)c->value);
				else
					fprintf(out, "<td>-</td>");
			}
			fprintf(out, "</tr>\n");
		}
	}
	fprintf(out, "</table>\n");
}

static void qps(FILE *out, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;
	char owner[NIC_COMM_LEN + 16], where[NIC_DEV_LEN + 16];

	fprintf(out, "<h3>Queue pairs</h3>\n");
	if (s->qp_error[0]) {
		fprintf(out, "<p>");
		fmt_markup(out, s->qp_error);
		fprintf(out, "</p>\n");
	}
	fprintf(out, "<table><tr><th>device/port</th><th>lqpn</th><th>rqpn</th><th>type</th>"
		     "<th>state</th><th>predicted sport</th><th>predicted path</th>"
		     "<th>owner</th></tr>\n");
	for (size_t i = 0; i < s->n_qps; i++) {
		const struct nic_qp *q = &s->qps[i];

		fprintf(out, "<tr><td>");
		fmt_markup(out, nic_qp_where(where, sizeof(where), q));
		fprintf(out, "</td><td>%u</td>", q->lqpn);
		if (q->has_rqpn)
			fprintf(out, "<td>%u</td>", q->rqpn);
		else
			fprintf(out, "<td>-</td>");
		fprintf(out, "<td>%s</td><td>%s</td>", nic_qp_type_name(q->type),
			nic_qp_state_name(q->state));
		if (q->predicted_sport)
			fprintf(out, "<td>%u</td>", q->predicted_sport);
		else
			fprintf(out, "<td>-</td>");
		if (q->predicted_path >= 0)
			fprintf(out, "<td>%d</td>", q->predicted_path);
		else
			fprintf(out, "<td>-</td>");
		fprintf(out, "<td style='text-align:left'>");
		fmt_markup(out, nic_owner_text(owner, sizeof(owner), q));
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	for (size_t i = 0; i < p->n_coll; i++) {
		const struct nic_qp_collision *c = &p->coll[i];

		fprintf(out, "<p class='warning'>%d QPs of ", c->total);
		fmt_markup(out, c->device);
		fprintf(out, "/%u share predicted path %d while path %d has none:", c->port,
			c->path, c->idle_path);
		for (int k = 0; k < c->n_qps; k++) {
			fprintf(out, "%s ", k ? "," : "");
			fmt_markup(out, nic_owner_text(owner, sizeof(owner), &s->qps[c->qps[k]]));
			fprintf(out, " QP %u", s->qps[c->qps[k]].lqpn);
		}
		fprintf(out, "</p>\n");
	}
}

void html_nic(FILE *out, const struct nic_picture *p)
{
	const struct nic_state *s = &p->st;
	char window[48];

	fprintf(out, "<h2>NIC counters</h2>\n<p>");
	fmt_markup(out, s->root ? s->root : "this host's RDMA NICs");
	/* A bundle's NIC picture is the whole run's (session_whole()): a short one is milliseconds.
	 */
	if (s->interval_s > 0)
		fprintf(out, ", over %s.",
			fmt_window(window, sizeof(window), s->interval_s, FMT_WINDOW_WHOLE));
	else
		fprintf(out, ", read once: totals, no rates.");
	if (s->info[0]) {
		fprintf(out, " ");
		fmt_markup(out, s->info);
		fprintf(out, ".");
	}
	fprintf(out, "</p>\n");
	if (s->n_ports)
		ports(out, s);
	pfc(out, p);
	qps(out, p);
}
