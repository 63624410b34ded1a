// SPDX-License-Identifier: GPL-2.0
/*
 * qp_pairs.c - queue pairs that share a UDP source port between two hosts,
 * paired with their reverse direction by PSN (joins.c gathers them).
 */
#include "core/joins_int.h"
#include "probe/par.h"

/* Pairs of groups a crowded port and its reverse compare at most: past it, none pair. */
#define CROWDED_MAX_PAIRS (1U << 20)
#define PSN_FAR		  (1U << 24)
#define PSN_NONE	  (~0U)

/* How far apart two 24-bit PSNs are, either way round. */
static __u32 psn_apart(__u32 x, __u32 y)
{
	__u32 d = (x - y) & FP_PSN_MASK;

	return d < (FP_PSN_MASK + 1) / 2 ? d : FP_PSN_MASK + 1 - d;
}

/*
 * How close the requests of one group are to the answers of the other,
 * either way: a requester's highest request PSN and the highest PSN its
 * responder acknowledged (or answered a READ at) are in one PSN space, a
 * window apart; another QP's start at a PSN of its own, drawn at random.
 * PSN_FAR when neither direction has both.
 */
static __u32 qp_distance(const struct qp_group *x, const struct qp_group *y)
{
	__u32 d = PSN_FAR, e;

	if (x->req != PSN_NONE && y->ans != PSN_NONE)
		d = psn_apart(x->req, y->ans);
	if (y->req != PSN_NONE && x->ans != PSN_NONE) {
		e = psn_apart(y->req, x->ans);
		d = e < d ? e : d;
	}
	return d;
}

/*
 * The group of g[lo..hi) nearest x, or -1: none has PSNs to tell, or two
 * are as near (QPs at the same PSNs: nothing tells which answers x).
 */
static int nearest_group(const struct qp_group *g, int lo, int hi, int x)
{
	__u32 best = PSN_FAR, d;
	int at = -1;
	bool tie = false;

	for (int k = lo; k < hi; k++) {
		if (k == x) /* a port its own reverse: not a QP with itself */
			continue;
		d = qp_distance(&g[x], &g[k]);
		if (d < best) {
			best = d;
			at = k;
			tie = false;
		} else if (d == best && d < PSN_FAR) {
			tie = true;
		}
	}
	return tie ? -1 : at;
}

/* The groups of a port that has some (qp_groups()): [*lo, *hi). */
static void port_groups(const struct analysis_joins *j, int ng, int port, int *lo, int *hi)
{
	const struct qp_group *g = j->groups;
	int x = j->port[port].group;

	*lo = x;
	while (x < ng && g[x].port == (__u32)port)
		x++;
	*hi = x;
}

/* The n sorted entries' QPs: each run of one (port, QP) and its largest flow. */
static int qp_groups(struct analysis *a, const struct radix_ent *sorted, size_t n)
{
	struct qp_group *g = a->joins.groups;
	int ng = 0;

	for (size_t k = 0; k < n; k++) {
		if (!k || sorted[k].key >> 32 != sorted[k - 1].key >> 32)
			a->joins.port[sorted[k].key >> 32].group = ng;
		if (!k || sorted[k].key != sorted[k - 1].key)
			g[ng++] = (struct qp_group){
			    .port = sorted[k].key >> 32, .first = k, .rep = (int)sorted[k].idx};
		else if (analysis_before(a, sorted[k].idx, (size_t)g[ng - 1].rep))
			g[ng - 1].rep = (int)sorted[k].idx;
		g[ng - 1].end = k + 1;
	}
	return ng;
}

struct crowded_job {
	struct analysis *a;
	int ng; /* groups */
};

/* Groups lo to hi: the PSNs of each one's largest flow. */
static void group_psns_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct crowded_job *c = ctx;
	struct qp_group *g = c->a->joins.groups;

	(void)part;
	for (size_t x = lo; x < hi; x++) {
		const struct psn_track *t = &c->a->flows[g[x].rep].r->c.psn;

		g[x].req = t->tracking ? (__u32)t->max_psn : PSN_NONE;
		g[x].ans = t->resp_seen ? (__u32)t->resp_psn : PSN_NONE;
	}
}

/*
 * Each group's nearest of the reverse port's, for the ports whose first
 * group is among lo to hi: a part takes a port whole, and writes only its
 * groups' near.
 */
static void nearest_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct crowded_job *c = ctx;
	const struct analysis_joins *j = &c->a->joins;
	struct qp_group *g = j->groups;
	int x = (int)lo;

	(void)part;
	while (x > 0 && (size_t)x < hi && g[x].port == g[x - 1].port)
		x++;
	while ((size_t)x < hi) {
		int plo, phi, rlo, rhi;
		bool room;

		port_groups(j, c->ng, (int)g[x].port, &plo, &phi);
		port_groups(j, c->ng, j->port[g[x].port].rev, &rlo, &rhi);
		room = (__u64)(phi - plo) * (__u64)(rhi - rlo) <= CROWDED_MAX_PAIRS;
		for (x = plo; x < phi; x++)
			g[x].near = room ? nearest_group(g, rlo, rhi, x) : -1;
	}
}

/*
 * Queue pairs that share a source port between two hosts (a NIC that
 * derives too little from its QP numbers, or fixes the port): the port
 * cannot tell which reverse flow answers which QP. The PSNs can: a group
 * of one port and one of the reverse port pair when each is the other's
 * nearest (qp_distance()), and every flow of the one takes the other's
 * largest flow as its reverse. A QP whose answers are not in view, or
 * whose flows carry no PSNs to tell by, gets no reverse: better none than
 * another QP's. One QP each way pairs as any port does.
 */
void crowded_pairs(struct analysis *a, const struct radix_ent *sorted, size_t n)
{
	struct crowded_job c = {.a = a, .ng = qp_groups(a, sorted, n)};
	const struct qp_group *g = a->joins.groups;

	par_for((size_t)c.ng, ANALYSIS_PART_MIN, group_psns_part, &c);
	par_for((size_t)c.ng, ANALYSIS_PART_MIN, nearest_part, &c);
	for (int x = 0; x < c.ng; x++) {
		int y = g[x].near;

		for (__u32 k = g[x].first; y >= 0 && g[y].near == x && k < g[x].end; k++)
			a->flows[sorted[k].idx].reverse = g[y].rep;
	}
}
