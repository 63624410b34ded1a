/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alert_log.h - alerts as an operator sees them over time. Each refresh's
 * alerts are noted under a stable identity, their type and subject (an
 * uplink, a next-tier path, or the type alone for alerts that group
 * flows), never their message, whose counts change. An entry remembers
 * when it was first and last raised and whether the latest refresh
 * raised it. The dashboard lists it; the bundle summarises it.
 */
#ifndef __FP_ALERT_LOG_H
#define __FP_ALERT_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/analysis.h"

#define ALERT_LOG_MAX 512

struct alert_entry {
	struct alert last;	/* as last raised */
	double first_s, last_s; /* session clock, seconds */
	__u64 count;		/* refreshes it was raised in */
	bool active;		/* raised by the latest refresh */
};

struct alert_log {
	struct alert_entry e[ALERT_LOG_MAX];
	size_t n;
	int order[ALERT_LOG_MAX]; /* display order, see alert_log_note */
	int n_active;
};

/* Same identity: same type and subject. */
bool alert_same(const struct alert *x, const struct alert *y);

/*
 * Note a refresh's alerts at session time now_s, then order the entries:
 * severity first, active before cleared, then the most recently raised.
 */
void alert_log_note(struct alert_log *log, const struct analysis *a, double now_s);

/* Alerts sorted for display everywhere: severity first, then type and subject. */
int alert_cmp(const struct alert *x, const struct alert *y);

#endif /* __FP_ALERT_LOG_H */
