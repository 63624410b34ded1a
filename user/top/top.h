/* SPDX-License-Identifier: GPL-2.0 */
/* top.h - `fabprobe top`: options shared by the plain and full-screen views. */
#ifndef __FP_TOP_H
#define __FP_TOP_H

#include <stdbool.h>
#include <stddef.h>

struct session;

struct top_opts {
	double interval_s; /* refresh interval */
	double duration_s; /* 0: until quit */
	bool once;
	bool json;
	bool plain;
	size_t rows;
	const char *view; /* the dashboard's first view by name, NULL: Flows */
};

/* The full-screen ncurses dashboard; returns 0 on a normal quit. */
int top_ui_run(struct session *ss, const struct top_opts *t);

/* 0 when name is a view of the dashboard (any case), else -EINVAL. */
int top_view_check(const char *name);
/* The views' names for --help and errors: "flows|paths|...". */
const char *top_view_names(void);

#endif /* __FP_TOP_H */
