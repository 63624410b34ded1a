/* SPDX-License-Identifier: GPL-2.0 */
/* report_mirror.h - what the reports say of mirror copies (docs/mirror.md). */
#ifndef __FP_REPORT_MIRROR_H
#define __FP_REPORT_MIRROR_H

#include <stddef.h>
#include <stdio.h>

#include "core/analysis.h"
#include "core/mirror.h"
#include "util/json.h"

/*
 * The JSON flow's "mirror": the session a copied flow came in, its type
 * (1-3 for ERSPAN, "teb"), session number or GRE key, switch and
 * direction; null on the wire.
 */
void report_json_mirror(struct json *j, const struct flow_key *k);
/* A text row's " [copied at ingress]" ("index 3" for ERSPAN II), or "". */
const char *report_copied_at(char *buf, size_t len, const struct flow_key *k);
/* Under the PATH table, when a mirror session has flows: its counts are of copies. */
void report_copies_note(FILE *out, const struct analysis *a);

#endif /* __FP_REPORT_MIRROR_H */
