// SPDX-License-Identifier: GPL-2.0
/*
 * view_help.c - the help screen: the keys, written from the key tables
 * (keys.c and the views' own), then what the marks mean and which window
 * each number covers.
 */
#include <stdio.h>

#include "top/ui.h"

#define HELP_MAX    32
#define HELP_TEXT_X 17 /* help_lines() pads labels to 15 columns and a space */

static void draw(struct ui *u, struct vstate *vs, int y0, int height)
{
	static char lines[HELP_MAX][LINE_MAX_BYTES];
	char every[160];
	/* The windows first: on a small terminal the last lines are cut. */
	const char *const notes[] = {
	    "",
	    every,
	    "of a capture, over all of it. BYTES, CE%, AGE and a detail's 'since seen'",
	    "count since the flow entered the flow table.",
	    "Flags: E elephant, C in an observed collision (elephants sharing an uplink",
	    "while another has room), P in a predicted one (--hash-model).",
	    "QP is the destination QP of a direction: the receiver's number.",
	    "Interfaces marked * are uplinks (--uplinks) when not all are.",
	};

	int n = help_lines(u, lines, HELP_MAX), y = y0;

	(void)vs;
	snprintf(every, sizeof(every),
		 "Per second (RATE, PPS, x/s, header): the last interval (%.1f s); at the end",
		 u->t->interval_s);
	fill_line(y, ui_attr(u, R_HEAD));
	put(u, y++, 0, COLS, false, false, ui_attr(u, R_HEAD),
	    " fabprobe top: keys (any key closes)");
	/* "label           text": the text wraps under itself. */
	for (int i = 0; i < n && y < y0 + height; i++) {
		lines[i][HELP_TEXT_X - 2] = 0;
		put(u, y, 1, HELP_TEXT_X - 1, false, false, A_NORMAL, lines[i]);
		y += wrap(u, y, HELP_TEXT_X, COLS - HELP_TEXT_X, 2, A_NORMAL,
			  lines[i] + HELP_TEXT_X - 1);
	}
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
