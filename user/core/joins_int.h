/* SPDX-License-Identifier: GPL-2.0 */
/*
 * joins_int.h - the joins' own types, shared by joins.c (the joins, their
 * counts, reverse pairing) and qp_pairs.c (the QPs of crowded ports
 * paired by PSN). Not for other files: core/joins.h is the interface.
 */
#ifndef __FP_JOINS_INT_H
#define __FP_JOINS_INT_H

#include "core/analysis.h"
#include "util/radix.h"

/*
 * The hosts (and VNI) of a flow, and with the source port: the keys of the
 * joins below. v6 keeps the families apart: an IPv4 address is its first 4
 * bytes, the rest zero, which are also the 16 bytes of an IPv6 address.
 */
struct host_key {
	__u8 src[16], dst[16];
	__u32 vni;
	__u32 v6;
};

struct port_key {
	struct host_key hosts;
	__u16 sport;
	__u16 pad;
};

/*
 * A join's counts; its key is apart, at the same index of the joins' keys
 * (analysis_joins.host_keys, .port_keys), which only the lookups of new
 * flows read: the counting loops read the joins of every flow, a million
 * of them far apart, and a join without its key is a third of the lines.
 */
struct join {
	int rev;  /* the join of the reverse direction's key, -1: none yet */
	int flow; /* largest flow with this key, -1: none this refresh */
	union {
		int count; /* flows with these hosts (host join) */
		int group; /* its first QP group (port join, crowded_pairs()) */
	};
	int data_qps;	 /* distinct queue pairs among those carrying data (host join) */
	int data_sports; /* distinct source ports among those (host join) */
	__u32 qp;	 /* a data flow's destination QP (port join) */
	bool data_seen;	 /* a data flow has this port (port join) */
	bool qps_differ; /* and another data flow a different destination QP (port join) */
	bool many_qps;	 /* its flows go to more than one destination QP (port join) */
};

/*
 * A queue pair's flows on a crowded port: its destination QP, seen at one
 * observation point or several. first..end: its entries in the sorted
 * (port, QP) list; rep, its largest flow, whose PSNs stand for it.
 */
struct qp_group {
	__u32 port;
	__u32 first, end;
	int rep;
	int near;	/* the group of the reverse port nearest it (qp_distance()), -1: none */
	__u32 req, ans; /* highest request PSN, highest PSN answered; PSN_NONE: none seen */
};

/*
 * The n sorted (port, QP) entries of crowded ports' flows (a port, or its
 * reverse, that carries more than one QP): each flow's reverse by PSN.
 */
void crowded_pairs(struct analysis *a, const struct radix_ent *sorted, size_t n);

#endif /* __FP_JOINS_INT_H */
