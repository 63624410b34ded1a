// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <stdio.h>

#include "source/source.h"

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
