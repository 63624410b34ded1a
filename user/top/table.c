// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the one table drawer every view uses: which columns fit the
 * terminal (dropping optional ones, narrowest first to go), their titles
 * (a flow counter's from core/counters.h), the sort marker, the rows in
 * the view's order, the selection and scrolling. Plus the cell texts
 * several views share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "top/ui.h"
#include "util/buf.h"
#include "util/format.h"
#include "util/log.h"
#include "util/prefetch.h"
#include "util/radix.h"

/* ---- layout ------------------------------------------------------------- */

/*
 * Decide which columns fit in width. The flexible column (addresses) wants
 * its natural width, its widest cell: optional columns are dropped, highest
 * drop value first, until it has that; then it shrinks towards its minimum.
 */
void table_layout(struct column *c, int n, int width, int natural)
{
	int flex = -1, others, shown;

	for (int i = 0; i < n; i++) {
		c[i].on = !c[i].hidden;
		if (!c[i].width)
			flex = i;
	}
	for (;;) {
		int worst = -1, want = natural > 0 ? natural : 0;

		others = shown = 0;
		for (int i = 0; i < n; i++) {
			if (!c[i].on)
				continue;
			shown++;
			if (i != flex)
				others += c[i].width;
			if (c[i].drop && (worst < 0 || c[i].drop > c[worst].drop))
				worst = i;
		}
		others += shown - 1; /* one space between columns */
		if (flex >= 0 && want < c[flex].min)
			want = c[flex].min;
		if (others + (flex >= 0 ? want : 0) <= width || worst < 0)
			break;
		c[worst].on = false;
	}
	if (flex >= 0) {
		/* With no rows (a filter that matches none) the title is what it holds. */
		int fit = natural > 0 ? natural : c[flex].title ? (int)strlen(c[flex].title) : 0;
		int w = width - others;

		/* Wide terminals: the flexible column keeps 2 spare, the rest is margin. */
		if (!c[flex].fill && fit > 0 && w > fit + 2)
			w = fit + 2;
		if (c[flex].max && w > c[flex].max)
			w = c[flex].max;
		c[flex].width = w > c[flex].min ? w : c[flex].min;
	}
	for (int i = 0, x = 0; i < n; i++) {
		if (!c[i].on)
			continue;
		/*
		 * What no column can be dropped for is not drawn cut at the
		 * edge: a number cut short reads as another ("515 M" of 515 Mb/s).
		 */
		if (x + c[i].width > width) {
			c[i].on = false;
			continue;
		}
		c[i].x = x;
		x += c[i].width + 1;
	}
}

const char *col_title(char *buf, size_t len, const struct column *c)
{
	if (c->counter_title)
		snprintf(buf, len, "%s%s", flow_defs[c->counter].title, c->title);
	else
		snprintf(buf, len, "%s", c->title);
	return buf;
}

/* A column as wide as want, within its maximum. */
void grow_width(struct column *c, int want)
{
	if (want > c->width)
		c->width = c->max && want > c->max ? c->max : want;
}

static void draw_head(const struct ui *u, int y, const struct column *c, int n, int sorted)
{
	fill_line(y, ui_attr(u, R_HEAD));
	for (int i = 0; i < n; i++) {
		char title[64];

		if (c[i].on)
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    ui_attr(u, i == sorted ? R_SORTED : R_HEAD),
			    col_title(title, sizeof(title), &c[i]));
	}
}

/* Keep the selection in range and on screen. */
void scroll_to(struct vstate *vs, int rows, int height)
{
	if (vs->sel >= rows)
		vs->sel = rows - 1;
	if (vs->sel < 0)
		vs->sel = 0;
	if (height < 1)
		height = 1;
	if (vs->top > vs->sel)
		vs->top = vs->sel;
	if (vs->sel >= vs->top + height)
		vs->top = vs->sel - height + 1;
	if (vs->top > rows - height)
		vs->top = rows - height;
	if (vs->top < 0)
		vs->top = 0;
}

const void *row_at(const struct view *v, const struct vstate *vs, size_t r)
{
	return (const char *)vs->rows + r * v->row_size;
}

/* A view's columns, those its input has nothing for hidden (v->fit's reset). */
void table_columns(const struct ui *u, const struct view *v, struct column *c)
{
	memcpy(c, v->cols, sizeof(c[0]) * v->n_cols);
	/* A counter that needs every packet (retransmits) means nothing for sampled input. */
	for (int i = 0; i < v->n_cols; i++)
		if (c[i].counter_title && (flow_defs[c[i].counter].flags & FF_EVERY_PACKET) &&
		    !u->ss->desc.every_packet)
			c[i].hidden = true;
	if (v->fit)
		v->fit(u, c, NULL);
}

/*
 * The header, then the rows from the scroll position on, in height lines;
 * returns the line after the last one drawn.
 */
int table_draw(struct ui *u, const struct view *v, struct vstate *vs, int y0, int height)
{
	struct column c[MAX_COLS];
	int rows = vs->n_rows, natural = 0, y = y0 + 1;

	table_columns(u, v, c);
	scroll_to(vs, rows, height - 1);
	/* Identifier columns as wide as what is on screen now. */
	if (v->fit) {
		for (int r = vs->top; r < rows && r < vs->top + height - 1; r++) {
			int w = v->fit(u, c, row_at(v, vs, r));

			natural = w > natural ? w : natural;
		}
	}
	table_layout(c, v->n_cols, COLS, natural);
	draw_head(u, y0, c, v->n_cols, v->default_sort >= 0 ? vs->sort : -1);
	if (!rows) {
		const char *empty = u->filter.n && v->empty_filtered ? v->empty_filtered
				    : u->ss->ended && v->empty_ended ? v->empty_ended
								     : v->empty;

		putf(u, y0 + 1, 1, ui_attr(u, R_DIM), "%s", empty);
		return y0 + 2;
	}
	for (int r = vs->top; r < rows && y < y0 + height; r++, y++) {
		const void *row = row_at(v, vs, r);
		bool sel = r == vs->sel;

		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		for (int i = 0; i < v->n_cols; i++) {
			char buf[256];
			enum role role = R_NORMAL;

			if (!c[i].on || (v->paint && v->paint(u, row, i, &c[i], y, sel)))
				continue;
			v->cell(u, row, i, c[i].width, buf, sizeof(buf), &role);
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    ui_attr(u, sel ? R_SEL : role), buf);
		}
	}
	return y;
}

/* ---- rows: order and selection ----------------------------------------- */

struct sort_ctx {
	const struct ui *u;
	const struct view *v;
	const struct vstate *vs;
};

int table_cmp(const struct ui *u, const struct view *v, int col, const void *x, const void *y)
{
	double a, b;

	if (col >= 0 && v->sort_key && v->sort_key(u, col, x, &a) && v->sort_key(u, col, y, &b))
		return cmp_num(a, b);
	return v->cmp(u, col, x, y);
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct sort_ctx *s = ctx;
	int c = table_cmp(s->u, s->v, s->vs->sort, x, y);

	if (s->vs->reverse)
		c = -c;
	return c ? c : s->v->cmp(s->u, -1, x, y);
}

struct radix_ent *sort_room(struct ui *u, size_t n, size_t extra)
{
	/* n + 1: never nothing, so that no rows yet still get a buffer. */
	size_t bytes = 2 * (n + 1) * sizeof(struct radix_ent) + extra;

	return buf_grow(&u->sort_buf, &u->cap_sort_buf, bytes, 1) ? NULL : u->sort_buf;
}

/* Below this many rows a comparison sort is as fast. */
#define SORT_BY_KEY_MIN 1024
/* How many rows ahead sort_by_key() asks for the flow a row shows. */
#define SORT_ROW_AHEAD 8

/*
 * The flow a row shows, asked for ahead of its reads: the dashboard's
 * snapshot is unsorted (ui.h: rank), so rows in byte order visit its
 * flows far apart (at a million flows, 0.64-0.94x the sort's time:
 * BENCHMARKS.md, part 31).
 */
static inline void prefetch_row(const struct ui *u, const struct view *v, const void *row)
{
	int f = v->flow_of ? v->flow_of(u, row) : -1;

	if (f >= 0)
		prefetch_lines(&u->an->flows[f], sizeof(struct flow_view));
}

/*
 * The rows by the sort column's numbers (view.sort_key), a radix sort of
 * them beside each row's place: qsort over a million flows' rows reads two
 * flows far apart in memory each comparison (BENCHMARKS.md, the row
 * "dashboard sort": 748 ms against 43 ms by key). The sort is stable,
 * so rows of equal numbers keep the order they are in, which must be the
 * final tie-break's: they usually are (build adds the flows in the
 * snapshot's order, by bytes); where not, or a row's column is no
 * number, false, and qsort orders them.
 */
static bool sort_by_key(struct ui *u, const struct view *v, struct vstate *vs)
{
	size_t n = vs->n_rows, size = v->row_size;
	__u64 flip = vs->reverse ? ~0ULL : 0;
	struct radix_ent *e, *by;
	char *rows = vs->rows, *out;
	double d;

	for (size_t r = 1; r < n; r++)
		if (v->cmp(u, -1, rows + (r - 1) * size, rows + r * size) > 0)
			return false;
	e = sort_room(u, n, n * size);
	if (!e)
		return false;
	for (size_t r = 0; r < SORT_ROW_AHEAD && r < n; r++)
		prefetch_row(u, v, rows + r * size);
	for (size_t r = 0; r < n; r++) {
		if (r + SORT_ROW_AHEAD < n)
			prefetch_row(u, v, rows + (r + SORT_ROW_AHEAD) * size);
		if (!v->sort_key(u, vs->sort, rows + r * size, &d) || isnan(d))
			return false;
		e[r] = (struct radix_ent){.key = radix_key_of_double(d) ^ flip, .idx = r};
	}
	by = radix_sort(e, e + n, n);
	out = (char *)(e + 2 * n);
	for (size_t r = 0; r < n; r++)
		memcpy(out + r * size, rows + by[r].idx * size, size);
	memcpy(rows, out, n * size);
	return true;
}

void table_sort(struct ui *u, const struct view *v, struct vstate *vs)
{
	struct sort_ctx s = {u, v, vs};

	if (!v->cmp || v->default_sort < 0)
		return;
	if (v->sort_key && vs->n_rows >= (u->sort_check ? 2 : SORT_BY_KEY_MIN) &&
	    sort_by_key(u, v, vs)) {
		/* The test hook: the order must be qsort's, each row before the next. */
		for (size_t r = 1; u->sort_check && r < vs->n_rows; r++) {
			if (cmp_rows(row_at(v, vs, r - 1), row_at(v, vs, r), &s) >= 0) {
				fp_err("top: %s rows %zu and %zu out of order by column %d",
				       v->name, r - 1, r, vs->sort);
				abort();
			}
		}
		return;
	}
	qsort_r(vs->rows, vs->n_rows, v->row_size, cmp_rows, &s);
}

int rows_grow(struct vstate *vs, size_t n, size_t size)
{
	return buf_grow(&vs->rows, &vs->cap_rows, n + 1, size);
}

int scratch_grow(struct ui *u, size_t n, size_t size)
{
	/*
	 * Counted in bytes: views keep elements of different sizes in it
	 * (the QP view a byte a flow), and room for n bytes is not room for
	 * n ints (a heap overflow once).
	 */
	return buf_grow(&u->scratch, &u->cap_scratch, (n + 1) * size, 1);
}

/* Index of the row showing key in the current view, -1 if none. */
static int find_row_of_key(const struct ui *u, const struct flow_key *k)
{
	const struct view *v = views[u->view];
	const struct vstate *vs = &u->vs[u->view];

	for (size_t r = 0; v->flow_of && r < vs->n_rows; r++) {
		int f = v->flow_of(u, row_at(v, vs, r));

		if (f >= 0 && !memcmp(&u->an->flows[f].r->key, k, sizeof(*k)))
			return r;
	}
	return -1;
}

/* The flow the selected row of the current view stands for, -1 when none. */
int selected_flow(const struct ui *u)
{
	const struct view *v = views[u->view];
	const struct vstate *vs = &u->vs[u->view];

	if (!v->flow_of || vs->sel < 0 || (size_t)vs->sel >= vs->n_rows)
		return -1;
	return v->flow_of(u, row_at(v, vs, vs->sel));
}

void remember_selection(struct ui *u)
{
	int f = selected_flow(u);

	u->have_sel_key = f >= 0;
	if (f >= 0)
		u->sel_key = u->an->flows[f].r->key;
}

/* Rows of every view, rebuilt when data, sort or filter change. */
int rebuild(struct ui *u)
{
	if (!u->dirty || !u->have_data)
		return 0;
	for (int v = 0; v < n_views; v++) {
		int err = views[v]->build(u, &u->vs[v]);

		if (err)
			return err;
		table_sort(u, views[v], &u->vs[v]);
	}
	/* The selection follows its flow when the order changes. */
	if (u->have_sel_key) {
		int r = find_row_of_key(u, &u->sel_key);

		if (r >= 0)
			u->vs[u->view].sel = r;
	}
	u->dirty = false;
	return 0;
}

/* ---- what cells share --------------------------------------------------- */

int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

int cmp_key_ends(const struct flow_key *a, const struct flow_key *b)
{
	int c = memcmp(a->src, b->src, 16);

	return c ? c : memcmp(a->dst, b->dst, 16);
}

int digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* An interface's name, or a path's (a mirror session) by its point id. */
const char *iface_name(const struct ui *u, __u32 ifindex)
{
	const struct obs_point *n = source_point(&u->ss->desc, ifindex);
	const struct analysis *a = &u->ss->an;

	if (n)
		return n->name;
	for (int i = 0; i < a->n_paths; i++)
		if (a->paths[i].ifindex == ifindex)
			return a->paths[i].name;
	return source_unnamed_point(&u->ss->desc, ifindex) ?: "?";
}

const char *path_name(const struct analysis *a, int path)
{
	return path >= 0 && path < a->n_paths ? a->paths[path].name : "-";
}

const char *vni_text(char *buf, size_t len, const struct flow_key *k)
{
	if (k->flags & FP_FLOW_VXLAN)
		snprintf(buf, len, "%u", k->vni);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "src > dst" of a key in at most width columns. */
const char *endpoints(char *buf, size_t len, const struct flow_key *k, bool swap, int width)
{
	char src[FP_ADDR_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = k->flags & FP_FLOW_IPV6;

	fmt_addr(src, sizeof(src), k->src, v6);
	fmt_addr(dst, sizeof(dst), k->dst, v6);
	return swap ? fmt_pair_trunc(buf, len, dst, " > ", src, width)
		    : fmt_pair_trunc(buf, len, src, " > ", dst, width);
}

int endpoints_cols(const struct flow_key *k)
{
	char buf[2 * FP_ADDR_STRLEN + 8];

	return fmt_cols(endpoints(buf, sizeof(buf), k, false, 1000));
}

double flow_age_s(const struct ui *u, const struct flow_view *v)
{
	__u64 now = u->ss->snap.taken_ns, first = v->r->c.first_seen_ns;

	return now > first ? (now - first) / 1e9 : 0;
}

/* A rate that is bad when not zero (CE, CNP, retransmits, NAKs). */
enum role rate_cell(char *buf, size_t len, double per_s)
{
	rate_text(buf, len, per_s);
	return per_s > 0 ? R_WARN : R_NORMAL;
}

/* E elephant, C in an observed collision, P in a predicted one. */
void flags_text(char *buf, const struct ui *u, int f)
{
	int n = 0;

	if (u->an->flows[f].elephant)
		buf[n++] = 'E';
	if (u->marks[f] & MARK_COLLISION)
		buf[n++] = 'C';
	if (u->marks[f] & MARK_PREDICTED)
		buf[n++] = 'P';
	buf[n] = 0;
}

/* The process owning flow f's local QP (--nic), "-" when none. */
const char *owner_of(const struct ui *u, int f, char *buf, size_t len)
{
	const struct nic_qp *q = u->ss->nic && f >= 0 ? nic_flow_owner(&u->ss->nic->now, f) : NULL;

	return q ? nic_owner_text(buf, len, q) : "-";
}

enum role flags_role(const struct ui *u, int f)
{
	return u->marks[f] & MARK_COLLISION ? R_CRIT
	       : u->an->flows[f].elephant   ? R_ELEPH
					    : R_NORMAL;
}
