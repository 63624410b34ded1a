/* SPDX-License-Identifier: GPL-2.0 */
/* options.h - command-line values shared by every subcommand, checked strictly. */
#ifndef __FP_OPTIONS_H
#define __FP_OPTIONS_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * Parse a decimal integer in [min, max] for option opt. On error prints one
 * line ("--flows: '12x' is not a number from 1 to 16777216") and returns
 * -EINVAL.
 */
int opt_parse_u64(const char *opt, const char *arg, __u64 min, __u64 max, __u64 *out);
int opt_parse_u32(const char *opt, const char *arg, __u32 min, __u32 max, __u32 *out);
int opt_parse_port(const char *opt, const char *arg, __u16 *out);

/* Split "NAME=VALUE"; both parts non-empty. */
int opt_split_pair(const char *opt, char *arg, char **name, char **value);

struct probe_opts;

/* Long options every probe-loading command takes, and their help lines. */
#define OPT_PROBE_LONG_OPTS                                                                        \
	{"flows", required_argument, NULL, 'F'}, {"roce-port", required_argument, NULL, 'R'},      \
	{                                                                                          \
		"vxlan-port", required_argument, NULL, 'X'                                         \
	}
#define OPT_PROBE_HELP                                                                             \
	"      --flows N          flow table size in entries (default 65536)\n"                    \
	"      --roce-port PORT   RoCEv2 UDP port (default 4791)\n"                                \
	"      --vxlan-port PORT  VXLAN UDP port (default 4789)\n"

/* Handle one of OPT_PROBE_LONG_OPTS: 1 handled, 0 not ours, -EINVAL bad value. */
int opt_parse_probe(struct probe_opts *po, int opt, const char *arg);

/*
 * getopt_long with opterr = 0 and an optstring starting with ':' returns
 * '?' or ':' on a bad option: print one line naming it. Returns 2, the
 * exit code for usage errors.
 */
int opt_bad(const char *cmd, int opt, char **argv);

#endif /* __FP_OPTIONS_H */
