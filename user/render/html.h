/* SPDX-License-Identifier: GPL-2.0 */
/* html.h - the capture bundle's report.html: findings and inline SVG charts. */
#ifndef __FP_HTML_H
#define __FP_HTML_H

#include <stdio.h>

#include "core/series.h"
#include "core/session_nic.h"
#include "render/report.h"

/* r->series is required: the charts are drawn from it. */
void html_report(FILE *out, const struct report *r, double duration_s);
/* The NIC section (html_nic.c), when the report has NIC counters. */
void html_nic(FILE *out, const struct nic_picture *p);

#endif /* __FP_HTML_H */
