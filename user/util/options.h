/* SPDX-License-Identifier: GPL-2.0 */
/* options.h - command-line values shared by every subcommand, checked strictly. */
#ifndef __FP_OPTIONS_H
#define __FP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * Parse a decimal integer in [min, max] for option opt. On error prints one
 * line ("--rows: '12x' is not a number from 0 to 1000000") and returns
 * -EINVAL.
 */
int opt_parse_u64(const char *opt, const char *arg, __u64 min, __u64 max, __u64 *out);
int opt_parse_u32(const char *opt, const char *arg, __u32 min, __u32 max, __u32 *out);
int opt_parse_port(const char *opt, const char *arg, __u16 *out);
/* Bytes, with K, M or G for powers of 1024 ("32M", "32MiB", "4096"), in [min, max]. */
int opt_parse_bytes(const char *opt, const char *arg, __u64 min, __u64 max, __u64 *out);
/*
 * A count of entries, as a table's size, with k or M for 1024 or 1048576
 * ("1M", "256k", "65536"), in [min, max]. Binary, as the sizes are: "1M"
 * is 1048576 entries, not a million. No other unit: "1MB" is refused.
 */
int opt_parse_count(const char *opt, const char *arg, __u32 min, __u32 max, __u32 *out);

/*
 * A decimal ("0.5", "30") in [min, max]; of names what it counts in the
 * error ("of seconds"), or NULL.
 */
int opt_parse_number(const char *opt, const char *arg, double min, double max, const char *of,
		     double *out);
/* Seconds as a decimal ("0.5", "30") in [min, max]. */
int opt_parse_seconds(const char *opt, const char *arg, double min, double max, double *out);

/*
 * Split "NAME=VALUE", both parts non-empty: NAME is copied into name
 * (at most name_len - 1 bytes), *value points into arg. arg, which is
 * usually argv, is never changed: ps and systemctl show what was typed.
 * form is what the error shows the option takes ("NAME=FILE").
 */
int opt_split_pair(const char *opt, const char *form, const char *arg, char *name, size_t name_len,
		   const char **value);

/* "10G", "2.5G", "500M", "64k", "1000" (bits/s, above 0); -EINVAL on anything else. */
int opt_parse_rate(const char *opt, const char *arg, double *bps);

/* Arguments left after the options: one line and 2, else 0. */
int opt_no_args(const char *cmd, int argc, char **argv);

struct option;

/*
 * getopt_long (quiet: opterr 0; give an optstring starting with ':'), but a long option
 * must be spelt whole: getopt_long takes "--sflow-port 6343" for
 * --sflow-port-map and "--nic" for --nic-root, and the error would then
 * name the wrong thing. An abbreviation returns '?', for opt_bad().
 */
int opt_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/*
 * opt_getopt returned '?' or ':' on a bad option: print one line naming
 * it. Returns 2, the exit code for usage errors.
 */
int opt_bad(const char *cmd, int opt, char **argv);

#endif /* __FP_OPTIONS_H */
