/* SPDX-License-Identifier: GPL-2.0 */
/* samples_pcapng.h - the sampled packets of flows that raised an alert, as pcapng. */
#ifndef __FP_SAMPLES_PCAPNG_H
#define __FP_SAMPLES_PCAPNG_H

#include <stdio.h>

#include "core/analysis.h"
#include "probe/samples.h"
#include "source/source.h"

/*
 * One interface a point the samples were taken at, named as src names it.
 * Returns how many packets were written, or -1.
 */
long samples_write_pcapng(FILE *out, const struct sample_store *st, const struct analysis *a,
			  const struct source_desc *src, __s64 clock_offset_ns);

#endif /* __FP_SAMPLES_PCAPNG_H */
