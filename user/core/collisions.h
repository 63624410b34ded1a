/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collisions.h - elephants that share a path while another could take one
 * (a->collisions): observed, and predicted by the hash model.
 */
#ifndef __FP_COLLISIONS_H
#define __FP_COLLISIONS_H

#include "core/analysis.h"

/* After the elephants and the paths' balance: observed collisions. 0 or -ENOMEM. */
int analysis_collisions(struct analysis *a);
/*
 * With --hash-model: every data flow's predicted path, each path's
 * predicted elephants (a queue pair once, however many points saw it),
 * and the paths two or more of them share. 0 or -ENOMEM.
 */
int analysis_predict(struct analysis *a, const struct analysis_opts *o);

#endif /* __FP_COLLISIONS_H */
