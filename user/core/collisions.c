// SPDX-License-Identifier: GPL-2.0
/*
 * collisions.c - elephants sharing a path: observed on the uplinks, and
 * predicted by a model of the next tier's ECMP hash.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/collisions.h"
#include "util/buf.h"
#include "util/kindex.h"
#include "util/radix.h"

static int add_collision(struct analysis *a, const struct collision *c)
{
	int err = buf_grow((void **)&a->collisions, &a->cap_collisions, a->n_collisions + 1,
			   sizeof(*a->collisions));

	if (!err)
		a->collisions[a->n_collisions++] = *c;
	return err;
}

static bool same_identity(const struct analysis *a, size_t i, size_t j)
{
	struct flow_key x = flow_identity(&a->flows[i].r->key),
			y = flow_identity(&a->flows[j].r->key);

	return !memcmp(&x, &y, sizeof(x));
}

/*
 * Flow i into c's flows, each queue pair once by its largest flow: the
 * first queue pairs by bytes, whatever order the flows come in. A pair
 * named by a smaller flow takes i's place in the order; one not named is
 * ranked as a flow (any of its flows dropped before ranked below the
 * list's last, so i does too unless it is larger).
 */
static void name_identity(const struct analysis *a, struct collision *c, size_t i)
{
	for (int k = 0; k < c->n_flows; k++) {
		if (!same_identity(a, c->flows[k], i))
			continue;
		if (!analysis_before(a, i, c->flows[k]))
			return;
		/* The pair's smaller flow out, then i ranked in. */
		memmove(&c->flows[k], &c->flows[k + 1], (c->n_flows - k - 1) * sizeof(c->flows[0]));
		c->n_flows--;
		break;
	}
	analysis_rank(a, c->flows, &c->n_flows, i);
}

/* Flow v's path, observed or the model's (predicted), if it is an elephant; else -1. */
static int elephant_path(const struct flow_view *v, bool predicted)
{
	return v->elephant ? (predicted ? v->predicted_path : v->path) : -1;
}

/*
 * The elephants on path c->path, named in c (each queue pair once, by its
 * largest flow); their smallest rate.
 */
static double name_elephants(const struct analysis *a, struct collision *c, bool predicted)
{
	double smallest = INFINITY;

	for (size_t i = 0; i < a->n_flows; i++) {
		if (elephant_path(&a->flows[i], predicted) != c->path)
			continue;
		name_identity(a, c, i);
		if (a->flows[i].bps < smallest)
			smallest = a->flows[i].bps;
	}
	return smallest;
}

/*
 * The elephants on each path, each queue pair direction once however many
 * points of the path saw it: on the model's paths (predicted; its flows
 * there hash alike), or where they were observed, where one ERSPAN III
 * session copies a QP at ingress and at egress as two flows (the
 * direction is in the key, docs/mirror.md). By (path, identity hash),
 * radix sorted, an entry counting where its identity is new.
 */
static int elephants_per_path(const struct analysis *a, bool predicted, int per_path[AN_MAX_PATHS])
{
	struct radix_ent *e, *sorted;
	size_t n = 0;

	for (size_t i = 0; i < a->n_flows; i++)
		n += elephant_path(&a->flows[i], predicted) >= 0;
	e = malloc((2 * n + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];
		int path = elephant_path(v, predicted);
		struct flow_key id;

		if (path < 0)
			continue;
		id = flow_identity(&v->r->key);
		e[n++] = (struct radix_ent){
		    .key = (__u64)path << 58 | kindex_hash(&id, sizeof(id), 0) >> 6, .idx = i};
	}
	sorted = radix_sort(e, e + n, n);
	for (size_t k = 0; k < n; k++)
		if (!k || sorted[k].key != sorted[k - 1].key ||
		    !same_identity(a, sorted[k].idx, sorted[k - 1].idx))
			per_path[sorted[k].key >> 58]++;
	free(e);
	return 0;
}

/*
 * A grouped path with two elephant flows (or more) and another grouped
 * path: else no collision, and no queue pairs to count.
 */
static bool may_collide(const struct analysis *a)
{
	int grouped = 0, loaded = 0;

	for (int p = 0; p < a->n_paths; p++) {
		grouped += a->paths[p].group >= 0;
		loaded += a->paths[p].group >= 0 && a->paths[p].elephants >= 2;
	}
	return loaded && grouped >= 2;
}

/*
 * Two or more elephants share one uplink while another uplink of the same
 * ECMP group could take one of them: within its speed, or (speed unknown)
 * without becoming as loaded as the shared uplink is now. A path in no
 * group has no alternative, so no collision. Elephants are counted as
 * queue pair directions, not as the path's flows: one QP copied at two
 * points of a mirror session is two flows there, and never collides with
 * itself.
 */
int analysis_collisions(struct analysis *a)
{
	int per_path[AN_MAX_PATHS] = {}, err;

	if (!may_collide(a))
		return 0;
	err = elephants_per_path(a, false, per_path);
	if (err)
		return err;
	for (int p = 0; p < a->n_paths; p++) {
		const struct path_view *loaded = &a->paths[p];
		struct collision c = {.path = p, .idle_path = -1, .count = per_path[p]};
		double smallest;

		if (per_path[p] < 2 || loaded->group < 0)
			continue;
		smallest = name_elephants(a, &c, false);
		for (int q = 0; q < a->n_paths; q++) {
			const struct path_view *idle = &a->paths[q];
			/* Room: within its speed, else one elephant moved lowers the peak. */
			bool room = idle->speed_bps > 0 ? idle->bps + smallest <= idle->speed_bps
							: idle->bps + smallest < loaded->bps;

			if (q == p || idle->group != loaded->group ||
			    per_path[q] >= per_path[p] - 1 || !room)
				continue;
			if (c.idle_path < 0 || idle->bps < a->paths[c.idle_path].bps)
				c.idle_path = q;
		}
		if (c.idle_path < 0)
			continue;
		err = add_collision(a, &c);
		if (err)
			return err;
	}
	return 0;
}

/* The hash model's path for every data flow, and elephants predicted to share one. */
int analysis_predict(struct analysis *a, const struct analysis_opts *o)
{
	int per_path[AN_MAX_PATHS] = {}, err;
	__u32 n = o->hash.n_paths < AN_MAX_PATHS ? o->hash.n_paths : AN_MAX_PATHS;

	if (!o->predict || !n)
		return 0;
	for (size_t i = 0; i < a->n_flows; i++) {
		struct flow_view *v = &a->flows[i];

		if (v->is_data)
			v->predicted_path = hash_path(&o->hash, &v->r->key) % n;
	}
	err = elephants_per_path(a, true, per_path);
	if (err)
		return err;
	/* When the model's paths are this group's uplinks, in order. */
	if ((int)n == a->n_paths)
		for (int p = 0; p < a->n_paths; p++)
			a->paths[p].predicted_elephants = per_path[p];
	for (__u32 p = 0; p < n; p++) {
		struct collision c = {
		    .path = p, .idle_path = -1, .count = per_path[p], .predicted = true};

		if (per_path[p] < 2)
			continue;
		name_elephants(a, &c, true);
		/*
		 * The least-loaded other path, and only one with at least two
		 * elephants fewer: moving one there must not just move the
		 * collision (as for the observed ones).
		 */
		for (__u32 q = 0; q < n; q++)
			if (q != p && per_path[q] <= per_path[p] - 2 &&
			    (c.idle_path < 0 || per_path[q] < per_path[c.idle_path]))
				c.idle_path = q;
		if (c.idle_path < 0)
			continue;
		err = add_collision(a, &c);
		if (err)
			return err;
	}
	return 0;
}
