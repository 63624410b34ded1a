/* SPDX-License-Identifier: GPL-2.0 */
/* log.h - one line on stderr per problem, prefixed "fabprobe: "; libbpf's messages routed. */
#ifndef __FP_LOG_H
#define __FP_LOG_H

#include <stdbool.h>
#include <stdio.h>

extern bool fp_verbose;

/* Where messages go: stderr unless told otherwise (a fuzzer silences them). */
void fp_log_to(FILE *out);

/* One line on stderr, prefixed "fabprobe: ". */
void fp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, only with -v. */
void fp_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Route libbpf's own messages: warnings always, debug output with -v. */
void fp_setup_libbpf_log(void);
/* A libbpf/errno error as text ("Operation not permitted"). */
const char *fp_strerror(int err);

#endif /* __FP_LOG_H */
