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

/* Seconds as a decimal ("0.5", "30") in [min, max]. */
int opt_parse_seconds(const char *opt, const char *arg, double min, double max, double *out);

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

struct analysis_opts;

/* Analysis options every reporting command takes (long-only: values >= 256). */
enum {
	OPT_ELEPHANT_RATE = 256,
	OPT_DATA_DSCP,
	OPT_CNP_DSCP,
	OPT_DATA_PCP,
	OPT_CNP_PCP,
	OPT_HASH_MODEL,
	OPT_HASH_FIELDS,
	OPT_HASH_SEED,
	OPT_HASH_PATHS,
};

#define OPT_ANALYSIS_LONG_OPTS                                                                     \
	{"elephant-rate", required_argument, NULL, OPT_ELEPHANT_RATE},                             \
	    {"data-dscp", required_argument, NULL, OPT_DATA_DSCP},                                 \
	    {"cnp-dscp", required_argument, NULL, OPT_CNP_DSCP},                                   \
	    {"data-pcp", required_argument, NULL, OPT_DATA_PCP},                                   \
	    {"cnp-pcp", required_argument, NULL, OPT_CNP_PCP},                                     \
	    {"hash-model", required_argument, NULL, OPT_HASH_MODEL},                               \
	    {"hash-fields", required_argument, NULL, OPT_HASH_FIELDS},                             \
	    {"hash-seed", required_argument, NULL, OPT_HASH_SEED},                                 \
	{                                                                                          \
		"hash-paths", required_argument, NULL, OPT_HASH_PATHS                              \
	}
#define OPT_ANALYSIS_HELP                                                                          \
	"Analysis:\n"                                                                              \
	"      --elephant-rate RATE  bits/s that make a flow an elephant, e.g. 10G, 500M\n"        \
	"                            (default: 10%% of the uplink's speed, else of the\n"          \
	"                            group's peak rate)\n"                                         \
	"      --data-dscp N         DSCP of the lossless class for RoCE data (default 26)\n"      \
	"      --cnp-dscp N          DSCP for CNPs (default 48)\n"                                 \
	"      --data-pcp N          802.1p priority for RoCE data (default: not checked)\n"       \
	"      --cnp-pcp N           802.1p priority for CNPs (default: not checked)\n"            \
	"      --hash-model M        predict the next tier's ECMP choice: crc32-lo, crc32-hi,\n"   \
	"                            crc16-ccitt, xor-fold, toeplitz (default: off)\n"             \
	"      --hash-fields LIST    src-ip,dst-ip,sport,dport,vni,qp (default the 4-tuple)\n"     \
	"      --hash-seed N         hash seed (default 0)\n"                                      \
	"      --hash-paths N        next tier's path count (default 4)\n"

/* Handle one of OPT_ANALYSIS_LONG_OPTS: 1 handled, 0 not ours, -EINVAL bad value. */
int opt_parse_analysis(struct analysis_opts *ao, int opt, const char *arg);

/* "10G", "2.5G", "500M", "64k", "1000" (bits/s); -EINVAL on anything else. */
int opt_parse_rate(const char *opt, const char *arg, double *bps);

/* Arguments left after the options: one line and 2, else 0. */
int opt_no_args(const char *cmd, int argc, char **argv);

/*
 * getopt_long with opterr = 0 and an optstring starting with ':' returns
 * '?' or ':' on a bad option: print one line naming it. Returns 2, the
 * exit code for usage errors.
 */
int opt_bad(const char *cmd, int opt, char **argv);

#endif /* __FP_OPTIONS_H */
