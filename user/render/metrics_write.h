/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics_write.h - what the metrics renderers (metrics.c, metrics_flows.c,
 * metrics_nic.c) share: a family being written and its samples, in either
 * format.
 */
#ifndef __FP_METRICS_WRITE_H
#define __FP_METRICS_WRITE_H

#include <stdio.h>
#include <linux/types.h>

#include "render/metrics.h"
#include "source/nic.h"

enum mtype {
	MT_COUNTER,
	MT_GAUGE,
	MT_INFO,
};

/* The family being written: samples take its name. */
struct mw {
	FILE *out;
	enum metrics_format fmt;
	char name[128];
};

struct label {
	const char *name;
	const char *value;
};

/* HELP and TYPE of a family; counters get _total (and OpenMetrics' naming). */
void mw_family(struct mw *w, const char *base, enum mtype type, const char *help);
/* One sample of the family being written, with n labels. */
void mw_sample_u64(struct mw *w, const struct label *l, int n, __u64 v);
void mw_sample_double(struct mw *w, const struct label *l, int n, double v);

/* "ingress" and "egress": a flow key's dir, the direction label. */
extern const char *const metrics_dir_names[2];

/* Counter f (core/counters.h) has a value from this source: some need every packet. */
bool metrics_known(const struct metrics_view *v, int f);

/* The top-K flows' families (metrics_flows.c). */
void metrics_render_flows(struct mw *w, const struct metrics_view *v);

/* The NIC families (metrics_nic.c): per port, per netdev and priority, QPs by state. */
void metrics_render_nic(struct mw *w, const struct nic_state *s);

#endif /* __FP_METRICS_WRITE_H */
