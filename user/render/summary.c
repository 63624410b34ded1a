// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/session_nic.h"
#include "render/summary.h"
#include "util/format.h"

static const char *const advice[ALERT_TYPE_MAX] = {
    [ALERT_ELEPHANT_COLLISION] =
	"Change the colliding QPs' UDP source ports (more QPs per connection, or a "
	"different port range), or enable adaptive routing / a different ECMP hash on "
	"the switch.",
    [ALERT_PREDICTED_COLLISION] =
	"Check the next tier's hash against the switch's configuration; try the "
	"suggested source port or a different QP count.",
    [ALERT_CE_WITHOUT_CNP] =
	"On the receiving host check that ECN/DCQCN is enabled for this priority "
	"(e.g. the NIC's roce_np / cnp settings) and that CNPs are not dropped on the "
	"way back.",
    [ALERT_CNP_WITHOUT_CE] =
	"Find where the marking happens: the switches after this probe point, or a NIC "
	"configured to send CNPs by itself.",
    [ALERT_NOT_ECT_ROCE] = "Enable ECN on the sending NIC for RoCE traffic (ECT(0)/ECT(1) on data "
			   "packets), so that switches can mark it.",
    [ALERT_WRONG_TRAFFIC_CLASS] =
	"Check the NIC's DSCP/PCP for RoCE (trust mode, default ToS) against the "
	"switches' lossless and CNP queues.",
    [ALERT_RETRANSMITS] = "Look for drops on the path: switch discard counters, PFC disabled or "
			  "misconfigured for this priority, buffer exhaustion, link errors.",
    [ALERT_RNR_NAKS] = "The receiving application does not post receive buffers fast enough; check "
		       "its receive queue depth and CPU.",
    [ALERT_PSN_GAPS] = "Packets were lost before this probe: check discards and errors on the hops "
		       "between the sender and here (or mirror-port oversubscription).",
    [ALERT_LOW_ENTROPY] =
	"Check whether the NIC or library pins the RoCE UDP source port; spread QPs "
	"over distinct source ports so ECMP can balance them.",
    [ALERT_PATH_IMBALANCE] =
	"Compare the uplinks' hashing: few large flows, a low-entropy source port, or "
	"a hash that ignores the UDP ports.",
    [ALERT_MALFORMED] = "Check the mirror session's truncation length and the encapsulation "
			"(ERSPAN/VXLAN) the collector receives.",
    [ALERT_FLOW_TABLE_PRESSURE] =
	"Raise --flows, or narrow what the probe sees (interfaces, mirror filters).",
    [ALERT_ROCE_STOPPED] =
	"Ask whether the job ended; else check the uplinks' links and routes (a path "
	"down blackholes every QP hashed onto it), PFC pause holding the lossless "
	"class (--nic), and the job's processes.",
    [ALERT_PFC_STORM] =
	"When this NIC sends the pause, look at the host first (PCIe, memory, a stuck "
	"process not draining its receive queues); when it receives it, at the congested "
	"switch queue and where its pause comes from; check the PFC watchdog settings.",
    [ALERT_PFC_WRONG_PRIORITY] =
	"Compare the PFC-enabled priorities of the NIC (mlnx_qos, dcb pfc) and of the "
	"switch port with the plan: pause belongs to the lossless priority only.",
    [ALERT_LOSSLESS_DISCARDS] =
	"Check that PFC is enabled for this priority on both ends, that the buffer's "
	"headroom fits the cable length, and that the traffic really uses the priority.",
    [ALERT_NIC_CNP_MISMATCH] =
	"Check that DCQCN (ECN) is enabled for the priority on the NIC (mlx5: "
	"/sys/class/net/IF/ecn/roce_np/enable/N and roce_rp/enable/N) and the CNPs' DSCP "
	"and priority.",
    [ALERT_NIC_SEQ_ERRORS] =
	"Look for drops between the peers: switch discards, PFC on the right priority, "
	"link errors; the peers' retransmits.",
    [ALERT_NIC_ACK_TIMEOUTS] = "Look for the same drops, or a peer that went away; each "
			       "timeout stalls its QP for the whole transport timeout.",
    [ALERT_NIC_RNR_RETRIES] = "The receiving process does not post receives fast enough: its "
			      "receive queue depth and CPU.",
    [ALERT_LOSSY_ROCE] = "Check the NIC's trust mode (DSCP or PCP) and the DSCP/priority the "
			 "RoCE traffic gets (mlnx_qos, cma_roce_tos, the application's traffic "
			 "class) against the lossless priority.",
};

/*
 * Mirror sessions are mirrored switch ports, perhaps of several switches:
 * a hash explains their loads only when they are one ECMP group's members.
 */
static const char *const session_advice[ALERT_TYPE_MAX] = {
    [ALERT_ELEPHANT_COLLISION] =
	"Find which switch ports the sessions mirror: if they are one ECMP group's members "
	"(a leaf's uplinks), change the colliding QPs' UDP source ports (more QPs per "
	"connection, or a different port range), or enable adaptive routing / a different "
	"ECMP hash on that switch; otherwise they share that port because of where they go, "
	"not of a hash.",
    [ALERT_PATH_IMBALANCE] =
	"Find which switch ports the sessions mirror: if they are one ECMP group's members "
	"(a leaf's uplinks), compare the switch's hashing: few large flows, a low-entropy "
	"source port, or a hash that ignores the UDP ports; otherwise their loads differ by "
	"the traffic each port carries.",
};

const char *alert_advice(const struct alert *al)
{
	enum alert_type t = al->type;

	if (t >= ALERT_TYPE_MAX)
		return "";
	if (al->mirror_sessions && session_advice[t])
		return session_advice[t];
	return advice[t] ?: "";
}

static void local_time(char *buf, size_t len, time_t t, const char *format)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, format, &tm))
		snprintf(buf, len, "?");
}

const char *report_observed(char *buf, size_t len, double seconds)
{
	/* A capture of a few hundred frames spans a fraction of a second: "0 s" says nothing. */
	if (seconds < 10)
		return fmt_seconds(buf, len, seconds);
	snprintf(buf, len, "%.0f s", seconds);
	return buf;
}

const char *report_made(char *buf, size_t len)
{
	local_time(buf, len, time(NULL), "%Y-%m-%d %H:%M:%S %Z");
	return buf;
}

/* One counter summed over the NIC's netdevs (ethtool) or RDMA ports (IB PMA); false: none has it.
 */
static bool nic_sum(const struct nic_state *st, bool ethtool, const char *name,
		    struct nic_counter *sum)
{
	size_t n = ethtool ? st->n_netdevs : st->n_ports;
	bool found = false;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		const struct nic_counter *c =
		    nic_counter_get(ethtool ? &st->netdevs[i].ethtool : &st->ports[i].pma, name);

		if (!c)
			continue;
		found = true;
		sum->value += c->value;
		sum->delta += c->delta;
	}
	return found;
}

/*
 * NIC counters alone watch no packet, so there are no RoCE flows to time:
 * say so, and what the NICs counted of RDMA instead (mlx5's vport RDMA
 * counters, else the IB PMA packet counters of the RDMA ports).
 */
static const char *nic_span(const struct report *r, char *buf, size_t len)
{
	static const struct {
		bool ethtool;
		const char *rx, *tx, *says;
	} sources[] = {
	    {true, "rx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_packets",
	     "rx/tx_vport_rdma_unicast_packets"},
	    {false, "port_rcv_packets", "port_xmit_packets",
	     "the RDMA ports' port_rcv/xmit_packets"},
	};
	const struct nic_state *st = r->nic ? &r->nic->st : NULL;
	const char *none = "no packets watched (NIC counters only)";
	char rx[48], when[48];
	struct nic_counter in, out;

	if (!st || (!st->n_ports && !st->n_netdevs)) {
		/* Counters read once and gone since (info says which) were read. */
		snprintf(buf, len, "%s, and %s", none,
			 st && st->info[0] ? st->info : "no NIC counters were read");
		return buf;
	}
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		if (!nic_sum(st, sources[i].ethtool, sources[i].rx, &in) ||
		    !nic_sum(st, sources[i].ethtool, sources[i].tx, &out))
			continue;
		/* Read once, there is no interval: only what they hold since they started. */
		if (st->interval_s <= 0)
			snprintf(
			    buf, len,
			    "%s; the NICs count %s received and %llu sent since their counters "
			    "started (%s)",
			    none, fmt_count(rx, sizeof(rx), in.value, "RDMA packet"),
			    (unsigned long long)out.value, sources[i].says);
		else
			snprintf(buf, len,
				 "%s; the NICs counted %s received and %llu sent in %s, %llu and "
				 "%llu since their counters started (%s)",
				 none, fmt_count(rx, sizeof(rx), in.delta, "RDMA packet"),
				 (unsigned long long)out.delta,
				 fmt_window(when, sizeof(when), st->interval_s, FMT_WINDOW_WHOLE),
				 (unsigned long long)in.value, (unsigned long long)out.value,
				 sources[i].says);
		return buf;
	}
	snprintf(buf, len,
		 "%s; they hold no count of RDMA packets (neither rx/tx_vport_rdma_unicast_packets "
		 "nor port_rcv/xmit_packets): see the NIC counters below",
		 none);
	return buf;
}

const char *report_span(const struct report *r, char *buf, size_t len)
{
	const struct snapshot *s = r->snap;
	__u64 first = UINT64_MAX, last = 0;
	char a[32], b[48];

	if (!strcmp(r->src->mode, "nic"))
		return nic_span(r, buf, len);
	for (size_t i = 0; i < s->n_flows; i++) {
		const struct flow_counters *c = &s->flows[i].c;

		if (c->first_seen_ns && c->first_seen_ns < first)
			first = c->first_seen_ns;
		if (c->last_seen_ns > last)
			last = c->last_seen_ns;
	}
	if (first > last) {
		snprintf(buf, len, "no RoCE flows");
		return buf;
	}
	local_time(a, sizeof(a), (time_t)(((__s64)first + s->clock_offset_ns) / 1000000000LL),
		   "%Y-%m-%d %H:%M:%S");
	local_time(b, sizeof(b), (time_t)(((__s64)last + s->clock_offset_ns) / 1000000000LL),
		   "%Y-%m-%d %H:%M:%S %Z");
	/* One day's span names the day once. */
	snprintf(buf, len, "%s to %s", a, !strncmp(a, b, 11) ? b + 11 : b);
	return buf;
}

/* A word as a shell reads it back: bare when safe, else in single quotes. */
static void shell_word(FILE *out, const char *w)
{
	if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			      "_-+=.,:/@%") == strlen(w)) {
		fputs(w, out);
		return;
	}
	fputc('\'', out);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", out);
		else
			fputc(*w, out);
	fputc('\'', out);
}

void summary_provenance(FILE *out, const struct provenance *p)
{
	char started[32];

	fprintf(out, "host: %s, fabprobe %s, started %s\ncommand: fabprobe", p->host, p->version,
		provenance_started(started, sizeof(started), p));
	for (int i = 0; i < p->argc; i++) {
		fputc(' ', out);
		shell_word(out, p->argv[i]);
	}
	fputc('\n', out);
	if (p->partial)
		fprintf(out, "partial: %s\n", p->partial);
}

bool report_nic_lost(const struct report *r)
{
	const struct nic_state *st = r->nic ? &r->nic->st : NULL;

	return !strcmp(r->src->mode, "nic") && st && st->n_seen && !st->n_ports;
}

const char *report_unseen_hint(const struct report *r)
{
	const __u64 *t = r->snap->totals;

	if (report_nic_lost(r))
		return "This is not a clean bill of health. The RDMA ports were read, then went "
		       "away before the end (a driver unloaded, a device reset or unplugged: the "
		       "kernel log says which), so the end of the run has no counters to compare "
		       "with its start: what the reads before raised, if anything, is listed as "
		       "raised during the run.";

	/* RoCE that was there, cut short: a mirror or a capture that keeps too little. */
	if (r->src->every_packet && t[FP_CNT_ROCE_CUT] + t[FP_CNT_MIRROR_ROCE_CUT])
		return "This is not a clean bill of health. RoCE was there, but its frames "
		       "ended before the BTH (the RoCE header that names the queue pair), so "
		       "there was no flow to count: a switch mirror session that truncates its "
		       "copies (raise its truncation length: RoCE over IPv6 needs the mirrored "
		       "packet's first 74 bytes, more with VLAN tags or VXLAN) or a capture's "
		       "snap length (docs/mirror.md, \"Truncated copies\").";
	/* A collector fed by mirror sessions: the mirror works, what it copies does not. */
	if (r->src->every_packet && t[FP_CNT_MIRRORED])
		return "This is not a clean bill of health. Switch mirror copies (ERSPAN or "
		       "GRE, decapsulated here) arrived, but none carried RoCEv2 on the RoCE UDP "
		       "port (4791, or --roce-port): check on the switches which ports, "
		       "direction and filter the mirror sessions copy.";
	/* A part of a capture (stopped, -d, cut short): the rest was not read, not found empty. */
	if (r->src->finite && r->src->every_packet && r->prov && r->prov->partial)
		return "This is not a clean bill of health. The part of the capture read holds no "
		       "RoCEv2 on the RoCE UDP port (4791, or --roce-port), and the rest was not "
		       "read (\"partial\", above, says why): it may hold the RoCE.";
	if (r->src->finite && r->src->every_packet)
		return "This is not a clean bill of health. The capture holds no RoCEv2 on the "
		       "RoCE UDP port (4791, or --roce-port): check where it was taken and its "
		       "filter; a host's own capture misses RoCE offloaded to its NIC (\"Where "
		       "fabprobe can see RoCE, and where it cannot\" in fabprobe's README.md).";
	/* Sampled RoCE the switches' header size cut before the BTH: not where they sample. */
	if (!r->src->every_packet && strcmp(r->src->mode, "nic") && t[FP_CNT_ROCE_CUT])
		return "This is not a clean bill of health. The switches sampled RoCE, but their "
		       "sampled headers ended before the BTH (the RoCE header that names the "
		       "queue pair), so there was no flow to count: raise the sFlow header size "
		       "on the switches (160 bytes covers RoCE in VXLAN over IPv6 in IPv6; "
		       "docs/sflow.md).";
	if (!r->src->every_packet && strcmp(r->src->mode, "nic"))
		return "This is not a clean bill of health. No sample was of RoCEv2: check that "
		       "the "
		       "switches sample the ports RoCE crosses, their sampling rate, and that "
		       "their "
		       "sFlow reaches this port (docs/sflow.md).";
	return "This is not a clean bill of health. RoCE offloaded to the NIC (ConnectX, "
	       "BlueField, Broadcom, ...) never passes through the host kernel, so XDP and tc on "
	       "that host do not see it: see \"Where fabprobe can see RoCE, and where it cannot\" "
	       "in fabprobe's README.md (switch mirrors, sFlow, --nic for the NIC's own counters).";
}

const char *report_unseen(const struct report *r, char *buf, size_t len)
{
	const __u64 *t = r->snap->totals;
	bool nic_read = r->nic && (r->nic->st.n_ports || r->nic->st.n_netdevs);

	if (!strcmp(r->src->mode, "nic")) {
		if (nic_read)
			return NULL;
		snprintf(buf, len, "%s, and no packets were watched",
			 r->nic && r->nic->st.info[0] ? r->nic->st.info
						      : "no NIC counters were read");
	} else if (t[FP_CNT_ROCE]) {
		return NULL;
	} else if (!t[FP_CNT_FRAMES]) {
		snprintf(buf, len, "no frames at all came from %s", r->src->what);
	} else {
		__u64 cut = t[FP_CNT_ROCE_CUT] + t[FP_CNT_MIRROR_ROCE_CUT];
		char copies[64] = "", cut_short[64] = "";

		if (t[FP_CNT_MIRRORED])
			snprintf(copies, sizeof(copies), " (%llu of them switch mirror copies)",
				 (unsigned long long)t[FP_CNT_MIRRORED]);
		if (cut)
			snprintf(cut_short, sizeof(cut_short),
				 " with a whole BTH: %llu cut short before it",
				 (unsigned long long)cut);
		snprintf(buf, len,
			 "no RoCE traffic: %llu frames from %s%s, none of them RoCEv2%s%s",
			 (unsigned long long)t[FP_CNT_FRAMES], r->src->what, copies, cut_short,
			 nic_read ? " (the NIC counters beside them were read)" : "");
	}
	return buf;
}

const char *report_no_paths(const struct report *r)
{
	/* A mirror session is a path once a flow comes in it: naming uplinks would not help. */
	if (r->snap->totals[FP_CNT_MIRRORED] && !r->snap->totals[FP_CNT_ROCE])
		return "each switch mirror session is a path once its copies carry RoCE with a "
		       "whole BTH, and none did";
	return r->no_paths;
}

const struct alert_entry *report_cleared(const struct alert_log *log, size_t *i)
{
	while (log && *i < log->n) {
		const struct alert_entry *e = &log->e[log->order[(*i)++]];

		if (!e->active)
			return e;
	}
	return NULL;
}

const char *report_cleared_when(char *buf, size_t len, const struct alert_entry *e)
{
	snprintf(buf, len, "at %.0f-%.0f s (%llu refresh%s)", e->first_s, e->last_s,
		 (unsigned long long)e->count, e->count == 1 ? "" : "es");
	return buf;
}

static void summary_cleared(FILE *out, const struct alert_log *log)
{
	const struct alert_entry *e;
	char when[64];

	for (size_t i = 0, shown = 0; (e = report_cleared(log, &i)); shown++) {
		if (!shown)
			fprintf(out,
				"ALSO RAISED DURING THE RUN (cleared before its end; times from "
				"its start)\n\n");
		fprintf(out, "- [%s] %s %s: %s\n", severity_name(e->last.severity),
			alert_type_name(e->last.type), report_cleared_when(when, sizeof(when), e),
			e->last.message);
		fprintf(out, "   evidence, when last raised: %s\n", e->last.evidence);
		fprintf(out, "   check next: %s\n\n", alert_advice(&e->last));
	}
}

void summary_text(FILE *out, const struct report *r, double duration_s)
{
	const struct analysis *a = r->an;
	char made[64], span[320], unseen[512], observed[32];
	bool blind = report_unseen(r, unseen, sizeof(unseen));

	fprintf(out, "fabprobe capture summary, made %s, %s observed\n",
		report_made(made, sizeof(made)),
		report_observed(observed, sizeof(observed), duration_s));
	fprintf(out, "input: %s (%s%s)\n", r->src->what, r->src->how, source_uplink_note(r->src));
	fprintf(out, "RoCE traffic: %s\n", report_span(r, span, sizeof(span)));
	if (r->prov)
		summary_provenance(out, r->prov);
	fputc('\n', out);
	/* No alert over nothing seen is no verdict: say what was not seen, and why that can be. */
	if (blind)
		fprintf(out, "%s: %s.\n%s\n\n",
			a->n_alerts	     ? "NOTE"
			: report_nic_lost(r) ? "FINDINGS: none, as the RDMA ports read went away"
					     : "FINDINGS: none, as nothing was observed",
			unseen, report_unseen_hint(r));
	if (!a->n_alerts && !blind) {
		fprintf(out, "FINDINGS: nothing wrong was seen.\n\n");
	} else if (a->n_alerts) {
		fprintf(out, "FINDINGS (%zu, worst first)\n\n", a->n_alerts);
		for (size_t i = 0; i < a->n_alerts; i++) {
			const struct alert *al = &a->alerts[i];

			fprintf(out, "%zu. [%s] %s: %s\n", i + 1, severity_name(al->severity),
				alert_type_name(al->type), al->message);
			fprintf(out, "   evidence: %s\n", al->evidence);
			fprintf(out, "   check next: %s\n\n", alert_advice(al));
		}
	}
	summary_cleared(out, r->log);
	/* Balance and collisions are per path: say why there are none, and how to name them. */
	if (!a->n_paths && report_no_paths(r))
		fprintf(out, "PATHS: none: %s\n\n", report_no_paths(r));
	report_text(out, r);
}
