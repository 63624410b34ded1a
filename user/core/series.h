/* SPDX-License-Identifier: GPL-2.0 */
/* series.h - per-refresh samples of the totals and of each uplink's load. */
#ifndef __FP_SERIES_H
#define __FP_SERIES_H

#include <stddef.h>

#include "core/analysis.h"
#include "util/json.h"

struct series_sample {
	double t_s;			  /* seconds since attach */
	double total_per_s[SNAP_CNT_MAX]; /* the totals with a rate_key (core/counters.h) */
	double ce_per_s, cnp_per_s, rtx_per_s;
	int alerts;
	int n_paths; /* the series' paths when taken: path_*[k] is path_names[k]'s */
	double path_bps[AN_MAX_PATHS];
	int path_flows[AN_MAX_PATHS];
};

struct series {
	struct series_sample *samples;
	size_t n, cap;
	char path_names[AN_MAX_PATHS][FP_NAME_LEN]; /* every path seen, in order first seen */
	int n_paths;
	bool sampled; /* sFlow: no retransmit is seen, so its rate is null, not 0 */
};

int series_add(struct series *s, const struct analysis *a, double t_s);
void series_json(struct json *j, const struct series *s);
void series_free(struct series *s);

#endif /* __FP_SERIES_H */
