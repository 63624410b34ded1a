/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roce_sport.h - the UDP source port a RoCEv2 queue pair puts on the wire,
 * as the kernel derives it from the QP numbers, and the ECMP path a hash
 * model gives that flow. Lets flows seen anywhere be matched to the QPs
 * (and processes) of a host.
 *
 * Linux (include/rdma/ib_verbs.h): with a zero GRH flow label,
 * rdma_calc_flow_label() folds lqpn * rqpn into 20 bits, and
 * rdma_flow_label_to_udp_sport() folds those into 14 bits above 0xC000.
 * The product is symmetric, so both directions of a QP pair carry the same
 * port. Drivers that use it: mlx5 ("Define RoCEv2 udp source port when set
 * path", v5.8), rxe (on modify_qp with an address vector), hns, irdma.
 * Not predicted: an application-set flow label (then the label is folded
 * instead), mlx5dv_modify_qp_udp_sport(), drivers with their own scheme
 * (bnxt_re, erdma), and a QP before it has a remote QP number.
 */
#ifndef __FP_ROCE_SPORT_H
#define __FP_ROCE_SPORT_H

#include <stdbool.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "core/ecmp_hash.h"
#include "source/nic.h"

/*
 * A flow's queue pair as its NICs made it: its hosts and the UDP source
 * port they chose. In VXLAN the inner ones: the outer addresses are VTEPs
 * that many hosts share, and the outer port is each VTEP's hash of the
 * inner headers, not the NICs' symmetric one.
 */
static inline bool roce_flow_vxlan(const struct flow_key *k)
{
	return k->flags & FP_FLOW_VXLAN;
}

static inline const __u8 *roce_flow_src(const struct flow_key *k)
{
	return roce_flow_vxlan(k) ? k->inner_src : k->src;
}

static inline const __u8 *roce_flow_dst(const struct flow_key *k)
{
	return roce_flow_vxlan(k) ? k->inner_dst : k->dst;
}

static inline bool roce_flow_v6(const struct flow_key *k)
{
	return k->flags & (roce_flow_vxlan(k) ? FP_FLOW_INNER_IPV6 : FP_FLOW_IPV6);
}

static inline __u16 roce_flow_sport(const struct flow_key *k)
{
	return roce_flow_vxlan(k) ? k->inner_sport : k->sport;
}

#define ROCE_UDP_SPORT_MIN   0xC000 /* IB_ROCE_UDP_ENCAP_VALID_PORT_MIN */
#define ROCE_FLOW_LABEL_MASK 0xFFFFF

/* rdma_calc_flow_label(): the 20-bit label of a QP pair. */
__u32 roce_flow_label(__u32 lqpn, __u32 rqpn);
/* rdma_flow_label_to_udp_sport(): a 20-bit label as a port in 0xC000-0xFFFF. */
__u16 roce_flow_label_sport(__u32 flow_label);
/* rdma_get_udp_sport(): the label when given (non-zero), else from the QPs. */
__u16 roce_udp_sport(__u32 flow_label, __u32 lqpn, __u32 rqpn);

/*
 * The flow key of the requests a QP sends: outer addresses (IPv4 in the
 * first 4 bytes, as the probe stores them), the predicted source port, UDP
 * 4791 and the remote QP as BTH destination QP. The QP resource dump does
 * not carry addresses: src is the port's RoCEv2 GID (nic_port.gid_addr),
 * dst must come from elsewhere: a flow seen with the predicted port, or
 * the rdma_cm id of the QP (`rdma res show cm_id`: src-addr, dst-addr).
 */
void roce_qp_flow_key(struct flow_key *k, const __u8 src[16], const __u8 dst[16], bool v6,
		      __u32 lqpn, __u32 rqpn);
/* The path the hash model gives a QP's requests (hash_path of the key). */
__u32 roce_qp_path(const struct hash_config *c, const __u8 src[16], const __u8 dst[16], bool v6,
		   __u32 lqpn, __u32 rqpn);

/*
 * Where the peer of a QP is, for its path: fill dst (IPv4 in the first 4
 * bytes) and return true, or false when unknown. A caller matches flows
 * seen with the QP's predicted port, or reads the rdma_cm ids.
 */
/*
 * Whether a device's QPs use the kernel's port: not on bnxt_re or erdma,
 * told by the driver bound under the device, else by the device's name.
 */
bool roce_sport_predictable(const struct nic_state *s, const char *device);

typedef bool (*roce_peer_fn)(void *ctx, const struct nic_qp *q, __u8 dst[16], bool *v6);

/*
 * Fill predicted_sport of the connected RC and UC QPs of a NIC state (state
 * RTR or later, a remote QP number), and predicted_path when hc is given,
 * the port's RoCEv2 address is known and peer() says where the peer is.
 */
void roce_predict_qps(struct nic_state *s, const struct hash_config *hc, roce_peer_fn peer,
		      void *ctx);

/*
 * The local QP a flow belongs to, after roce_predict_qps(): the QP whose
 * predicted port is the flow's source port and whose remote QP (the flow
 * leaves this host: *outgoing) or own QP (it arrives) is the flow's BTH
 * destination QP. Both directions of a pair carry the same port, and the
 * destination QP tells them apart and rules out two pairs that share a
 * port. Index into s->qps, or -1.
 */
int roce_match_flow(const struct nic_state *s, const struct flow_key *k, bool *outgoing);

/*
 * The flow's address on this host's side (its source when it leaves, its
 * destination when it arrives; the inner one in VXLAN) is the QP's port's
 * RoCE address: QP numbers repeat across hosts and devices. True when the
 * port's address is not known (nothing to tell them apart by).
 */
bool roce_flow_is_local(const struct nic_state *s, const struct nic_qp *q, const struct flow_key *k,
			bool outgoing);

#endif /* __FP_ROCE_SPORT_H */
