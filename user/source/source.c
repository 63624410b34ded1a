// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>

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
