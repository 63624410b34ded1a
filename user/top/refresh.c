// SPDX-License-Identifier: GPL-2.0
/*
 * refresh.c - what the dashboard works out once per refresh, linear in
 * the number of flows: the session's new picture, the collision marks,
 * which record stands for a flow seen at several points, the path
 * history, its own CPU use. At the end of a recording the picture
 * becomes the whole capture's, with rates over its span, as replay
 * reports it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "top/ui.h"
#include "util/buf.h"
#include "util/radix.h"

double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static bool on_path(const bool *paths, int p)
{
	return p >= 0 && p < AN_MAX_PATHS && paths[p];
}

/* Every elephant of a collision's path, not only the eight its alert names: one pass. */
static void mark_collisions(struct ui *u)
{
	const struct analysis *a = u->an;
	bool observed[AN_MAX_PATHS] = {}, predicted[AN_MAX_PATHS] = {};

	if (!a->n_collisions)
		return;
	for (size_t c = 0; c < a->n_collisions; c++) {
		const struct collision *col = &a->collisions[c];

		if (col->path >= 0 && col->path < AN_MAX_PATHS)
			(col->predicted ? predicted : observed)[col->path] = true;
	}
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];

		if (v->elephant && on_path(observed, v->path))
			u->marks[i] |= MARK_COLLISION;
		if (v->elephant && on_path(predicted, v->predicted_path))
			u->marks[i] |= MARK_PREDICTED;
	}
}

static int mark_flows(struct ui *u)
{
	const struct analysis *a = u->an;
	int err = buf_grow((void **)&u->marks, &u->cap_marks, a->n_flows + 1, 1);
	__u64 ce = 0, cnp = 0, rtx = 0;

	if (err)
		return err;
	memset(u->marks, 0, a->n_flows);
	/* Whole counts summed, then rated as each flow is: the same in any order of the flows. */
	for (size_t i = 0; i < a->n_flows; i++) {
		ce += a->flows[i].d.ce;
		cnp += a->flows[i].d.cnp;
		rtx += a->flows[i].d.rtx;
	}
	u->ce_per_s = analysis_per_s(a, ce);
	u->cnp_per_s = analysis_per_s(a, cnp);
	u->rtx_per_s = analysis_per_s(a, rtx);
	mark_collisions(u);
	return 0;
}

/* Prefer the record seen on an uplink, then the one that counted most, then the first by bytes. */
static bool better_rep(const struct ui *u, int cand, int cur)
{
	const struct flow_view *c = &u->an->flows[cand], *o = &u->an->flows[cur];

	if ((c->path >= 0) != (o->path >= 0))
		return c->path >= 0;
	if (c->r->c.packets != o->r->c.packets)
		return c->r->c.packets > o->r->c.packets;
	return u->rank[cand] < u->rank[cur];
}

/*
 * The same direction seen at several points (a down port and an uplink)
 * is one flow: rep_of[i] is the record that stands for flow i, so QPs and
 * VNIs count it once.
 */
static int find_reps(struct ui *u)
{
	const struct analysis *a = u->an;
	size_t n = a->n_flows;
	int err = buf_grow((void **)&u->nkeys, &u->cap_nkeys, n + 1, sizeof(*u->nkeys)) ?:
		  buf_grow((void **)&u->rep_of, &u->cap_rep, n + 1, sizeof(*u->rep_of)) ?:
		  kindex_reset(&u->rep_index, n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		__u32 *slot;

		u->nkeys[i] = flow_identity(&a->flows[i].r->key);
		slot = kindex_slot(&u->rep_index, &u->nkeys[i], sizeof(u->nkeys[i]), u->nkeys,
				   sizeof(*u->nkeys));
		if (!*slot || better_rep(u, i, *slot - 1))
			*slot = i + 1;
	}
	for (size_t i = 0; i < n; i++)
		u->rep_of[i] = kindex_find(&u->rep_index, &u->nkeys[i], sizeof(u->nkeys[i]),
					   u->nkeys, sizeof(*u->nkeys)) -
			       1;
	return 0;
}

int ui_rank_flows(struct ui *u, struct snapshot *s)
{
	size_t n = s->n_flows;
	const struct radix_ent *e;
	int err =
	    buf_grow((void **)&u->rank, &u->cap_rank, n + 1, sizeof(*u->rank))
		?: buf_grow((void **)&u->by_rank, &u->cap_by_rank, n + 1, sizeof(*u->by_rank));

	if (err)
		return err;
	e = snapshot_order_by_bytes(s);
	if (!e)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		u->by_rank[k] = (int)e[k].idx;
		u->rank[e[k].idx] = (int)k;
	}
	return 0;
}

int refresh_data(struct ui *u)
{
	struct session *ss = u->ss;
	double wall = wall_s(), cpu = cpu_s(), now;
	int err = session_refresh(ss);

	if (err)
		return err;
	u->gen++;
	if (wall > u->wall_prev_s)
		u->cpu_pct = 100.0 * (cpu - u->cpu_prev_s) / (wall - u->wall_prev_s);
	u->cpu_prev_s = cpu;
	u->wall_prev_s = wall;
	now = ss->desc.clock_s;
	err = history_note(&u->hist, &ss->an, u->gen, u->last_refresh_s, now);
	if (err)
		return err;
	u->an = &ss->an;
	if (ss->ended && ss->desc.finite) {
		err = session_whole(ss, &u->whole);
		if (err)
			return err;
		u->have_whole = true;
		u->an = &u->whole;
	}
	err = ui_rank_flows(u, &ss->snap) ?: mark_flows(u) ?: find_reps(u);
	if (err)
		return err;
	u->last_refresh_s = now;
	u->have_data = true;
	u->dirty = true;
	return 0;
}

void ui_data_free(struct ui *u)
{
	free(u->marks);
	free(u->rep_of);
	free(u->nkeys);
	free(u->rank);
	free(u->by_rank);
	free(u->scratch);
	free(u->sort_buf);
	kindex_free(&u->rep_index);
	history_free(&u->hist);
	if (u->have_whole)
		analysis_free(&u->whole);
}
