// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_nic.c - the fabprobe_nic_* families, when the session reads NIC
 * counters (source_desc.nic): the known RDMA counters of each device port,
 * PFC per netdev and priority, the stall watchdog's events, and the QPs
 * per device and state. Labels stay bounded: device, port and netdev (one
 * per RDMA port), netdev and priority (at most 8 each), QP state (7);
 * never a QP or a process. Values are the NIC's own counters, as read: a
 * driver reset (or a 32-bit counter wrapping) is a decrease, which
 * Prometheus' rate() takes as a counter reset.
 */
#include <stdio.h>
#include <string.h>

#include "render/metrics_write.h"

/* A metric name of the tables (source/nic_names.c) without its _total. */
static const char *base_name(char *buf, size_t len, const char *metric)
{
	size_t n = strlen(metric);

	if (n > 6 && !strcmp(metric + n - 6, "_total"))
		n -= 6;
	snprintf(buf, len, "%.*s", (int)n, metric);
	return buf;
}

static void render_ports(struct mw *w, const struct nic_state *s)
{
	char port[16], base[128];
	struct label l[4];

	mw_family(w, "fabprobe_nic_port", MT_INFO,
		  "An RDMA device port fabprobe reads, its netdev and link layer");
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct nic_port *p = &s->ports[i];

		snprintf(port, sizeof(port), "%u", p->port);
		l[0] = (struct label){"device", p->device};
		l[1] = (struct label){"port", port};
		l[2] = (struct label){"netdev", p->netdev};
		l[3] = (struct label){"link_layer", p->link_layer};
		mw_sample_u64(w, l, 4, 1);
	}
	for (size_t k = 0; k < nic_n_known_rdma; k++) {
		const struct nic_counter_desc *d = &nic_known_rdma[k];
		bool any = false;

		for (size_t i = 0; i < s->n_ports && !any; i++)
			any = nic_counter_get(&s->ports[i].hw, d->name);
		if (!any)
			continue;
		mw_family(w, base_name(base, sizeof(base), d->metric), MT_COUNTER, d->help);
		for (size_t i = 0; i < s->n_ports; i++) {
			const struct nic_port *p = &s->ports[i];
			const struct nic_counter *c = nic_counter_get(&p->hw, d->name);

			if (!c)
				continue;
			snprintf(port, sizeof(port), "%u", p->port);
			l[0] = (struct label){"device", p->device};
			l[1] = (struct label){"port", port};
			l[2] = (struct label){"netdev", p->netdev};
			mw_sample_u64(w, l, 3, c->value);
		}
	}
}

static void render_pfc(struct mw *w, const struct nic_state *s)
{
	static const struct {
		const char *base, *help;
		bool error;
	} storms[] = {
	    {"fabprobe_nic_pfc_storm_warning_events",
	     "Times the NIC's PFC stall watchdog saw pause sent past its warning watermark", false},
	    {"fabprobe_nic_pfc_storm_error_events",
	     "Times the NIC's PFC stall watchdog stopped sending pause "
	     "(tx_pause_storm_error_events)",
	     true},
	};
	char prio[4], base[128];
	struct label l[2];

	for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
		bool any = false;

		for (size_t i = 0; i < s->n_netdevs && !any; i++)
			for (int p = 0; p < NIC_PRIOS && !any; p++)
				any = nic_pfc(&s->netdevs[i], p, f);
		if (!any)
			continue;
		mw_family(w, base_name(base, sizeof(base), nic_pfc_fields[f].metric), MT_COUNTER,
			  nic_pfc_fields[f].help);
		for (size_t i = 0; i < s->n_netdevs; i++) {
			for (int p = 0; p < NIC_PRIOS; p++) {
				const struct nic_counter *c = nic_pfc(&s->netdevs[i], p, f);

				if (!c)
					continue;
				snprintf(prio, sizeof(prio), "%d", p);
				l[0] = (struct label){"netdev", s->netdevs[i].name};
				l[1] = (struct label){"priority", prio};
				/* Prometheus' base unit is the second; drivers count microseconds.
				 */
				if (f == NIC_PFC_RX_PAUSE_US || f == NIC_PFC_TX_PAUSE_US)
					mw_sample_double(w, l, 2, c->value / 1e6);
				else
					mw_sample_u64(w, l, 2, c->value);
			}
		}
	}
	for (size_t k = 0; k < sizeof(storms) / sizeof(storms[0]); k++) {
		bool any = false;

		for (size_t i = 0; i < s->n_netdevs; i++)
			any |= (storms[k].error ? s->netdevs[i].storm_error
						: s->netdevs[i].storm_warning) >= 0;
		if (!any)
			continue;
		mw_family(w, storms[k].base, MT_COUNTER, storms[k].help);
		for (size_t i = 0; i < s->n_netdevs; i++) {
			const struct nic_netdev *nd = &s->netdevs[i];
			int at = storms[k].error ? nd->storm_error : nd->storm_warning;

			if (at < 0)
				continue;
			l[0] = (struct label){"netdev", nd->name};
			mw_sample_u64(w, l, 1, nd->ethtool.v[at].value);
		}
	}
}

/* QPs per device and state, every state of every device (0 when none). */
static void render_qps(struct mw *w, const struct nic_state *s)
{
	enum { STATES = 7 }; /* RESET .. ERR */
	struct label l[2];

	mw_family(w, "fabprobe_nic_qps", MT_GAUGE,
		  "RDMA queue pairs of the device in the resource tracker, by state");
	for (size_t i = 0; i < s->n_ports; i++) {
		const char *dev = s->ports[i].device;
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = strcmp(s->ports[j].device, dev);
		for (int st = 0; first && st < STATES; st++) {
			__u64 n = 0;

			for (size_t q = 0; q < s->n_qps; q++)
				n += s->qps[q].state == st && !strcmp(s->qps[q].device, dev);
			l[0] = (struct label){"device", dev};
			l[1] = (struct label){"state", nic_qp_state_name(st)};
			mw_sample_u64(w, l, 2, n);
		}
	}
}

void metrics_render_nic(struct mw *w, const struct nic_state *s)
{
	render_ports(w, s);
	render_pfc(w, s);
	render_qps(w, s);
}
