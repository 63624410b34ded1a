/* SPDX-License-Identifier: GPL-2.0 */
/* html.h - the capture bundle's report.html: findings and inline SVG charts. */
#ifndef __FP_HTML_H
#define __FP_HTML_H

#include <stdio.h>

#include "core/analysis.h"
#include "core/series.h"

void html_report(FILE *out, const struct snapshot *s, const struct analysis *a,
		 const struct series *series, double duration_s);

#endif /* __FP_HTML_H */
