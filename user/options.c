// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "options.h"
#include "probe.h"

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
