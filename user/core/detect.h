/* SPDX-License-Identifier: GPL-2.0 */
/* detect.h - the detectors: analysed flows and paths in, alerts out. */
#ifndef __FP_DETECT_H
#define __FP_DETECT_H

#include "core/analysis.h"

int detect_all(struct analysis *a, const struct snapshot *s, const struct analysis_opts *o);
/*
 * Flow r is outside the traffic-class plan (whole: over its life, else its
 * last packet); *seen says how (detect.c). The analysis asks it once a
 * flow as it computes the rates, its record in cache (flow_view.off_plan).
 */
bool detect_wrong_class(const struct flow_record *r, const struct analysis_opts *o, bool is_data,
			bool whole, int *seen);

/* The UDP source port nearest to the flow's that the model sends to path want; 0 if none. */
__u16 hash_nearest_sport(const struct hash_config *c, const struct flow_key *k, __u32 want);

#endif /* __FP_DETECT_H */
