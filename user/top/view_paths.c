// SPDX-License-Identifier: GPL-2.0
/*
 * view_paths.c - Paths: the ECMP groups' uplinks with a load bar each,
 * beside a switch port's own counters where the source has them (sFlow),
 * then the balance per group, the elephants and the collisions.
 */
#include <string.h>

#include "top/ui.h"
#include "util/format.h"

enum {
	PC_PATH,
	PC_GROUP,
	PC_SPEED,
	PC_LOAD,
	PC_UTIL,
	PC_RATE,
	PC_FLOWS,
	PC_ELEPH,
	PC_PRED,
	PC_PORT,
	PC_DISC,
	PC_OPER,
	PC_MAX,
};

static const struct column cols[PC_MAX] = {
    [PC_PATH] = {.title = "PATH", .width = 4, .max = 24},
    [PC_GROUP] = {.title = "GROUP", .width = 5, .max = 12, .drop = 3},
    [PC_SPEED] = {.title = "SPEED", COL_NUMBER(9), .drop = 2},
    /* A bar wider than 60 cells adds no precision: the rest is margin. */
    [PC_LOAD] = {.title = "LOAD", .min = 20, .max = 60, .fill = true},
    [PC_UTIL] = {.title = "LOAD%", COL_NUMBER(6)},
    [PC_RATE] = {.title = "RATE", COL_NUMBER(9)},
    [PC_FLOWS] = {.title = "FLOWS", COL_NUMBER(5)},
    [PC_ELEPH] = {.title = "ELEPH", COL_NUMBER(5)},
    [PC_PRED] = {.title = "PREDICTED", COL_NUMBER(9), .drop = 1},
    /* The port's own counters (sFlow counter samples): its real load beside the estimate. */
    [PC_PORT] = {.title = "PORT OUT", COL_NUMBER(9)},
    [PC_DISC] = {.title = "DISC/s", COL_NUMBER(7), .drop = 2},
    [PC_OPER] = {.title = "OPER", .width = 4, .drop = 2},
};

static int build(struct ui *u, struct vstate *vs)
{
	int err = rows_grow(vs, u->an->n_paths, sizeof(int));

	if (err)
		return err;
	vs->n_rows = u->an->n_paths;
	for (int p = 0; p < u->an->n_paths; p++)
		((int *)vs->rows)[p] = p;
	return 0;
}

static const struct path_view *path(const struct ui *u, const void *row)
{
	return &u->an->paths[*(const int *)row];
}

static double group_max_bps(const struct analysis *a)
{
	double max = 0;

	for (int p = 0; p < a->n_paths; p++)
		if (a->paths[p].bps > max)
			max = a->paths[p].bps;
	return max;
}

/* What a bar is a share of: the link's speed, else (or after b) the busiest uplink. */
static double scale(const struct ui *u, const struct path_view *p)
{
	if (!u->bar_by_max && p->speed_bps > 0)
		return p->speed_bps;
	return group_max_bps(u->an);
}

static int fit(const struct ui *u, struct column *c, const void *row)
{
	const struct analysis *a = u->an;
	bool named = false, ports = false;

	(void)row;
	for (int p = 0; p < a->n_paths; p++) {
		grow_width(&c[PC_PATH], strlen(a->paths[p].name));
		if (a->paths[p].group >= 0 && a->groups[a->paths[p].group].name[0]) {
			named = true;
			grow_width(&c[PC_GROUP], strlen(a->groups[a->paths[p].group].name));
		}
		ports |= a->paths[p].counters != NULL;
	}
	/* Live uplinks and captures have one unnamed group and no port counters. */
	c[PC_GROUP].hidden = !named;
	c[PC_PORT].hidden = c[PC_DISC].hidden = c[PC_OPER].hidden = !ports;
	return 0;
}

static void cell(const struct ui *u, const void *row, int col, int width, char *buf, size_t len,
		 enum role *role)
{
	const struct analysis_opts *o = &u->ss->aopts;
	const struct path_view *pv = path(u, row);
	const struct port_counters *pc = pv->counters;

	switch (col) {
	case PC_PATH:
		fmt_trunc(buf, len, pv->name, width);
		break;
	case PC_GROUP:
		fmt_trunc(buf, len, pv->group >= 0 ? u->an->groups[pv->group].name : "-", width);
		break;
	case PC_PORT:
		if (pc && pc->have_rate)
			fmt_si(buf, len, pc->out_bps, "b/s");
		else
			snprintf(buf, len, pc ? "?" : "-");
		break;
	case PC_DISC:
		if (pc && pc->have_rate)
			snprintf(buf, len, "%.0f", pc->out_discards_per_s);
		else
			snprintf(buf, len, "-");
		*role = pc && pc->out_discards_per_s > 0 ? R_WARN : R_NORMAL;
		break;
	case PC_OPER:
		snprintf(buf, len, "%s", !pc ? "-" : pc->status & 2 ? "up" : "down");
		*role = pc && !(pc->status & 2) ? R_CRIT : R_NORMAL;
		break;
	case PC_SPEED:
		if (pv->speed_bps > 0)
			fmt_si(buf, len, pv->speed_bps, "b/s");
		else
			snprintf(buf, len, "?");
		break;
	case PC_UTIL:
		/* "-" where the speed is unknown: a share of another uplink is no utilisation. */
		fmt_pct(buf, len, pv->bps, pv->speed_bps);
		break;
	case PC_RATE:
		fmt_si(buf, len, pv->bps, "b/s");
		break;
	case PC_FLOWS:
		snprintf(buf, len, "%llu", (unsigned long long)pv->flows);
		break;
	case PC_ELEPH:
		snprintf(buf, len, "%llu", (unsigned long long)pv->elephants);
		*role = pv->elephants >= 2 ? R_CRIT : pv->elephants ? R_ELEPH : R_NORMAL;
		break;
	case PC_PRED:
		if (o->predict && (int)o->hash.n_paths == u->an->n_paths)
			snprintf(buf, len, "%d", pv->predicted_elephants);
		else
			snprintf(buf, len, "-");
		break;
	default:
		buf[0] = 0;
	}
}

/* The load bar: its filled part coloured by how full the link is. */
static bool paint(const struct ui *u, const void *row, int col, const struct column *c, int y,
		  bool sel)
{
	const struct path_view *pv = path(u, row);
	double s = scale(u, pv), frac = s > 0 ? pv->bps / s : 0;
	enum role bar = frac >= 0.9 ? R_CRIT : frac >= 0.7 ? R_WARN : R_GOOD;
	char buf[256];
	int w = c->width - 2, fill;

	if (col != PC_LOAD)
		return false;
	if (u->bar_by_max || pv->speed_bps <= 0)
		bar = pv->elephants >= 2 ? R_CRIT : R_GOOD;
	fill = fmt_bar(buf + 1, sizeof(buf) - 2, frac, w);
	buf[0] = '[';
	snprintf(buf + 1 + w, sizeof(buf) - 1 - w, "]");
	if (sel) {
		put(u, y, c->x, c->width, true, false, ui_attr(u, R_SEL), buf);
		return true;
	}
	put(u, y, c->x, 1, false, false, A_NORMAL, "[");
	put(u, y, c->x + 1, fill, false, false, ui_attr(u, bar), buf + 1);
	put(u, y, c->x + 1 + fill, w - fill, false, false, ui_attr(u, R_DIM), buf + 1 + fill);
	put(u, y, c->x + 1 + w, 1, false, false, A_NORMAL, "]");
	return true;
}

static int draw_collisions(struct ui *u, int y, int y_end)
{
	const struct analysis *a = u->an;

	for (size_t i = 0; i < a->n_collisions && y < y_end; i++) {
		const struct collision *c = &a->collisions[i];
		char flows[LINE_MAX_BYTES], ep[128];
		enum role role = c->predicted ? R_WARN : R_CRIT;
		size_t o = 0;

		if (c->predicted)
			putf(u, y++, 2, ui_attr(u, role),
			     "predicted: %d elephants on path %d, path %d has the fewest", c->count,
			     c->path, c->idle_path);
		else
			putf(u, y++, 2, ui_attr(u, role),
			     "observed: %d elephants on %s while %s has room", c->count,
			     path_name(a, c->path), path_name(a, c->idle_path));
		for (int f = 0; f < c->n_flows && o + 1 < sizeof(flows); f++) {
			const struct flow_key *k = &a->flows[c->flows[f]].r->key;

			o += snprintf(flows + o, sizeof(flows) - o, "%s%s qp %u", f ? ", " : "",
				      endpoints(ep, sizeof(ep), k, false, 40), k->dest_qp);
		}
		if (y < y_end)
			y +=
			    wrap(u, y, 4, COLS - 4, y_end - y < 2 ? y_end - y : 2, A_NORMAL, flows);
	}
	return y;
}

/* One line of balances for several groups, the unbalanced ones marked. */
static int draw_groups(struct ui *u, int y, int y_end)
{
	const struct analysis *a = u->an;
	double ratio = u->ss->aopts.imbalance_ratio;
	char line[LINE_MAX_BYTES];
	bool bad = false;
	size_t n = 0;

	n += snprintf(line, sizeof(line), "imbalance (max/mean load, alert above %.2f):", ratio);
	for (int g = 0; g < a->n_groups && n + 1 < sizeof(line); g++) {
		const struct path_group *pg = &a->groups[g];

		if (pg->n_paths < 2)
			continue;
		bad |= pg->imbalance_bytes > ratio;
		n += snprintf(line + n, sizeof(line) - n, "  %s %.2f%s", pg->name,
			      pg->imbalance_bytes, pg->imbalance_bytes > ratio ? "!" : "");
	}
	return y + wrap(u, y, 0, COLS, y_end - y < 2 ? y_end - y : 2,
			ui_attr(u, bad ? R_WARN : R_NORMAL), line);
}

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	const struct analysis *a = u->an;
	const struct analysis_opts *o = &u->ss->aopts;
	int y_end = y0 + height, observed = 0, predicted = 0, y;
	bool bad = a->imbalance_bytes > o->imbalance_ratio;
	char t1[32], t2[32];
	/*
	 * The uplinks first: the four summary lines under them go before a
	 * row does (10 lines left the table its title alone).
	 */
	int rows = a->n_paths + 1 < height ? a->n_paths + 1 : height;

	y = table_draw(u, &view_paths, vs, y0, height - 4 > rows ? height - 4 : rows);
	if (!a->n_paths)
		return;
	for (int p = 0; p < a->n_paths; p++) {
		observed += a->paths[p].elephants;
		predicted += a->paths[p].predicted_elephants;
	}
	y++;
	if (y < y_end && a->n_groups > 1)
		y = draw_groups(u, y, y_end);
	else if (y < y_end)
		putf(u, y++, 0, ui_attr(u, bad ? R_WARN : R_NORMAL),
		     "imbalance (max/mean): load %.2f, flows %.2f  (alert above %.2f)%s",
		     a->imbalance_bytes, a->imbalance_flows, o->imbalance_ratio,
		     bad ? "  IMBALANCED" : "");
	if (y < y_end)
		putf(u, y++, 0, A_NORMAL, "elephants >= %s: observed %d, predicted %s%s",
		     fmt_si(t1, sizeof(t1), a->elephant_bps, "b/s"), observed,
		     o->predict ? (snprintf(t2, sizeof(t2), "%d", predicted), t2) : "-",
		     o->predict ? "" : " (--hash-model to predict)");
	if (y < y_end)
		putf(u, y++, 0, ui_attr(u, R_DIM),
		     "bars: %s (b toggles); LOAD%%: of link speed, - where unknown",
		     u->bar_by_max ? "share of the busiest uplink"
				   : "share of link speed, else of the busiest uplink");
	if (y < y_end && a->n_collisions)
		putf(u, y++, 0, A_NORMAL, "collisions (QP numbers are the receiver's):");
	draw_collisions(u, y, y_end);
}

static void enter(struct ui *u, const void *row)
{
	char f[FILTER_LEN];

	snprintf(f, sizeof(f), "path=%s", path(u, row)->name);
	filter_to_flows(u, f);
}

static void toggle_bars(struct ui *u, int ch)
{
	(void)ch;
	u->bar_by_max = !u->bar_by_max;
}

static const struct action actions[] = {
    {{'b'},
     "b",
     "bars against link speed or the busiest uplink (LOAD% stays of link speed)",
     NULL,
     toggle_bars},
};

const struct view view_paths = {
    .name = "Paths",
    .key = 'P',
    .cols = cols,
    .n_cols = PC_MAX,
    .default_sort = -1,
    .row_size = sizeof(int),
    .empty = "no uplinks: name the ECMP group with --uplinks IF,... to see paths (sFlow: "
	     "ports appear as samples arrive)",
    .enter_hint = "its flows",
    .legend = "LOAD RATE: {w}  ELEPH: elephants on it now  Enter: its flows",
    .legend_sampled = "LOAD RATE: {w}, estimates  ELEPH: elephants on it now  PORT OUT: the "
		      "port's own counters  Enter: its flows",
    .build = build,
    .fit = fit,
    .cell = cell,
    .paint = paint,
    .enter = enter,
    .draw = draw,
    .actions = actions,
    .n_actions = sizeof(actions) / sizeof(actions[0]),
};
