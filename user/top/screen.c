// SPDX-License-Identifier: GPL-2.0
/*
 * screen.c - `fabprobe top` on a terminal: the ncurses screen, what the
 * roles look like, text primitives, the frame, and the loop over the
 * session. Every interval the loop asks session_refresh() for a new
 * snapshot and analysis (refresh.c); it never reads a map itself.
 *
 * Layout: three header lines, a tab line, the view, a legend line, a
 * status line. Views are the tabs of views[]; a flow's detail and the
 * help screen are overlays that replace the view until closed.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "top/ui.h"
#include "util/format.h"
#include "util/log.h"
#include "util/stop.h"

#define POLL_MS 200

const struct view *const views[] = {
    &view_flows, &view_paths, &view_qps, &view_vnis, &view_alerts, &view_nic,
};
const int n_views = sizeof(views) / sizeof(views[0]);

_Static_assert(sizeof(views) / sizeof(views[0]) <= MAX_VIEWS, "raise MAX_VIEWS");

/* ---- roles and text ---------------------------------------------------- */

attr_t ui_attr(const struct ui *u, enum role r)
{
	static const attr_t mono[] = {
	    [R_TITLE] = A_BOLD,	    [R_CRIT] = A_BOLD,
	    [R_ELEPH] = A_BOLD,	    [R_KEY] = A_BOLD,
	    [R_HEAD] = A_REVERSE,   [R_TAB] = A_REVERSE,
	    [R_SEL] = A_REVERSE,    [R_SORTED] = A_REVERSE | A_BOLD | A_UNDERLINE,
	    [R_WARN] = A_UNDERLINE, [R_DIM] = A_DIM,
	};
	static const attr_t colour[] = {
	    [R_TITLE] = A_BOLD, [R_HEAD] = 0,	     [R_SORTED] = A_BOLD | A_UNDERLINE,
	    [R_TAB] = A_BOLD,	[R_SEL] = A_REVERSE, [R_CRIT] = A_BOLD,
	    [R_WARN] = 0,	[R_INFO] = 0,	     [R_ELEPH] = A_BOLD,
	    [R_GOOD] = 0,	[R_DIM] = A_DIM,     [R_KEY] = A_BOLD,
	};
	/* The colour pair of each role; 0 keeps the terminal's. */
	static const short pair[] = {
	    [R_TITLE] = R_TITLE, [R_HEAD] = R_HEAD, [R_SORTED] = R_HEAD, [R_TAB] = R_TAB,
	    [R_CRIT] = R_CRIT,	 [R_WARN] = R_WARN, [R_INFO] = R_INFO,	 [R_ELEPH] = R_ELEPH,
	    [R_GOOD] = R_GOOD,	 [R_KEY] = R_TITLE,
	};

	if (!u->color)
		return mono[r];
	return colour[r] | (pair[r] ? COLOR_PAIR(pair[r]) : 0);
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
int put(const struct ui *u, int y, int x, int width, bool pad, bool right, attr_t attr,
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

int putf(const struct ui *u, int y, int x, attr_t attr, const char *fmt, ...)
{
	char buf[LINE_MAX_BYTES];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(u, y, x, COLS - x, false, false, attr, buf);
}

/* Fill a line with attr (a selected row, a header bar). */
void fill_line(int y, attr_t attr)
{
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	attroff(attr);
}

/* The space at text[i] follows a number ("1.0", "411") and leads to a word ("s)", "Mb/s"). */
static bool number_unit_space(const char *text, int i)
{
	int j = i;

	while (j > 0 &&
	       (isdigit((unsigned char)text[j - 1]) || text[j - 1] == '.' || text[j - 1] == ','))
		j--;
	if (j == i || !isdigit((unsigned char)text[j]))
		return false;
	if (j > 0 && text[j - 1] != ' ' && text[j - 1] != '(')
		return false;
	return isalpha((unsigned char)text[i + 1]) || text[i + 1] == '%';
}

/*
 * Bytes of text's first line at width: up to a space in the line's second
 * half, but not one between a number and its unit ("1.0 s", "411 Mb/s"),
 * which would leave the unit alone on the next line; else any space;
 * else width.
 */
int wrap_cut(const char *text, int width)
{
	int n = strlen(text), cut;

	if (n <= width)
		return n;
	for (cut = width; cut > width / 2; cut--)
		if (text[cut] == ' ' && !number_unit_space(text, cut))
			return cut;
	for (cut = width; cut > width / 2; cut--)
		if (text[cut] == ' ')
			return cut;
	return width;
}

/* Word-wrap text into at most max lines of width (y < 0: only count); returns lines used. */
int wrap(const struct ui *u, int y, int x, int width, int max, attr_t attr, const char *text)
{
	int lines = 0;

	while (*text && lines < max) {
		int n = strlen(text), cut = wrap_cut(text, width);
		char line[LINE_MAX_BYTES];

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

/* Lines between the tabs and the legend. */
int body_height(void)
{
	return LINES - BODY_TOP - 2;
}

/* ---- views -------------------------------------------------------------- */

int view_index(const char *name)
{
	for (int v = 0; v < n_views; v++)
		if (!strcasecmp(name, views[v]->name))
			return v;
	return -1;
}

int top_view_check(const char *name)
{
	return !name || view_index(name) >= 0 ? 0 : -EINVAL;
}

const char *top_view_names(void)
{
	static char names[128];
	size_t o = 0;

	for (int v = 0; v < n_views && o < sizeof(names); v++)
		o += snprintf(names + o, sizeof(names) - o, "%s%s", v ? "|" : "", views[v]->name);
	for (char *p = names; *p; p++)
		*p = *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p;
	return names;
}

struct vstate *cur_vs(struct ui *u)
{
	return &u->vs[u->view];
}

void set_view(struct ui *u, int v)
{
	u->view = v;
	u->overlay = NULL;
	u->dirty = true;
	/* Views whose rows are flows keep the selected flow in view across a switch. */
	if (u->have_sel_key && views[v]->flow_of) {
		rebuild(u);
		remember_selection(u);
	}
}

/* ---- frame -------------------------------------------------------------- */

static int draw(struct ui *u)
{
	const struct view *v = u->overlay ? u->overlay : views[u->view];
	int height = body_height(), err = rebuild(u);

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
	if (!u->have_data && v != &view_help)
		putf(u, BODY_TOP + 1, 1, ui_attr(u, R_DIM), "waiting for the first refresh...");
	else if (v->draw)
		v->draw(u, u->overlay ? NULL : cur_vs(u), BODY_TOP, height);
	else
		table_draw(u, v, cur_vs(u), BODY_TOP, height);
	draw_legend(u);
	/* The prompt owns the cursor: the status line leaves it there. */
	draw_status(u);
	refresh();
	return 0;
}

/* ---- main loop ---------------------------------------------------------- */

/*
 * FABPROBE_TEST_KEYS=FILE (a test hook): a byte is appended to FILE for
 * each key read, once the frame drawn after it has been written to the
 * terminal. The tmux tests wait for their keys' bytes, not a fixed time
 * (tests/integration/tmux.bash). A resize is not a key a test sent.
 */
static int keys_log_open(void)
{
	const char *path = getenv("FABPROBE_TEST_KEYS");
	int fd;

	if (!path)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		fp_err("top: FABPROBE_TEST_KEYS %s: %s", path, strerror(errno));
	return fd;
}

static void keys_log_drawn(int fd, int *undrawn)
{
	static const char bytes[64] = {0};

	while (fd >= 0 && *undrawn > 0) {
		int n = *undrawn < (int)sizeof(bytes) ? *undrawn : (int)sizeof(bytes);

		if (write(fd, bytes, n) != n)
			break;
		*undrawn -= n;
	}
}

/* tigetstr(): NULL when the terminal lacks it, (char *)-1 when no string capability. */
static bool valid_str(const char *cap)
{
	return cap && cap != (const char *)-1;
}

static void ui_free(struct ui *u)
{
	for (int v = 0; v < n_views; v++)
		free(u->vs[v].rows);
	ui_data_free(u);
}

/*
 * The source sets the pace: a live probe (or a recording played at its
 * pace) waits in session_advance(); a recording read as fast as it runs
 * returns at once. So the loop advances the source in short slices of its
 * own time, refreshes when a refresh interval of it has passed, and reads
 * keys in between. A paused recording stops; a live probe runs on. At the
 * end of a recording the picture holds and keys still work.
 */
int top_ui_run(struct session *ss, const struct top_opts *t)
{
	struct ui u = {.ss = ss, .t = t, .an = &ss->an};
	double start, start_clock, next;
	bool final_done = false;
	SCREEN *scr;
	int err = 0, keys_fd, keys_undrawn = 0;

	ss->quiet = true;
	/*
	 * The flows stay in the table's order: a refresh does not gather
	 * every record into byte order (at 100k flows most of the sorted
	 * refresh's extra time, BENCHMARKS.md part 29); the views take byte
	 * order from u.rank instead. FABPROBE_TEST_TOP_SORTED (a test hook)
	 * sorts them as before, for screens to compare.
	 */
	ss->unordered = getenv("FABPROBE_TEST_TOP_SORTED") == NULL;
	u.sort_check = getenv("FABPROBE_TEST_SORT") != NULL;
	for (int v = 0; v < n_views; v++)
		u.vs[v].sort = views[v]->default_sort;
	if (t->view && view_index(t->view) >= 0)
		u.view = view_index(t->view);
	else if (top_nic_only(&u))
		u.view = view_index(view_nic.name);
	setlocale(LC_ALL, "");
	u.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* newterm, unlike initscr, reports a terminal it cannot drive. */
	scr = newterm(NULL, stdout, stdin);
	/*
	 * Nor one without cursor addressing (TERM=dumb, an editor's shell),
	 * which newterm takes: the frame came out as one line.
	 */
	if (scr && !valid_str(tigetstr("cup"))) {
		endwin();
		delscreen(scr);
		scr = NULL;
	}
	if (!scr) {
		fp_err("top: cannot drive terminal '%s'; use --plain",
		       getenv("TERM") ? getenv("TERM") : "(unset)");
		return -ENOTTY;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	keys_fd = keys_log_open();
	init_colors(&u);
	u.cpu_prev_s = cpu_s();
	u.wall_prev_s = wall_s();
	u.last_refresh_s = session_clock_s(ss);
	start = wall_s();
	start_clock = u.last_refresh_s;
	next = u.last_refresh_s + t->interval_s;

	while (!fp_stopping && !u.quit) {
		bool hold = ss->ended || (u.paused && ss->desc.finite);
		double clock;

		/* -d counts a recording's own time, as --plain's does (paused, it waits). */
		if (t->duration_s > 0 && (ss->desc.finite ? session_clock_s(ss) - start_clock
							  : wall_s() - start) >= t->duration_s)
			break;
		if (!hold) {
			double clock_now = session_clock_s(ss), slice = next - clock_now;
			/* Just refreshed in a capture's long silence: over it in one step. */
			double silence = clock_now == ss->desc.clock_s
					     ? session_silence_s(ss, t->interval_s)
					     : 0;

			if (slice > POLL_MS / 1000.0)
				slice = POLL_MS / 1000.0;
			if (silence > 0)
				slice = silence;
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
		keys_log_drawn(keys_fd, &keys_undrawn);
		/* Keys: wait for them only when nothing else sets the pace. */
		timeout(hold ? POLL_MS : 0);
		for (int ch = getch(); ch != ERR && !u.quit; ch = getch()) {
			key(&u, ch);
			keys_undrawn += ch != KEY_RESIZE;
			/* Drain what is queued before drawing again. */
			timeout(0);
		}
	}
	endwin();
	delscreen(scr);
	if (keys_fd >= 0)
		close(keys_fd);
	if (err)
		fp_err("top: %s", fp_strerror(err));
	/*
	 * An input cut short (a damaged capture, every interface gone) exits
	 * 3: its event, only in the header so far, is the line that says why.
	 */
	else if (ss->desc.damaged && ss->desc.event[0])
		fp_err("%s", ss->desc.event);
	ui_free(&u);
	return err;
}
