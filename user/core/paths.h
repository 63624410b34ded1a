/* SPDX-License-Identifier: GPL-2.0 */
/*
 * paths.h - the analysis' paths (a->paths) and ECMP groups (a->groups):
 * made at each update from the source's points and the flows' mirror
 * sessions, and weighed once analysis.c has summed their flows.
 */
#ifndef __FP_PATHS_H
#define __FP_PATHS_H

#include "core/analysis.h"

/* The path of flow_point_id() ifindex, or -1. */
int analysis_path_of(const struct analysis *a, __u32 ifindex);
/*
 * The source's uplinks as paths: whole groups first while they fit in
 * AN_MAX_PATHS, then those in no group; the rest counted in
 * a->paths_dropped.
 */
void analysis_init_paths(struct analysis *a, const struct source_desc *d);
/* Each mirror session of the snapshot's flows as a path, by its largest flow. */
void analysis_add_mirror_paths(struct analysis *a, const struct snapshot *s,
			       const struct mirror_names *names);
/*
 * Each group's balance, and the least balanced one, once the paths are
 * summed; first a path that brought only mirror copies leaves its group.
 */
void analysis_balance_groups(struct analysis *a);

#endif /* __FP_PATHS_H */
