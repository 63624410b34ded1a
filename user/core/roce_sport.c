// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "core/roce_sport.h"

__u32 roce_flow_label(__u32 lqpn, __u32 rqpn)
{
	/*
	 * QP numbers are 24 bits, so the product fits in 48 and the kernel's
	 * two folds (v ^= v >> 20; v ^= v >> 40) reduce to three 20-bit slices.
	 */
	__u64 v = (__u64)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return v & ROCE_FLOW_LABEL_MASK;
}

__u16 roce_flow_label_sport(__u32 flow_label)
{
	__u32 low = flow_label & 0x3FFF, high = flow_label & 0xFC000;

	return (low ^ (high >> 14)) | ROCE_UDP_SPORT_MIN;
}

__u16 roce_udp_sport(__u32 flow_label, __u32 lqpn, __u32 rqpn)
{
	if (!flow_label)
		flow_label = roce_flow_label(lqpn, rqpn);
	return roce_flow_label_sport(flow_label);
}

void roce_qp_flow_key(struct flow_key *k, const __u8 src[16], const __u8 dst[16], bool v6,
		      __u32 lqpn, __u32 rqpn)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, src, v6 ? 16 : 4);
	memcpy(k->dst, dst, v6 ? 16 : 4);
	k->sport = roce_udp_sport(0, lqpn, rqpn);
	k->dport = FP_ROCE_PORT_DEFAULT;
	k->dest_qp = rqpn;
	k->flags = v6 ? FP_FLOW_IPV6 : 0;
}

__u32 roce_qp_path(const struct hash_config *c, const __u8 src[16], const __u8 dst[16], bool v6,
		   __u32 lqpn, __u32 rqpn)
{
	struct flow_key k;

	roce_qp_flow_key(&k, src, dst, v6, lqpn, rqpn);
	return hash_path(c, &k);
}

static bool prefixed(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool roce_sport_predictable(const struct nic_state *s, const char *device)
{
	/* The drivers (or, in a tree without the device's driver link, their device names). */
	static const char *const own[] = {"bnxt_re", "bnxt_en", "erdma"};

	for (size_t i = 0; i < s->n_ports; i++) {
		const struct nic_port *p = &s->ports[i];

		if (strcmp(p->device, device))
			continue;
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (!strcmp(p->driver, own[k]))
				return false;
		break;
	}
	return !prefixed(device, "bnxt_re") && !prefixed(device, "erdma");
}

void roce_predict_qps(struct nic_state *s, const struct hash_config *hc, roce_peer_fn peer,
		      void *ctx)
{
	for (size_t i = 0; i < s->n_qps; i++) {
		struct nic_qp *q = &s->qps[i];
		const struct nic_port *p;
		__u8 dst[16] = {0};
		bool v6 = false;

		q->predicted_sport = 0;
		q->predicted_path = -1;
		/* Before RTR a QP has no remote QP, so no port yet (ib_qp_state order). */
		if ((q->type != NIC_QPT_RC && q->type != NIC_QPT_UC) || !q->has_rqpn || !q->rqpn ||
		    q->state < 2 || q->state > 4 || !roce_sport_predictable(s, q->device))
			continue;
		q->predicted_sport = roce_udp_sport(0, q->lqpn, q->rqpn);
		p = nic_port_get(s, q->device, q->port);
		if (!hc || !peer || !p || !p->has_gid_addr || !peer(ctx, q, dst, &v6) ||
		    v6 != p->gid_v6)
			continue;
		q->predicted_path = roce_qp_path(hc, p->gid_addr, dst, v6, q->lqpn, q->rqpn);
	}
}

bool roce_flow_is_local(const struct nic_state *s, const struct nic_qp *q, const struct flow_key *k,
			bool outgoing)
{
	const struct nic_port *p = nic_port_get(s, q->device, q->port);

	if (!p || !p->has_gid_addr)
		return true;
	return roce_flow_v6(k) == p->gid_v6 &&
	       !memcmp(outgoing ? roce_flow_src(k) : roce_flow_dst(k), p->gid_addr, 16);
}

int roce_match_flow(const struct nic_state *s, const struct flow_key *k, bool *outgoing)
{
	for (size_t i = 0; i < s->n_qps; i++) {
		const struct nic_qp *q = &s->qps[i];
		bool out, in;

		if (!q->predicted_sport || q->predicted_sport != roce_flow_sport(k))
			continue;
		/* Each way by its own address: a QP may have its peer's number. */
		out = k->dest_qp == q->rqpn && roce_flow_is_local(s, q, k, true);
		in = !out && k->dest_qp == q->lqpn && roce_flow_is_local(s, q, k, false);
		if (out || in) {
			*outgoing = out;
			return i;
		}
	}
	return -1;
}
