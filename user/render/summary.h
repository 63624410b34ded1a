/* SPDX-License-Identifier: GPL-2.0 */
/* summary.h - the findings in plain words, then the top flows and paths. */
#ifndef __FP_SUMMARY_H
#define __FP_SUMMARY_H

#include <stdio.h>

#include "core/analysis.h"

/* What to check next for an alert type, one sentence. */
const char *alert_advice(enum alert_type t);

void summary_text(FILE *out, const struct snapshot *s, const struct analysis *a,
		  const struct report_opts *o, double duration_s);

#endif /* __FP_SUMMARY_H */
