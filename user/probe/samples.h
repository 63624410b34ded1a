/* SPDX-License-Identifier: GPL-2.0 */
/*
 * samples.h - packets the probe sampled into its ring buffer (the first
 * few of each flow), kept in memory, and written as pcapng for the flows
 * that raised an alert.
 */
#ifndef __FP_SAMPLES_H
#define __FP_SAMPLES_H

#include <stdio.h>

#include "core/analysis.h"

/* Per flow and in all; the BPF side enforces them per CPU, this store in total. */
#define SAMPLES_PER_FLOW 8
#define SAMPLES_MAX	 65536

struct sample_store {
	struct fp_sample *s;
	size_t n, cap;
	__u64 dropped; /* beyond SAMPLES_MAX */
};

/* ring_buffer__new callback: ctx is a struct sample_store. */
int samples_on_ring(void *ctx, void *data, size_t size);
/* The samples of flows named by alerts; returns how many were written, or -1. */
long samples_write_pcapng(FILE *out, const struct sample_store *st, const struct analysis *a,
			  __s64 clock_offset_ns);
void samples_free(struct sample_store *st);

#endif /* __FP_SAMPLES_H */
