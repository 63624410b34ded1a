// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/counters.h"
#include "core/series.h"
#include "util/buf.h"

/*
 * A path's column, by name, made when new: the analysis orders its paths
 * anew each refresh (mirror sessions by bytes), so a sample's index would
 * name another path in the next. -1 when the columns are full.
 */
static int series_path(struct series *s, const char *name)
{
	for (int k = 0; k < s->n_paths; k++)
		if (!strcmp(s->path_names[k], name))
			return k;
	if (s->n_paths == AN_MAX_PATHS)
		return -1;
	snprintf(s->path_names[s->n_paths], FP_NAME_LEN, "%s", name);
	return s->n_paths++;
}

int series_add(struct series *s, const struct analysis *a, double t_s)
{
	struct series_sample *x;
	double dt = a->interval_s;
	__u64 ce = 0, cnp = 0, rtx = 0;
	int err = buf_grow((void **)&s->samples, &s->cap, s->n + 1, sizeof(*s->samples));

	if (err)
		return err;
	x = &s->samples[s->n++];
	memset(x, 0, sizeof(*x));
	x->t_s = t_s;
	for (size_t i = 0; i < n_total_defs; i++)
		if (total_defs[i].rate_key)
			x->total_per_s[total_defs[i].id] = a->totals_delta[total_defs[i].id] / dt;
	/* Whole counts summed, then divided once: the same in any order of the flows. */
	for (size_t i = 0; i < a->n_flows; i++) {
		ce += a->flows[i].d.ce;
		cnp += a->flows[i].d.cnp;
		rtx += a->flows[i].d.rtx;
	}
	x->ce_per_s = ce / dt;
	x->cnp_per_s = cnp / dt;
	x->rtx_per_s = rtx / dt;
	x->alerts = a->n_alerts;
	for (int p = 0; p < a->n_paths; p++) {
		int k = series_path(s, a->paths[p].name);

		if (k < 0)
			continue; /* more paths over the run than one analysis holds */
		/* Two sessions given one name (--mirror-session 1=up,2=up) are one column. */
		x->path_bps[k] += a->paths[p].bps;
		x->path_flows[k] += a->paths[p].flows;
	}
	x->n_paths = s->n_paths;
	return 0;
}

void series_json(struct json *j, const struct series *s)
{
	json_key(j, "series");
	json_arr_begin(j);
	for (size_t i = 0; i < s->n; i++) {
		const struct series_sample *x = &s->samples[i];

		json_obj_begin(j);
		json_kv_double(j, "t", x->t_s, 3);
		for (size_t k = 0; k < n_total_defs; k++)
			if (total_defs[k].rate_key)
				json_kv_double(j, total_defs[k].rate_key,
					       x->total_per_s[total_defs[k].id], 1);
		json_kv_double(j, "ce_per_s", x->ce_per_s, 1);
		json_kv_double(j, "cnp_per_s", x->cnp_per_s, 1);
		/* Sampled, none is seen: null, as each sampled flow's retransmits are. */
		json_kv_double(j, "retransmits_per_s", s->sampled ? NAN : x->rtx_per_s, 1);
		json_kv_u64(j, "alerts", x->alerts);
		json_key(j, "paths");
		json_obj_begin(j);
		for (int p = 0; p < x->n_paths; p++) {
			json_key(j, s->path_names[p]);
			json_obj_begin(j);
			json_kv_double(j, "bps", x->path_bps[p], 0);
			json_kv_u64(j, "flows", x->path_flows[p]);
			json_obj_end(j);
		}
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void series_free(struct series *s)
{
	free(s->samples);
	memset(s, 0, sizeof(*s));
}
