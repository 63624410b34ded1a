// SPDX-License-Identifier: GPL-2.0
/*
 * nic_names.c - counter names: the canonical (mlx5) names fabprobe knows,
 * the aliases other drivers use for the same thing, the PFC field table
 * renderers walk, and the QP type and state names of `rdma res show`.
 *
 * Sources: mlx5 en_stats.c (rx_prio%d_pause..., pport_pfc_stall_stats_desc,
 * pport_per_tc_prio and _congest_prio), mlx5 counters.rst (pause durations
 * are in microseconds), bnxt_en bnxt_ethtool.c (rx_pfc_ena_frames_pri%d,
 * pfc_pri%d_*_duration_us / _transitions from the extended port stats),
 * bnxt_re hw_counters.c, ice_ethtool.c (rx_priority_%u_xoff.nic).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "source/nic_priv.h"

const struct nic_pfc_desc nic_pfc_fields[NIC_PFC_FIELD_MAX] = {
    [NIC_PFC_RX_PAUSE] = {"rx_prio%u_pause", "rx_pause", "fabprobe_nic_pfc_rx_pause_frames_total",
			  "RXPAUSE", "PFC pause frames received for the priority"},
    [NIC_PFC_TX_PAUSE] = {"tx_prio%u_pause", "tx_pause", "fabprobe_nic_pfc_tx_pause_frames_total",
			  "TXPAUSE", "PFC pause frames sent for the priority"},
    [NIC_PFC_RX_PAUSE_US] = {"rx_prio%u_pause_duration", "rx_pause_duration_us",
			     "fabprobe_nic_pfc_rx_pause_seconds_total", "RXPAUSE_US",
			     "seconds the peer kept the priority paused (the driver counts "
			     "microseconds)"},
    [NIC_PFC_TX_PAUSE_US] =
	{"tx_prio%u_pause_duration", "tx_pause_duration_us",
	 "fabprobe_nic_pfc_tx_pause_seconds_total", "TXPAUSE_US",
	 "seconds this NIC kept the peer paused on the priority (the driver counts "
	 "microseconds)"},
    [NIC_PFC_RX_TRANSITIONS] = {"rx_prio%u_pause_transition", "rx_pause_transitions",
				"fabprobe_nic_pfc_rx_pause_transitions_total", "RXTRANS",
				"XOFF/XON transitions received for the priority"},
    [NIC_PFC_TX_TRANSITIONS] = {"tx_prio%u_pause_transition", "tx_pause_transitions",
				"fabprobe_nic_pfc_tx_pause_transitions_total", "TXTRANS",
				"XOFF/XON transitions sent for the priority"},
    [NIC_PFC_BUF_DISCARD] = {"rx_prio%u_buf_discard", "buf_discard",
			     "fabprobe_nic_prio_buffer_discards_total", "BUFDISC",
			     "packets of the priority dropped: no receive buffer"},
    [NIC_PFC_CONG_DISCARD] = {"rx_prio%u_cong_discard", "cong_discard",
			      "fabprobe_nic_prio_congestion_discards_total", "CONGDISC",
			      "packets of the priority dropped by the NIC's congestion control"},
    [NIC_PFC_MARKED] = {"rx_prio%u_marked", "marked", "fabprobe_nic_prio_ecn_marked_total",
			"MARKED", "packets of the priority ECN-marked by the NIC's buffer"},
};

const struct nic_counter_desc nic_known_rdma[] = {
    {"np_cnp_sent", "fabprobe_nic_np_cnp_sent_total", "CNPTX",
     "CNPs sent as notification point (receiving ECN-marked data)"},
    {"np_ecn_marked_roce_packets", "fabprobe_nic_np_ecn_marked_total", "ECNRX",
     "ECN-marked RoCE packets received as notification point"},
    {"rp_cnp_handled", "fabprobe_nic_rp_cnp_handled_total", "CNPRX",
     "CNPs handled as reaction point (the sender slowed down)"},
    {"rp_cnp_ignored", "fabprobe_nic_rp_cnp_ignored_total", "CNPIGN",
     "CNPs received and ignored as reaction point"},
    {"out_of_sequence", "fabprobe_nic_out_of_sequence_total", "OOS",
     "out-of-sequence packets received (responder)"},
    {"packet_seq_err", "fabprobe_nic_packet_seq_err_total", "SEQNAK",
     "NAK sequence error packets received (requester)"},
    {"implied_nak_seq_err", "fabprobe_nic_implied_nak_seq_err_total", "IMPNAK",
     "ACKs with a PSN beyond the expected one, taken as NAKs (requester)"},
    {"duplicate_request", "fabprobe_nic_duplicate_request_total", "DUP",
     "duplicate requests received (responder)"},
    {"local_ack_timeout_err", "fabprobe_nic_local_ack_timeout_total", "ACKTO",
     "ACK timer expirations of the QPs (requester)"},
    {"rnr_nak_retry_err", "fabprobe_nic_rnr_nak_retry_total", "RNR",
     "RNR NAKs received (requester), within the retry limit"},
    {"roce_adp_retrans", "fabprobe_nic_adaptive_retrans_total", "ADPRTX",
     "adaptive retransmissions"},
    {"out_of_buffer", "fabprobe_nic_out_of_buffer_total", "OOB",
     "packets dropped for lack of a receive WQE"},
};
const size_t nic_n_known_rdma = sizeof(nic_known_rdma) / sizeof(nic_known_rdma[0]);

/* Other drivers' names for the canonical ones; %u is a priority 0-7. */
struct alias {
	enum nic_domain domain;
	const char *driver, *canonical;
};

static const struct alias aliases[] = {
    /* bnxt_re hw_counters; rx_cnp_pkts counts CNPs received, mlx5 the handled ones. */
    {NIC_DOM_RDMA, "tx_cnp_pkts", "np_cnp_sent"},
    {NIC_DOM_RDMA, "cnp_tx_pkts", "np_cnp_sent"},
    {NIC_DOM_RDMA, "rx_cnp_pkts", "rp_cnp_handled"},
    {NIC_DOM_RDMA, "cnp_rx_pkts", "rp_cnp_handled"},
    {NIC_DOM_RDMA, "rx_ecn_marked_pkts", "np_ecn_marked_roce_packets"},
    {NIC_DOM_RDMA, "oos_drop_count", "out_of_sequence"},
    {NIC_DOM_RDMA, "res_oos_drop_count", "out_of_sequence"},
    {NIC_DOM_RDMA, "seq_err_naks_rcvd", "packet_seq_err"},
    {NIC_DOM_RDMA, "to_retransmits", "local_ack_timeout_err"},
    {NIC_DOM_RDMA, "rnr_naks_rcvd", "rnr_nak_retry_err"},
    {NIC_DOM_RDMA, "dup_req", "duplicate_request"},
    {NIC_DOM_RDMA, "dup_reqs", "duplicate_request"},
    {NIC_DOM_RDMA, "rx_out_of_buffer", "out_of_buffer"},
    /* bnxt_en: port statistics and the extended port statistics */
    {NIC_DOM_ETHTOOL, "rx_pfc_ena_frames_pri%u", "rx_prio%u_pause"},
    {NIC_DOM_ETHTOOL, "tx_pfc_ena_frames_pri%u", "tx_prio%u_pause"},
    {NIC_DOM_ETHTOOL, "pfc_pri%u_rx_duration_us", "rx_prio%u_pause_duration"},
    {NIC_DOM_ETHTOOL, "pfc_pri%u_tx_duration_us", "tx_prio%u_pause_duration"},
    {NIC_DOM_ETHTOOL, "pfc_pri%u_rx_transitions", "rx_prio%u_pause_transition"},
    {NIC_DOM_ETHTOOL, "pfc_pri%u_tx_transitions", "tx_prio%u_pause_transition"},
    /* ice: an XOFF frame is a pause request */
    {NIC_DOM_ETHTOOL, "rx_priority_%u_xoff.nic", "rx_prio%u_pause"},
    {NIC_DOM_ETHTOOL, "tx_priority_%u_xoff.nic", "tx_prio%u_pause"},
};

/*
 * Match name against a pattern with at most one %u, standing for one
 * decimal digit 0-7 (a priority). Returns the priority, 0 for a pattern
 * without %u, -1 when it does not match.
 */
int nic_match_prio(const char *name, const char *pattern)
{
	const char *pct = strstr(pattern, "%u");
	size_t head, tail, len = strlen(name);

	if (!pct)
		return strcmp(name, pattern) ? -1 : 0;
	head = pct - pattern;
	tail = strlen(pct + 2);
	if (len != head + 1 + tail || strncmp(name, pattern, head) ||
	    strcmp(name + head + 1, pct + 2))
		return -1;
	if (name[head] < '0' || name[head] >= '0' + NIC_PRIOS)
		return -1;
	return name[head] - '0';
}

const char *nic_fill_prio(char *out, size_t size, const char *pattern, int prio)
{
	const char *pct = strstr(pattern, "%u");

	if (!pct)
		snprintf(out, size, "%s", pattern);
	else
		snprintf(out, size, "%.*s%d%s", (int)(pct - pattern), pattern, prio, pct + 2);
	return out;
}

const char *nic_canonical_name(enum nic_domain d, const char *driver_name, char *out, size_t size)
{
	char trimmed[NIC_NAME_LEN];
	size_t start = 0, end = strlen(driver_name);

	/* Names are trimmed: one mlx5 version had "tx_pause_storm_warning_events ". */
	while (start < end && isspace((unsigned char)driver_name[start]))
		start++;
	while (end > start && isspace((unsigned char)driver_name[end - 1]))
		end--;
	snprintf(trimmed, sizeof(trimmed), "%.*s", (int)(end - start), driver_name + start);
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		int prio;

		if (aliases[i].domain != d)
			continue;
		prio = nic_match_prio(trimmed, aliases[i].driver);
		if (prio < 0)
			continue;
		return nic_fill_prio(out, size, aliases[i].canonical, prio);
	}
	snprintf(out, size, "%s", trimmed);
	return out;
}

const char *nic_qp_type_name(__u8 type)
{
	static const char *const names[] = {
	    "SMI",	     "GSI",	"RC",	      "UC",	 "UD",	    "RAW_IPV6",
	    "RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET", "XRC_INI", "XRC_TGT",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "UNKNOWN";
}

const char *nic_qp_state_name(__u8 state)
{
	static const char *const names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "UNKNOWN";
}
