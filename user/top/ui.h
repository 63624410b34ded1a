/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ui.h - what the files of the dashboard share, on htop's model: a view
 * is one file that fills a struct view (its columns, default sort, how to
 * build and order its rows, how to fill a cell, what Enter opens, its own
 * keys); one generic drawer (table.c) draws every table; keys dispatch
 * through tables of actions (keys.c); screen.c owns the terminal and the
 * loop over the session.
 *
 *   screen.c  terminal, colours, put/putf/wrap, the frame, the main loop
 *   header.c  header lines, tabs, legend, status line
 *   table.c   layout, column titles, sorting, selection, the table drawer
 *   keys.c    the key table, the filter prompt, the help text
 *   filter.c  filter parsing and matching
 *   refresh.c per-refresh bookkeeping (marks, representatives, CPU)
 *   history.c per-flow path history
 *   view_*.c  one view each; views[] in screen.c lists the tabs (view_nic.c:
 *             the NIC counters, PFC and QPs beside the flows, --nic)
 */
#ifndef __FP_TOP_UI_H
#define __FP_TOP_UI_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/analysis.h"
#include "core/mirror.h"
#include "core/session.h"
#include "top/top.h"
#include "util/kindex.h"

#define HEADER_LINES   3
#define BODY_TOP       (HEADER_LINES + 1)
#define MIN_COLS       40
#define MIN_LINES      10
#define LINE_MAX_BYTES 2048
#define FILTER_LEN     96
#define FILTER_TERMS   8
#define MAX_COLS       24
#define MAX_VIEWS      8
#define ELLIPSIS       "\xe2\x80\xa6"

/* Per-flow marks from the analysis' collisions. */
#define MARK_COLLISION 0x01
#define MARK_PREDICTED 0x02

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
	/* The title; for a flow counter (counter_title) what follows flow_defs[].title. */
	const char *title;
	bool counter_title;
	enum flow_cnt counter;
	int width;   /* 0: flexible, takes what the others leave */
	int min;     /* flexible: never narrower */
	int max;     /* never wider (0: no limit) */
	bool fill;   /* flexible: what the others leave, to max (a bar); none dropped for it */
	bool right;  /* numbers */
	int drop;    /* narrow terminals hide the highest first; 0: always shown */
	bool hidden; /* not shown: its source has nothing for it (RTX when sampled, OWNER without
			--nic) */
	bool on;     /* set by table_layout() */
	int x;	     /* set by table_layout() */
};

/* Column initialisers: a number, a flow counter's title with a suffix ("/s"). */
#define COL_NUMBER(w)		.width = (w), .right = true
#define COL_COUNTER(fc, suffix) .counter_title = true, .counter = (fc), .title = (suffix)

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

/* Which uplink carried a flow, from when to when (session clock, seconds). */
#define PATH_SEGS 8 /* uplinks remembered per flow */

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

struct path_history {
	struct path_hist *ph;
	size_t n, cap;
	struct kindex index;
};

/* One view's state: its order, selection, scroll and rows. */
struct vstate {
	int sort;
	bool reverse;
	int sel, top;
	void *rows; /* of the view's row_size */
	size_t n_rows, cap_rows;
};

struct ui;
struct radix_ent;

/* Keys and what they do. keys[] ends at 0; the help shows label and help. */
struct action {
	int keys[8];
	const char *label; /* the keys as the help shows them */
	const char *help;  /* NULL: not in the help */
	const char *hint;  /* the status line's word for it, NULL: not there */
	void (*run)(struct ui *u, int ch);
};

struct view {
	const char *name; /* tab title, and the name --view takes */
	int key;	  /* its letter (besides its digit) */
	const struct column *cols;
	int n_cols;
	int default_sort; /* -1: the rows keep the order build gives them */
	size_t row_size;
	const char *empty;	    /* shown when there are no rows */
	const char *empty_filtered; /* ... because of the filter */
	const char *empty_ended;    /* ... once a recording has ended (none to come), or NULL */
	const char *enter_hint;	    /* what Enter opens, for the status line */
	const char *legend;	    /* one line kept under the table, or NULL */
	const char *legend_sampled; /* instead, when the source samples (sFlow), or NULL */
	/* Fill vs->rows (the filter applies); NULL for overlays. */
	int (*build)(struct ui *u, struct vstate *vs);
	/*
	 * Natural order of column col (-1: the final tie-break) of two rows;
	 * table.c orders the columns sort_key gives by it instead.
	 */
	int (*cmp)(const struct ui *u, int col, const void *x, const void *y);
	/*
	 * Column col of a row as a number whose ascending order is the
	 * column's natural order, so that table.c compares it, and sorts many
	 * rows a key at a time; false where the column is no number. NULL:
	 * cmp alone orders the rows.
	 */
	bool (*sort_key)(const struct ui *u, int col, const void *row, double *key);
	/*
	 * Widen columns for a row on screen (row NULL: once before, to reset);
	 * returns the natural width of its flexible cell.
	 */
	int (*fit)(const struct ui *u, struct column *c, const void *row);
	/* Text and role of one cell. */
	void (*cell)(const struct ui *u, const void *row, int col, int width, char *buf, size_t len,
		     enum role *role);
	/* Draw the cell itself (a bar); false: use cell(). */
	bool (*paint)(const struct ui *u, const void *row, int col, const struct column *c, int y,
		      bool sel);
	/* The flow a row stands for (the selection follows it), -1 when none. */
	int (*flow_of)(const struct ui *u, const void *row);
	void (*enter)(struct ui *u, const void *row);
	/* Draw the body; NULL: table_draw() of the rows. */
	void (*draw)(struct ui *u, struct vstate *vs, int y0, int height);
	/* Keys of this view only, tried before the global ones. */
	const struct action *actions;
	int n_actions;
	/* An overlay that takes every key (help): true when it used ch. */
	bool (*take_key)(struct ui *u, int ch);
};

/* The tabs, in order; adding a view is a file and a line there (screen.c). */
extern const struct view *const views[];
extern const int n_views;
extern const struct view view_flows, view_paths, view_qps, view_vnis, view_alerts, view_nic;
/* Overlays: they replace the view until closed. */
extern const struct view view_detail, view_help;

struct ui {
	struct session *ss;
	const struct top_opts *t;
	const struct analysis *an; /* the session's, or the whole capture's once it ended */
	struct analysis whole;
	bool have_whole;
	bool color, utf8, quit, paused, prompt, bar_by_max;
	int view;		     /* index into views[] */
	const struct view *overlay;  /* detail or help, NULL */
	struct vstate vs[MAX_VIEWS]; /* by view index */
	struct flow_key sel_key;     /* the selected flow (Flows) or data side (QPs) */
	bool have_sel_key;

	char filter_text[FILTER_LEN];
	struct filter filter;
	char edit[FILTER_LEN];
	char status[160];

	struct flow_key detail_key;

	/* refresh bookkeeping */
	bool have_data, dirty;
	__u64 gen;
	double last_refresh_s; /* session clock */
	double cpu_pct, cpu_prev_s, wall_prev_s;
	double ce_per_s, cnp_per_s, rtx_per_s;
	__u8 *marks;
	size_t cap_marks;
	/* one record per flow seen at several points: rep_of[i] stands for flow i */
	int *rep_of;
	size_t cap_rep;
	struct flow_key *nkeys;
	size_t cap_nkeys;
	struct kindex rep_index;
	/*
	 * The flows in byte order, ties by key (snapshot_sort_by_bytes()'s):
	 * by_rank[k] is the k-th flow, rank[i] flow i's place in that order.
	 * The dashboard's refreshes leave the flows in the table's order
	 * (session.unordered); where a view's rows or tie-breaks followed the
	 * snapshot's order, they follow this one.
	 */
	int *rank, *by_rank;
	size_t cap_rank, cap_by_rank;
	void *scratch;	     /* for a view's build */
	size_t cap_scratch;  /* in bytes, whatever the size of a view's elements */
	void *sort_buf;	     /* table_sort()'s keys and the rows in their new order */
	size_t cap_sort_buf; /* in bytes */
	bool sort_check;     /* FABPROBE_TEST_SORT: sort by key from 2 rows, and check it */

	struct path_history hist;
};

/* screen.c */
attr_t ui_attr(const struct ui *u, enum role r);
int put(const struct ui *u, int y, int x, int width, bool pad, bool right, attr_t attr,
	const char *text);
int putf(const struct ui *u, int y, int x, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void fill_line(int y, attr_t attr);
int wrap(const struct ui *u, int y, int x, int width, int max, attr_t attr, const char *text);
int wrap_cut(const char *text, int width);
int body_height(void);
int view_index(const char *name);
void set_view(struct ui *u, int v);
struct vstate *cur_vs(struct ui *u);

/* header.c */
/* The only input is NIC counters: no packets, no flows (the NIC view opens). */
bool top_nic_only(const struct ui *u);
void draw_header(struct ui *u);
void draw_tabs(struct ui *u);
void draw_legend(struct ui *u);
void draw_status(struct ui *u);
const char *rate_text(char *buf, size_t len, double per_s);
const char *window_text(const struct ui *u, char *buf, size_t len);

/* table.c */
void table_layout(struct column *c, int n, int width, int natural);
/* A view's columns (MAX_COLS room), those its input has nothing for hidden. */
void table_columns(const struct ui *u, const struct view *v, struct column *c);
const char *col_title(char *buf, size_t len, const struct column *c);
int table_draw(struct ui *u, const struct view *v, struct vstate *vs, int y0, int height);
void table_sort(struct ui *u, const struct view *v, struct vstate *vs);
/*
 * Column col of two rows in its natural order: by the view's sort_key
 * where the column is a number (so the radix sort and qsort cannot
 * disagree), else by its cmp.
 */
int table_cmp(const struct ui *u, const struct view *v, int col, const void *x, const void *y);
void scroll_to(struct vstate *vs, int rows, int height);
int rows_grow(struct vstate *vs, size_t n, size_t size);
/* Room in u->scratch for n + 1 elements of size bytes (any view may use it). */
int scratch_grow(struct ui *u, size_t n, size_t size);
/*
 * Room for 2n radix entries (n to sort, n for radix_sort's tmp) and extra
 * bytes after them, in u->sort_buf; NULL when out of memory. A view's
 * build may use it: table_sort() runs after it.
 */
struct radix_ent *sort_room(struct ui *u, size_t n, size_t extra);
const void *row_at(const struct view *v, const struct vstate *vs, size_t r);
int rebuild(struct ui *u);
int selected_flow(const struct ui *u);
void remember_selection(struct ui *u);
void grow_width(struct column *c, int want);
int cmp_num(double a, double b);
int cmp_key_ends(const struct flow_key *a, const struct flow_key *b);
int digits(unsigned long long v);
const char *iface_name(const struct ui *u, __u32 ifindex);
const char *path_name(const struct analysis *a, int path);
const char *vni_text(char *buf, size_t len, const struct flow_key *k);
const char *endpoints(char *buf, size_t len, const struct flow_key *k, bool swap, int width);
int endpoints_cols(const struct flow_key *k);
double flow_age_s(const struct ui *u, const struct flow_view *v);
void flags_text(char *buf, const struct ui *u, int f);
enum role rate_cell(char *buf, size_t len, double per_s);
enum role flags_role(const struct ui *u, int f);
/* The process owning flow f's local QP (--nic), "-" when none. */
const char *owner_of(const struct ui *u, int f, char *buf, size_t len);
#define OWNER_LEN (NIC_COMM_LEN + 16)

/* keys.c */
void key(struct ui *u, int ch);
int help_lines(const struct ui *u, char lines[][LINE_MAX_BYTES], int max);
int status_hints(const struct ui *u, char *buf, size_t len);
void open_detail(struct ui *u, int flow);

/* filter.c */
int parse_filter(const char *text, struct filter *f, char *err, size_t err_len);
bool flow_matches(const struct ui *u, int flow);
void apply_filter(struct ui *u, const char *text);
void filter_to_flows(struct ui *u, const char *text);

/* refresh.c */
int refresh_data(struct ui *u);
/*
 * The flows of s in byte order (rank, by_rank), from their places in the
 * snapshot: the order its sort would give them, without moving a record.
 */
int ui_rank_flows(struct ui *u, struct snapshot *s);
void ui_data_free(struct ui *u);
double wall_s(void);
double cpu_s(void);

/* history.c */
int history_note(struct path_history *h, const struct analysis *a, __u64 gen, double from_s,
		 double now_s);
const struct path_hist *history_find(struct path_history *h, const struct flow_key *k);
void history_free(struct path_history *h);

#endif /* __FP_TOP_UI_H */
