/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session_nic.h - the NIC counters a session reads beside its flows
 * (source.nic: --nic, --nic-root), refreshed with it:
 *
 *   nic_refresh -> predicted source ports -> flows matched to local QPs
 *     -> peers, predicted paths, QPs sharing a path -> NIC alerts
 *
 * NIC alerts join the analysis' alerts (and so the alert log, by type and
 * subject); alerts that name flows owned by local QPs get the owning
 * processes in their evidence. A picture is one NIC state with what it
 * says about the flows; the session keeps two: the last interval's, and
 * the whole run's (read at the start and again by session_whole()).
 */
#ifndef __FP_SESSION_NIC_H
#define __FP_SESSION_NIC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/analysis.h"
#include "core/nic_detect.h"
#include "source/nic.h"

#define NIC_COLL_QPS 8 /* QPs named per shared path */

/* Local QPs the hash model puts on one next-tier path of a port while another path has none. */
struct nic_qp_collision {
	char device[NIC_DEV_LEN];
	__u32 port;
	int path, idle_path;
	int qps[NIC_COLL_QPS]; /* indices into the state's qps, the first NIC_COLL_QPS */
	int n_qps;
	int total; /* QPs on the path */
};

struct nic_peer; /* where a QP's peer is, learned from a flow (session_nic.c) */

struct nic_picture {
	struct nic_state st;
	int lossless_prio; /* --data-pcp, else NIC_LOSSLESS_PRIO_DEFAULT */
	bool predict;	   /* --hash-model: paths predicted */
	__u32 n_paths;
	int *flow_qp; /* per snapshot flow: its local QP (index into st.qps), -1: none */
	size_t n_flow_qp, cap_flow_qp;
	struct nic_qp_collision *coll;
	size_t n_coll, cap_coll;
	/* per refresh: QPs with a predicted port, by port; their peers */
	int *by_sport;
	size_t n_by_sport, cap_by_sport;
	struct nic_peer *peers;
	size_t cap_peers;
};

struct session_nic {
	struct nic_picture now;	  /* the last interval */
	struct nic_picture whole; /* the whole run */
	struct nic_detect_opts dopts;
	struct hash_config hash;
};

/*
 * Read the NIC state once (twice: for now and for the whole run), so that
 * the first session refresh has an interval. Errors reported (a missing
 * --nic-root, no memory); negative errno.
 */
int session_nic_start(struct session_nic **out, const struct nic_opts *o,
		      const struct analysis_opts *ao);
/*
 * A --nic-root that is not a recorded tree (missing, not a directory, none
 * of its parts) is a mistake worth one line, said here: 0 or negative errno.
 * session_nic_start() checks it too; a front end checks it first to say
 * it before what comes later (a --listen port taken).
 */
int session_nic_check_root(const char *root);
/* Re-read the NIC, match snap's flows, add its alerts to an (sorted again). */
int session_nic_refresh(struct session_nic *n, const struct snapshot *snap, struct analysis *an);
/* The same over the whole run, into the whole-run analysis. */
int session_nic_whole(struct session_nic *n, const struct snapshot *snap, struct analysis *whole);
void session_nic_free(struct session_nic *n);

/*
 * The local QP of a flow key: predicted source port (the inner one in
 * VXLAN) and, as roce_match_flow(), the remote QP as destination QP
 * (outgoing) or its own (incoming). Index into p->st.qps, or -1.
 */
int nic_picture_match(const struct nic_picture *p, const struct flow_key *k, bool *outgoing);
/* The QP owning flow i of the snapshot last matched, or NULL. */
const struct nic_qp *nic_flow_owner(const struct nic_picture *p, size_t flow);
/* An alert type core/nic_detect.c raises. */
bool nic_alert_type(enum alert_type t);
/* "ib_write_bw[41001]", "ib_core" (kernel, no pid): a QP's owner in few columns. */
const char *nic_owner_text(char *buf, size_t len, const struct nic_qp *q);
/* "mlx5_0/1", or "mlx5_0/-" for a QP not bound to a port yet (port 0). */
const char *nic_qp_where(char *buf, size_t len, const struct nic_qp *q);

#endif /* __FP_SESSION_NIC_H */
