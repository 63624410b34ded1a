// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/collect.h"
#include "source/nic_source.h"
#include "util/stop.h"

struct nic_source {
	struct source base;
	__u64 started_ns;
};

#define NIC_SRC(s) ((struct nic_source *)(s))

static int nic_src_start(struct source *s)
{
	NIC_SRC(s)->started_ns = fp_mono_ns();
	return 0;
}

static int nic_src_advance(struct source *s, double seconds)
{
	(void)s;
	fp_sleep(seconds);
	return 0;
}

/* No flows; the time is taken so that the analysis' interval is real. */
static int nic_src_collect(struct source *s, struct snapshot *snap)
{
	(void)s;
	memset(snap->totals, 0, sizeof(snap->totals));
	snap->n_flows = 0;
	snap->flow_capacity = 0;
	snap->flow_capacity6 = 0;
	snap->taken_ns = fp_mono_ns();
	snap->clock_offset_ns = (__s64)(fp_real_ns() - snap->taken_ns);
	return 0;
}

static void nic_src_describe(const struct source *s, struct source_desc *d)
{
	const struct nic_source *n = (const struct nic_source *)s;
	const char *root = s->nic ? s->nic->root : NULL;

	memset(d, 0, sizeof(*d));
	d->mode = "nic";
	if (root && root[0]) {
		snprintf(d->what, sizeof(d->what), "NIC tree %s", root);
		snprintf(d->how, sizeof(d->how), "recorded, re-read every refresh");
	} else {
		snprintf(d->what, sizeof(d->what), "this host's NICs");
		snprintf(d->how, sizeof(d->how), "sysfs, ethtool, RDMA netlink");
	}
	d->clock_s = n->started_ns ? (fp_mono_ns() - n->started_ns) / 1e9 : 0;
}

static void nic_src_destroy(struct source *s)
{
	free(s);
}

static const struct source_ops nic_source_ops = {
    .start = nic_src_start,
    .advance = nic_src_advance,
    .collect = nic_src_collect,
    .describe = nic_src_describe,
    .destroy = nic_src_destroy,
};

struct source *nic_source_new(const struct nic_opts *o)
{
	struct nic_source *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->base.ops = &nic_source_ops;
	n->base.nic = o;
	return &n->base;
}
