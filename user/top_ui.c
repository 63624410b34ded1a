// SPDX-License-Identifier: GPL-2.0
/* top_ui.c - placeholder until the ncurses dashboard lands: the plain view. */
#include <stdio.h>

#include "live.h"
#include "top.h"

int top_ui_run(struct live *l, const struct top_opts *t)
{
	(void)l;
	(void)t;
	fprintf(stderr, "fabprobe: the dashboard is not built yet; use --plain\n");
	return -1;
}
