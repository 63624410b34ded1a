// SPDX-License-Identifier: GPL-2.0
/*
 * top_ui.c - `fabprobe top` on a terminal: a full-screen ncurses dashboard
 * over a session. Every interval it asks session_refresh() for a new
 * snapshot and analysis, and collect_psn() for the one flow whose detail
 * is open; it never reads a map itself. The rest is bookkeeping linear in
 * the number of flows (plus sorting the view), so a large flow table
 * costs the dashboard, never the data path.
 *
 * Layout: three header lines, a tab line, the view, a status line.
 * Views: Flows, Paths, QPs, VNIs, Alerts; a flow's detail and the help
 * screen replace the view until closed.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "util/buf.h"
#include "util/kindex.h"
#include "core/analysis.h"
#include "util/format.h"
#include "core/ecmp_hash.h"
#include "core/session.h"
#include "util/stop.h"
#include "util/log.h"
#include "top/top.h"

#define HEADER_LINES   3
#define BODY_TOP       (HEADER_LINES + 1)
#define MIN_COLS       40
#define MIN_LINES      10
#define POLL_MS	       200
#define LINE_MAX_BYTES 2048
#define FILTER_LEN     96
#define FILTER_TERMS   8
#define PATH_SEGS      8   /* uplinks remembered per flow */
#define PATH_KEEP_GENS 120 /* refreshes a silent flow's path history survives */
#define MAX_COLS       16
#define ELLIPSIS       "\xe2\x80\xa6"

enum view {
	V_FLOWS,
	V_PATHS,
	V_QPS,
	V_VNIS,
	V_ALERTS,
	V_MAX,
};

static const char *const view_names[V_MAX] = {"Flows", "Paths", "QPs", "VNIs", "Alerts"};

/* What a piece of the screen means; ui_attr() maps it to colour or mono. */
enum role {
	R_NORMAL,
	R_TITLE,
	R_HEAD,
	R_SORTED,
	R_TAB,
	R_SEL,
	R_CRIT,
	R_WARN,
	R_INFO,
	R_ELEPH,
	R_GOOD,
	R_DIM,
	R_KEY,
};

struct column {
	const char *title;
	int width;  /* 0: flexible, takes what the others leave */
	int min;    /* flexible: never narrower */
	bool right; /* numbers */
	int drop;   /* narrow terminals hide the highest first; 0: always shown */
	bool on;    /* set by layout() */
	int x;	    /* set by layout() */
};

/* Flows view. */
enum {
	FL_FLOW,
	FL_SPORT,
	FL_VNI,
	FL_QP,
	FL_PATH,
	FL_IF,
	FL_RATE,
	FL_PPS,
	FL_BYTES,
	FL_CE,
	FL_CNP,
	FL_RTX,
	FL_NAK,
	FL_DSCP,
	FL_AGE,
	FL_FLAGS,
	FL_MAX,
};

static const struct column flow_cols[FL_MAX] = {
    [FL_FLOW] = {"FLOW (src > dst)", 0, 15, false, 0},
    [FL_SPORT] = {"SPORT", 5, 0, true, 3},
    [FL_VNI] = {"VNI", 3, 0, true, 2},
    [FL_QP] = {"QP", 2, 0, true, 0},
    [FL_PATH] = {"PATH", 4, 0, false, 0},
    [FL_IF] = {"SEEN ON", 7, 0, false, 10},
    [FL_RATE] = {"RATE", 9, 0, true, 0},
    [FL_PPS] = {"PPS", 5, 0, true, 6},
    [FL_BYTES] = {"BYTES", 8, 0, true, 11},
    [FL_CE] = {"CE%", 6, 0, true, 1},
    [FL_CNP] = {"CNP/s", 5, 0, true, 4},
    [FL_RTX] = {"RTX/s", 5, 0, true, 5},
    [FL_NAK] = {"NAK/s", 5, 0, true, 8},
    [FL_DSCP] = {"DSCP", 4, 0, true, 9},
    [FL_AGE] = {"AGE", 6, 0, true, 12},
    [FL_FLAGS] = {"FLG", 3, 0, false, 0},
};

/* QPs view: one row per queue pair, data direction and its ACK/CNP side. */
enum {
	QC_PAIR,
	QC_VNI,
	QC_QP,
	QC_PEER,
	QC_PATH,
	QC_DATA,
	QC_ACK,
	QC_CE,
	QC_CNP,
	QC_RTX,
	QC_NAK,
	QC_FLAGS,
	QC_MAX,
};

static const struct column qp_cols[QC_MAX] = {
    [QC_PAIR] = {"QUEUE PAIR (req > resp)", 0, 15, false, 0},
    [QC_VNI] = {"VNI", 3, 0, true, 2},
    [QC_QP] = {"QP", 2, 0, true, 0},
    [QC_PEER] = {"PEER", 4, 0, true, 3},
    [QC_PATH] = {"PATH d/a", 8, 0, false, 0},
    [QC_DATA] = {"DATA", 9, 0, true, 0},
    [QC_ACK] = {"ACK/CNP", 9, 0, true, 5},
    [QC_CE] = {"CE%", 6, 0, true, 1},
    [QC_CNP] = {"CNP/s", 5, 0, true, 4},
    [QC_RTX] = {"RTX/s", 5, 0, true, 6},
    [QC_NAK] = {"NAK/s", 5, 0, true, 7},
    [QC_FLAGS] = {"FLG", 3, 0, false, 0},
};

/* VNIs view. */
enum {
	VC_VNI,
	VC_FLOWS,
	VC_QPS,
	VC_ELEPH,
	VC_RATE,
	VC_PPS,
	VC_CE,
	VC_CNP,
	VC_RTX,
	VC_MAX,
};

static const struct column vni_cols[VC_MAX] = {
    [VC_VNI] = {"VNI", 8, 0, true, 0},	 [VC_FLOWS] = {"FLOWS", 7, 0, true, 0},
    [VC_QPS] = {"QPS", 7, 0, true, 0},	 [VC_ELEPH] = {"ELEPHANTS", 9, 0, true, 0},
    [VC_RATE] = {"RATE", 9, 0, true, 0}, [VC_PPS] = {"PPS", 9, 0, true, 0},
    [VC_CE] = {"CE/s", 7, 0, true, 0},	 [VC_CNP] = {"CNP/s", 7, 0, true, 0},
    [VC_RTX] = {"RTX/s", 7, 0, true, 0},
};

/* Paths view. */
enum {
	PC_PATH,
	PC_SPEED,
	PC_LOAD,
	PC_UTIL,
	PC_RATE,
	PC_FLOWS,
	PC_ELEPH,
	PC_PRED,
	PC_MAX,
};

static const struct column path_cols[PC_MAX] = {
    [PC_PATH] = {"PATH", 4, 0, false, 0},  [PC_SPEED] = {"SPEED", 9, 0, true, 2},
    [PC_LOAD] = {"LOAD", 0, 20, false, 0}, [PC_UTIL] = {"LOAD%", 6, 0, true, 0},
    [PC_RATE] = {"RATE", 9, 0, true, 0},   [PC_FLOWS] = {"FLOWS", 5, 0, true, 0},
    [PC_ELEPH] = {"ELEPH", 5, 0, true, 0}, [PC_PRED] = {"PREDICTED", 9, 0, true, 1},
};

static const struct column *const view_cols[V_MAX] = {
    [V_FLOWS] = flow_cols, [V_PATHS] = path_cols, [V_QPS] = qp_cols, [V_VNIS] = vni_cols};
static const int view_ncols[V_MAX] = {
    [V_FLOWS] = FL_MAX, [V_PATHS] = PC_MAX, [V_QPS] = QC_MAX, [V_VNIS] = VC_MAX};
static const int view_default_sort[V_MAX] = {
    [V_FLOWS] = FL_RATE, [V_QPS] = QC_DATA, [V_VNIS] = VC_RATE};

/* Per-flow marks from the analysis' collisions. */
#define MARK_COLLISION 0x01
#define MARK_PREDICTED 0x02

enum filter_kind {
	FT_TEXT,
	FT_QP,
	FT_VNI,
	FT_PATH,
};

struct filter_term {
	enum filter_kind kind;
	__u32 num;
	char text[FILTER_LEN];
};

struct filter {
	struct filter_term term[FILTER_TERMS];
	int n;
};

/* Open addressing over flow keys: a slot holds index + 1, 0 is empty. */
/* Which uplink carried a flow, from when to when (uptime seconds). */
struct path_seg {
	__u32 ifindex;
	double from_s, to_s;
};

struct path_hist {
	struct flow_key key; /* ifindex and dir zeroed: the flow, wherever seen */
	__u64 gen;	     /* last refresh that saw it on an uplink */
	int n;
	struct path_seg seg[PATH_SEGS];
};

struct qp_row {
	int data; /* the requester's flow, -1 when only the other side is seen */
	int ack;  /* its reverse: ACKs, NAKs, CNPs; -1 unknown */
};

struct vni_row {
	__u32 vni;
	bool vxlan;
	int flows, qps, elephants;
	double bps, pps, ce_per_s, cnp_per_s, rtx_per_s;
};

struct ui {
	struct session *ss;
	const struct top_opts *t;
	bool color, utf8, quit, paused, help, prompt, bar_by_max;
	enum view view;
	int sort[V_MAX];
	bool reverse[V_MAX];
	int sel[V_MAX], top[V_MAX];
	struct flow_key sel_key; /* the selected flow (Flows) or data side (QPs) */
	bool have_sel_key;

	char filter_text[FILTER_LEN];
	struct filter filter;
	char edit[FILTER_LEN];
	char status[160];

	bool detail;
	struct flow_key detail_key;
	struct psn_track psn;
	int psn_err;

	/* refresh bookkeeping */
	bool have_data;
	__u64 gen;
	double last_refresh_s; /* uptime */
	double cpu_pct, cpu_prev_s, wall_prev_s;
	double ce_per_s, cnp_per_s, rtx_per_s;
	__u8 *marks;
	size_t cap_marks;

	/* rows of the current view, rebuilt when data, sort or filter change */
	bool dirty;
	int *flow_rows;
	size_t n_flow_rows, cap_flow_rows;
	struct qp_row *qp_rows;
	size_t n_qp_rows, cap_qp_rows;
	struct vni_row *vni_rows;
	size_t n_vni_rows, cap_vni_rows;
	int *scratch;
	size_t cap_scratch;
	int *rep_of;
	size_t cap_rep;
	__u8 *used;
	size_t cap_used;
	struct flow_key *nkeys;
	size_t cap_nkeys;
	struct kindex qp_index;

	struct path_hist *ph;
	size_t n_ph, cap_ph;
	struct kindex ph_index;
};

/* ---- small helpers ---------------------------------------------------- */

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The flow wherever it was seen: one queue-pair direction. */
static struct flow_key flow_identity(const struct flow_key *k)
{
	struct flow_key n = *k;

	n.ifindex = 0;
	n.dir = 0;
	n.pad = 0;
	return n;
}

/* The slot for k among keys[] (stride apart): 0 when absent (store index + 1 there to add). */
static __u32 *kidx_slot(struct kindex *x, const struct flow_key *k, const void *keys, size_t stride)
{
	return kindex_slot(x, k, sizeof(*k), keys, stride);
}

static const char *iface_name(const struct session *ss, __u32 ifindex)
{
	const struct obs_point *n = source_point(&ss->desc, ifindex);

	return n ? n->name : "?";
}

static const char *path_name(const struct analysis *a, int path)
{
	return path >= 0 && path < a->n_paths ? a->paths[path].name : "-";
}

static const char *vni_text(char *buf, size_t len, const struct flow_key *k)
{
	if (k->flags & FP_FLOW_VXLAN)
		snprintf(buf, len, "%u", k->vni);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *addr_text(char *buf, size_t len, const __u8 *a, bool v6)
{
	return fmt_addr(buf, len, a, v6);
}

/* "src > dst" of a key in at most width columns. */
static const char *endpoints(char *buf, size_t len, const struct flow_key *k, bool swap, int width)
{
	char src[FP_ADDR_STRLEN], dst[FP_ADDR_STRLEN];
	bool v6 = k->flags & FP_FLOW_IPV6;

	addr_text(src, sizeof(src), k->src, v6);
	addr_text(dst, sizeof(dst), k->dst, v6);
	return swap ? fmt_pair_trunc(buf, len, dst, " > ", src, width)
		    : fmt_pair_trunc(buf, len, src, " > ", dst, width);
}

static int endpoints_cols(const struct flow_key *k)
{
	char buf[2 * FP_ADDR_STRLEN + 8];

	return fmt_cols(endpoints(buf, sizeof(buf), k, false, 1000));
}

static int digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static const char *rate_text(char *buf, size_t len, double per_s)
{
	return fmt_si_compact(buf, len, per_s);
}

/* ---- drawing primitives ----------------------------------------------- */

static attr_t ui_attr(const struct ui *u, enum role r)
{
	if (!u->color) {
		switch (r) {
		case R_TITLE:
		case R_CRIT:
		case R_ELEPH:
		case R_KEY:
			return A_BOLD;
		case R_HEAD:
		case R_TAB:
		case R_SEL:
			return A_REVERSE;
		case R_SORTED:
			return A_REVERSE | A_BOLD | A_UNDERLINE;
		case R_WARN:
			return A_UNDERLINE;
		case R_DIM:
			return A_DIM;
		default:
			return A_NORMAL;
		}
	}
	switch (r) {
	case R_TITLE:
		return COLOR_PAIR(R_TITLE) | A_BOLD;
	case R_HEAD:
		return COLOR_PAIR(R_HEAD);
	case R_SORTED:
		return COLOR_PAIR(R_HEAD) | A_BOLD | A_UNDERLINE;
	case R_TAB:
		return COLOR_PAIR(R_TAB) | A_BOLD;
	case R_SEL:
		return A_REVERSE;
	case R_CRIT:
		return COLOR_PAIR(R_CRIT) | A_BOLD;
	case R_WARN:
		return COLOR_PAIR(R_WARN);
	case R_INFO:
		return COLOR_PAIR(R_INFO);
	case R_ELEPH:
		return COLOR_PAIR(R_ELEPH) | A_BOLD;
	case R_GOOD:
		return COLOR_PAIR(R_GOOD);
	case R_DIM:
		return A_DIM;
	case R_KEY:
		return COLOR_PAIR(R_TITLE) | A_BOLD;
	default:
		return A_NORMAL;
	}
}

static void init_colors(struct ui *u)
{
	const char *no_color = getenv("NO_COLOR");

	/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
	u->color = has_colors() && !(no_color && *no_color);
	if (!u->color)
		return;
	start_color();
	use_default_colors();
	init_pair(R_TITLE, COLOR_CYAN, -1);
	init_pair(R_HEAD, COLOR_BLACK, COLOR_CYAN);
	init_pair(R_TAB, COLOR_BLACK, COLOR_GREEN);
	init_pair(R_CRIT, COLOR_RED, -1);
	init_pair(R_WARN, COLOR_YELLOW, -1);
	init_pair(R_INFO, COLOR_BLUE, -1);
	init_pair(R_ELEPH, COLOR_MAGENTA, -1);
	init_pair(R_GOOD, COLOR_GREEN, -1);
}

/*
 * Write text at (y, x), at most width columns, padded to width when pad.
 * "…" from fmt_trunc becomes "~" on a terminal that is not UTF-8.
 */
static int put(const struct ui *u, int y, int x, int width, bool pad, bool right, attr_t attr,
	       const char *text)
{
	char buf[LINE_MAX_BYTES];
	int cols = 0, lead = 0;
	size_t o = 0;

	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	if (right) {
		int n = fmt_cols(text);

		lead = n < width ? width - n : 0;
		for (; cols < lead && o + 1 < sizeof(buf); cols++)
			buf[o++] = ' ';
	}
	for (const char *p = text; *p && o + 4 < sizeof(buf);) {
		int n = 1;

		if (!u->utf8 && !strncmp(p, ELLIPSIS, 3)) {
			if (cols >= width)
				break;
			buf[o++] = '~';
			cols++;
			p += 3;
			continue;
		}
		while ((p[n] & 0xC0) == 0x80)
			n++;
		if (cols >= width)
			break;
		memcpy(buf + o, p, n);
		o += n;
		p += n;
		cols++;
	}
	for (; pad && cols < width && o + 1 < sizeof(buf); cols++)
		buf[o++] = ' ';
	buf[o] = 0;
	attron(attr);
	mvaddstr(y, x, buf);
	attroff(attr);
	return cols;
}

static int putf(const struct ui *u, int y, int x, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int putf(const struct ui *u, int y, int x, attr_t attr, const char *fmt, ...)
{
	char buf[LINE_MAX_BYTES];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(u, y, x, COLS - x, false, false, attr, buf);
}

/* Fill a line with attr (a selected row, a header bar). */
static void fill_line(int y, attr_t attr)
{
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	attroff(attr);
}

/*
 * Decide which columns fit in width. The flexible column (addresses) wants
 * its natural width, its widest cell: optional columns are dropped, highest
 * drop value first, until it has that; then it shrinks towards its minimum.
 */
static void layout(struct column *c, int n, int width, int natural)
{
	int flex = -1, others, shown;

	for (int i = 0; i < n; i++) {
		c[i].on = true;
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
		int w = width - others;

		/* Wide terminals: the flexible column keeps 2 spare, the rest is margin. */
		if (natural > 0 && w > natural + 2)
			w = natural + 2;
		c[flex].width = w > c[flex].min ? w : c[flex].min;
	}
	for (int i = 0, x = 0; i < n; i++) {
		if (!c[i].on)
			continue;
		c[i].x = x;
		x += c[i].width + 1;
	}
}

static void draw_head(const struct ui *u, int y, const struct column *c, int n, int sorted)
{
	fill_line(y, ui_attr(u, R_HEAD));
	for (int i = 0; i < n; i++) {
		char title[64];

		if (!c[i].on)
			continue;
		snprintf(title, sizeof(title), "%s", c[i].title);
		put(u, y, c[i].x, c[i].width, true, c[i].right,
		    ui_attr(u, i == sorted ? R_SORTED : R_HEAD), title);
	}
}

/* Keep the selection in range and on screen. */
static void scroll_to(struct ui *u, int rows, int height)
{
	int *sel = &u->sel[u->view], *top = &u->top[u->view];

	if (*sel >= rows)
		*sel = rows - 1;
	if (*sel < 0)
		*sel = 0;
	if (height < 1)
		height = 1;
	if (*top > *sel)
		*top = *sel;
	if (*sel >= *top + height)
		*top = *sel - height + 1;
	if (*top > rows - height)
		*top = rows - height;
	if (*top < 0)
		*top = 0;
}

/* ---- filter ----------------------------------------------------------- */

static int parse_filter(const char *text, struct filter *f, char *err, size_t err_len)
{
	char copy[FILTER_LEN], *save = NULL;

	memset(f, 0, sizeof(*f));
	snprintf(copy, sizeof(copy), "%s", text);
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct filter_term *t;
		char *end;

		if (f->n >= FILTER_TERMS) {
			snprintf(err, err_len, "at most %d filter terms", FILTER_TERMS);
			return -EINVAL;
		}
		t = &f->term[f->n++];
		if (!strncmp(tok, "qp=", 3) || !strncmp(tok, "vni=", 4)) {
			const char *num = strchr(tok, '=') + 1;
			unsigned long v;

			errno = 0;
			v = strtoul(num, &end, 0);
			if (!*num || *end || errno || v > 0xFFFFFF) {
				snprintf(err, err_len, "'%s': want a number up to 16777215", tok);
				return -EINVAL;
			}
			t->kind = tok[0] == 'q' ? FT_QP : FT_VNI;
			t->num = v;
		} else if (!strncmp(tok, "path=", 5)) {
			t->kind = FT_PATH;
			snprintf(t->text, sizeof(t->text), "%s", tok + 5);
		} else {
			t->kind = FT_TEXT;
			snprintf(t->text, sizeof(t->text), "%s", tok);
		}
	}
	return 0;
}

static bool term_matches(const struct ui *u, const struct filter_term *t, int i)
{
	const struct flow_view *v = &u->ss->an.flows[i];
	const struct flow_key *k = &v->r->key;
	char buf[FP_ADDR_STRLEN];

	switch (t->kind) {
	case FT_QP:
		return k->dest_qp == t->num;
	case FT_VNI:
		return (k->flags & FP_FLOW_VXLAN) && k->vni == t->num;
	case FT_PATH:
		return !strcmp(path_name(&u->ss->an, v->path), t->text);
	case FT_TEXT:
		if (strstr(addr_text(buf, sizeof(buf), k->src, k->flags & FP_FLOW_IPV6), t->text) ||
		    strstr(addr_text(buf, sizeof(buf), k->dst, k->flags & FP_FLOW_IPV6), t->text))
			return true;
		if (!(k->flags & FP_FLOW_VXLAN))
			return false;
		return strstr(
			   addr_text(buf, sizeof(buf), k->inner_src, k->flags & FP_FLOW_INNER_IPV6),
			   t->text) ||
		       strstr(
			   addr_text(buf, sizeof(buf), k->inner_dst, k->flags & FP_FLOW_INNER_IPV6),
			   t->text);
	}
	return false;
}

static bool flow_matches(const struct ui *u, int i)
{
	for (int t = 0; t < u->filter.n; t++)
		if (!term_matches(u, &u->filter.term[t], i))
			return false;
	return true;
}

/* ---- per-refresh bookkeeping ------------------------------------------ */

static int ph_reindex(struct ui *u, size_t want)
{
	int err = kindex_reset(&u->ph_index, want);

	if (err)
		return err;
	for (size_t i = 0; i < u->n_ph; i++)
		*kidx_slot(&u->ph_index, &u->ph[i].key, u->ph, sizeof(*u->ph)) = i + 1;
	return 0;
}

/* Forget flows that left the uplinks long ago; amortised over the inserts. */
static int ph_compact(struct ui *u, size_t live_flows)
{
	size_t keep = 0, limit = 2 * (live_flows > 1024 ? live_flows : 1024);
	__u64 horizon = u->gen > PATH_KEEP_GENS ? u->gen - PATH_KEEP_GENS : 0;

	if (u->n_ph <= limit)
		return 0;
	for (size_t i = 0; i < u->n_ph; i++)
		if (u->ph[i].gen >= horizon)
			u->ph[keep++] = u->ph[i];
	if (keep > limit) {
		keep = 0;
		for (size_t i = 0; i < u->n_ph; i++)
			if (u->ph[i].gen == u->gen)
				u->ph[keep++] = u->ph[i];
	}
	u->n_ph = keep;
	return ph_reindex(u, u->n_ph + 64);
}

static int note_paths(struct ui *u, double now_s)
{
	const struct analysis *a = &u->ss->an;
	int err;

	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow_view *v = &a->flows[i];
		struct flow_key id;
		struct path_hist *h;
		__u32 *slot;

		/* A record that carried nothing this interval is an old path's leftover. */
		if (v->path < 0 || !v->d.packets)
			continue;
		if ((u->n_ph + 1) * 2 > u->ph_index.size) {
			err = ph_reindex(u, (u->n_ph + 1) * 2);
			if (err)
				return err;
		}
		id = flow_identity(&v->r->key);
		slot = kidx_slot(&u->ph_index, &id, u->ph, sizeof(*u->ph));
		if (!*slot) {
			err = buf_grow((void **)&u->ph, &u->cap_ph, u->n_ph + 1, sizeof(*u->ph));
			if (err)
				return err;
			h = &u->ph[u->n_ph++];
			memset(h, 0, sizeof(*h));
			h->key = id;
			*slot = u->n_ph;
		}
		h = &u->ph[*slot - 1];
		if (h->n && h->seg[h->n - 1].ifindex == v->r->key.ifindex && h->gen + 1 >= u->gen) {
			h->seg[h->n - 1].to_s = now_s;
		} else {
			if (h->n == PATH_SEGS) {
				memmove(h->seg, h->seg + 1, sizeof(h->seg[0]) * (PATH_SEGS - 1));
				h->n--;
			}
			h->seg[h->n].ifindex = v->r->key.ifindex;
			h->seg[h->n].from_s = u->last_refresh_s;
			h->seg[h->n].to_s = now_s;
			h->n++;
		}
		h->gen = u->gen;
	}
	return ph_compact(u, a->n_flows);
}

static const struct path_hist *find_path_hist(struct ui *u, const struct flow_key *k)
{
	struct flow_key id = flow_identity(k);
	__u32 *slot;

	if (!u->ph_index.size)
		return NULL;
	slot = kidx_slot(&u->ph_index, &id, u->ph, sizeof(*u->ph));
	return *slot ? &u->ph[*slot - 1] : NULL;
}

static void mark_flows(struct ui *u)
{
	const struct analysis *a = &u->ss->an;

	u->ce_per_s = u->cnp_per_s = u->rtx_per_s = 0;
	if (buf_grow((void **)&u->marks, &u->cap_marks, a->n_flows + 1, 1))
		return;
	memset(u->marks, 0, a->n_flows);
	for (size_t i = 0; i < a->n_flows; i++) {
		u->ce_per_s += a->flows[i].ce_per_s;
		u->cnp_per_s += a->flows[i].cnp_per_s;
		u->rtx_per_s += a->flows[i].rtx_per_s;
	}
	for (size_t c = 0; c < a->n_collisions; c++)
		for (int f = 0; f < a->collisions[c].n_flows; f++)
			u->marks[a->collisions[c].flows[f]] |=
			    a->collisions[c].predicted ? MARK_PREDICTED : MARK_COLLISION;
}

static void fetch_psn(struct ui *u)
{
	memset(&u->psn, 0, sizeof(u->psn));
	u->psn_err = session_psn(u->ss, &u->detail_key, &u->psn);
}

static int refresh_data(struct ui *u)
{
	double wall = wall_s(), cpu = cpu_s(), now;
	int err = session_refresh(u->ss);

	if (err)
		return err;
	u->gen++;
	if (wall > u->wall_prev_s)
		u->cpu_pct = 100.0 * (cpu - u->cpu_prev_s) / (wall - u->wall_prev_s);
	u->cpu_prev_s = cpu;
	u->wall_prev_s = wall;
	now = u->ss->desc.clock_s;
	mark_flows(u);
	err = note_paths(u, now);
	if (err)
		return err;
	if (u->detail)
		fetch_psn(u);
	u->last_refresh_s = now;
	u->have_data = true;
	u->dirty = true;
	return 0;
}

/* ---- building the views' rows ----------------------------------------- */

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static int cmp_key_ends(const struct flow_key *a, const struct flow_key *b)
{
	int c = memcmp(a->src, b->src, 16);

	return c ? c : memcmp(a->dst, b->dst, 16);
}

static double flow_age_s(const struct ui *u, const struct flow_view *v)
{
	__u64 now = u->ss->snap.taken_ns, first = v->r->c.first_seen_ns;

	return now > first ? (now - first) / 1e9 : 0;
}

static double per_s(const struct analysis *a, __u64 n)
{
	return a->interval_s > 0 ? n / a->interval_s : 0;
}

/* Natural order of a column: text and identifiers ascending, rates descending. */
static int cmp_flow_col(const struct ui *u, int col, int x, int y)
{
	const struct analysis *a = &u->ss->an;
	const struct flow_view *p = &a->flows[x], *q = &a->flows[y];
	const struct flow_key *k = &p->r->key, *l = &q->r->key;

	switch (col) {
	case FL_FLOW:
		return cmp_key_ends(k, l);
	case FL_SPORT:
		return cmp_num(k->sport, l->sport);
	case FL_VNI:
		return cmp_num(k->flags & FP_FLOW_VXLAN ? k->vni : -1.0,
			       l->flags & FP_FLOW_VXLAN ? l->vni : -1.0);
	case FL_QP:
		return cmp_num(k->dest_qp, l->dest_qp);
	case FL_PATH:
		return strcmp(path_name(a, p->path), path_name(a, q->path));
	case FL_IF:
		return cmp_num(k->ifindex * 2 + k->dir, l->ifindex * 2 + l->dir);
	case FL_RATE:
		return cmp_num(q->bps, p->bps);
	case FL_PPS:
		return cmp_num(q->pps, p->pps);
	case FL_BYTES:
		return cmp_num(q->r->c.bytes, p->r->c.bytes);
	case FL_CE:
		return cmp_num(q->ce_fraction, p->ce_fraction);
	case FL_CNP:
		return cmp_num(q->cnp_per_s, p->cnp_per_s);
	case FL_RTX:
		return cmp_num(q->rtx_per_s, p->rtx_per_s);
	case FL_NAK:
		return cmp_num(q->d.naks + q->d.rnr_naks, p->d.naks + p->d.rnr_naks);
	case FL_DSCP:
		return cmp_num(p->r->c.dscp, q->r->c.dscp);
	case FL_AGE:
		return cmp_num(flow_age_s(u, q), flow_age_s(u, p));
	case FL_FLAGS:
		return cmp_num(q->elephant * 4 + (u->marks[y] & MARK_COLLISION) * 2,
			       p->elephant * 4 + (u->marks[x] & MARK_COLLISION) * 2);
	}
	return 0;
}

static int cmp_flow_rows(const void *pa, const void *pb, void *ctx)
{
	const struct ui *u = ctx;
	int x = *(const int *)pa, y = *(const int *)pb;
	int c = cmp_flow_col(u, u->sort[V_FLOWS], x, y);

	if (u->reverse[V_FLOWS])
		c = -c;
	if (!c)
		c = cmp_num(u->ss->an.flows[y].r->c.bytes, u->ss->an.flows[x].r->c.bytes);
	return c ? c : (x > y) - (x < y);
}

static int build_flow_rows(struct ui *u)
{
	const struct analysis *a = &u->ss->an;
	int err = buf_grow((void **)&u->flow_rows, &u->cap_flow_rows, a->n_flows + 1,
			   sizeof(*u->flow_rows));

	if (err)
		return err;
	u->n_flow_rows = 0;
	for (size_t i = 0; i < a->n_flows; i++)
		if (flow_matches(u, i))
			u->flow_rows[u->n_flow_rows++] = i;
	qsort_r(u->flow_rows, u->n_flow_rows, sizeof(*u->flow_rows), cmp_flow_rows, u);
	return 0;
}

static double qp_value(const struct ui *u, const struct qp_row *r, int col)
{
	const struct analysis *a = &u->ss->an;
	const struct flow_view *d = r->data >= 0 ? &a->flows[r->data] : NULL;
	const struct flow_view *k = r->ack >= 0 ? &a->flows[r->ack] : NULL;

	switch (col) {
	case QC_VNI: {
		const struct flow_view *v = d ? d : k;

		return v->r->key.flags & FP_FLOW_VXLAN ? v->r->key.vni : -1.0;
	}
	case QC_QP:
		return d ? d->r->key.dest_qp : -1.0;
	case QC_PEER:
		return k ? k->r->key.dest_qp : -1.0;
	case QC_DATA:
		return d ? d->bps : 0;
	case QC_ACK:
		return k ? k->bps : 0;
	case QC_CE:
		return d ? d->ce_fraction : 0;
	case QC_CNP:
		return (d ? d->cnp_per_s : 0) + (k ? k->cnp_per_s : 0);
	case QC_RTX:
		return d ? d->rtx_per_s : 0;
	case QC_NAK:
		return k ? per_s(a, k->d.naks + k->d.rnr_naks) : 0;
	case QC_FLAGS:
		return d ? d->elephant * 4 + (u->marks[r->data] & MARK_COLLISION) * 2 : 0;
	}
	return 0;
}

static int cmp_qp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct ui *u = ctx;
	const struct qp_row *x = pa, *y = pb;
	const struct analysis *a = &u->ss->an;
	int col = u->sort[V_QPS], c;

	if (col == QC_PAIR || col == QC_PATH) {
		const struct flow_view *p = &a->flows[x->data >= 0 ? x->data : x->ack];
		const struct flow_view *q = &a->flows[y->data >= 0 ? y->data : y->ack];

		c = col == QC_PAIR ? cmp_key_ends(&p->r->key, &q->r->key)
				   : strcmp(path_name(a, p->path), path_name(a, q->path));
	} else if (col == QC_VNI || col == QC_QP || col == QC_PEER) {
		c = cmp_num(qp_value(u, x, col), qp_value(u, y, col));
	} else {
		c = cmp_num(qp_value(u, y, col), qp_value(u, x, col));
	}
	if (u->reverse[V_QPS])
		c = -c;
	if (!c)
		c = cmp_num(qp_value(u, y, QC_DATA) + qp_value(u, y, QC_ACK),
			    qp_value(u, x, QC_DATA) + qp_value(u, x, QC_ACK));
	if (!c)
		c = (x->data > y->data) - (x->data < y->data);
	return c ? c : (x->ack > y->ack) - (x->ack < y->ack);
}

/* Prefer the record seen on an uplink, then the one that counted most. */
static bool better_rep(const struct analysis *a, int cand, int cur)
{
	const struct flow_view *c = &a->flows[cand], *o = &a->flows[cur];

	if ((c->path >= 0) != (o->path >= 0))
		return c->path >= 0;
	return c->r->c.packets > o->r->c.packets;
}

/*
 * One row per queue pair. The same direction seen at several points (a
 * down port and an uplink) is one flow: the representative record stands
 * for it. A data flow takes its reverse (ACK/NAK/CNP side) into its row;
 * a side whose partner is not seen gets a row of its own.
 */
static int build_qp_rows(struct ui *u)
{
	const struct analysis *a = &u->ss->an;
	size_t n = a->n_flows;
	int err;

	err = buf_grow((void **)&u->nkeys, &u->cap_nkeys, n + 1, sizeof(*u->nkeys)) ?:
	      buf_grow((void **)&u->rep_of, &u->cap_rep, n + 1, sizeof(*u->rep_of)) ?:
	      buf_grow((void **)&u->used, &u->cap_used, n + 1, 1) ?:
	      buf_grow((void **)&u->qp_rows, &u->cap_qp_rows, n + 1, sizeof(*u->qp_rows)) ?:
	      kindex_reset(&u->qp_index, n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		__u32 *slot;

		u->nkeys[i] = flow_identity(&a->flows[i].r->key);
		slot = kidx_slot(&u->qp_index, &u->nkeys[i], u->nkeys, sizeof(*u->nkeys));
		if (!*slot || better_rep(a, i, *slot - 1))
			*slot = i + 1;
	}
	for (size_t i = 0; i < n; i++)
		u->rep_of[i] =
		    *kidx_slot(&u->qp_index, &u->nkeys[i], u->nkeys, sizeof(*u->nkeys)) - 1;
	memset(u->used, 0, n);
	u->n_qp_rows = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct flow_view *v = &a->flows[i];
			struct qp_row r = {.data = -1, .ack = -1};

			if (u->rep_of[i] != (int)i || u->used[i] || (!pass && !v->is_data))
				continue;
			if (v->is_data) {
				r.data = i;
				if (v->reverse >= 0)
					r.ack = u->rep_of[v->reverse];
			} else {
				r.ack = i;
			}
			u->used[i] = 1;
			if (r.ack >= 0)
				u->used[r.ack] = 1;
			if ((r.data >= 0 && flow_matches(u, r.data)) ||
			    (r.ack >= 0 && flow_matches(u, r.ack)))
				u->qp_rows[u->n_qp_rows++] = r;
		}
	}
	qsort_r(u->qp_rows, u->n_qp_rows, sizeof(*u->qp_rows), cmp_qp_rows, u);
	return 0;
}

static int cmp_vni_of(const void *pa, const void *pb, void *ctx)
{
	const struct analysis *a = ctx;
	const struct flow_key *k = &a->flows[*(const int *)pa].r->key;
	const struct flow_key *l = &a->flows[*(const int *)pb].r->key;
	double x = k->flags & FP_FLOW_VXLAN ? k->vni : -1.0;
	double y = l->flags & FP_FLOW_VXLAN ? l->vni : -1.0;

	return cmp_num(x, y);
}

static double vni_value(const struct vni_row *r, int col)
{
	switch (col) {
	case VC_VNI:
		return r->vxlan ? r->vni : -1.0;
	case VC_FLOWS:
		return r->flows;
	case VC_QPS:
		return r->qps;
	case VC_ELEPH:
		return r->elephants;
	case VC_RATE:
		return r->bps;
	case VC_PPS:
		return r->pps;
	case VC_CE:
		return r->ce_per_s;
	case VC_CNP:
		return r->cnp_per_s;
	case VC_RTX:
		return r->rtx_per_s;
	}
	return 0;
}

static int cmp_vni_rows(const void *pa, const void *pb, void *ctx)
{
	const struct ui *u = ctx;
	const struct vni_row *x = pa, *y = pb;
	int col = u->sort[V_VNIS];
	int c = col == VC_VNI ? cmp_num(vni_value(x, col), vni_value(y, col))
			      : cmp_num(vni_value(y, col), vni_value(x, col));

	if (u->reverse[V_VNIS])
		c = -c;
	return c ? c : cmp_num(vni_value(x, VC_VNI), vni_value(y, VC_VNI));
}

static int build_vni_rows(struct ui *u)
{
	const struct analysis *a = &u->ss->an;
	size_t n = 0;
	int err =
	    buf_grow((void **)&u->scratch, &u->cap_scratch, a->n_flows + 1, sizeof(*u->scratch))
		?: buf_grow((void **)&u->vni_rows, &u->cap_vni_rows, a->n_flows + 1,
			    sizeof(*u->vni_rows));

	if (err)
		return err;
	/* A flow seen at several points counts once (build_qp_rows chose who stands for it). */
	for (size_t i = 0; i < a->n_flows; i++)
		if (u->rep_of[i] == (int)i && flow_matches(u, i))
			u->scratch[n++] = i;
	qsort_r(u->scratch, n, sizeof(*u->scratch), cmp_vni_of, (void *)a);
	u->n_vni_rows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flow_view *v = &a->flows[u->scratch[i]];
		const struct flow_key *k = &v->r->key;
		bool vxlan = k->flags & FP_FLOW_VXLAN;
		struct vni_row *r = u->n_vni_rows ? &u->vni_rows[u->n_vni_rows - 1] : NULL;

		if (!r || r->vxlan != vxlan || (vxlan && r->vni != k->vni)) {
			r = &u->vni_rows[u->n_vni_rows++];
			memset(r, 0, sizeof(*r));
			r->vxlan = vxlan;
			r->vni = vxlan ? k->vni : 0;
		}
		r->flows++;
		r->qps += v->is_data;
		r->elephants += v->elephant;
		r->bps += v->bps;
		r->pps += v->pps;
		r->ce_per_s += v->ce_per_s;
		r->cnp_per_s += v->cnp_per_s;
		r->rtx_per_s += v->rtx_per_s;
	}
	qsort_r(u->vni_rows, u->n_vni_rows, sizeof(*u->vni_rows), cmp_vni_rows, u);
	return 0;
}

/* Index of the row showing key in the Flows or QPs view, -1 if none. */
static int find_row_of_key(const struct ui *u, const struct flow_key *k)
{
	const struct analysis *a = &u->ss->an;

	if (u->view == V_FLOWS) {
		for (size_t r = 0; r < u->n_flow_rows; r++)
			if (!memcmp(&a->flows[u->flow_rows[r]].r->key, k, sizeof(*k)))
				return r;
	} else if (u->view == V_QPS) {
		for (size_t r = 0; r < u->n_qp_rows; r++) {
			const struct qp_row *q = &u->qp_rows[r];
			int f = q->data >= 0 ? q->data : q->ack;

			if (!memcmp(&a->flows[f].r->key, k, sizeof(*k)))
				return r;
		}
	}
	return -1;
}

/* The flow a row of the current view stands for, -1 when none. */
static int selected_flow(const struct ui *u)
{
	int s = u->sel[u->view];

	if (u->view == V_FLOWS && s >= 0 && (size_t)s < u->n_flow_rows)
		return u->flow_rows[s];
	if (u->view == V_QPS && s >= 0 && (size_t)s < u->n_qp_rows)
		return u->qp_rows[s].data >= 0 ? u->qp_rows[s].data : u->qp_rows[s].ack;
	return -1;
}

static void remember_selection(struct ui *u)
{
	int f = selected_flow(u);

	u->have_sel_key = f >= 0;
	if (f >= 0)
		u->sel_key = u->ss->an.flows[f].r->key;
}

static int rebuild(struct ui *u)
{
	int err = 0;

	if (!u->dirty || !u->have_data)
		return 0;
	err = build_flow_rows(u) ?: build_qp_rows(u) ?: build_vni_rows(u);
	if (err)
		return err;
	/* The selection follows its flow when the order changes. */
	if (u->have_sel_key) {
		int r = find_row_of_key(u, &u->sel_key);

		if (r >= 0)
			u->sel[u->view] = r;
	}
	u->dirty = false;
	return 0;
}

/* ---- header, tabs, status --------------------------------------------- */

static void draw_header(struct ui *u)
{
	const struct session *ss = u->ss;
	const struct source_desc *sd = &ss->desc;
	const struct analysis *a = &ss->an;
	const __u64 *d = a->totals_delta;
	double dt = a->interval_s > 0 ? a->interval_s : 1;
	char ifs[512] = "", right[96], up[32], t[6][16], fill[16];
	bool mixed = false;
	size_t o = 0;
	int x;

	for (int i = 0; i < sd->n_points; i++)
		mixed |= !sd->points[i].uplink;
	for (int i = 0; i < sd->n_points && o + 2 < sizeof(ifs); i++)
		o += snprintf(ifs + o, sizeof(ifs) - o, "%s%s%s", i ? " " : "", sd->points[i].name,
			      mixed && sd->points[i].uplink ? "*" : "");
	if (!sd->n_points)
		snprintf(ifs, sizeof(ifs), "%s", sd->what);
	snprintf(right, sizeof(right), "%s %s  cpu %.1f%%", sd->finite ? "at" : "up",
		 fmt_duration(up, sizeof(up), session_clock_s(ss)), u->cpu_pct);
	fill_line(0, A_NORMAL);
	x = put(u, 0, 0, COLS, false, false, ui_attr(u, R_TITLE), "fabprobe top ");
	{
		char buf[640];
		int room = COLS - x - fmt_cols(right) - 2;

		/* Narrow: the hooks go first, then the interface list is shortened. */
		if (fmt_cols(ifs) + 3 + (int)strlen(sd->how) <= room)
			snprintf(buf, sizeof(buf), "%s [%s]", ifs, sd->how);
		else
			fmt_trunc(buf, sizeof(buf), ifs, room > 3 ? room : 3);
		put(u, 0, x, room, false, false, A_NORMAL, buf);
	}
	put(u, 0, COLS - fmt_cols(right), fmt_cols(right), false, false, A_NORMAL, right);

	if (!u->have_data) {
		putf(u, 1, 0, ui_attr(u, R_DIM), "collecting: first picture after %.1f s",
		     u->t->interval_s);
		return;
	}
	x = putf(u, 1, 0, A_NORMAL, "per s: frames %s  RoCE %s  VXLAN %s  ",
		 rate_text(t[0], 16, d[FP_CNT_FRAMES] / dt),
		 rate_text(t[1], 16, d[FP_CNT_ROCE] / dt),
		 rate_text(t[2], 16, d[FP_CNT_VXLAN] / dt));
	{
		const struct {
			const char *name;
			double v;
		} warn[] = {{"CE", u->ce_per_s},
			    {"CNP", u->cnp_per_s},
			    {"rtx", u->rtx_per_s},
			    {"malformed", d[FP_CNT_MALFORMED] / dt}};

		for (size_t i = 0; i < sizeof(warn) / sizeof(warn[0]); i++) {
			char v[16];

			x += putf(u, 1, x, A_NORMAL, "%s ", warn[i].name);
			x += put(u, 1, x, COLS - x, false, false,
				 ui_attr(u, warn[i].v > 0 ? R_WARN : R_NORMAL),
				 rate_text(v, sizeof(v), warn[i].v));
			x += put(u, 1, x, COLS - x, false, false, A_NORMAL, "  ");
		}
	}
	putf(u, 2, 0, A_NORMAL, "flows %zu/%u (%s)  evicted %llu  every %.1fs", ss->snap.n_flows,
	     ss->snap.flow_capacity,
	     fmt_pct(fill, sizeof(fill), ss->snap.n_flows, ss->snap.flow_capacity),
	     (unsigned long long)snapshot_evictions(&ss->snap), u->t->interval_s);
	{
		char r[160] = "";
		int n = 0;

		if (u->filter.n)
			n += snprintf(r + n, sizeof(r) - n, "filter: %s  ", u->filter_text);
		if (u->paused)
			n += snprintf(r + n, sizeof(r) - n, "PAUSED  ");
		/* Interface events (down, gone, back) would garble the screen on stderr. */
		if (sd->event[0])
			n += snprintf(r + n, sizeof(r) - n, "%s", sd->event);
		if (n) {
			int w = fmt_cols(r);

			put(u, 2, COLS - w > 40 ? COLS - w : 40, w, false, false,
			    ui_attr(u, u->paused ? R_WARN : R_TITLE), r);
		}
	}
}

static void draw_tabs(struct ui *u)
{
	int x = 0;

	fill_line(HEADER_LINES, A_NORMAL);
	for (int v = 0; v < V_MAX; v++) {
		char tab[32];

		if (v == V_ALERTS && u->ss->log->n_active)
			snprintf(tab, sizeof(tab), " %d %s(%d) ", v + 1, view_names[v],
				 u->ss->log->n_active);
		else
			snprintf(tab, sizeof(tab), " %d %s ", v + 1, view_names[v]);
		x +=
		    put(u, HEADER_LINES, x, COLS - x, false, false,
			v == (int)u->view && !u->detail && !u->help
			    ? ui_attr(u, R_TAB)
			    : ui_attr(u, v == V_ALERTS && u->ss->log->n_active ? R_CRIT : R_NORMAL),
			tab);
		x += put(u, HEADER_LINES, x, COLS - x, false, false, A_NORMAL, " ");
	}
	if (view_ncols[u->view] && u->view != V_PATHS && !u->detail && !u->help) {
		char s[64];
		int w;

		snprintf(s, sizeof(s), "sort %s %s", view_cols[u->view][u->sort[u->view]].title,
			 u->reverse[u->view] ? "(rev)" : "");
		w = fmt_cols(s);
		if (COLS - w - 1 > x)
			put(u, HEADER_LINES, COLS - w - 1, w, false, false, ui_attr(u, R_DIM), s);
	}
}

static void draw_status(struct ui *u, size_t rows)
{
	int y = LINES - 1;
	char right[64];

	fill_line(y, A_NORMAL);
	if (u->prompt) {
		int x = put(u, y, 0, COLS, false, false, ui_attr(u, R_KEY),
			    "filter (ip, qp=N, vni=N, path=IF; Esc clears): ");

		x += put(u, y, x, COLS - x - 1, false, false, A_NORMAL, u->edit);
		move(y, x < COLS ? x : COLS - 1);
		return;
	}
	if (u->status[0]) {
		put(u, y, 0, COLS, false, false, ui_attr(u, R_WARN), u->status);
		return;
	}
	if (u->detail)
		put(u, y, 0, COLS, false, false, ui_attr(u, R_DIM),
		    "Esc/Enter back  q quit  p pause  h help");
	else
		put(u, y, 0, COLS, false, false, ui_attr(u, R_DIM),
		    "q quit  h help  1-5/Tab view  s sort  / filter  p pause  Enter detail");
	if (u->detail || u->help)
		return;
	snprintf(right, sizeof(right), " %zu rows", rows);
	if (COLS > 75)
		put(u, y, COLS - fmt_cols(right) - 1, fmt_cols(right), false, false,
		    ui_attr(u, R_DIM), right);
}

/* ---- Flows ------------------------------------------------------------ */

static void flags_text(char *buf, const struct ui *u, int f)
{
	const struct flow_view *v = &u->ss->an.flows[f];
	int n = 0;

	if (v->elephant)
		buf[n++] = 'E';
	if (u->marks[f] & MARK_COLLISION)
		buf[n++] = 'C';
	if (u->marks[f] & MARK_PREDICTED)
		buf[n++] = 'P';
	buf[n] = 0;
}

static void flow_cell(const struct ui *u, int f, int col, int width, char *buf, size_t len,
		      enum role *role)
{
	const struct analysis *a = &u->ss->an;
	const struct flow_view *v = &a->flows[f];
	const struct flow_key *k = &v->r->key;
	const struct flow_counters *c = &v->r->c;

	*role = R_NORMAL;
	switch (col) {
	case FL_FLOW:
		endpoints(buf, len, k, false, width);
		break;
	case FL_SPORT:
		snprintf(buf, len, "%u", k->sport);
		break;
	case FL_VNI:
		vni_text(buf, len, k);
		break;
	case FL_QP:
		snprintf(buf, len, "%u", k->dest_qp);
		break;
	case FL_PATH:
		fmt_trunc(buf, len, path_name(a, v->path), width);
		break;
	case FL_IF:
		snprintf(buf, len, "%s %s", iface_name(u->ss, k->ifindex),
			 k->dir == FP_DIR_EGRESS ? "out" : "in");
		break;
	case FL_RATE:
		fmt_si(buf, len, v->bps, "b/s");
		*role = v->elephant ? R_ELEPH : R_NORMAL;
		break;
	case FL_PPS:
		rate_text(buf, len, v->pps);
		break;
	case FL_BYTES:
		fmt_si(buf, len, c->bytes, "B");
		break;
	case FL_CE:
		fmt_pct(buf, len, flow_ce(c), c->packets);
		*role = flow_ce(c) ? R_WARN : R_NORMAL;
		break;
	case FL_CNP:
		rate_text(buf, len, v->cnp_per_s);
		*role = v->cnp_per_s > 0 ? R_WARN : R_NORMAL;
		break;
	case FL_RTX:
		rate_text(buf, len, v->rtx_per_s);
		*role = v->rtx_per_s > 0 ? R_WARN : R_NORMAL;
		break;
	case FL_NAK:
		rate_text(buf, len, per_s(a, v->d.naks + v->d.rnr_naks));
		*role = v->d.naks + v->d.rnr_naks ? R_WARN : R_NORMAL;
		break;
	case FL_DSCP:
		snprintf(buf, len, "%u", c->dscp);
		break;
	case FL_AGE:
		fmt_duration(buf, len, flow_age_s(u, v));
		break;
	case FL_FLAGS:
		flags_text(buf, u, f);
		*role = u->marks[f] & MARK_COLLISION ? R_CRIT : v->elephant ? R_ELEPH : R_NORMAL;
		break;
	default:
		buf[0] = 0;
	}
}

static void draw_flows(struct ui *u, int y0, int height)
{
	const struct analysis *a = &u->ss->an;
	struct column c[FL_MAX];
	int natural = 0, rows = u->n_flow_rows, body = height - 1;
	bool vxlan = false;
	__u32 max_qp = 0, max_vni = 0;
	int path_w = 4, if_w = 7;

	memcpy(c, flow_cols, sizeof(c));
	/* Identifier columns as wide as what is on screen now. */
	scroll_to(u, rows, body);
	for (int r = u->top[V_FLOWS]; r < rows && r < u->top[V_FLOWS] + body; r++) {
		const struct flow_view *v = &a->flows[u->flow_rows[r]];
		const struct flow_key *k = &v->r->key;
		int w = endpoints_cols(k), n;

		natural = w > natural ? w : natural;
		if (k->dest_qp > max_qp)
			max_qp = k->dest_qp;
		if (k->flags & FP_FLOW_VXLAN) {
			vxlan = true;
			if (k->vni > max_vni)
				max_vni = k->vni;
		}
		n = strlen(path_name(a, v->path));
		path_w = n > path_w ? n : path_w;
		n = strlen(iface_name(u->ss, k->ifindex)) + 4;
		if_w = n > if_w ? n : if_w;
	}
	c[FL_QP].width = digits(max_qp) > 2 ? digits(max_qp) : 2;
	c[FL_VNI].width = digits(max_vni) > 3 ? digits(max_vni) : 3;
	c[FL_PATH].width = path_w > 8 ? 8 : path_w;
	c[FL_IF].width = if_w > 12 ? 12 : if_w;
	if (!vxlan)
		c[FL_VNI].drop = 20; /* all "-": the first to go */
	layout(c, FL_MAX, COLS, natural);
	draw_head(u, y0, c, FL_MAX, u->sort[V_FLOWS]);
	if (!rows) {
		putf(u, y0 + 1, 1, ui_attr(u, R_DIM), "%s",
		     u->filter.n ? "no flow matches the filter (Esc clears it)"
				 : "no RoCE flows yet");
		return;
	}
	for (int r = u->top[V_FLOWS], y = y0 + 1; r < rows && y < y0 + height; r++, y++) {
		bool sel = r == u->sel[V_FLOWS];

		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		for (int i = 0; i < FL_MAX; i++) {
			char buf[256];
			enum role role;

			if (!c[i].on)
				continue;
			flow_cell(u, u->flow_rows[r], i, c[i].width, buf, sizeof(buf), &role);
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    sel ? ui_attr(u, R_SEL) : ui_attr(u, role), buf);
		}
	}
}

/* ---- QPs -------------------------------------------------------------- */

static void qp_cell(const struct ui *u, const struct qp_row *q, int col, int width, char *buf,
		    size_t len, enum role *role)
{
	const struct analysis *a = &u->ss->an;
	const struct flow_view *d = q->data >= 0 ? &a->flows[q->data] : NULL;
	const struct flow_view *k = q->ack >= 0 ? &a->flows[q->ack] : NULL;

	*role = R_NORMAL;
	switch (col) {
	case QC_PAIR:
		if (d)
			endpoints(buf, len, &d->r->key, false, width);
		else
			endpoints(buf, len, &k->r->key, true, width);
		break;
	case QC_VNI:
		vni_text(buf, len, &(d ? d : k)->r->key);
		break;
	case QC_QP:
		if (d)
			snprintf(buf, len, "%u", d->r->key.dest_qp);
		else
			snprintf(buf, len, "-");
		break;
	case QC_PEER:
		if (k)
			snprintf(buf, len, "%u", k->r->key.dest_qp);
		else
			snprintf(buf, len, "-");
		break;
	case QC_PATH:
		snprintf(buf, len, "%s/%s", d ? path_name(a, d->path) : "-",
			 k ? path_name(a, k->path) : "-");
		break;
	case QC_DATA:
		if (d)
			fmt_si(buf, len, d->bps, "b/s");
		else
			snprintf(buf, len, "-");
		*role = d && d->elephant ? R_ELEPH : R_NORMAL;
		break;
	case QC_ACK:
		if (k)
			fmt_si(buf, len, k->bps, "b/s");
		else
			snprintf(buf, len, "-");
		break;
	case QC_CE:
		if (d)
			fmt_pct(buf, len, flow_ce(&d->r->c), d->r->c.packets);
		else
			snprintf(buf, len, "-");
		*role = d && flow_ce(&d->r->c) ? R_WARN : R_NORMAL;
		break;
	case QC_CNP:
	case QC_RTX:
	case QC_NAK: {
		double v = qp_value(u, q, col);

		rate_text(buf, len, v);
		*role = v > 0 ? R_WARN : R_NORMAL;
		break;
	}
	case QC_FLAGS:
		if (d)
			flags_text(buf, u, q->data);
		else
			buf[0] = 0;
		*role = d && u->marks[q->data] & MARK_COLLISION ? R_CRIT
			: d && d->elephant			? R_ELEPH
								: R_NORMAL;
		break;
	default:
		buf[0] = 0;
	}
}

static void draw_qps(struct ui *u, int y0, int height)
{
	const struct analysis *a = &u->ss->an;
	struct column c[QC_MAX];
	int natural = 0, rows = u->n_qp_rows, body = height - 1, path_w = 8;
	__u32 max_qp = 0, max_peer = 0, max_vni = 0;
	bool vxlan = false;

	memcpy(c, qp_cols, sizeof(c));
	scroll_to(u, rows, body);
	for (int r = u->top[V_QPS]; r < rows && r < u->top[V_QPS] + body; r++) {
		const struct qp_row *q = &u->qp_rows[r];
		const struct flow_view *v = &a->flows[q->data >= 0 ? q->data : q->ack];
		int w = endpoints_cols(&v->r->key), n;

		natural = w > natural ? w : natural;
		if (q->data >= 0 && a->flows[q->data].r->key.dest_qp > max_qp)
			max_qp = a->flows[q->data].r->key.dest_qp;
		if (q->ack >= 0 && a->flows[q->ack].r->key.dest_qp > max_peer)
			max_peer = a->flows[q->ack].r->key.dest_qp;
		if (v->r->key.flags & FP_FLOW_VXLAN) {
			vxlan = true;
			if (v->r->key.vni > max_vni)
				max_vni = v->r->key.vni;
		}
		n = strlen(path_name(a, q->data >= 0 ? a->flows[q->data].path : -1)) +
		    strlen(path_name(a, q->ack >= 0 ? a->flows[q->ack].path : -1)) + 1;
		path_w = n > path_w ? n : path_w;
	}
	c[QC_QP].width = digits(max_qp) > 2 ? digits(max_qp) : 2;
	c[QC_PEER].width = digits(max_peer) > 4 ? digits(max_peer) : 4;
	c[QC_VNI].width = digits(max_vni) > 3 ? digits(max_vni) : 3;
	c[QC_PATH].width = path_w > 17 ? 17 : path_w;
	if (!vxlan)
		c[QC_VNI].drop = 20;
	layout(c, QC_MAX, COLS, natural);
	draw_head(u, y0, c, QC_MAX, u->sort[V_QPS]);
	if (!rows) {
		putf(u, y0 + 1, 1, ui_attr(u, R_DIM), "%s",
		     u->filter.n ? "no queue pair matches the filter (Esc clears it)"
				 : "no RoCE queue pairs yet");
		return;
	}
	for (int r = u->top[V_QPS], y = y0 + 1; r < rows && y < y0 + height; r++, y++) {
		bool sel = r == u->sel[V_QPS];

		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		for (int i = 0; i < QC_MAX; i++) {
			char buf[256];
			enum role role;

			if (!c[i].on)
				continue;
			qp_cell(u, &u->qp_rows[r], i, c[i].width, buf, sizeof(buf), &role);
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    sel ? ui_attr(u, R_SEL) : ui_attr(u, role), buf);
		}
	}
}

/* ---- VNIs ------------------------------------------------------------- */

static void draw_vnis(struct ui *u, int y0, int height)
{
	struct column c[VC_MAX];
	int rows = u->n_vni_rows;

	memcpy(c, vni_cols, sizeof(c));
	layout(c, VC_MAX, COLS, 0);
	draw_head(u, y0, c, VC_MAX, u->sort[V_VNIS]);
	scroll_to(u, rows, height - 1);
	if (!rows) {
		putf(u, y0 + 1, 1, ui_attr(u, R_DIM), "no RoCE flows%s",
		     u->filter.n ? " match the filter" : " yet");
		return;
	}
	for (int r = u->top[V_VNIS], y = y0 + 1; r < rows && y < y0 + height; r++, y++) {
		const struct vni_row *v = &u->vni_rows[r];
		bool sel = r == u->sel[V_VNIS];

		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		for (int i = 0; i < VC_MAX; i++) {
			char buf[64];
			enum role role = R_NORMAL;

			switch (i) {
			case VC_VNI:
				if (v->vxlan)
					snprintf(buf, sizeof(buf), "%u", v->vni);
				else
					snprintf(buf, sizeof(buf), "-");
				break;
			case VC_FLOWS:
			case VC_QPS:
			case VC_ELEPH:
				snprintf(buf, sizeof(buf), "%.0f", vni_value(v, i));
				role = i == VC_ELEPH && v->elephants ? R_ELEPH : R_NORMAL;
				break;
			case VC_RATE:
				fmt_si(buf, sizeof(buf), v->bps, "b/s");
				break;
			case VC_PPS:
				fmt_si(buf, sizeof(buf), v->pps, "pps");
				break;
			default:
				rate_text(buf, sizeof(buf), vni_value(v, i));
				role = vni_value(v, i) > 0 ? R_WARN : R_NORMAL;
			}
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    sel ? ui_attr(u, R_SEL) : ui_attr(u, role), buf);
		}
	}
}

/* ---- Paths ------------------------------------------------------------ */

static double path_scale(const struct ui *u, const struct path_view *p, double group_max)
{
	if (!u->bar_by_max && p->speed_bps > 0)
		return p->speed_bps;
	return group_max;
}

static int wrap(const struct ui *u, int y, int x, int width, int max, attr_t attr,
		const char *text);

static int draw_collisions(struct ui *u, int y, int y_end)
{
	const struct analysis *a = &u->ss->an;

	for (size_t i = 0; i < a->n_collisions && y < y_end; i++) {
		const struct collision *c = &a->collisions[i];
		char flows[LINE_MAX_BYTES], ep[128];
		enum role role = c->predicted ? R_WARN : R_CRIT;
		size_t o = 0;

		if (c->predicted)
			putf(u, y++, 2, ui_attr(u, role),
			     "predicted: %d elephants on path %d, path %d has the fewest",
			     c->n_flows, c->path, c->idle_path);
		else
			putf(u, y++, 2, ui_attr(u, role),
			     "observed: %d elephants on %s while %s has room", c->n_flows,
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

static void draw_paths(struct ui *u, int y0, int height)
{
	const struct analysis *a = &u->ss->an;
	const struct analysis_opts *o = &u->ss->aopts;
	struct column c[PC_MAX];
	double group_max = 0;
	int y = y0 + 1, y_end = y0 + height, name_w = 4, observed = 0, predicted = 0;
	char t1[32], t2[32];

	for (int p = 0; p < a->n_paths; p++) {
		int n = strlen(a->paths[p].name);

		name_w = n > name_w ? n : name_w;
		if (a->paths[p].bps > group_max)
			group_max = a->paths[p].bps;
		observed += a->paths[p].elephants;
		predicted += a->paths[p].predicted_elephants;
	}
	memcpy(c, path_cols, sizeof(c));
	c[PC_PATH].width = name_w > 15 ? 15 : name_w;
	layout(c, PC_MAX, COLS, 0);
	/* A bar wider than 60 cells adds no precision: the rest is margin. */
	if (c[PC_LOAD].width > 60) {
		int shift = c[PC_LOAD].width - 60;

		c[PC_LOAD].width = 60;
		for (int i = PC_LOAD + 1; i < PC_MAX; i++)
			c[i].x -= shift;
	}
	draw_head(u, y0, c, PC_MAX, -1);
	if (!a->n_paths) {
		putf(u, y, 1, ui_attr(u, R_DIM),
		     "no uplinks: name the ECMP group with --uplinks IF,... to see paths");
		return;
	}
	scroll_to(u, a->n_paths, height - 6);
	for (int p = u->top[V_PATHS]; p < a->n_paths && y < y_end - 4; p++, y++) {
		const struct path_view *pv = &a->paths[p];
		double scale = path_scale(u, pv, group_max), frac = scale > 0 ? pv->bps / scale : 0;
		bool sel = p == u->sel[V_PATHS];
		enum role bar_role = frac >= 0.9 ? R_CRIT : frac >= 0.7 ? R_WARN : R_GOOD;

		if (u->bar_by_max || pv->speed_bps <= 0)
			bar_role = pv->elephants >= 2 ? R_CRIT : R_GOOD;
		if (sel)
			fill_line(y, ui_attr(u, R_SEL));
		for (int i = 0; i < PC_MAX; i++) {
			char buf[256];
			enum role role = R_NORMAL;

			if (!c[i].on)
				continue;
			switch (i) {
			case PC_PATH:
				fmt_trunc(buf, sizeof(buf), pv->name, c[i].width);
				break;
			case PC_SPEED:
				if (pv->speed_bps > 0)
					fmt_si(buf, sizeof(buf), pv->speed_bps, "b/s");
				else
					snprintf(buf, sizeof(buf), "?");
				break;
			case PC_LOAD: {
				int w = c[i].width - 2, fill;

				fill = fmt_bar(buf + 1, sizeof(buf) - 2, frac, w);
				buf[0] = '[';
				snprintf(buf + 1 + w, sizeof(buf) - 1 - w, "]");
				if (sel) {
					put(u, y, c[i].x, c[i].width, true, false,
					    ui_attr(u, R_SEL), buf);
				} else {
					put(u, y, c[i].x, 1, false, false, A_NORMAL, "[");
					put(u, y, c[i].x + 1, fill, false, false,
					    ui_attr(u, bar_role), buf + 1);
					put(u, y, c[i].x + 1 + fill, w - fill, false, false,
					    ui_attr(u, R_DIM), buf + 1 + fill);
					put(u, y, c[i].x + 1 + w, 1, false, false, A_NORMAL, "]");
				}
				continue;
			}
			case PC_UTIL:
				fmt_pct(buf, sizeof(buf), pv->bps, scale);
				break;
			case PC_RATE:
				fmt_si(buf, sizeof(buf), pv->bps, "b/s");
				break;
			case PC_FLOWS:
				snprintf(buf, sizeof(buf), "%llu", (unsigned long long)pv->flows);
				break;
			case PC_ELEPH:
				snprintf(buf, sizeof(buf), "%llu",
					 (unsigned long long)pv->elephants);
				role = pv->elephants >= 2 ? R_CRIT
				       : pv->elephants	  ? R_ELEPH
							  : R_NORMAL;
				break;
			case PC_PRED:
				if (o->predict && (int)o->hash.n_paths == a->n_paths)
					snprintf(buf, sizeof(buf), "%d", pv->predicted_elephants);
				else
					snprintf(buf, sizeof(buf), "-");
				break;
			}
			put(u, y, c[i].x, c[i].width, true, c[i].right,
			    sel ? ui_attr(u, R_SEL) : ui_attr(u, role), buf);
		}
	}
	y++;
	if (y < y_end) {
		bool bad = a->imbalance_bytes > o->imbalance_ratio;

		putf(u, y++, 0, ui_attr(u, bad ? R_WARN : R_NORMAL),
		     "imbalance (max/mean): load %.2f, flows %.2f  (alert above %.2f)%s",
		     a->imbalance_bytes, a->imbalance_flows, o->imbalance_ratio,
		     bad ? "  IMBALANCED" : "");
	}
	if (y < y_end)
		putf(u, y++, 0, A_NORMAL, "elephants >= %s: observed %d, predicted %s%s",
		     fmt_si(t1, sizeof(t1), a->elephant_bps, "b/s"), observed,
		     o->predict ? (snprintf(t2, sizeof(t2), "%d", predicted), t2) : "-",
		     o->predict ? "" : " (--hash-model to predict)");
	if (y < y_end)
		putf(u, y++, 0, ui_attr(u, R_DIM), "bars: %s (b toggles)",
		     u->bar_by_max ? "share of the busiest uplink"
				   : "share of link speed, else of the busiest uplink");
	if (y < y_end && a->n_collisions)
		putf(u, y++, 0, A_NORMAL, "collisions:");
	draw_collisions(u, y, y_end);
}

/* ---- Alerts ----------------------------------------------------------- */

/* Word-wrap text into at most max lines of width; returns lines used. */
static int wrap(const struct ui *u, int y, int x, int width, int max, attr_t attr, const char *text)
{
	int lines = 0;

	while (*text && lines < max) {
		int n = strlen(text), cut = n;
		char line[LINE_MAX_BYTES];

		if (n > width) {
			cut = width;
			while (cut > width / 2 && text[cut] != ' ')
				cut--;
			if (text[cut] != ' ')
				cut = width;
		}
		if (lines == max - 1 && n > width)
			cut = n; /* the last line is cut by put() */
		snprintf(line, sizeof(line), "%.*s", cut, text);
		if (y >= 0)
			put(u, y + lines, x, width, false, false, attr, line);
		lines++;
		text += cut;
		while (*text == ' ')
			text++;
	}
	return lines;
}

static int alert_height(const struct ui *u, const struct alert_entry *h)
{
	int w = COLS - 4 > 10 ? COLS - 4 : 10;

	return 1 + wrap(u, -1, 0, w, 2, 0, h->last.message) +
	       wrap(u, -1, 0, w, 2, 0, h->last.evidence);
}

static void draw_alerts(struct ui *u, int y0, int height)
{
	int rows = u->ss->log->n, y = y0, *sel = &u->sel[V_ALERTS], *top = &u->top[V_ALERTS];
	double now = u->ss->desc.clock_s;

	if (!rows) {
		putf(u, y0, 1, ui_attr(u, R_DIM), "no alerts so far");
		return;
	}
	scroll_to(u, rows, 1);
	/* Entries differ in height: scroll until the selected one fits. */
	for (;;) {
		int used = 0;

		for (int r = *top; r <= *sel; r++)
			used += alert_height(u, &u->ss->log->e[u->ss->log->order[r]]);
		if (used <= height || *top >= *sel)
			break;
		(*top)++;
	}
	for (int r = *top; r < rows && y < y0 + height; r++) {
		const struct alert_entry *h = &u->ss->log->e[u->ss->log->order[r]];
		enum role sev = h->last.severity == SEV_CRITICAL  ? R_CRIT
				: h->last.severity == SEV_WARNING ? R_WARN
								  : R_INFO;
		char first[32], last[32], head[LINE_MAX_BYTES];
		int x, w = COLS - 4;

		if (r == *sel)
			fill_line(y, ui_attr(u, R_SEL));
		x = put(u, y, 0, 10, true, false, ui_attr(u, r == *sel ? R_SEL : sev),
			h->last.severity == SEV_CRITICAL  ? "CRITICAL"
			: h->last.severity == SEV_WARNING ? "WARNING"
							  : "INFO");
		fmt_duration(first, sizeof(first), now - h->first_s);
		fmt_duration(last, sizeof(last), now - h->last_s);
		snprintf(head, sizeof(head), "%-22s x%-5llu first %s ago, %s%s%s",
			 alert_type_name(h->last.type), (unsigned long long)h->count, first,
			 h->active ? "active" : "cleared, last ", h->active ? "" : last,
			 h->active ? "" : " ago");
		put(u, y, x, COLS - x, false, false,
		    ui_attr(u, r == *sel   ? R_SEL
			       : h->active ? R_TITLE
					   : R_DIM),
		    head);
		y++;
		y += wrap(u, y < y0 + height ? y : -1, 4, w,
			  y0 + height - y < 2 ? y0 + height - y : 2,
			  ui_attr(u, h->active ? R_NORMAL : R_DIM), h->last.message);
		if (y < y0 + height)
			y += wrap(u, y, 4, w, y0 + height - y < 2 ? y0 + height - y : 2,
				  ui_attr(u, R_DIM), h->last.evidence);
	}
}

/* ---- detail ----------------------------------------------------------- */

static void ecn_line(const struct ui *u, int y, const char *what, const __u64 ecn[4])
{
	__u64 total = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	char a[16], b[16], c[16], d[16];

	/* Codepoints (RFC 3168 section 5): 00 Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE. */
	putf(u, y, 0, A_NORMAL, "%-12snot-ECT %s  ECT(0) %s  ECT(1) %s  CE %s", what,
	     fmt_pct(a, sizeof(a), ecn[0], total), fmt_pct(b, sizeof(b), ecn[2], total),
	     fmt_pct(c, sizeof(c), ecn[1], total), fmt_pct(d, sizeof(d), ecn[3], total));
}

static void draw_detail(struct ui *u, int y0, int height)
{
	const struct analysis *a = &u->ss->an;
	int f = analysis_find(a, &u->detail_key), y = y0, y_end = y0 + height;
	const struct flow_key *k = &u->detail_key;
	bool v6 = k->flags & FP_FLOW_IPV6, iv6 = k->flags & FP_FLOW_INNER_IPV6;
	char src[FP_ADDR_STRLEN], dst[FP_ADDR_STRLEN], t[8][48], line[LINE_MAX_BYTES];
	const struct path_hist *ph = find_path_hist(u, k);
	double now = u->ss->desc.clock_s;

	fill_line(y, ui_attr(u, R_HEAD));
	snprintf(line, sizeof(line), " flow %s:%u > %s:%u  qp %u  vni %s  seen on %s %s",
		 addr_text(src, sizeof(src), k->src, v6), k->sport,
		 addr_text(dst, sizeof(dst), k->dst, v6), k->dport, k->dest_qp,
		 vni_text(t[0], sizeof(t[0]), k), iface_name(u->ss, k->ifindex), fmt_dir(k->dir));
	put(u, y++, 0, COLS, false, false, ui_attr(u, R_HEAD), line);
	if (f < 0) {
		putf(u, y++, 0, ui_attr(u, R_WARN),
		     "not in the latest snapshot: evicted from the flow table or gone");
	} else {
		const struct flow_view *v = &a->flows[f];
		const struct flow_counters *c = &v->r->c;
		char ops[LINE_MAX_BYTES], dscps[256];
		size_t o = 0, d = 0;

		if (k->flags & FP_FLOW_VXLAN && y < y_end)
			putf(u, y++, 0, A_NORMAL, "inner       %s:%u > %s:%u",
			     addr_text(src, sizeof(src), k->inner_src, iv6), k->inner_sport,
			     addr_text(dst, sizeof(dst), k->inner_dst, iv6), k->inner_dport);
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "path        %s%s%s%s", path_name(a, v->path),
			     v->elephant ? "  elephant" : "",
			     u->marks[f] & MARK_COLLISION ? "  in a collision" : "",
			     v->predicted_path >= 0
				 ? (snprintf(t[0], sizeof(t[0]), "  model predicts path %d",
					     v->predicted_path),
				    t[0])
				 : "");
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "rate        %s  %s  (over %.1f s)",
			     fmt_si(t[1], sizeof(t[1]), v->bps, "b/s"),
			     fmt_si(t[2], sizeof(t[2]), v->pps, "pps"), a->interval_s);
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL,
			     "total       %llu packets, %s  ACK %llu  NAK %llu  RNR %llu",
			     (unsigned long long)c->packets,
			     fmt_si(t[3], sizeof(t[3]), c->bytes, "B"), (unsigned long long)c->acks,
			     (unsigned long long)c->naks, (unsigned long long)c->rnr_naks);
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL,
			     "            CE %llu  CNP %llu  rtx %llu  PSN gaps %llu  FECN %llu  "
			     "BECN %llu",
			     (unsigned long long)flow_ce(c), (unsigned long long)c->cnp,
			     (unsigned long long)c->retransmits, (unsigned long long)c->psn_gaps,
			     (unsigned long long)c->fecn, (unsigned long long)c->becn);
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "per second  CE %s  CNP %s  rtx %s  NAK %s",
			     rate_text(t[4], 16, v->ce_per_s), rate_text(t[5], 16, v->cnp_per_s),
			     rate_text(t[6], 16, v->rtx_per_s),
			     rate_text(t[7], 16, per_s(a, v->d.naks + v->d.rnr_naks)));
		if (y < y_end)
			ecn_line(u, y++, "ECN", c->ecn);
		if (k->flags & FP_FLOW_VXLAN && y < y_end)
			ecn_line(u, y++, "inner ECN", c->inner_ecn);
		for (int b = 0; b < 64 && d + 8 < sizeof(dscps); b++)
			if (c->dscp_mask & (1ULL << b))
				d +=
				    snprintf(dscps + d, sizeof(dscps) - d, "%s%d", d ? "," : "", b);
		if (!d)
			snprintf(dscps, sizeof(dscps), "-");
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "class       DSCP %u (seen %s)  VLAN %s  PCP %s",
			     c->dscp, dscps,
			     c->vlan_tagged ? (snprintf(t[0], 16, "%u", c->vlan), t[0]) : "-",
			     c->vlan_tagged ? (snprintf(t[1], 16, "%u", c->pcp), t[1]) : "-");
		for (int op = 0; op < 256 && o + 32 < sizeof(ops); op++)
			if (c->opcodes[op >> 6] & (1ULL << (op & 63)))
				o += snprintf(ops + o, sizeof(ops) - o, "%s%s", o ? ", " : "",
					      fmt_opcode(t[0], sizeof(t[0]), op));
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "opcodes     last %s",
			     fmt_opcode(t[1], sizeof(t[1]), c->last_opcode));
		if (y < y_end)
			y += wrap(u, y, 12, COLS - 12, y_end - y < 2 ? y_end - y : 2, A_NORMAL,
				  o ? ops : "-");
		if (y < y_end) {
			if (!u->psn_err)
				putf(u, y++, 0, A_NORMAL,
				     "PSN         last 0x%06x  max 0x%06x  next in order <= 0x%06x",
				     u->psn.last_psn, u->psn.max_psn, u->psn.next_psn_max);
			else if (u->psn_err == -ENOENT)
				putf(u, y++, 0, ui_attr(u, R_DIM),
				     "PSN         not tracked (only request flows are)");
			else
				putf(u, y++, 0, ui_attr(u, R_WARN), "PSN         lookup failed: %s",
				     fp_strerror(u->psn_err));
		}
		if (y < y_end) {
			if (v->reverse >= 0) {
				const struct flow_view *r = &a->flows[v->reverse];

				putf(u, y++, 0, A_NORMAL,
				     "reverse     qp %u on %s: %s, ACK %llu, NAK %llu, CNP %llu "
				     "(%s/s)",
				     r->r->key.dest_qp, path_name(a, r->path),
				     fmt_si(t[0], sizeof(t[0]), r->bps, "b/s"),
				     (unsigned long long)r->r->c.acks,
				     (unsigned long long)r->r->c.naks,
				     (unsigned long long)r->r->c.cnp,
				     rate_text(t[1], 16, r->cnp_per_s));
			} else {
				putf(u, y++, 0, ui_attr(u, R_DIM), "reverse     not seen");
			}
		}
		if (y < y_end)
			putf(u, y++, 0, A_NORMAL, "seen        first %s ago, last %.1f s ago",
			     fmt_duration(t[0], sizeof(t[0]), flow_age_s(u, v)),
			     u->ss->snap.taken_ns > c->last_seen_ns
				 ? (u->ss->snap.taken_ns - c->last_seen_ns) / 1e9
				 : 0.0);
	}
	if (y < y_end)
		putf(u, y++, 0, ui_attr(u, R_TITLE), "path over time%s",
		     ph ? "" : ": not seen carrying traffic on an uplink");
	for (int s = ph ? ph->n - 1 : 0; ph && s >= 0 && y < y_end; s--, y++) {
		const struct path_seg *g = &ph->seg[s];

		putf(u, y, 2, s == ph->n - 1 ? A_BOLD : A_NORMAL, "%-8s from %s ago to %s%s (%s)",
		     iface_name(u->ss, g->ifindex),
		     fmt_duration(t[0], sizeof(t[0]), now - g->from_s),
		     now - g->to_s < u->t->interval_s * 1.5
			 ? "now"
			 : fmt_duration(t[1], sizeof(t[1]), now - g->to_s),
		     now - g->to_s < u->t->interval_s * 1.5 ? "" : " ago",
		     fmt_duration(t[2], sizeof(t[2]), g->to_s - g->from_s));
	}
}

/* ---- help ------------------------------------------------------------- */

static void draw_help(struct ui *u, int y0, int height)
{
	static const char *const lines[] = {
	    "1-5 F P Q V A   Flows, Paths, QPs, VNIs, Alerts (Tab / Shift-Tab cycle)",
	    "Up Down j k     move the selection (PgUp PgDn Home End g G)",
	    "Enter           flow: detail (counters, PSN, ECN mix, path over time);",
	    "                path/VNI: filter the flows by it; alert: its first flow",
	    "s  < >  r       next sort column, previous/next, reverse the order",
	    "/               filter: 10.77.1 (address substring), qp=N, vni=N,",
	    "                path=up1; terms combine; Esc clears",
	    "p  space        pause: stop refreshing, keep the picture",
	    "b               Paths: bars against link speed or the busiest uplink",
	    "Esc             close detail/help, else clear the filter",
	    "h ?             this help;  q  quit;  Ctrl-L  redraw",
	    "",
	    "Flags: E elephant, C in an observed collision (elephants sharing an",
	    "uplink while another has room), P in a predicted collision (--hash-model).",
	    "Rates are over the last interval; CE% over the flow's life.",
	    "Interfaces marked * are uplinks (--uplinks) when not all are.",
	};
	int y = y0;

	fill_line(y, ui_attr(u, R_HEAD));
	put(u, y++, 0, COLS, false, false, ui_attr(u, R_HEAD),
	    " fabprobe top: keys (any key closes)");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && y < y0 + height; i++)
		put(u, y++, 1, COLS - 1, false, false, i < 11 ? A_NORMAL : ui_attr(u, R_DIM),
		    lines[i]);
}

/* ---- frame ------------------------------------------------------------ */

static size_t view_rows(const struct ui *u)
{
	switch (u->view) {
	case V_FLOWS:
		return u->n_flow_rows;
	case V_QPS:
		return u->n_qp_rows;
	case V_VNIS:
		return u->n_vni_rows;
	case V_PATHS:
		return u->ss->an.n_paths;
	case V_ALERTS:
		return u->ss->log->n;
	default:
		return 0;
	}
}

static int draw(struct ui *u)
{
	int height = LINES - BODY_TOP - 1, err = rebuild(u);

	if (err)
		return err;
	erase();
	curs_set(u->prompt ? 1 : 0);
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		mvprintw(0, 0, "fabprobe top needs %dx%d, have %dx%d", MIN_COLS, MIN_LINES, COLS,
			 LINES);
		refresh();
		return 0;
	}
	draw_header(u);
	draw_tabs(u);
	if (u->help)
		draw_help(u, BODY_TOP, height);
	else if (!u->have_data)
		putf(u, BODY_TOP + 1, 1, ui_attr(u, R_DIM), "waiting for the first refresh...");
	else if (u->detail)
		draw_detail(u, BODY_TOP, height);
	else if (u->view == V_FLOWS)
		draw_flows(u, BODY_TOP, height);
	else if (u->view == V_PATHS)
		draw_paths(u, BODY_TOP, height);
	else if (u->view == V_QPS)
		draw_qps(u, BODY_TOP, height);
	else if (u->view == V_VNIS)
		draw_vnis(u, BODY_TOP, height);
	else
		draw_alerts(u, BODY_TOP, height);
	draw_status(u, view_rows(u));
	/* The prompt owns the cursor; draw_status left it there. */
	refresh();
	return 0;
}

/* ---- keys ------------------------------------------------------------- */

static void set_view(struct ui *u, enum view v)
{
	u->view = v;
	u->detail = false;
	u->help = false;
	u->dirty = true;
	/* Flows and QPs keep the selected flow in view across a switch. */
	if (u->have_sel_key && (v == V_FLOWS || v == V_QPS)) {
		rebuild(u);
		remember_selection(u);
	}
}

static void apply_filter(struct ui *u, const char *text)
{
	struct filter f;
	char err[128];

	if (parse_filter(text, &f, err, sizeof(err))) {
		snprintf(u->status, sizeof(u->status), "filter: %s", err);
		return;
	}
	u->filter = f;
	snprintf(u->filter_text, sizeof(u->filter_text), "%s", text);
	for (int v = 0; v < V_MAX; v++)
		u->sel[v] = u->top[v] = 0;
	u->have_sel_key = false;
	u->dirty = true;
}

static void open_detail(struct ui *u, int flow)
{
	if (flow < 0)
		return;
	u->detail_key = u->ss->an.flows[flow].r->key;
	u->detail = true;
	fetch_psn(u);
}

static void enter(struct ui *u)
{
	const struct analysis *a = &u->ss->an;
	int s = u->sel[u->view];
	char f[FILTER_LEN];

	switch (u->view) {
	case V_FLOWS:
	case V_QPS:
		open_detail(u, selected_flow(u));
		break;
	case V_PATHS:
		if (s < a->n_paths) {
			snprintf(f, sizeof(f), "path=%s", a->paths[s].name);
			apply_filter(u, f);
			set_view(u, V_FLOWS);
		}
		break;
	case V_VNIS:
		if ((size_t)s < u->n_vni_rows && u->vni_rows[s].vxlan) {
			snprintf(f, sizeof(f), "vni=%u", u->vni_rows[s].vni);
			apply_filter(u, f);
			set_view(u, V_FLOWS);
		}
		break;
	case V_ALERTS:
		if ((size_t)s < u->ss->log->n) {
			const struct alert_entry *h = &u->ss->log->e[u->ss->log->order[s]];
			int flow = h->last.n_flows ? analysis_find(a, &h->last.flows[0]) : -1;

			if (flow >= 0)
				open_detail(u, flow);
			else
				snprintf(u->status, sizeof(u->status),
					 h->last.n_flows ? "that flow is no longer in the table"
							 : "this alert names no flow");
		}
		break;
	default:
		break;
	}
}

static void prompt_key(struct ui *u, int ch)
{
	size_t n = strlen(u->edit);

	switch (ch) {
	case 27: /* Esc */
		u->prompt = false;
		apply_filter(u, "");
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		u->prompt = false;
		apply_filter(u, u->edit);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (n)
			u->edit[n - 1] = 0;
		break;
	case 21: /* Ctrl-U */
		u->edit[0] = 0;
		break;
	default:
		if (ch >= 32 && ch < 127 && n + 1 < sizeof(u->edit)) {
			u->edit[n] = ch;
			u->edit[n + 1] = 0;
		}
	}
}

static void move_sel(struct ui *u, int delta)
{
	int rows = view_rows(u);

	u->sel[u->view] += delta;
	if (u->sel[u->view] >= rows)
		u->sel[u->view] = rows - 1;
	if (u->sel[u->view] < 0)
		u->sel[u->view] = 0;
	remember_selection(u);
}

static void cycle_sort(struct ui *u, int delta)
{
	int n = view_ncols[u->view];

	if (!n || u->view == V_PATHS)
		return;
	u->sort[u->view] = (u->sort[u->view] + delta + n) % n;
	u->dirty = true;
}

static void key(struct ui *u, int ch)
{
	int page = LINES - BODY_TOP - 3;

	u->status[0] = 0;
	if (u->prompt) {
		prompt_key(u, ch);
		return;
	}
	if (u->help && ch != KEY_RESIZE && ch != 'q') {
		u->help = false;
		return;
	}
	switch (ch) {
	case 'q':
		u->quit = true;
		break;
	case '1' ... '5':
		set_view(u, ch - '1');
		break;
	case 'F':
		set_view(u, V_FLOWS);
		break;
	case 'P':
		set_view(u, V_PATHS);
		break;
	case 'Q':
		set_view(u, V_QPS);
		break;
	case 'V':
		set_view(u, V_VNIS);
		break;
	case 'A':
		set_view(u, V_ALERTS);
		break;
	case '\t':
		set_view(u, (u->view + 1) % V_MAX);
		break;
	case KEY_BTAB:
		set_view(u, (u->view + V_MAX - 1) % V_MAX);
		break;
	case 's':
	case '>':
		cycle_sort(u, 1);
		break;
	case '<':
		cycle_sort(u, -1);
		break;
	case 'r':
		u->reverse[u->view] = !u->reverse[u->view];
		u->dirty = true;
		break;
	case '/':
		u->prompt = true;
		snprintf(u->edit, sizeof(u->edit), "%s", u->filter_text);
		break;
	case 27: /* Esc */
		if (u->detail)
			u->detail = false;
		else if (u->filter.n)
			apply_filter(u, "");
		break;
	case 'p':
	case ' ':
		u->paused = !u->paused;
		break;
	case 'b':
		u->bar_by_max = !u->bar_by_max;
		break;
	case 'h':
	case '?':
		u->help = true;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (u->detail)
			u->detail = false;
		else if (u->have_data)
			enter(u);
		break;
	case KEY_LEFT:
	case KEY_BACKSPACE:
		u->detail = false;
		break;
	case KEY_UP:
	case 'k':
		move_sel(u, -1);
		break;
	case KEY_DOWN:
	case 'j':
		move_sel(u, 1);
		break;
	case KEY_PPAGE:
		move_sel(u, -page);
		break;
	case KEY_NPAGE:
		move_sel(u, page);
		break;
	case KEY_HOME:
	case 'g':
		move_sel(u, -(int)view_rows(u));
		break;
	case KEY_END:
	case 'G':
		move_sel(u, view_rows(u));
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
	default:
		break;
	}
}

/* ---- main loop -------------------------------------------------------- */

static void ui_free(struct ui *u)
{
	free(u->marks);
	free(u->flow_rows);
	free(u->qp_rows);
	free(u->vni_rows);
	free(u->scratch);
	free(u->rep_of);
	free(u->used);
	free(u->nkeys);
	kindex_free(&u->qp_index);
	free(u->ph);
	kindex_free(&u->ph_index);
}

/*
 * The source sets the pace: a live probe (or a recording played at its
 * pace) waits in session_advance(); a recording read as fast as it runs
 * returns at once. So the loop advances the source in short slices of its
 * own time, refreshes when a refresh interval of it has passed, and reads
 * keys in between. A paused recording stops; a live probe runs on.
 */
int top_ui_run(struct session *ss, const struct top_opts *t)
{
	struct ui u = {.ss = ss, .t = t};
	double start, next;
	bool final_done = false;
	SCREEN *scr;
	int err = 0;

	ss->quiet = true;
	for (int v = 0; v < V_MAX; v++)
		u.sort[v] = view_default_sort[v];
	setlocale(LC_ALL, "");
	u.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* newterm, unlike initscr, reports a terminal it cannot drive. */
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fp_err("top: cannot drive terminal '%s'; use --plain",
		       getenv("TERM") ? getenv("TERM") : "(unset)");
		ui_free(&u);
		return -ENOTTY;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	init_colors(&u);
	u.cpu_prev_s = cpu_s();
	u.wall_prev_s = wall_s();
	u.last_refresh_s = session_clock_s(ss);
	start = wall_s();
	next = u.last_refresh_s + t->interval_s;

	while (!fp_stopping && !u.quit) {
		bool hold = ss->ended || (u.paused && ss->desc.finite);
		double clock;

		if (t->duration_s > 0 && wall_s() - start >= t->duration_s)
			break;
		if (!hold) {
			double slice = next - session_clock_s(ss);

			if (slice > POLL_MS / 1000.0)
				slice = POLL_MS / 1000.0;
			err = session_advance(ss, slice > 0.001 ? slice : 0.001);
			if (err < 0)
				break;
			err = 0;
		}
		clock = session_clock_s(ss);
		if ((clock >= next && !u.paused) || (ss->ended && !final_done)) {
			err = refresh_data(&u);
			if (err)
				break;
			final_done = ss->ended;
			next += t->interval_s;
			if (next <= clock)
				next = clock + t->interval_s;
		}
		err = draw(&u);
		if (err)
			break;
		/* Keys: wait for them only when nothing else sets the pace. */
		timeout(hold ? POLL_MS : 0);
		for (int ch = getch(); ch != ERR && !u.quit; ch = getch()) {
			key(&u, ch);
			/* Drain what is queued before drawing again. */
			timeout(0);
		}
	}
	endwin();
	delscreen(scr);
	if (err)
		fp_err("top: %s", fp_strerror(err));
	ui_free(&u);
	return err;
}
