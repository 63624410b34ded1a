// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "source/source.h"
#include "util/format.h"

const struct obs_point *source_point(const struct source_desc *d, __u32 id)
{
	for (int i = 0; i < d->n_points; i++)
		if (d->points[i].id == id)
			return &d->points[i];
	return NULL;
}

const char *source_unnamed_point(const struct source_desc *d, __u32 id)
{
	return d->finite && !id ? "capture" : NULL;
}

const char *source_point_name(const struct source_desc *d, __u32 id, char *buf, size_t len)
{
	const struct obs_point *n = source_point(d, id);
	const char *unnamed = source_unnamed_point(d, id);

	if (n)
		return n->name;
	if (unnamed)
		return unnamed;
	snprintf(buf, len, "ifindex%u", id);
	return buf;
}

const char *source_uplink_note(const struct source_desc *d)
{
	/* Live, an uplink's name in what carries a '*' (live.c): say what it marks. */
	if (strcmp(d->mode, "live"))
		return "";
	for (int i = 0; i < d->n_points; i++)
		if (d->points[i].uplink)
			return "; * uplink";
	return "";
}

/* The name at least this wide; past that, the figures give way, least telling first. */
#define PROGRESS_NAME_MIN 8

const char *source_progress(const struct source_desc *d, double elapsed_s, int width, char *buf,
			    size_t len)
{
	char pct[48] = "", size[32], n[48], took[16], rate[16], eta[16], left[32] = "", pace[64],
	     how_far[192], what[256];

	if (d->bytes_total)
		snprintf(pct, sizeof(pct), "%llu%% of %s, ",
			 (unsigned long long)(d->bytes_read * 100 / d->bytes_total),
			 fmt_si(size, sizeof(size), d->bytes_total, "B"));
	/* At the pace so far; the first second's is mostly the program loading. */
	if (d->bytes_total && d->bytes_read && !d->ended && elapsed_s >= 1)
		snprintf(left, sizeof(left), ", about %s left",
			 fmt_duration(
			     eta, sizeof(eta),
			     ceil(elapsed_s * (d->bytes_total - d->bytes_read) / d->bytes_read)));
	snprintf(pace, sizeof(pace), " in %s (%s/s)", fmt_duration(took, sizeof(took), elapsed_s),
		 fmt_si_compact(rate, sizeof(rate), elapsed_s > 0 ? d->frames / elapsed_s : 0));
	fmt_count(n, sizeof(n), d->frames, "frame");
	/* All of it, then without the time left, then without the pace: what fits. */
	for (int drop = 0; drop < 3; drop++) {
		snprintf(how_far, sizeof(how_far), "%s%s%s%s", pct, n, drop < 2 ? pace : "",
			 drop < 1 ? left : "");
		if (2 + fmt_cols(how_far) + PROGRESS_NAME_MIN <= width)
			break;
	}
	width -= 2 + fmt_cols(how_far);
	snprintf(buf, len, "%s: %s",
		 fmt_trunc(what, sizeof(what), d->what,
			   width > PROGRESS_NAME_MIN ? width : PROGRESS_NAME_MIN),
		 how_far);
	return buf;
}
