// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "core/analysis.h"
#include "util/options.h"
#include "probe/probe.h"

int opt_parse_u64(const char *opt, const char *arg, __u64 min, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;

	if (!arg || !*arg || !isdigit((unsigned char)arg[0]))
		goto bad;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	fp_err("%s: '%s' is not a number from %llu to %llu", opt, arg ? arg : "",
	       (unsigned long long)min, (unsigned long long)max);
	return -EINVAL;
}

int opt_parse_u32(const char *opt, const char *arg, __u32 min, __u32 max, __u32 *out)
{
	__u64 v;
	int err = opt_parse_u64(opt, arg, min, max, &v);

	if (!err)
		*out = v;
	return err;
}

int opt_parse_port(const char *opt, const char *arg, __u16 *out)
{
	__u32 v;
	int err = opt_parse_u32(opt, arg, 1, 65535, &v);

	if (!err)
		*out = v;
	return err;
}

int opt_parse_seconds(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || v < min || v > max) {
		fp_err("%s: '%s' is not a number of seconds from %g to %g", opt, arg, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int opt_split_pair(const char *opt, char *arg, char **name, char **value)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fp_err("%s: '%s' is not NAME=VALUE", opt, arg);
		return -EINVAL;
	}
	*eq = '\0';
	*name = arg;
	*value = eq + 1;
	return 0;
}

int opt_no_args(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	fp_err("%s: unexpected argument '%s'; see 'fabprobe %s --help'", cmd, argv[optind], cmd);
	return 2;
}

int opt_bad(const char *cmd, int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		fp_err("%s: option '%s' needs a value; see 'fabprobe %s --help'", cmd, arg, cmd);
	else
		fp_err("%s: unknown option '%s'; see 'fabprobe %s --help'", cmd, arg, cmd);
	return 2;
}

int opt_parse_probe(struct probe_opts *po, int opt, const char *arg)
{
	switch (opt) {
	case 'F':
		return opt_parse_u32("--flows", arg, 1, 1U << 24, &po->flow_entries) ?: 1;
	case 'R':
		return opt_parse_port("--roce-port", arg, &po->roce_port) ?: 1;
	case 'X':
		return opt_parse_port("--vxlan-port", arg, &po->vxlan_port) ?: 1;
	default:
		return 0;
	}
}

int opt_parse_rate(const char *opt, const char *arg, double *bps)
{
	double v, mult = 1;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || v < 0 || !isdigit((unsigned char)arg[0]))
		goto bad;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1e3;
		end++;
		break;
	case 'M':
		mult = 1e6;
		end++;
		break;
	case 'G':
		mult = 1e9;
		end++;
		break;
	case 'T':
		mult = 1e12;
		end++;
		break;
	}
	if (*end && strcmp(end, "b") && strcmp(end, "bit") && strcmp(end, "bps") &&
	    strcmp(end, "b/s"))
		goto bad;
	*bps = v * mult;
	return 0;
bad:
	fp_err("%s: '%s' is not a rate (bits/s, e.g. 10G, 500M, 64k)", opt, arg);
	return -EINVAL;
}

static int parse_int_into(const char *opt, const char *arg, __u32 max, int *out)
{
	__u32 v;
	int err = opt_parse_u32(opt, arg, 0, max, &v);

	if (!err)
		*out = v;
	return err;
}

int opt_parse_analysis(struct analysis_opts *ao, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ELEPHANT_RATE:
		return opt_parse_rate("--elephant-rate", arg, &ao->elephant_bps) ?: 1;
	case OPT_DATA_DSCP:
		return parse_int_into("--data-dscp", arg, 63, &ao->data_dscp) ?: 1;
	case OPT_CNP_DSCP:
		return parse_int_into("--cnp-dscp", arg, 63, &ao->cnp_dscp) ?: 1;
	case OPT_DATA_PCP:
		return parse_int_into("--data-pcp", arg, 7, &ao->data_pcp) ?: 1;
	case OPT_CNP_PCP:
		return parse_int_into("--cnp-pcp", arg, 7, &ao->cnp_pcp) ?: 1;
	case OPT_HASH_MODEL:
		if (hash_model_parse(arg, &ao->hash.model)) {
			fp_err(
			    "--hash-model: '%s' is not crc32-lo, crc32-hi, crc16-ccitt, xor-fold "
			    "or toeplitz",
			    arg);
			return -EINVAL;
		}
		ao->predict = true;
		return 1;
	case OPT_HASH_FIELDS:
		if (hash_fields_parse(arg, &ao->hash.fields)) {
			fp_err("--hash-fields: '%s' is not a list of src-ip, dst-ip, sport, dport, "
			       "vni, qp",
			       arg);
			return -EINVAL;
		}
		return 1;
	case OPT_HASH_SEED:
		return opt_parse_u32("--hash-seed", arg, 0, UINT32_MAX, &ao->hash.seed) ?: 1;
	case OPT_HASH_PATHS:
		return opt_parse_u32("--hash-paths", arg, 1, AN_MAX_PATHS, &ao->hash.n_paths) ?: 1;
	default:
		return 0;
	}
}
