// SPDX-License-Identifier: GPL-2.0
/*
 * session_nic.c - a session's NIC pictures: refresh the state, predict
 * each connected QP's UDP source port (core/roce_sport.c), match the flows
 * of the snapshot to local QPs through an index by port, learn each
 * matched QP's peer from its flow so the hash model can place it, name
 * the QPs that share a next-tier path, and raise the NIC alerts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/alert_log.h"
#include "core/roce_sport.h"
#include "core/session_nic.h"
#include "util/buf.h"
#include "util/log.h"

struct nic_peer {
	__u8 addr[16];
	size_t flow; /* the snapshot's flow it was taken from, once known */
	bool v6, known;
	bool vxlan; /* its flow is in VXLAN: the next tier hashes the VTEPs' headers */
};

static int picture_init(struct nic_picture *p, const struct nic_opts *o,
			const struct analysis_opts *ao)
{
	memset(p, 0, sizeof(*p));
	p->lossless_prio = ao->data_pcp >= 0 ? ao->data_pcp : NIC_LOSSLESS_PRIO_DEFAULT;
	p->predict = ao->predict;
	p->n_paths = ao->hash.n_paths;
	return nic_init(&p->st, o);
}

static void picture_free(struct nic_picture *p)
{
	nic_free(&p->st);
	free(p->flow_qp);
	free(p->coll);
	free(p->by_sport);
	free(p->peers);
	memset(p, 0, sizeof(*p));
}

static int by_sport_cmp(const void *a, const void *b, void *ctx)
{
	const struct nic_qp *q = ctx;
	int x = *(const int *)a, y = *(const int *)b;

	return q[x].predicted_sport != q[y].predicted_sport
		   ? (q[x].predicted_sport < q[y].predicted_sport ? -1 : 1)
		   : x - y;
}

/* The QPs with a predicted port, sorted by it. */
static int index_sports(struct nic_picture *p)
{
	p->n_by_sport = 0;
	if (buf_grow((void **)&p->by_sport, &p->cap_by_sport, p->st.n_qps + 1,
		     sizeof(*p->by_sport)))
		return -ENOMEM;
	for (size_t i = 0; i < p->st.n_qps; i++)
		if (p->st.qps[i].predicted_sport)
			p->by_sport[p->n_by_sport++] = i;
	if (p->n_by_sport > 1)
		qsort_r(p->by_sport, p->n_by_sport, sizeof(*p->by_sport), by_sport_cmp, p->st.qps);
	return 0;
}

int nic_picture_match(const struct nic_picture *p, const struct flow_key *k, bool *outgoing)
{
	__u16 sport = roce_flow_sport(k);
	size_t lo = 0, hi = p->n_by_sport;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->st.qps[p->by_sport[mid]].predicted_sport < sport)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Several QP pairs can fold to one port: the destination QP tells them apart. */
	for (; lo < p->n_by_sport; lo++) {
		const struct nic_qp *q = &p->st.qps[p->by_sport[lo]];
		bool out, in;

		if (q->predicted_sport != sport)
			break;
		/* Each way by its own address: a QP may have its peer's number. */
		out = k->dest_qp == q->rqpn && roce_flow_is_local(&p->st, q, k, true);
		in = !out && k->dest_qp == q->lqpn && roce_flow_is_local(&p->st, q, k, false);
		if (out || in) {
			*outgoing = out;
			return p->by_sport[lo];
		}
	}
	return -1;
}

const struct nic_qp *nic_flow_owner(const struct nic_picture *p, size_t flow)
{
	int q = flow < p->n_flow_qp ? p->flow_qp[flow] : -1;

	return q >= 0 && (size_t)q < p->st.n_qps ? &p->st.qps[q] : NULL;
}

bool nic_alert_type(enum alert_type t)
{
	return t >= ALERT_PFC_STORM && t <= ALERT_LOSSY_ROCE;
}

const char *nic_owner_text(char *buf, size_t len, const struct nic_qp *q)
{
	if (q->has_pid)
		snprintf(buf, len, "%s[%u]", q->comm[0] ? q->comm : "?", q->pid);
	else
		snprintf(buf, len, "%s", q->comm[0] ? q->comm : "kernel");
	return buf;
}

const char *nic_qp_where(char *buf, size_t len, const struct nic_qp *q)
{
	if (q->port)
		snprintf(buf, len, "%s/%u", q->device, q->port);
	else
		snprintf(buf, len, "%s/-", q->device);
	return buf;
}

/* Each flow's QP, and each matched QP's peer: the far end of its flow. */
static int match_flows(struct nic_picture *p, const struct snapshot *snap)
{
	p->n_flow_qp = 0;
	if (buf_grow((void **)&p->flow_qp, &p->cap_flow_qp, snap->n_flows + 1,
		     sizeof(*p->flow_qp)) ||
	    buf_grow((void **)&p->peers, &p->cap_peers, p->st.n_qps + 1, sizeof(*p->peers)))
		return -ENOMEM;
	memset(p->peers, 0, (p->st.n_qps + 1) * sizeof(*p->peers));
	for (size_t i = 0; i < snap->n_flows; i++) {
		const struct flow_key *k = &snap->flows[i].key;
		bool out = false;
		int q = nic_picture_match(p, k, &out);
		struct nic_peer *peer;

		p->flow_qp[i] = q;
		if (q < 0)
			continue;
		peer = &p->peers[q];
		/* Any of its flows in VXLAN; the far end its largest flow's, in any order. */
		peer->vxlan |= roce_flow_vxlan(k);
		if (peer->known &&
		    !flow_record_before(&snap->flows[i], i, &snap->flows[peer->flow], peer->flow))
			continue;
		peer->flow = i;
		/* The far end: where it goes when it leaves this host, else where it came from. */
		memcpy(peer->addr, out ? roce_flow_dst(k) : roce_flow_src(k), 16);
		peer->v6 = roce_flow_v6(k);
		peer->known = true;
	}
	p->n_flow_qp = snap->n_flows;
	return 0;
}

struct peer_ctx {
	const struct nic_picture *p;
	const struct hash_config *hc;
};

/* Where a QP's peer is: from its flow; not needed when the hash ignores the address. */
static bool qp_peer(void *ctx, const struct nic_qp *q, __u8 dst[16], bool *v6)
{
	const struct peer_ctx *c = ctx;
	const struct nic_peer *peer = &c->p->peers[q - c->p->st.qps];
	const struct nic_port *port = nic_port_get(&c->p->st, q->device, q->port);

	/*
	 * In VXLAN the fabric hashes the outer headers, which the VTEP makes
	 * and the QP does not show: no path from the QP's own numbers.
	 */
	if (peer->known && peer->vxlan)
		return false;
	if (!(c->hc->fields & HF_DST_IP) && port) {
		memset(dst, 0, 16);
		*v6 = port->gid_v6;
		return true;
	}
	if (!peer->known)
		return false;
	memcpy(dst, peer->addr, 16);
	*v6 = peer->v6;
	return true;
}

static bool same_port(const struct nic_qp *a, const struct nic_qp *b)
{
	return a->port == b->port && !strcmp(a->device, b->device);
}

/* Per port of the local QPs with a predicted path: a path with two or more while one has none. */
static int find_collisions(struct nic_picture *p)
{
	const struct nic_qp *qps = p->st.qps;
	__u32 n_paths = p->n_paths < AN_MAX_PATHS ? p->n_paths : AN_MAX_PATHS;

	p->n_coll = 0;
	if (!p->predict || n_paths < 2)
		return 0;
	for (size_t i = 0; i < p->st.n_qps; i++) {
		int count[AN_MAX_PATHS] = {0}, idle = -1;
		bool first = true;

		if (qps[i].predicted_path < 0)
			continue;
		/* Each port once: at its first QP with a path. */
		for (size_t j = 0; j < i && first; j++)
			first = qps[j].predicted_path < 0 || !same_port(&qps[i], &qps[j]);
		if (!first)
			continue;
		for (size_t j = i; j < p->st.n_qps; j++)
			if (qps[j].predicted_path >= 0 && (__u32)qps[j].predicted_path < n_paths &&
			    same_port(&qps[i], &qps[j]))
				count[qps[j].predicted_path]++;
		for (__u32 path = 0; path < n_paths && idle < 0; path++)
			if (!count[path])
				idle = path;
		for (__u32 path = 0; idle >= 0 && path < n_paths; path++) {
			struct nic_qp_collision *c;

			if (count[path] < 2)
				continue;
			if (buf_grow((void **)&p->coll, &p->cap_coll, p->n_coll + 1,
				     sizeof(*p->coll)))
				return -ENOMEM;
			c = &p->coll[p->n_coll++];
			memset(c, 0, sizeof(*c));
			snprintf(c->device, sizeof(c->device), "%s", qps[i].device);
			c->port = qps[i].port;
			c->path = path;
			c->idle_path = idle;
			c->total = count[path];
			for (size_t j = i; j < p->st.n_qps && c->n_qps < NIC_COLL_QPS; j++)
				if (qps[j].predicted_path == (int)path &&
				    same_port(&qps[i], &qps[j]))
					c->qps[c->n_qps++] = j;
		}
	}
	return 0;
}

/* Predicted ports, the flows' QPs, then paths from the peers the flows showed. */
static int picture_update(struct nic_picture *p, const struct hash_config *hc,
			  const struct snapshot *snap)
{
	struct peer_ctx ctx = {.p = p, .hc = hc};
	int err;

	roce_predict_qps(&p->st, NULL, NULL, NULL);
	err = index_sports(p);
	if (!err)
		err = snap ? match_flows(p, snap) : 0;
	if (err)
		return err;
	if (!snap)
		p->n_flow_qp = 0;
	if (p->predict && snap)
		roce_predict_qps(&p->st, hc, qp_peer, &ctx);
	return find_collisions(p);
}

/* Append "; QP owners: a[1], b[2]" to the evidence of an alert whose flows are local QPs'. */
static void name_owners(const struct nic_picture *p, struct alert *al)
{
	char owners[AN_MSG_LEN] = "", one[NIC_COMM_LEN + 16];
	int seen[AN_ALERT_FLOWS], n = 0;
	size_t used;

	for (int f = 0; f < al->n_flows; f++) {
		bool out, dup = false;
		int q = nic_picture_match(p, &al->flows[f], &out);

		for (int s = 0; s < n && q >= 0; s++)
			dup |= seen[s] == q;
		if (q < 0 || dup)
			continue;
		seen[n++] = q;
		nic_owner_text(one, sizeof(one), &p->st.qps[q]);
		snprintf(owners + strlen(owners), sizeof(owners) - strlen(owners), "%s%s QP %u",
			 strlen(owners) ? ", " : "", one, p->st.qps[q].lqpn);
	}
	used = strlen(al->evidence);
	if (n && used + 16 < AN_MSG_LEN)
		snprintf(al->evidence + used, AN_MSG_LEN - used, "%slocal QP owners: %s",
			 used ? "; " : "", owners);
}

static int cmp_alerts(const void *a, const void *b)
{
	return alert_cmp(a, b);
}

static int picture_alerts(struct nic_picture *p, const struct nic_detect_opts *d,
			  struct analysis *an)
{
	size_t flow_alerts = an->n_alerts;
	int err;

	for (size_t i = 0; i < flow_alerts; i++)
		if (an->alerts[i].n_flows)
			name_owners(p, &an->alerts[i]);
	err = nic_detect(&p->st, d, &an->alerts, &an->n_alerts, &an->cap_alerts);
	if (!err && an->n_alerts > flow_alerts && an->n_alerts > 1)
		qsort(an->alerts, an->n_alerts, sizeof(*an->alerts), cmp_alerts);
	return err;
}

int session_nic_check_root(const char *root)
{
	static const char *const parts[] = {"class/infiniband", "ethtool", "rdma-res-qp.json"};
	char path[4096];
	struct stat st;

	/* As root access() passes a file that is not searchable: say what it is. */
	if (!stat(root, &st) && !S_ISDIR(st.st_mode)) {
		fp_err("--nic-root %s: not a directory (the root of a recorded NIC tree)", root);
		return -ENOTDIR;
	}
	if (access(root, R_OK | X_OK)) {
		int err = -errno;

		fp_err("--nic-root %s: %s", root, fp_strerror(err));
		return err;
	}
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, parts[i]);
		if (!access(path, F_OK))
			return 0;
	}
	fp_err("--nic-root %s: not a recorded NIC tree (no class/infiniband, ethtool/ or "
	       "rdma-res-qp.json in it)",
	       root);
	return -ENOENT;
}

int session_nic_start(struct session_nic **out, const struct nic_opts *o,
		      const struct analysis_opts *ao)
{
	struct session_nic *n;
	int err;

	*out = NULL;
	if (o->root && o->root[0] && (err = session_nic_check_root(o->root)))
		return err;
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	nic_detect_opts_default(&n->dopts);
	n->hash = ao->hash;
	err = picture_init(&n->now, o, ao) ?: picture_init(&n->whole, o, ao);
	n->dopts.lossless_prio = n->now.lossless_prio;
	if (ao->rnr_storm_per_s > 0)
		n->dopts.rnr_retry_per_s = ao->rnr_storm_per_s;
	if (!err)
		err = nic_refresh(&n->now.st, 0) ?: nic_refresh(&n->whole.st, 0);
	if (!err)
		err = picture_update(&n->now, &n->hash, NULL);
	if (err) {
		session_nic_free(n);
		goto nomem;
	}
	*out = n;
	return 0;
nomem:
	fp_err("NIC counters: out of memory");
	return -ENOMEM;
}

int session_nic_refresh(struct session_nic *n, const struct snapshot *snap, struct analysis *an)
{
	int err = nic_refresh(&n->now.st, 0);

	if (!err)
		err = picture_update(&n->now, &n->hash, snap);
	if (!err)
		err = picture_alerts(&n->now, &n->dopts, an);
	if (err)
		fp_err("NIC counters: %s", fp_strerror(err));
	return err;
}

int session_nic_whole(struct session_nic *n, const struct snapshot *snap, struct analysis *whole)
{
	int err = nic_refresh(&n->whole.st, 0);

	if (!err)
		err = picture_update(&n->whole, &n->hash, snap);
	if (!err)
		err = picture_alerts(&n->whole, &n->dopts, whole);
	if (err)
		fp_err("NIC counters: %s", fp_strerror(err));
	return err;
}

void session_nic_free(struct session_nic *n)
{
	if (!n)
		return;
	picture_free(&n->now);
	picture_free(&n->whole);
	free(n);
}
