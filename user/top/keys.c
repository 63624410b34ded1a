// SPDX-License-Identifier: GPL-2.0
/*
 * keys.c - what each key does, as a table the help screen and the status
 * line are written from. A key goes to the filter prompt when it is open,
 * then to the overlay's actions, the view's own, the views' digits and
 * letters, and last the global table.
 */
#include <string.h>

#include "top/ui.h"

static void act_quit(struct ui *u, int ch)
{
	(void)ch;
	u->quit = true;
}

static void act_help(struct ui *u, int ch)
{
	(void)ch;
	u->overlay = &view_help;
}

static void act_cycle_view(struct ui *u, int ch)
{
	set_view(u, (u->view + (ch == KEY_BTAB ? n_views - 1 : 1)) % n_views);
}

static void act_move(struct ui *u, int ch)
{
	struct vstate *vs = cur_vs(u);
	int rows = vs->n_rows, page = LINES - BODY_TOP - 4, delta;

	switch (ch) {
	case KEY_UP:
	case 'k':
		delta = -1;
		break;
	case KEY_DOWN:
	case 'j':
		delta = 1;
		break;
	case KEY_PPAGE:
		delta = -page;
		break;
	case KEY_NPAGE:
		delta = page;
		break;
	case KEY_HOME:
	case 'g':
		delta = -rows;
		break;
	default:
		delta = rows;
	}
	vs->sel += delta;
	if (vs->sel >= rows)
		vs->sel = rows - 1;
	if (vs->sel < 0)
		vs->sel = 0;
	remember_selection(u);
}

static void act_enter(struct ui *u, int ch)
{
	const struct view *v = views[u->view];
	struct vstate *vs = cur_vs(u);

	(void)ch;
	if (u->have_data && v->enter && vs->sel >= 0 && (size_t)vs->sel < vs->n_rows)
		v->enter(u, row_at(v, vs, vs->sel));
}

static void act_sort(struct ui *u, int ch)
{
	const struct view *v = views[u->view];
	struct vstate *vs = cur_vs(u);
	struct column c[MAX_COLS];

	if (v->default_sort < 0)
		return;
	if (ch == 'r') {
		vs->reverse = !vs->reverse;
	} else {
		/* Past the columns never shown (OWNER without --nic, RTX/s of sFlow). */
		table_columns(u, v, c);
		do
			vs->sort = (vs->sort + (ch == '<' ? v->n_cols - 1 : 1)) % v->n_cols;
		while (c[vs->sort].hidden && vs->sort != v->default_sort);
	}
	u->dirty = true;
}

static void act_filter(struct ui *u, int ch)
{
	(void)ch;
	u->prompt = true;
	snprintf(u->edit, sizeof(u->edit), "%s", u->filter_text);
}

static void act_clear(struct ui *u, int ch)
{
	(void)ch;
	if (u->filter.n)
		apply_filter(u, "");
}

static void act_pause(struct ui *u, int ch)
{
	(void)ch;
	u->paused = !u->paused;
	if (!u->paused)
		session_resume(u->ss);
}

static void act_redraw(struct ui *u, int ch)
{
	(void)u;
	(void)ch;
	clearok(curscr, TRUE);
}

static char view_keys[32], view_hint[32];

static const struct action global[] = {
    {{'q'}, "q", "quit", "q quit", act_quit},
    {{'h', '?'}, "h ?", "this help (any key closes it)", "h help", act_help},
    {{'\t', KEY_BTAB}, view_keys, NULL, view_hint, act_cycle_view},
    {{KEY_UP, KEY_DOWN, 'k', 'j', KEY_PPAGE, KEY_NPAGE, KEY_HOME, 'g'},
     "Up Down j k",
     "move the selection (PgUp PgDn Home End g G)",
     NULL,
     act_move},
    {{KEY_END, 'G'}, NULL, NULL, NULL, act_move},
    {{'s', '>', '<', 'r'},
     "s  < >  r",
     "next sort column, previous/next, reverse the order",
     "s sort",
     act_sort},
    {{'/'},
     "/",
     "filter: 10.77.1 (address substring), qp=N, vni=N, path=up1; Esc clears",
     "/ filter",
     act_filter},
    {{'p', ' '},
     "p  space",
     "pause: stop refreshing (a capture stops playing)",
     "p pause",
     act_pause},
    {{'\n', '\r', KEY_ENTER}, "Enter", NULL, NULL, act_enter},
    {{27}, "Esc", "close detail or help, else clear the filter", NULL, act_clear},
    {{12}, "Ctrl-L", "redraw", NULL, act_redraw},
};

static void fill_view_keys(void)
{
	size_t o;

	if (view_keys[0])
		return;
	o = snprintf(view_keys, sizeof(view_keys), "1-%d", n_views);
	for (int v = 0; v < n_views && o < sizeof(view_keys); v++)
		o += snprintf(view_keys + o, sizeof(view_keys) - o, " %c", views[v]->key);
	snprintf(view_hint, sizeof(view_hint), "1-%d/Tab view", n_views);
}

static bool action_has(const struct action *a, int ch)
{
	for (size_t k = 0; k < sizeof(a->keys) / sizeof(a->keys[0]) && a->keys[k]; k++)
		if (a->keys[k] == ch)
			return true;
	return false;
}

static bool run_from(struct ui *u, const struct action *a, int n, int ch)
{
	for (int i = 0; i < n; i++) {
		if (action_has(&a[i], ch)) {
			a[i].run(u, ch);
			return true;
		}
	}
	return false;
}

/* A view's digit or letter. */
static bool view_key(struct ui *u, int ch)
{
	for (int v = 0; v < n_views; v++) {
		if (ch == '1' + v || ch == views[v]->key) {
			set_view(u, v);
			return true;
		}
	}
	return false;
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

void key(struct ui *u, int ch)
{
	const struct view *o = u->overlay, *v = views[u->view];

	fill_view_keys();
	u->status[0] = 0;
	if (u->prompt) {
		prompt_key(u, ch);
		return;
	}
	if (o && o->take_key && o->take_key(u, ch))
		return;
	if (o && run_from(u, o->actions, o->n_actions, ch))
		return;
	if (!o && run_from(u, v->actions, v->n_actions, ch))
		return;
	if (view_key(u, ch))
		return;
	run_from(u, global, sizeof(global) / sizeof(global[0]), ch);
}

static int help_line(char lines[][LINE_MAX_BYTES], int n, int max, const char *label,
		     const char *text)
{
	if (n < max)
		snprintf(lines[n], LINE_MAX_BYTES, "%-15s %s", label, text);
	return n + 1;
}

/* The help's key lines, from the tables; returns how many. */
int help_lines(const struct ui *u, char lines[][LINE_MAX_BYTES], int max)
{
	char text[LINE_MAX_BYTES / 2];
	size_t o = 0;
	int n = 0;

	(void)u;
	fill_view_keys();
	for (int v = 0; v < n_views && o < sizeof(text); v++)
		o += snprintf(text + o, sizeof(text) - o, "%s%s", v ? ", " : "", views[v]->name);
	snprintf(text + o, o < sizeof(text) ? sizeof(text) - o : 0, " (Tab / Shift-Tab cycle)");
	n = help_line(lines, n, max, view_keys, text);
	for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++)
		if (global[i].help)
			n = help_line(lines, n, max, global[i].label, global[i].help);
	o = 0;
	for (int v = 0; v < n_views && o < sizeof(text); v++)
		if (views[v]->enter_hint)
			o += snprintf(text + o, sizeof(text) - o, "%s%s: %s", o ? "; " : "",
				      views[v]->name, views[v]->enter_hint);
	n = help_line(lines, n, max, "Enter", text);
	for (int v = 0; v < n_views; v++) {
		for (int i = 0; i < views[v]->n_actions; i++) {
			const struct action *a = &views[v]->actions[i];

			snprintf(text, sizeof(text), "%s: %s", views[v]->name, a->help);
			n = help_line(lines, n, max, a->label, text);
		}
	}
	return n < max ? n : max;
}

/* The status line's key hints: the overlay's, the global ones, what Enter opens. */
int status_hints(const struct ui *u, char *buf, size_t len)
{
	const struct view *o = u->overlay;
	size_t n = 0;

	fill_view_keys();
	buf[0] = 0;
	for (int i = 0; o && i < o->n_actions; i++)
		if (o->actions[i].hint)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "  " : "",
				      o->actions[i].hint);
	for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++) {
		/* A view that does not sort (Paths, Alerts, NIC) offers no sort key. */
		if (global[i].run == act_sort && views[u->view]->default_sort < 0)
			continue;
		if (global[i].hint)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "  " : "",
				      global[i].hint);
	}
	if (!o && views[u->view]->enter_hint)
		n += snprintf(buf + n, n < len ? len - n : 0, "  Enter %s",
			      views[u->view]->enter_hint);
	return n;
}
