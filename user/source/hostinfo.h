/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostinfo.h - the host side of a bundle: kernel, interfaces, sysctls,
 * RDMA and PFC counters read at start and end, with the difference.
 */
#ifndef __FP_HOSTINFO_H
#define __FP_HOSTINFO_H

#include <stdio.h>

#include "source/source.h"

struct counter_set {
	char **names;
	unsigned long long *values;
	size_t n, cap;
};

struct hostinfo {
	char *static_text; /* kernel, interfaces, sysctls (read at start) */
	size_t static_len;
	struct counter_set start, end;
	const struct obs_point *ifaces;
	int n_ifaces;
};

/* The interfaces among a source's points are described; the others are not this host's. */
void hostinfo_begin(struct hostinfo *h, const struct obs_point *points, int n);
void hostinfo_end(struct hostinfo *h);
void hostinfo_text(FILE *out, const struct hostinfo *h);
void hostinfo_free(struct hostinfo *h);

#endif /* __FP_HOSTINFO_H */
