// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "core/alert_log.h"

bool alert_same(const struct alert *x, const struct alert *y)
{
	return x->type == y->type && !strcmp(x->subject, y->subject);
}

int alert_cmp(const struct alert *x, const struct alert *y)
{
	if (x->severity != y->severity)
		return x->severity < y->severity ? 1 : -1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static int cmp_entries(const void *pa, const void *pb, void *ctx)
{
	const struct alert_log *log = ctx;
	const struct alert_entry *x = &log->e[*(const int *)pa], *y = &log->e[*(const int *)pb];
	int c = cmp_num(y->last.severity, x->last.severity);

	if (!c)
		c = cmp_num(y->active, x->active);
	if (!c)
		c = cmp_num(y->last_s, x->last_s);
	if (!c)
		c = cmp_num(y->first_s, x->first_s);
	return c ? c : alert_cmp(&x->last, &y->last);
}

static struct alert_entry *find(struct alert_log *log, const struct alert *al)
{
	for (size_t i = 0; i < log->n; i++)
		if (alert_same(&log->e[i].last, al))
			return &log->e[i];
	return NULL;
}

void alert_log_note(struct alert_log *log, const struct analysis *a, double now_s)
{
	log->n_active = 0;
	for (size_t i = 0; i < log->n; i++)
		log->e[i].active = false;
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];
		struct alert_entry *e = find(log, al);

		if (e && e->active)
			continue; /* one identity raised twice in a refresh: keep the first */
		if (!e) {
			if (log->n < ALERT_LOG_MAX) {
				e = &log->e[log->n++];
			} else {
				/* Full: reuse the entry raised longest ago. */
				e = &log->e[0];
				for (size_t h = 1; h < log->n; h++)
					if (log->e[h].last_s < e->last_s)
						e = &log->e[h];
			}
			memset(e, 0, sizeof(*e));
			e->first_s = now_s;
		}
		e->last = *al;
		e->last_s = now_s;
		e->count++;
		e->active = true;
		log->n_active++;
	}
	for (size_t i = 0; i < log->n; i++)
		log->order[i] = i;
	qsort_r(log->order, log->n, sizeof(log->order[0]), cmp_entries, log);
}
