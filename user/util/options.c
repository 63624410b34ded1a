// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/options.h"

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

/*
 * Digits, then at most one letter of units, each 1024 times the one before
 * it (units "KMG": K 1024, M 1048576, ...), in either case. *end: what
 * follows the digits and the letter. 1 with a letter, 0 without, -1
 * without digits or past 64 bits.
 */
static int parse_scaled(const char *arg, const char *units, unsigned long long *v, char **end)
{
	const char *u;

	if (!arg || !isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	*v = strtoull(arg, end, 10);
	if (errno)
		return -1;
	u = **end ? strchr(units, toupper((unsigned char)**end)) : NULL;
	if (!u)
		return 0;
	for (int shift = 10 * (int)(u - units + 1); shift; shift -= 10) {
		if (*v > (~0ULL >> 10))
			return -1;
		*v <<= 10;
	}
	(*end)++;
	return 1;
}

int opt_parse_bytes(const char *opt, const char *arg, __u64 min, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;
	/* 32M, 32MiB, 32MB, 32k: powers of 1024, as sysctl's buffer sizes. */
	int unit = parse_scaled(arg, "KMG", &v, &end);

	if (unit < 0)
		goto bad;
	if (unit && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	fp_err("%s: '%s' is not a size from %llu to %llu bytes (e.g. 4096, 64K, 32M, 1G)", opt,
	       arg ? arg : "", (unsigned long long)min, (unsigned long long)max);
	return -EINVAL;
}

int opt_parse_count(const char *opt, const char *arg, __u32 min, __u32 max, __u32 *out)
{
	unsigned long long v;
	char *end;

	if (parse_scaled(arg, "KM", &v, &end) < 0 || *end || v < min || v > max) {
		fp_err("%s: '%s' is not a count from %u to %u (k = 1024, M = 1048576: e.g. "
		       "65536, 256k, 1M)",
		       opt, arg ? arg : "", min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
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

int opt_parse_number(const char *opt, const char *arg, double min, double max, const char *of,
		     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || v < min || v > max) {
		fp_err("%s: '%s' is not a number %s%sfrom %.10g to %.10g", opt, arg, of ?: "",
		       of ? " " : "", min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int opt_parse_seconds(const char *opt, const char *arg, double min, double max, double *out)
{
	return opt_parse_number(opt, arg, min, max, "of seconds", out);
}

int opt_split_pair(const char *opt, const char *form, const char *arg, char *name, size_t name_len,
		   const char **value)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fp_err("%s: '%s' is not %s", opt, arg, form);
		return -EINVAL;
	}
	if ((size_t)(eq - arg) >= name_len) {
		fp_err("%s: the name '%.*s' is longer than %zu characters", opt, (int)(eq - arg),
		       arg, name_len - 1);
		return -EINVAL;
	}
	memcpy(name, arg, eq - arg);
	name[eq - arg] = '\0';
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

/*
 * The argv element of the option opt_getopt() last returned; the option an
 * abbreviation of it matched, or the one it names whole.
 */
static const char *opt_text, *opt_meant;
static bool opt_whole;

/*
 * Options that take a value, as given so far in this parse: a second value
 * would silently replace the first (--ipfix A --ipfix B sent to B alone),
 * so it is refused, but for the options that add one more each time:
 * captures, paths, mirror session names, and -i and --uplinks, whose
 * lists add up (-i eth0 -i eth1 watches both, as -i eth0,eth1 does).
 */
#define OPT_GIVEN_MAX 64
static struct {
	int opt;
	const char *value;
} opt_given[OPT_GIVEN_MAX];
static size_t n_opt_given;
static int opt_twice = -1; /* the slot of the first of an option given twice, else -1 */

static const char *const opt_repeatable[] = {"pcap", "path", "mirror-session", "interfaces",
					     "uplinks"};

static bool repeatable(const struct option *o)
{
	for (size_t i = 0; o && i < sizeof(opt_repeatable) / sizeof(*opt_repeatable); i++)
		if (!strcmp(o->name, opt_repeatable[i]))
			return true;
	return false;
}

static const struct option *option_of(const struct option *longopts, int opt)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == opt && !o->flag)
			return o;
	return NULL;
}

/* Whether opt, just returned with optarg, was given a value before. */
static bool given_twice(const struct option *longopts, int opt)
{
	const struct option *o = option_of(longopts, opt);

	if (!optarg || repeatable(o))
		return false;
	for (size_t i = 0; i < n_opt_given; i++) {
		if (opt_given[i].opt == opt) {
			opt_twice = (int)i;
			return true;
		}
	}
	if (n_opt_given < OPT_GIVEN_MAX)
		opt_given[n_opt_given++] = (typeof(opt_given[0])){opt, optarg};
	return false;
}

/*
 * The long option that "--name" abbreviates, the first of several; NULL
 * when none begins so. *whole: one is spelt so (and NULL is returned).
 */
static const char *abbreviated(const char *name, size_t len, const struct option *longopts,
			       bool *whole)
{
	const char *meant = NULL;

	*whole = false;
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (!o->name[len]) {
			*whole = true;
			return NULL;
		}
		meant = meant ?: o->name;
	}
	return meant;
}

int opt_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	int opt;

	opterr = 0; /* opt_bad() says it, in one line */
	if (optind <= 1)
		n_opt_given = 0; /* a new parse */
	opt = getopt_long(argc, argv, shortopts, longopts, NULL);
	opt_text = opt_meant = NULL;
	opt_whole = false;
	opt_twice = -1;
	if (opt == -1)
		return opt;
	/* A value in the next element leaves optarg pointing at it. */
	opt_text = argv[optind - 1];
	if (optarg && optarg == argv[optind - 1] && optind >= 2)
		opt_text = argv[optind - 2];
	if (!strncmp(opt_text, "--", 2)) {
		/* '?' here: no option begins so, several do, or one without a value was given one.
		 */
		opt_meant =
		    abbreviated(opt_text + 2, strcspn(opt_text + 2, "="), longopts, &opt_whole);
		if (opt_meant)
			return '?';
	}
	if (opt != '?' && opt != ':' && given_twice(longopts, opt))
		return '?';
	return opt;
}

int opt_bad(const char *cmd, int opt, char **argv)
{
	const char *arg = opt_text ? opt_text : argv[optind - 1];
	int len = strcspn(arg, "=");

	if (opt_twice >= 0) {
		/* -n7: the option is -n, the rest its value. */
		bool lng = !strncmp(arg, "--", 2);
		char name[3] = {'-', (char)opt_given[opt_twice].opt, '\0'};

		fp_err(
		    "%s: option '%.*s' is given twice ('%s', then '%s'); it takes one value; see "
		    "'fabprobe %s --help'",
		    cmd, lng ? len : 2, lng ? arg : name, opt_given[opt_twice].value, optarg, cmd);
	} else if (opt_meant)
		fp_err("%s: unknown option '%.*s' (did you mean --%s?); see 'fabprobe %s --help'",
		       cmd, len, arg, opt_meant, cmd);
	else if (opt == '?' && opt_whole && arg[len] == '=')
		fp_err("%s: option '%.*s' takes no value; see 'fabprobe %s --help'", cmd, len, arg,
		       cmd);
	else if (opt == ':')
		fp_err("%s: option '%s' needs a value; see 'fabprobe %s --help'", cmd, arg, cmd);
	else
		fp_err("%s: unknown option '%s'; see 'fabprobe %s --help'", cmd, arg, cmd);
	return 2;
}

int opt_parse_rate(const char *opt, const char *arg, double *bps)
{
	double v, mult = 1;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	/* 0 b/s would make every flow an elephant: the threshold is above it. */
	if (errno || end == arg || !(v > 0) || !isdigit((unsigned char)arg[0]))
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
	/* A petabit a second is past any link: a larger figure is a typo. */
	if (v * mult > 1e15)
		goto bad;
	*bps = v * mult;
	return 0;
bad:
	fp_err("%s: '%s' is not a rate above 0 and at most 1000T (bits/s, e.g. 10G, 500M, 64k)",
	       opt, arg);
	return -EINVAL;
}
