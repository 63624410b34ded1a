// SPDX-License-Identifier: GPL-2.0
/*
 * nic_detect.c - the NIC alerts. Every check looks at counter deltas of
 * one interval, so an alert clears by itself once the counter stops
 * moving. Counter meanings: mlx5 counters.rst and the Mellanox/NVIDIA
 * "Understanding mlx5 Linux counters" notes; DCQCN roles: the notification
 * point (NP) is the receiver of ECN-marked data that answers with CNPs,
 * the reaction point (RP) the sender that slows down on them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "core/nic_detect.h"

void nic_detect_opts_default(struct nic_detect_opts *o)
{
	o->lossless_prio = NIC_LOSSLESS_PRIO_DEFAULT;
	o->pause_share_storm = NIC_PAUSE_SHARE_STORM;
	o->seq_err_per_s = NIC_SEQ_ERR_PER_S;
	o->rnr_retry_per_s = NIC_RNR_RETRY_PER_S;
	o->ack_timeouts_min = NIC_ACK_TIMEOUTS_MIN;
	o->cnp_marks_min = NIC_CNP_MARKS_MIN;
	o->discards_min = NIC_DISCARDS_MIN;
	o->lossy_rdma_per_s = NIC_LOSSY_RDMA_PER_S;
}

struct out {
	struct alert **v;
	size_t *n, *cap;
	char window[32]; /* "in the last 5 s" */
	double interval_s;
};

/* An alert about subject (a netdev, a port, a priority): its identity beside the type. */
static struct alert *add(struct out *o, enum alert_type type, enum severity sev,
			 const char *subject)
{
	return alert_push(o->v, o->n, o->cap, type, sev, -1, subject);
}

#define say alert_printf

/* Append to an evidence line, as long as it has room. */
static void append(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(char *buf, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used >= AN_MSG_LEN - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, AN_MSG_LEN - used, fmt, ap);
	va_end(ap);
}

static __u64 delta(const struct nic_counters *set, const char *name)
{
	const struct nic_counter *c = nic_counter_get(set, name);

	return c ? c->delta : 0;
}

static bool has(const struct nic_counters *set, const char *name)
{
	return nic_counter_get(set, name) != NULL;
}

static __u64 pfc_delta(const struct nic_netdev *nd, int prio, enum nic_pfc_field f)
{
	const struct nic_counter *c = nic_pfc(nd, prio, f);

	return c ? c->delta : 0;
}

static const char *port_name(char *buf, size_t len, const struct nic_port *p)
{
	if (p->netdev[0])
		snprintf(buf, len, "%s/%u (%s)", p->device, p->port, p->netdev);
	else
		snprintf(buf, len, "%s/%u", p->device, p->port);
	return buf;
}

/*
 * PFC storm: the NIC's stall watchdog fired (mlx5: tx_pause_storm_*_events,
 * the device kept sending pause for longer than the configured watermarks;
 * on the error one it stops sending pause), or one priority spent more
 * than a share of the interval paused, either way.
 */
static int storm_alerts(struct out *o, const struct nic_netdev *nd, const struct nic_detect_opts *d)
{
	__u64 warn = nd->storm_warning >= 0 ? nd->ethtool.v[nd->storm_warning].delta : 0;
	__u64 err = nd->storm_error >= 0 ? nd->ethtool.v[nd->storm_error].delta : 0;
	double interval_us = o->interval_s * 1e6;
	struct alert *al;

	if (warn || err) {
		al = add(o, ALERT_PFC_STORM, err ? SEV_CRITICAL : SEV_WARNING, nd->name);
		if (!al)
			return -ENOMEM;
		say(al->message, "%s: the NIC kept sending PFC pause past its stall %s %s%s",
		    nd->name, err ? "timeout and stopped pausing" : "watermark", o->window,
		    err ? ": its receive buffers overflow now" : "");
		say(al->evidence,
		    "tx_pause_storm_warning_events +%llu, tx_pause_storm_error_events +%llu",
		    (unsigned long long)warn, (unsigned long long)err);
	}
	if (interval_us <= 0)
		return 0;
	for (int p = 0; p < NIC_PRIOS; p++) {
		__u64 rx_us = pfc_delta(nd, p, NIC_PFC_RX_PAUSE_US);
		__u64 tx_us = pfc_delta(nd, p, NIC_PFC_TX_PAUSE_US);
		double rx_share =
		    nic_paused_share(nic_pfc(nd, p, NIC_PFC_RX_PAUSE_US), o->interval_s);
		double tx_share =
		    nic_paused_share(nic_pfc(nd, p, NIC_PFC_TX_PAUSE_US), o->interval_s);
		bool tx_worse = tx_share > rx_share;
		char subject[FP_NAME_LEN];

		if (rx_share < d->pause_share_storm && tx_share < d->pause_share_storm)
			continue;
		snprintf(subject, sizeof(subject), "%s prio %d", nd->name, p);
		al = add(o, ALERT_PFC_STORM, SEV_CRITICAL, subject);
		if (!al)
			return -ENOMEM;
		say(al->message, "%s priority %d was paused %.0f%% of the time %s: %s", nd->name, p,
		    100 * (tx_worse ? tx_share : rx_share), o->window,
		    tx_worse
			? "this host's NIC pauses its switch port (the host does not drain "
			  "its receive buffers)"
			: "the switch pauses this NIC (congestion spreading back from the fabric)");
		say(al->evidence,
		    "prio %d: rx_pause_duration +%llu us, tx_pause_duration +%llu us over %.1f s; "
		    "rx_pause +%llu, tx_pause +%llu",
		    p, (unsigned long long)rx_us, (unsigned long long)tx_us, o->interval_s,
		    (unsigned long long)pfc_delta(nd, p, NIC_PFC_RX_PAUSE),
		    (unsigned long long)pfc_delta(nd, p, NIC_PFC_TX_PAUSE));
	}
	return 0;
}

/* PFC belongs to the lossless priority: pause anywhere else is a misconfiguration. */
static int wrong_priority_alerts(struct out *o, const struct nic_netdev *nd,
				 const struct nic_detect_opts *d)
{
	char prios[32] = "", evidence[AN_MSG_LEN] = "";
	struct alert *al;
	int n = 0;

	for (int p = 0; p < NIC_PRIOS; p++) {
		__u64 rx = pfc_delta(nd, p, NIC_PFC_RX_PAUSE),
		      tx = pfc_delta(nd, p, NIC_PFC_TX_PAUSE);

		if (p == d->lossless_prio || (!rx && !tx))
			continue;
		snprintf(prios + strlen(prios), sizeof(prios) - strlen(prios), "%s%d",
			 n ? ", " : "", p);
		append(evidence, "%sprio %d: rx_pause +%llu, tx_pause +%llu", n ? "; " : "", p,
		       (unsigned long long)rx, (unsigned long long)tx);
		n++;
	}
	if (!n)
		return 0;
	al = add(o, ALERT_PFC_WRONG_PRIORITY, SEV_WARNING, nd->name);
	if (!al)
		return -ENOMEM;
	say(al->message, "%s: PFC pause on priorit%s %s, not the lossless priority %d, %s",
	    nd->name, n > 1 ? "ies" : "y", prios, d->lossless_prio, o->window);
	say(al->evidence, "%s", evidence);
	return 0;
}

/*
 * A lossless priority drops nothing: a discard there means PFC did not hold.
 * mlx5 counts three kinds (counters.rst, "Priority Port Counters"):
 * rx_prioN_discards, no receive buffer at the port (since 5.6); and per host,
 * rx_prioN_buf_discard, no receive buffer, and rx_prioN_cong_discard, its
 * congestion control.
 */
static int discard_alerts(struct out *o, const struct nic_netdev *nd,
			  const struct nic_detect_opts *d)
{
	__u64 buf = pfc_delta(nd, d->lossless_prio, NIC_PFC_BUF_DISCARD);
	__u64 cong = pfc_delta(nd, d->lossless_prio, NIC_PFC_CONG_DISCARD);
	char discards_name[32], port_said[64] = "";
	__u64 port;
	struct alert *al;

	snprintf(discards_name, sizeof(discards_name), "rx_prio%d_discards", d->lossless_prio);
	port = delta(&nd->ethtool, discards_name);
	if (port + buf + cong < d->discards_min)
		return 0;
	al = add(o, ALERT_LOSSLESS_DISCARDS, SEV_CRITICAL, nd->name);
	if (!al)
		return -ENOMEM;
	say(al->message, "%s dropped %llu packets of the lossless priority %d %s: %s", nd->name,
	    (unsigned long long)(port + buf + cong), d->lossless_prio, o->window,
	    port || buf ? "its receive buffer overflowed, PFC was not sent or not honoured in time"
			: "its congestion control discarded them");
	/* Said only where the driver has it: bnxt and older mlx5 do not. */
	if (has(&nd->ethtool, discards_name))
		snprintf(port_said, sizeof(port_said), "%s +%llu, ", discards_name,
			 (unsigned long long)port);
	say(al->evidence, "%srx_prio%d_buf_discard +%llu, rx_prio%d_cong_discard +%llu", port_said,
	    d->lossless_prio, (unsigned long long)buf, d->lossless_prio, (unsigned long long)cong);
	return 0;
}

/* rx_prioN_packets + tx_prioN_packets moved; false when the netdev counts neither. */
static bool prio_packets(const struct nic_netdev *nd, int prio, __u64 *moved)
{
	char rx[32], tx[32];

	snprintf(rx, sizeof(rx), "rx_prio%d_packets", prio);
	snprintf(tx, sizeof(tx), "tx_prio%d_packets", prio);
	*moved = delta(&nd->ethtool, rx) + delta(&nd->ethtool, tx);
	return has(&nd->ethtool, rx) || has(&nd->ethtool, tx);
}

/*
 * RoCE outside the lossless priority, seen from the NIC alone (offloaded
 * RoCE never reaches the probe): the NIC counts its RDMA packets
 * (rx/tx_vport_rdma_unicast_packets) and every priority's packets
 * (rx/tx_prioN_packets). RDMA on the lossless priority makes it carry at
 * least as many packets, other traffic there only more; under half means
 * most RoCE went where PFC does not protect it.
 */
static int lossy_roce_alerts(struct out *o, const struct nic_netdev *nd,
			     const struct nic_detect_opts *d)
{
	__u64 rdma = delta(&nd->ethtool, "rx_vport_rdma_unicast_packets") +
		     delta(&nd->ethtool, "tx_vport_rdma_unicast_packets");
	__u64 lossless, busiest = 0, moved;
	struct alert *al;
	int other = -1;

	if (o->interval_s <= 0 || rdma / o->interval_s < d->lossy_rdma_per_s ||
	    !prio_packets(nd, d->lossless_prio, &lossless) || 2 * lossless >= rdma)
		return 0;
	for (int p = 0; p < NIC_PRIOS; p++)
		if (p != d->lossless_prio && prio_packets(nd, p, &moved) && moved > busiest) {
			busiest = moved;
			other = p;
		}
	al = add(o, ALERT_LOSSY_ROCE, SEV_CRITICAL, nd->name);
	if (!al)
		return -ENOMEM;
	if (other >= 0)
		say(al->message,
		    "%s: RoCE is not on the lossless priority %d %s: of %llu RDMA packets it "
		    "carried %llu, priority %d %llu; without PFC a drop stalls a QP (go-back-N)",
		    nd->name, d->lossless_prio, o->window, (unsigned long long)rdma,
		    (unsigned long long)lossless, other, (unsigned long long)busiest);
	else
		say(al->message,
		    "%s: RoCE is not on the lossless priority %d %s: of %llu RDMA packets it "
		    "carried %llu; without PFC a drop stalls a QP (go-back-N)",
		    nd->name, d->lossless_prio, o->window, (unsigned long long)rdma,
		    (unsigned long long)lossless);
	say(al->evidence, "rx+tx_vport_rdma_unicast_packets +%llu; rx+tx_prio%d_packets +%llu",
	    (unsigned long long)rdma, d->lossless_prio, (unsigned long long)lossless);
	if (other >= 0)
		append(al->evidence, "; rx+tx_prio%d_packets +%llu", other,
		       (unsigned long long)busiest);
	return 0;
}

/*
 * One host sees one side of each CNP exchange: as notification point, the
 * ECN-marked packets it received and the CNPs it sent back (np_*); as
 * reaction point, the CNPs it received and handled or ignored (rp_*). The
 * "peer side" of a counter is the other half of the same exchange on this
 * host: marks in against CNPs out, CNPs in against CNPs handled. Comparing
 * this host's np_cnp_sent with its rp_cnp_handled would compare different
 * flows (what it receives with what it sends), so it is not done.
 */
static int cnp_alerts(struct out *o, const struct nic_port *p, const struct nic_detect_opts *d)
{
	__u64 marked = delta(&p->hw, "np_ecn_marked_roce_packets");
	__u64 sent = delta(&p->hw, "np_cnp_sent");
	__u64 handled = delta(&p->hw, "rp_cnp_handled");
	__u64 ignored = delta(&p->hw, "rp_cnp_ignored");
	char name[NIC_DEV_LEN + NIC_IFNAME_LEN + 16];
	struct alert *al;

	port_name(name, sizeof(name), p);
	if (has(&p->hw, "np_cnp_sent") && marked >= d->cnp_marks_min && !sent) {
		char subject[sizeof(name) + 24];

		snprintf(subject, sizeof(subject), "%s notification point", name);
		al = add(o, ALERT_NIC_CNP_MISMATCH, SEV_CRITICAL, subject);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s received %llu ECN-marked RoCE packets but sent no CNP %s: its "
		    "notification point is silent, so its senders never slow down",
		    name, (unsigned long long)marked, o->window);
		say(al->evidence, "np_ecn_marked_roce_packets +%llu, np_cnp_sent +0",
		    (unsigned long long)marked);
	}
	if (has(&p->hw, "rp_cnp_handled") && ignored && !handled) {
		char subject[sizeof(name) + 24];

		snprintf(subject, sizeof(subject), "%s reaction point", name);
		al = add(o, ALERT_NIC_CNP_MISMATCH, SEV_WARNING, subject);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s received %llu CNPs but handled none %s: its reaction point ignores "
		    "congestion notifications (DCQCN off for this priority?)",
		    name, (unsigned long long)ignored, o->window);
		say(al->evidence, "rp_cnp_ignored +%llu, rp_cnp_handled +0",
		    (unsigned long long)ignored);
	}
	return 0;
}

static int transport_alerts(struct out *o, const struct nic_port *p,
			    const struct nic_detect_opts *d)
{
	__u64 oos = delta(&p->hw, "out_of_sequence"), seq = delta(&p->hw, "packet_seq_err");
	__u64 implied = delta(&p->hw, "implied_nak_seq_err");
	__u64 timeouts = delta(&p->hw, "local_ack_timeout_err");
	const struct nic_counter *rnr = nic_counter_get(&p->hw, "rnr_nak_retry_err");
	char name[NIC_DEV_LEN + NIC_IFNAME_LEN + 16];
	double interval = o->interval_s;
	struct alert *al;

	port_name(name, sizeof(name), p);
	if (interval > 0 && (oos + seq + implied) / interval >= d->seq_err_per_s) {
		al = add(o, ALERT_NIC_SEQ_ERRORS, SEV_WARNING, name);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s: %.1f sequence errors per second %s: packets of its QPs are lost or "
		    "reordered on the way (go-back-N resends follow)",
		    name, (oos + seq + implied) / interval, o->window);
		say(al->evidence,
		    "out_of_sequence +%llu, packet_seq_err +%llu, implied_nak_seq_err +%llu",
		    (unsigned long long)oos, (unsigned long long)seq, (unsigned long long)implied);
	}
	if (timeouts >= d->ack_timeouts_min) {
		al = add(o, ALERT_NIC_ACK_TIMEOUTS, SEV_WARNING, name);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s: %llu ACK timeouts %s: requests or their ACKs were lost, each one stalls "
		    "its QP for the whole transport timeout",
		    name, (unsigned long long)timeouts, o->window);
		say(al->evidence, "local_ack_timeout_err +%llu", (unsigned long long)timeouts);
	}
	if (rnr && interval > 0 && rnr->delta / interval >= d->rnr_retry_per_s) {
		al = add(o, ALERT_NIC_RNR_RETRIES, SEV_WARNING, name);
		if (!al)
			return -ENOMEM;
		say(al->message,
		    "%s: %.1f RNR NAKs per second %s: the receivers' queues run out of posted "
		    "receives",
		    name, rnr->delta / interval, o->window);
		say(al->evidence, "rnr_nak_retry_err +%llu", (unsigned long long)rnr->delta);
	}
	return 0;
}

int nic_detect(const struct nic_state *s, const struct nic_detect_opts *d, struct alert **alerts,
	       size_t *n_alerts, size_t *cap_alerts)
{
	struct out o = {.v = alerts, .n = n_alerts, .cap = cap_alerts, .interval_s = s->interval_s};
	int err = 0;

	if (s->refreshes < 2)
		return 0; /* no interval yet */
	/* "in the last 5 s", "in the last 2.5 s" */
	snprintf(o.window, sizeof(o.window), "in the last %.*f s",
		 s->interval_s < 10 && s->interval_s != (__u64)s->interval_s ? 1 : 0,
		 s->interval_s);
	for (size_t i = 0; !err && i < s->n_netdevs; i++) {
		const struct nic_netdev *nd = &s->netdevs[i];

		err = storm_alerts(&o, nd, d);
		if (!err)
			err = wrong_priority_alerts(&o, nd, d);
		if (!err)
			err = discard_alerts(&o, nd, d);
		if (!err)
			err = lossy_roce_alerts(&o, nd, d);
	}
	for (size_t i = 0; !err && i < s->n_ports; i++) {
		err = cnp_alerts(&o, &s->ports[i], d);
		if (!err)
			err = transport_alerts(&o, &s->ports[i], d);
	}
	return err;
}
