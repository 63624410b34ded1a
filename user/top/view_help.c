// SPDX-License-Identifier: GPL-2.0
/*
 * view_help.c - the help screen: the keys, written from the key tables
 * (keys.c and the views' own), then what the marks mean and which window
 * each number covers.
 */
#include <stdio.h>

#include "top/ui.h"

#define HELP_MAX 32

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	static char lines[HELP_MAX][LINE_MAX_BYTES];
	char every[160];
	const char *const notes[] = {
	    "",
	    "Flags: E elephant, C in an observed collision (elephants sharing an",
	    "uplink while another has room), P in a predicted collision (--hash-model).",
	    every,
	    "BYTES, CE% and AGE, and a detail's 'since seen', count since the flow",
	    "entered the flow table. A finished capture shows rates over all of it.",
	    "QP is the destination QP of that direction (the receiver's number).",
	    "Interfaces marked * are uplinks (--uplinks) when not all are.",
	};
	int n = help_lines(u, lines, HELP_MAX), y = y0;

	(void)vs;
	snprintf(every, sizeof(every),
		 "Per second (RATE, PPS, x/s, the header): over the last interval (%.1f s).",
		 u->t->interval_s);
	fill_line(y, ui_attr(u, R_HEAD));
	put(u, y++, 0, COLS, false, false, ui_attr(u, R_HEAD),
	    " fabprobe top: keys (any key closes)");
	for (int i = 0; i < n && y < y0 + height; i++)
		put(u, y++, 1, COLS - 1, false, false, A_NORMAL, lines[i]);
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]) && y < y0 + height; i++)
		put(u, y++, 1, COLS - 1, false, false, ui_attr(u, R_DIM), notes[i]);
}

/* Any key closes the help, except q (quits) and a resize. */
static bool take_key(struct ui *u, int ch)
{
	if (ch == 'q' || ch == KEY_RESIZE)
		return false;
	u->overlay = NULL;
	return true;
}

const struct view view_help = {
    .name = "Help",
    .draw = draw,
    .take_key = take_key,
};
