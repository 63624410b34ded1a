// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "json.h"
#include "report.h"

#define REPORT_VERSION 1

const struct iface_name *report_iface(const struct report_opts *o, __u32 ifindex)
{
	for (int i = 0; i < o->n_ifaces; i++)
		if (o->ifaces[i].ifindex == ifindex)
			return &o->ifaces[i];
	return NULL;
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

static void json_time(struct json *j, const char *key, __u64 ns, __s64 offset_ns)
{
	json_kv_double(j, key, (double)((__s64)ns + offset_ns) / 1e9, 6);
}

static void json_flow(struct json *j, const struct flow_record *r, const struct snapshot *s,
		      const struct report_opts *o)
{
	const struct flow_key *k = &r->key;
	const struct flow_counters *c = &r->c;
	const struct iface_name *ifn = report_iface(o, k->ifindex);
	bool vxlan = k->flags & FP_FLOW_VXLAN;

	json_obj_begin(j);
	json_addr(j, "src", k->src, k->flags & FP_FLOW_IPV6);
	json_addr(j, "dst", k->dst, k->flags & FP_FLOW_IPV6);
	json_kv_u64(j, "sport", k->sport);
	json_kv_u64(j, "dport", k->dport);
	json_key(j, "vni");
	if (vxlan)
		json_u64(j, k->vni);
	else
		json_null(j);
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
	json_kv_u64(j, "packets", c->packets);
	json_kv_u64(j, "bytes", c->bytes);
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
		if (c->dscp_mask & (1ULL << d))
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
	json_kv_u64(j, "cnp", c->cnp);
	json_kv_u64(j, "acks", c->acks);
	json_kv_u64(j, "naks", c->naks);
	json_kv_u64(j, "rnr_naks", c->rnr_naks);
	json_kv_u64(j, "retransmits", c->retransmits);
	json_kv_u64(j, "psn_gaps", c->psn_gaps);
	json_kv_u64(j, "fecn", c->fecn);
	json_kv_u64(j, "becn", c->becn);
	json_key(j, "opcodes");
	json_arr_begin(j);
	for (int op = 0; op < 256; op++)
		if (c->opcodes[op >> 6] & (1ULL << (op & 63)))
			json_u64(j, op);
	json_arr_end(j);
	json_kv_u64(j, "last_opcode", c->last_opcode);
	json_time(j, "first_seen", c->first_seen_ns, s->clock_offset_ns);
	json_time(j, "last_seen", c->last_seen_ns, s->clock_offset_ns);
	json_key(j, "interface");
	if (ifn && strcmp(o->mode, "live") == 0)
		json_str(j, ifn->name);
	else
		json_null(j);
	json_kv_str(j, "dir", fmt_dir(k->dir));
	json_key(j, "path");
	if (ifn && ifn->uplink)
		json_str(j, ifn->name);
	else
		json_null(j);
	json_obj_end(j);
}

static void json_totals(struct json *j, const struct snapshot *s, const struct report_opts *o)
{
	const __u64 *t = s->totals;

	json_key(j, "totals");
	json_obj_begin(j);
	json_kv_u64(j, "frames", t[FP_CNT_FRAMES]);
	json_kv_u64(j, "bytes", t[FP_CNT_BYTES]);
	json_kv_u64(j, "roce_packets", t[FP_CNT_ROCE]);
	json_kv_u64(j, "vxlan_packets", t[FP_CNT_VXLAN]);
	json_kv_u64(j, "cnp_packets", t[FP_CNT_CNP]);
	json_kv_u64(j, "malformed", t[FP_CNT_MALFORMED]);
	json_kv_u64(j, "other_packets", t[FP_CNT_OTHER]);
	json_kv_u64(j, "skipped_frames", o->skipped_frames);
	json_kv_u64(j, "flows", s->n_flows);
	json_kv_u64(j, "flow_table_size", s->flow_capacity);
	json_kv_u64(j, "flow_inserts", t[FP_CNT_FLOW_NEW]);
	json_kv_u64(j, "flow_insert_failures", t[FP_CNT_FLOW_INSERT_FAIL]);
	json_kv_u64(j, "flow_evictions", snapshot_evictions(s));
	json_kv_u64(j, "psn_insert_failures", t[FP_CNT_PSN_INSERT_FAIL]);
	json_obj_end(j);
}

void report_json(FILE *out, const struct snapshot *s, const struct report_opts *o)
{
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j);
	json_kv_u64(&j, "version", REPORT_VERSION);
	json_kv_str(&j, "mode", o->mode);
	json_totals(&j, s, o);
	json_key(&j, "flows");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->n_flows; i++)
		json_flow(&j, &s->flows[i], s, o);
	json_arr_end(&j);
	json_obj_end(&j);
}

static void text_totals(FILE *out, const struct snapshot *s, const struct report_opts *o)
{
	const __u64 *t = s->totals;
	char bytes[32];

	fprintf(out,
		"frames %llu (%s), RoCE %llu, VXLAN %llu, CNP %llu, other %llu, malformed %llu",
		(unsigned long long)t[FP_CNT_FRAMES],
		fmt_si(bytes, sizeof(bytes), (double)t[FP_CNT_BYTES], "B"),
		(unsigned long long)t[FP_CNT_ROCE], (unsigned long long)t[FP_CNT_VXLAN],
		(unsigned long long)t[FP_CNT_CNP], (unsigned long long)t[FP_CNT_OTHER],
		(unsigned long long)t[FP_CNT_MALFORMED]);
	if (o->skipped_frames)
		fprintf(out, ", skipped %llu", (unsigned long long)o->skipped_frames);
	fprintf(out, "\nflows %zu of %u table entries, %llu evicted, %llu insert failures\n\n",
		s->n_flows, s->flow_capacity, (unsigned long long)snapshot_evictions(s),
		(unsigned long long)t[FP_CNT_FLOW_INSERT_FAIL]);
}

static const char *flow_endpoints(char *buf, size_t len, const struct flow_key *k)
{
	char src[FP_ADDR_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = k->flags & FP_FLOW_IPV6;

	snprintf(buf, len, "%s:%u > %s", fmt_addr(src, sizeof(src), k->src, v6), k->sport,
		 fmt_addr(dst, sizeof(dst), k->dst, v6));
	return buf;
}

void report_text(FILE *out, const struct snapshot *s, const struct report_opts *o)
{
	size_t n = s->n_flows;
	char ep[128], bytes[32], vni[16], op[32];

	text_totals(out, s, o);
	if (!n) {
		fprintf(out, "no RoCE flows\n");
		return;
	}
	if (o->max_flows && o->max_flows < n)
		n = o->max_flows;
	fprintf(out, "%-44s %8s %7s %9s %10s %6s %6s %6s %6s %6s %6s  %s\n",
		"FLOW (src:sport > dst)", "VNI", "QP", "PACKETS", "BYTES", "CE", "CNP", "ACK",
		"NAK", "RTX", "GAPS", "LAST OPCODE");
	for (size_t i = 0; i < n; i++) {
		const struct flow_record *r = &s->flows[i];
		const struct flow_counters *c = &r->c;

		if (r->key.flags & FP_FLOW_VXLAN)
			snprintf(vni, sizeof(vni), "%u", r->key.vni);
		else
			snprintf(vni, sizeof(vni), "-");
		fprintf(out, "%-44s %8s %7u %9llu %10s %6llu %6llu %6llu %6llu %6llu %6llu  %s\n",
			flow_endpoints(ep, sizeof(ep), &r->key), vni, r->key.dest_qp,
			(unsigned long long)c->packets,
			fmt_si(bytes, sizeof(bytes), (double)c->bytes, "B"),
			(unsigned long long)(c->ecn[3] + c->inner_ecn[3]),
			(unsigned long long)c->cnp, (unsigned long long)c->acks,
			(unsigned long long)(c->naks + c->rnr_naks),
			(unsigned long long)c->retransmits, (unsigned long long)c->psn_gaps,
			fmt_opcode(op, sizeof(op), c->last_opcode));
	}
	if (n < s->n_flows)
		fprintf(out, "... %zu more flows (--json shows all)\n", s->n_flows - n);
}
