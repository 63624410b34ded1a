/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analysis.h - turns snapshots into what an operator needs: rates, paths
 * and their balance, elephants, collisions, and alerts with evidence.
 * Shared by every front end; it never reads maps and never prints.
 */
#ifndef __FP_ANALYSIS_H
#define __FP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "core/counters.h"
#include "core/ecmp_hash.h"
#include "core/mirror.h"
#include "probe/collect.h"
#include "source/source.h"
#include "util/kindex.h"

#define AN_MAX_PATHS   64
#define AN_ALERT_FLOWS 8
#define AN_MSG_LEN     256
/*
 * The analysis' loops over every flow run in parts, one a CPU
 * (probe/par.h), of this many flows at least: below, one loop.
 */
#define ANALYSIS_PART_MIN 16384

enum alert_type {
	ALERT_ELEPHANT_COLLISION,
	ALERT_PREDICTED_COLLISION,
	ALERT_CE_WITHOUT_CNP,
	ALERT_CNP_WITHOUT_CE,
	ALERT_NOT_ECT_ROCE,
	ALERT_WRONG_TRAFFIC_CLASS,
	ALERT_RETRANSMITS,
	ALERT_RNR_NAKS,
	ALERT_PSN_GAPS,
	ALERT_LOW_ENTROPY,
	ALERT_PATH_IMBALANCE,
	ALERT_MALFORMED,
	ALERT_FLOW_TABLE_PRESSURE,
	ALERT_ROCE_STOPPED,
	/* NIC counters (core/nic_detect.c) */
	ALERT_PFC_STORM,
	ALERT_PFC_WRONG_PRIORITY,
	ALERT_LOSSLESS_DISCARDS,
	ALERT_NIC_CNP_MISMATCH,
	ALERT_NIC_SEQ_ERRORS,
	ALERT_NIC_ACK_TIMEOUTS,
	ALERT_NIC_RNR_RETRIES,
	ALERT_LOSSY_ROCE,
	ALERT_TYPE_MAX,
};

enum severity {
	SEV_INFO,
	SEV_WARNING,
	SEV_CRITICAL,
};

struct alert {
	enum alert_type type;
	enum severity severity;
	/*
	 * What the alert is about, beside its type: an uplink's name, a
	 * next-tier path, or "" for an alert that groups flows. Type and
	 * subject are its identity across refreshes (core/alert_log.h).
	 */
	char subject[FP_NAME_LEN];
	char message[AN_MSG_LEN];  /* one line an engineer understands */
	char evidence[AN_MSG_LEN]; /* the numbers behind it */
	struct flow_key flows[AN_ALERT_FLOWS];
	int n_flows;
	int path; /* index into analysis.paths, -1 when none */
	/*
	 * About mirror sessions' paths: mirrored switch ports, perhaps of
	 * several switches, not one host's ECMP uplinks. What to check
	 * next differs (alert_advice()).
	 */
	bool mirror_sessions;
};

/* Thresholds and the traffic-class plan; every default lives here. */
struct analysis_opts {
	double elephant_bps;	/* 0: 10% of the uplink's speed, else of the group's peak */
	double imbalance_ratio; /* max/mean bytes above this is path_imbalance */
	double rnr_storm_per_s; /* RNR NAKs per second that make a storm */
	int data_dscp;		/* the lossless class RoCE data must use */
	int cnp_dscp;		/* the class CNPs must use */
	int data_pcp;		/* -1: not checked */
	int cnp_pcp;		/* -1: not checked */
	bool predict;		/* run the hash model (--hash-model given) */
	struct hash_config hash;
	struct mirror_names mirror_names; /* --mirror-session ID=NAME */
};

/*
 * What a flow did since the previous refresh (its whole life on the
 * first): the flow counters of core/counters.h, by name or by index.
 */
struct flow_delta {
	union {
		struct {
			__u64 packets, bytes, ce, cnp, rtx, naks, rnr_naks, gaps, not_ect, acks,
			    fecn, becn;
		};
		__u64 v[FC_MAX];
	};
};

/*
 * A flow as this refresh sees it: 128 bytes, two cache lines, written
 * for every flow on every refresh. Rates other than bps are worked out
 * where they are read (analysis_per_s(), flow_ce_fraction()).
 */
struct flow_view {
	const struct flow_record *r;
	struct flow_delta d;
	double bps;
	int path;	    /* index into analysis.paths, -1 when not on an uplink */
	int reverse;	    /* index of the opposite direction's flow, -1 unknown */
	int predicted_path; /* hash model's choice, -1 when not predicted */
	bool elephant;
	bool is_data;	 /* carries requests or read responses, not only ACK/CNP */
	bool is_request; /* carries requests: its QP's requester sends it (not only read responses)
			  */
	/* Outside the traffic-class plan (detect_wrong_class()); an interval's: only if it sent. */
	bool off_plan;
};
_Static_assert(sizeof(struct flow_view) == 128, "a view is two cache lines (docs/design.md)");

struct path_view {
	char name[FP_NAME_LEN];
	__u32 ifindex; /* flow_point_id() of its flows: an uplink's ifindex, or a mirror session */
	double speed_bps; /* 0 when the kernel reports none */
	__u64 flows, elephants, packets, bytes;
	double bps;
	int predicted_elephants;
	size_t rep; /* a mirror session's largest flow (analysis_before()), for its name */
	int group;  /* index into analysis.groups; -1: in no group */
	const struct port_counters *counters; /* the port's own counters (sFlow), or NULL */
};

/* A mirror session's path (the copies of a switch port), not an uplink. */
static inline bool path_is_mirror_session(const struct path_view *p)
{
	return p->ifindex & MIRROR_POINT_BIT;
}

/*
 * An ECMP group: paths balanced against each other, where elephants
 * collide. Live --uplinks and replay --path make one, unnamed ("").
 */
struct path_group {
	char name[FP_NAME_LEN];
	int n_paths;
	int busiest;				 /* index into analysis.paths */
	double imbalance_bytes, imbalance_flows; /* max/mean; 0 below two paths */
};

/* An elephant collision, observed on one uplink while another of its group has room. */
struct collision {
	int path, idle_path;
	int flows[AN_ALERT_FLOWS]; /* indices into analysis.flows: the first n_flows */
	int n_flows;
	int count; /* elephants on the path (a queue pair once, predicted) */
	bool predicted;
};

/* RoCE flows between two hosts, and how many UDP source ports they spread over. */
struct entropy_group {
	int flow; /* the group's largest data flow (analysis_before()), for its addresses */
	int qps;
	int sports;
};

struct join;
struct join_ids;
struct port_key;
struct qp_group;

/*
 * The joins of flows by hosts and by hosts+port (joins.c). Their members
 * are kept by rid, so they hold while the same flows sit at the same
 * rids, in any order by bytes; each refresh only counts them again.
 */
struct analysis_joins {
	struct join *host, *port;
	size_t n_host, n_port, cap_host, cap_port;
	/* Each join's key, by its index (a host join's: the hosts, at offset 0). */
	struct port_key *host_keys, *port_keys;
	size_t cap_host_keys, cap_port_keys;
	struct kindex host_index, port_index;
	struct join_ids *ids; /* each rid's joins */
	size_t cap_ids;
	size_t room; /* joins of each kind the arrays and indexes hold */
	int *order;  /* the host joins by their first flow in the flows' order */
	size_t n_order, cap_order;
	struct radix_ent *firsts; /* the counting's parts' hosts by their first flow (joins.c) */
	size_t cap_firsts;
	struct radix_ent *shared; /* (port, QP) of ports QPs share, and the sort's room */
	size_t cap_shared;
	struct qp_group *groups; /* the queue pairs of crowded ports (joins.c) */
	size_t cap_groups;
	bool crowded; /* a source port between two hosts carries more than one QP */
	bool valid;   /* ids[] holds every flow of prev[] at its rid */
};

/*
 * Per-flow memory across refreshes, at the flow's rid (collect.h): its
 * key and the counters then (its elephant state: analysis.was_elephant).
 * gen is the refresh that wrote it; an older one is a flow since gone.
 */
struct prev_flow {
	struct flow_key key;
	__u32 gen;
	struct flow_delta c; /* the counters then */
};

/* A rid's flow in this refresh: its index into analysis.flows. */
struct rid_state {
	__u32 pos;
	__u32 pass; /* the compute pass that set pos: a rid seen twice is not one */
};

struct analysis {
	struct flow_view *flows;
	size_t n_flows, cap_flows;
	struct path_view paths[AN_MAX_PATHS];
	int n_paths;
	struct path_group groups[AN_MAX_PATHS];
	int n_groups;
	/*
	 * Past AN_MAX_PATHS: the source's uplinks that are no path, and
	 * whether a mirror session is none. Their flows count in the totals,
	 * on no path.
	 */
	int paths_dropped;
	char dropped_first[FP_NAME_LEN]; /* the first of them */
	bool mirror_dropped;
	/* Of the least balanced group of two paths or more (imbalance_group, -1: none). */
	double imbalance_bytes, imbalance_flows; /* max/mean */
	int imbalance_group;
	double elephant_bps; /* the threshold used */
	double group_peak_bps;
	double interval_s;
	bool whole_run; /* no previous refresh: interval_s is the whole run so far */
	/*
	 * What totals_delta was counted over: interval_s, but for a whole
	 * run the source's time, which a recording's RoCE may span only part
	 * of (interval_s is then that part: session.c).
	 */
	double totals_s;
	/*
	 * Seconds of the source's time without a RoCE packet since RoCE was
	 * last seen (sources that see every packet; 0 while it flows). Over
	 * a whole run, from its last RoCE packet to its end.
	 */
	double roce_quiet_s;
	bool roce_seen;	    /* a refresh of this run counted RoCE packets */
	__u64 last_seen_ns; /* the latest last_seen_ns of this refresh's flows (0: none) */
	struct collision *collisions;
	size_t n_collisions, cap_collisions;
	struct alert *alerts;
	size_t n_alerts, cap_alerts;
	struct entropy_group *entropy;
	size_t n_entropy, cap_entropy;
	struct analysis_joins joins;
	__u64 totals_delta[SNAP_CNT_MAX];

	/*
	 * The previous refresh, for rates, by rid: a record's rid, or its
	 * place in the snapshot when the records carry none (by_pos).
	 */
	struct prev_flow *prev;
	size_t n_prev;		    /* flows in the previous refresh */
	size_t cap_prev, init_prev; /* prev[]'s room, and how much of it is initialised */
	/*
	 * Beside prev[], by rid: the flow was an elephant then. A byte a
	 * flow, written as the elephants are marked: a megabyte at a million
	 * flows, where prev[]'s records are far apart in memory.
	 */
	bool *was_elephant;
	size_t cap_was_elephant, init_was_elephant;
	/*
	 * Over prev[], by key: a flow's rid + 1. Flows new at a rid are added
	 * as they come; an entry whose rid holds another key or an older gen
	 * is left behind, and the index is built again from nothing when such
	 * entries would fill it.
	 */
	struct kindex prev_index;
	size_t index_n; /* entries in prev_index, left behind or not */
	bool index_ok;	/* prev_index finds every flow of prev[] */
	/* This refresh's flows not at the rid they had (new, or moved): their indices. */
	__u32 *fresh;
	size_t n_fresh, cap_fresh;
	/*
	 * Each flow's destination QP, by its place in this snapshot (the
	 * rates loop's copy, from a line it reads anyway): the joins read it
	 * for every flow, where the record itself is out of cache.
	 */
	__u32 *dest_qp;
	size_t cap_dest_qp;
	struct rid_state *rids;
	size_t cap_rids, init_rids;
	/*
	 * Each flow's rid, by its place in this snapshot: read in order, where
	 * the record's own rid is in its last line and the loops ahead of
	 * their accesses would wait for it.
	 */
	__u32 *pos_rid;
	size_t cap_pos_rid;
	size_t n_rids; /* this refresh's rids are below it */
	bool by_pos;
	bool indexed; /* the last update completed: prev_index finds its flows */
	__u32 gen, pass;
	/* This snapshot's flows are prev[]'s, each at the rid it had, in any order by bytes. */
	bool same_flows;
	__u64 prev_totals[SNAP_CNT_MAX];
	__u64 prev_taken_ns;
	bool have_prev;
};

void analysis_opts_default(struct analysis_opts *o);
/*
 * Analyse snapshot s of the source described by d (its points are the
 * paths). Rates are the difference to the previous call over the time
 * between the snapshots; on the first call over span_s seconds, or the
 * flows' own time span when span_s is 0.
 */
int analysis_update(struct analysis *a, const struct snapshot *s, const struct source_desc *d,
		    const struct analysis_opts *o, double span_s);
void analysis_free(struct analysis *a);

const char *alert_type_name(enum alert_type t);

/*
 * Append a zeroed alert of this type, severity, path (-1: none) and
 * subject (its identity beside the type, "" for a grouped alert) to a
 * growable array; NULL when out of memory. Every detector adds alerts so.
 */
struct alert *alert_push(struct alert **v, size_t *n, size_t *cap, enum alert_type type,
			 enum severity sev, int path, const char *subject);
/* printf into an alert's message or evidence (AN_MSG_LEN, cut to fit). */
void alert_printf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *severity_name(enum severity s);

/* Flow i's rid in the snapshot being analysed: the place of its state across refreshes. */
static inline __u32 analysis_rid(const struct analysis *a, size_t i)
{
	return a->pos_rid[i];
}

/* n counted over this refresh's interval (a view's delta), per second; 0 before any refresh. */
static inline double analysis_per_s(const struct analysis *a, __u64 n)
{
	return a->interval_s > 0 ? n / a->interval_s : 0;
}

/*
 * Flow i comes before flow j in byte order: more bytes, ties by key (the
 * order of snapshot_sort_by_bytes()), then by place. Every answer that
 * names "the largest" flow takes it by this, so that the answers do not
 * depend on the order the snapshot holds its flows in.
 */
static inline bool analysis_before(const struct analysis *a, size_t i, size_t j)
{
	return flow_record_before(a->flows[i].r, i, a->flows[j].r, j);
}

/*
 * Flow i into list (at most AN_ALERT_FLOWS, *n of them, in byte order):
 * the first flows of a set, whatever order they come in.
 */
void analysis_rank(const struct analysis *a, int list[AN_ALERT_FLOWS], int *n, size_t i);

/*
 * The window a's rates cover, for evidence and reports: "the last 1.0 s",
 * "the whole 56s", or "the 10s from the first RoCE packet" (a whole run whose RoCE
 * spans less than the run); totals: the totals' window (totals_s).
 */
const char *analysis_window(const struct analysis *a, bool totals, char *buf, size_t len);

/* A whole run whose flows' rates cover less than its totals: its RoCE spans less than it. */
static inline bool analysis_flows_narrower(const struct analysis *a)
{
	return a->whole_run && a->totals_s > a->interval_s + 1e-3;
}

/* Look a flow up by key in the last analysed snapshot: index or -1. */
int analysis_find(const struct analysis *a, const struct flow_key *k);

#endif /* __FP_ANALYSIS_H */
