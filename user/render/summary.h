/* SPDX-License-Identifier: GPL-2.0 */
/* summary.h - the findings in plain words, then the top flows and paths. */
#ifndef __FP_SUMMARY_H
#define __FP_SUMMARY_H

#include <stdio.h>

#include "render/report.h"

/* What to check next for an alert type, one sentence. */
const char *alert_advice(enum alert_type t);

void summary_text(FILE *out, const struct report *r, double duration_s);

#endif /* __FP_SUMMARY_H */
