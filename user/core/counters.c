// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "core/counters.h"
#include "core/analysis.h"
#include "probe/collect.h"

/* In the order of the JSON report's "totals" object (docs/json.md). */
const struct total_def total_defs[] = {
    {FP_CNT_FRAMES, "frames", "frames", "Frames seen on every hooked interface and direction",
     "frames", "frames_per_s", CK_COUNTER, TF_RATE | TF_ALWAYS},
    {FP_CNT_BYTES, "bytes", "frame_bytes", "Bytes of the frames seen, as on the wire", "bytes",
     NULL, CK_COUNTER, TF_BYTES},
    {FP_CNT_ROCE, "roce_packets", "roce_frames", "RoCEv2 frames (bare or in VXLAN), CNPs included",
     "RoCE", "roce_per_s", CK_COUNTER, TF_TEXT | TF_RATE | TF_ALWAYS},
    {FP_CNT_VXLAN, "vxlan_packets", "vxlan_frames", "Frames with a VXLAN header on the VXLAN port",
     "VXLAN", "vxlan_per_s", CK_COUNTER, TF_TEXT | TF_RATE | TF_ALWAYS},
    {FP_CNT_CNP, "cnp_packets", "cnp_frames",
     "RoCEv2 congestion notification packets (opcode 0x81)", "CNP", NULL, CK_COUNTER,
     TF_TEXT | TF_RATE | TF_ALWAYS},
    {FP_CNT_MALFORMED, "malformed", "malformed_frames",
     "Frames on the RoCEv2 or VXLAN port too short or inconsistent to parse", "malformed",
     "malformed_per_s", CK_COUNTER, TF_TEXT | TF_RATE | TF_ALWAYS},
    {FP_CNT_OTHER, "other_packets", "other_frames", "Frames that are not RoCEv2", "other", NULL,
     CK_COUNTER, TF_TEXT | TF_ALWAYS},
    {FP_CNT_ROCE_CUT, "roce_cut", "roce_cut_frames",
     "Frames whose bytes end between the RoCE port and the end of the BTH: a snap length, a "
     "short sFlow header (no flow)",
     "cut before the BTH", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SKIPPED, "skipped_frames", NULL,
     "Frames of a recording the kernel would not run (too short or too long; with sFlow also "
     "headers of another protocol or of an untracked port)",
     "skipped", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_DATAGRAMS, "sflow_datagrams", "sflow_datagrams", "sFlow datagrams decoded",
     "sFlow datagrams", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_SAMPLES, "sflow_samples", "sflow_samples",
     "sFlow samples (flow, counter and other) in the decoded datagrams", "sFlow samples", NULL,
     CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_LOST, "sflow_lost_datagrams", "sflow_lost_datagrams",
     "sFlow datagrams missing from the agents' sequence numbers", "sFlow lost", NULL, CK_COUNTER,
     TF_TEXT},
    {SNAP_CNT_SFLOW_SEQ_RESETS, "sflow_sequence_resets", "sflow_sequence_resets",
     "sFlow agents' sequence numbers that went back or jumped ahead further than any loss could "
     "(a restart, a reset, a corrupted number): not counted as lost",
     "sFlow sequence resets", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_MALFORMED, "sflow_malformed", "sflow_malformed_datagrams",
     "sFlow datagrams rejected as malformed (not sFlow v5, or cut short or inconsistent)",
     "sFlow malformed", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_MALFORMED_SAMPLES, "sflow_malformed_samples", "sflow_malformed_samples",
     "sFlow sampled headers refused, the rest of their datagram kept: a sampling rate of 0, or a "
     "frame length longer than any frame",
     "sFlow malformed samples", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_SOCKET_DROPS, "sflow_socket_drops", "sflow_socket_drops",
     "sFlow datagrams the kernel dropped at the listening socket (receive buffer full)",
     "sFlow socket drops", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_OTHER_PROTO, "sflow_skipped_protocol", NULL,
     "sFlow sampled headers skipped for a header protocol other than Ethernet, IPv4 or IPv6 (in "
     "skipped_frames too)",
     "sFlow other-protocol headers", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_SFLOW_UNTRACKED, "sflow_skipped_untracked", NULL,
     "sFlow sampled headers skipped for a port beyond those tracked (in skipped_frames too)",
     "sFlow untracked-port headers", NULL, CK_COUNTER, TF_TEXT},
    {SNAP_CNT_FLOWS, "flows", "flows", "Flows in the flow table now", "flows", NULL, CK_GAUGE, 0},
    {SNAP_CNT_FLOW_CAPACITY, "flow_table_size", "flow_table_capacity",
     "Entries the flow tables can hold (--flows IPv4 plus --flows6 IPv6)", "table entries", NULL,
     CK_GAUGE, 0},
    {FP_CNT_FLOW_NEW, "flow_inserts", "flow_inserts", "Flows added to the flow table", "inserted",
     NULL, CK_COUNTER, 0},
    {FP_CNT_FLOW_INSERT_FAIL, "flow_insert_failures", "flow_insert_failures",
     "Flows the flow table could not take", "insert failures", NULL, CK_COUNTER, 0},
    {SNAP_CNT_EVICTIONS, "flow_evictions", "flow_evictions",
     "Flows evicted from the flow table (LRU) to make room", "evicted", NULL, CK_COUNTER, 0},
    {FP_CNT_MIRRORED, "mirrored_frames", "mirrored_frames",
     "Frames decoded as switch mirror copies (ERSPAN I/II/III, GRE TEB)", "mirrored", NULL,
     CK_COUNTER, TF_TEXT},
    {FP_CNT_MIRROR_TRUNCATED, "mirror_truncated", "mirror_truncated_frames",
     "Mirror copies shorter than the packet they mirror (counted from its IP length)",
     "truncated copies", NULL, CK_COUNTER, TF_TEXT},
    {FP_CNT_MIRROR_ROCE_CUT, "mirror_roce_cut", "mirror_roce_cut_frames",
     "Mirror copies cut (by the switch or a snap length) between the RoCE port and the end of "
     "the BTH (no flow)",
     "copies cut before the BTH", NULL, CK_COUNTER, TF_TEXT},
    {FP_CNT_MIRROR_NOT_ETH, "mirror_not_eth", "mirror_not_ethernet_frames",
     "ERSPAN III copies of a frame that is not Ethernet (frame type not 0)", "non-Ethernet copies",
     NULL, CK_COUNTER, TF_TEXT},
    {FP_CNT_MIRROR_DROPPED, "mirror_dropped", "mirror_dropped_frames",
     "Mirror copies dropped after counting (--mirror-port-drop)", "copies dropped", NULL,
     CK_COUNTER, TF_TEXT},
};
const size_t n_total_defs = sizeof(total_defs) / sizeof(total_defs[0]);

const struct flow_def flow_defs[FC_MAX] = {
    [FC_PACKETS] = {"packets", "roce_packets", "RoCEv2 packets", "PACKETS",
		    FF_IFACE | FF_DSCP | FF_VNI},
    [FC_BYTES] = {"bytes", "roce_bytes", "RoCEv2 bytes, frame length on the wire", "BYTES",
		  FF_IFACE | FF_DSCP | FF_VNI},
    [FC_CE] = {"ce", "ce_packets",
	       "RoCEv2 packets marked CE (in VXLAN the larger of the outer and inner counts)", "CE",
	       FF_IFACE | FF_DSCP | FF_VNI},
    [FC_CNP] = {"cnp", "cnp_packets", "RoCEv2 congestion notification packets", "CNP",
		FF_IFACE | FF_DSCP | FF_VNI},
    [FC_RTX] = {"retransmits", "retransmitted_packets",
		"RoCEv2 packets resent: requests (PSN not ahead of the highest), READs "
		"retried, READ responses sent again",
		"RTX", FF_IFACE | FF_VNI | FF_EVERY_PACKET},
    [FC_NAKS] = {"naks", "nak_packets", "RoCEv2 NAKs (PSN sequence error and others)", "NAK",
		 FF_IFACE},
    [FC_RNR_NAKS] = {"rnr_naks", "rnr_nak_packets", "RoCEv2 RNR NAKs (receiver not ready)", "RNR",
		     FF_IFACE},
    [FC_GAPS] = {"psn_gaps", "psn_gaps",
		 "Jumps ahead in a flow's request PSNs (loss before the probe)", "GAPS",
		 FF_IFACE | FF_EVERY_PACKET},
    [FC_NOT_ECT] = {"not_ect", "not_ect_packets",
		    "RoCEv2 packets sent Not-ECT, CNPs (Not-ECT by design) and ACKs among them; "
		    "not_ect_roce counts data only",
		    "NOT-ECT", FF_IFACE},
    [FC_ACKS] = {"acks", NULL, "RoCEv2 ACKs", "ACK", 0},
    [FC_FECN] = {"fecn", NULL, "Packets with the BTH FECN bit", "FECN", 0},
    [FC_BECN] = {"becn", NULL, "Packets with the BTH BECN bit", "BECN", 0},
};

__u8 flow_class_dscp(const struct flow_record *r, bool cnps)
{
	__u64 set = cnps ? r->cnp_dscp_mask : r->c.dscp_mask;
	__u8 newest = r->c.dscp & 63;

	if (!set || (set & (1ULL << newest)))
		return newest;
	return __builtin_ctzll(set);
}

/*
 * A CNP's frame on the wire: Ethernet, the flow's 802.1Q tag, IP, UDP,
 * then BTH, 16 reserved bytes and the ICRC (IBTA Annex A17.9.3); in
 * VXLAN the inner frame's headers after the outer UDP (RFC 7348).
 */
static __u64 cnp_frame_bytes(const struct flow_record *r)
{
	const __u8 flags = r->key.flags;
	__u64 len = 14 + (r->c.vlan_tagged ? 4 : 0) + (flags & FP_FLOW_IPV6 ? 40 : 20) + 8 +
		    FP_BTH_LEN + 16 + FP_ICRC_LEN;

	if (flags & FP_FLOW_VXLAN)
		len += FP_VXLAN_HLEN + 14 + (flags & FP_FLOW_INNER_IPV6 ? 40 : 20) + 8;
	return len;
}

int flow_delta_by_class(const struct flow_record *r, const struct flow_delta *d, __u8 dscp[2],
			struct flow_delta *part)
{
	__u64 cnps = min_u64(d->cnp, d->packets);
	struct flow_delta *cnp = &part[1];

	part[0] = *d;
	/* Only one kind in the interval: all of it in that kind's class. */
	dscp[0] = flow_class_dscp(r, cnps && cnps == d->packets);
	if (!cnps || cnps == d->packets)
		return 1;
	dscp[1] = flow_class_dscp(r, true);
	if (dscp[1] == dscp[0])
		return 1;
	memset(cnp, 0, sizeof(*cnp));
	cnp->packets = cnps;
	cnp->cnp = cnps;
	cnp->bytes = min_u64(cnps * cnp_frame_bytes(r), d->bytes);
	/* CNPs are sent Not-ECT with BECN set: CE marks are the other packets' first. */
	cnp->not_ect = min_u64(d->not_ect, cnps);
	cnp->becn = min_u64(d->becn, cnps);
	cnp->ce = d->ce > d->packets - cnps ? d->ce - (d->packets - cnps) : 0;
	for (int i = 0; i < FC_MAX; i++)
		part[0].v[i] -= cnp->v[i];
	return 2;
}

const char *flow_sampling_text(char *buf, size_t len, const struct flow_record *flows, size_t n)
{
	__u32 lo = ~0u, hi = 0;
	int o;

	for (size_t i = 0; i < n; i++) {
		if (!flows[i].samples)
			continue;
		lo = flows[i].rate < lo ? flows[i].rate : lo;
		hi = flows[i].rate > hi ? flows[i].rate : hi;
	}
	if (!hi)
		lo = 0;
	o = snprintf(buf, len, "1 in %u", lo);
	if (hi != lo && o > 0 && (size_t)o < len)
		snprintf(buf + o, len - o, " to 1 in %u", hi);
	return buf;
}
