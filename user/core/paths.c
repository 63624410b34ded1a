// SPDX-License-Identifier: GPL-2.0
/*
 * paths.c - the analysis' paths: the source's uplinks, whole ECMP groups
 * while they fit, and the mirror sessions the flows came in; each
 * group's balance once the paths are summed (analysis.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/paths.h"

int analysis_path_of(const struct analysis *a, __u32 ifindex)
{
	for (int i = 0; i < a->n_paths; i++)
		if (a->paths[i].ifindex == ifindex)
			return i;
	return -1;
}

static int group_of(struct analysis *a, const char *name)
{
	for (int g = 0; g < a->n_groups; g++)
		if (!strcmp(a->groups[g].name, name))
			return g;
	memset(&a->groups[a->n_groups], 0, sizeof(a->groups[0]));
	snprintf(a->groups[a->n_groups].name, FP_NAME_LEN, "%s", name);
	return a->n_groups++;
}

/* Point pt as the next path, in its ECMP group (solo: none). */
static void add_path(struct analysis *a, const struct obs_point *pt)
{
	struct path_view *p = &a->paths[a->n_paths++];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", pt->name);
	p->ifindex = pt->id;
	p->speed_bps = pt->speed_bps;
	p->counters = pt->counters;
	p->group = pt->solo ? -1 : group_of(a, pt->group);
	if (p->group >= 0)
		a->groups[p->group].n_paths++;
}

static bool grouped(const struct obs_point *pt)
{
	return pt->uplink && !pt->solo;
}

static bool same_group(const struct obs_point *x, const struct obs_point *y)
{
	return grouped(x) && !strcmp(x->group, y->group);
}

/* n uplinks, of which pt the first, are no path: counted, the first named. */
static void drop_paths(struct analysis *a, const struct obs_point *pt, int n)
{
	if (!a->paths_dropped)
		snprintf(a->dropped_first, sizeof(a->dropped_first), "%s", pt->name);
	a->paths_dropped += n;
}

/*
 * More uplinks than paths: whole ECMP groups, in the order of their first
 * point, while they fit; a group cut would be judged (balance, collisions'
 * room) without some of its members. Quadratic in the grouped points,
 * which only a port map past AN_MAX_PATHS has.
 */
static void admit_groups(struct analysis *a, const struct source_desc *d)
{
	for (int i = 0; i < d->n_points; i++) {
		const struct obs_point *pt = &d->points[i];
		int j = 0, m = 0;

		if (!grouped(pt))
			continue;
		while (j < i && !same_group(&d->points[j], pt))
			j++;
		if (j < i)
			continue; /* decided at the group's first point */
		for (j = i; j < d->n_points; j++)
			m += same_group(&d->points[j], pt);
		if (a->n_paths + m > AN_MAX_PATHS) {
			drop_paths(a, pt, m);
			continue;
		}
		for (j = i; j < d->n_points; j++)
			if (same_group(&d->points[j], pt))
				add_path(a, &d->points[j]);
	}
}

/*
 * The source's uplinks are the paths, with the speeds it knows, each in
 * its ECMP group. Grouped paths first, whole groups, so that the cap of
 * AN_MAX_PATHS costs no group a member; then those in no group.
 */
void analysis_init_paths(struct analysis *a, const struct source_desc *d)
{
	int uplinks = 0;

	a->n_paths = 0;
	a->n_groups = 0;
	a->paths_dropped = 0;
	for (int i = 0; i < d->n_points; i++)
		uplinks += d->points[i].uplink;
	if (uplinks > AN_MAX_PATHS)
		admit_groups(a, d);
	for (int i = 0; uplinks <= AN_MAX_PATHS && i < d->n_points; i++)
		if (grouped(&d->points[i]))
			add_path(a, &d->points[i]);
	for (int i = 0; i < d->n_points; i++) {
		const struct obs_point *pt = &d->points[i];

		if (!pt->uplink || !pt->solo)
			continue;
		if (a->n_paths == AN_MAX_PATHS)
			drop_paths(a, pt, 1);
		else
			add_path(a, pt);
	}
}

/*
 * A session's name that a name given on the command line already has:
 * one of the source's paths (its first), or --mirror-session's for
 * another session. Those are refused against each other at the start
 * (cli_check_path_names()); an automatic name (erspan:ID, gre:KEY, gre)
 * can only meet one here.
 */
static bool name_taken(const struct analysis *a, int first, const struct mirror_names *names,
		       const struct flow_key *k, const char *name)
{
	const char *given = mirror_given_name(names, k);

	for (int p = 0; p < first; p++)
		if (!strcmp(a->paths[p].name, name))
			return true;
	for (int i = 0; i < names->n; i++)
		if (!strcmp(names->v[i].name, name) && names->v[i].name != given)
			return true;
	return false;
}

/*
 * Each mirror session the flows came in is a path, as an uplink is: the
 * copies of one switch port's traffic. Named by --mirror-session, else by
 * type and number, with the switch when two switches use one number.
 */
void analysis_add_mirror_paths(struct analysis *a, const struct snapshot *s,
			       const struct mirror_names *names)
{
	char base[AN_MAX_PATHS][FP_NAME_LEN]; /* each session's name, unqualified */
	int first = a->n_paths;

	a->mirror_dropped = false;
	/* Each session once, with its largest flow (for its name and its place). */
	for (size_t i = 0; !s->mirror_unseen && i < s->n_flows; i++) {
		const struct flow_key *k = &s->flows[i].key;
		__u32 id = flow_point_id(k);
		int at = k->mirror ? analysis_path_of(a, id) : -1;
		struct path_view *p;

		if (at >= first) {
			size_t rep = a->paths[at].rep;

			if (flow_record_before(&s->flows[i], i, &s->flows[rep], rep))
				a->paths[at].rep = i;
			continue;
		}
		if (!k->mirror || at >= 0)
			continue;
		if (a->n_paths == AN_MAX_PATHS) {
			a->mirror_dropped = true;
			continue;
		}
		p = &a->paths[a->n_paths++];
		memset(p, 0, sizeof(*p));
		p->ifindex = id;
		p->rep = i;
		/* The sessions are one group, as --uplinks are. */
		p->group = group_of(a, "");
		a->groups[p->group].n_paths++;
	}
	/* In byte order of their largest flows, whatever the snapshot's order. */
	for (int j = first + 1; j < a->n_paths; j++) {
		struct path_view held = a->paths[j];
		int m = j;

		for (; m > first &&
		       flow_record_before(&s->flows[held.rep], held.rep,
					  &s->flows[a->paths[m - 1].rep], a->paths[m - 1].rep);
		     m--)
			a->paths[m] = a->paths[m - 1];
		a->paths[m] = held;
	}
	/*
	 * Another switch's session with the same name (the same number, of
	 * ERSPAN II or III alike, or one --mirror-session name): both get
	 * qualified. So does a session whose name a given one already has, the
	 * source's path's or another session's (--mirror-session): a name is
	 * one path's.
	 */
	for (int j = first; j < a->n_paths; j++)
		mirror_session_name(base[j], FP_NAME_LEN, &s->flows[a->paths[j].rep].key, names,
				    false);
	for (int j = first; j < a->n_paths; j++) {
		const struct flow_key *k = &s->flows[a->paths[j].rep].key;
		bool shared = false;

		/* A given name beside an automatic one stays: the automatic one is taken, below. */
		for (int o = first; o < a->n_paths && !shared; o++) {
			const struct flow_key *x = &s->flows[a->paths[o].rep].key;

			shared = !strcmp(base[o], base[j]) && x->mirror_src != k->mirror_src &&
				 !mirror_given_name(names, x) == !mirror_given_name(names, k);
		}
		mirror_session_name(a->paths[j].name, FP_NAME_LEN, k, names, shared);
		if (!shared && name_taken(a, first, names, k, a->paths[j].name))
			mirror_session_name(a->paths[j].name, FP_NAME_LEN, k, names, true);
	}
}

/* Balance of one group: max/mean of what the interval carried (bps), and of flows. */
static void balance(struct analysis *a, int g)
{
	struct path_group *grp = &a->groups[g];
	double mean_bytes = 0, mean_flows = 0, max_bytes = 0, max_flows = 0;
	int busiest = -1;

	grp->imbalance_bytes = grp->imbalance_flows = 0;
	for (int i = 0; i < a->n_paths; i++) {
		const struct path_view *p = &a->paths[i];

		if (p->group != g)
			continue;
		mean_bytes += p->bps / grp->n_paths;
		mean_flows += (double)p->flows / grp->n_paths;
		if (busiest < 0 || p->bps > a->paths[busiest].bps)
			busiest = i;
		if (p->bps > max_bytes)
			max_bytes = p->bps;
		if (p->flows > max_flows)
			max_flows = p->flows;
	}
	grp->busiest = busiest;
	if (grp->n_paths < 2)
		return;
	grp->imbalance_bytes = mean_bytes > 0 ? max_bytes / mean_bytes : 0;
	grp->imbalance_flows = mean_flows > 0 ? max_flows / mean_flows : 0;
}

/*
 * A path of the source that brought mirror copies and no flow of its own
 * is the collector's link, not an uplink: what it carried is on the
 * sessions' paths. Out of its group, so that it is neither an idle
 * uplink in the balance nor the room a collision would move an elephant
 * to. The flows are walked only where a session and such a path are.
 */
static void ungroup_collector_links(struct analysis *a)
{
	int empty[AN_MAX_PATHS], n = 0;

	if (!a->n_paths || !(a->paths[a->n_paths - 1].ifindex & MIRROR_POINT_BIT))
		return; /* no session: the sessions' paths come last */
	for (int p = 0; p < a->n_paths; p++)
		if (!(a->paths[p].ifindex & MIRROR_POINT_BIT) && a->paths[p].group >= 0 &&
		    !a->paths[p].flows)
			empty[n++] = p;
	for (size_t i = 0; n && i < a->n_flows; i++) {
		const struct flow_key *k = &a->flows[i].r->key;

		for (int e = 0; k->mirror && e < n; e++) {
			struct path_view *p = &a->paths[empty[e]];

			if (p->ifindex != k->ifindex)
				continue;
			a->groups[p->group].n_paths--;
			p->group = -1;
			empty[e] = empty[--n];
			break;
		}
	}
}

/* Each group's balance, once mark_elephants() has summed the paths. */
void analysis_balance_groups(struct analysis *a)
{
	ungroup_collector_links(a);
	a->imbalance_bytes = a->imbalance_flows = 0;
	a->imbalance_group = -1;
	for (int g = 0; g < a->n_groups; g++) {
		balance(a, g);
		if (a->groups[g].n_paths >= 2 &&
		    (a->imbalance_group < 0 || a->groups[g].imbalance_bytes > a->imbalance_bytes)) {
			a->imbalance_group = g;
			a->imbalance_bytes = a->groups[g].imbalance_bytes;
			a->imbalance_flows = a->groups[g].imbalance_flows;
		}
	}
}
