// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary command-line values through every option parser the
 * commands share: numbers, counts with k/M, ports, seconds, rates, NAME=VALUE pairs,
 * interface lists, hooks, XDP modes, captures and the analysis options. Each must
 * accept or refuse with an error code, never crash; accepted values must
 * be within their documented range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "util/log.h"
#include "util/options.h"

static const int live_opts[] = {'i', 'U', 'H', 'M', 'F', 'R', 'X', OPT_PCAP, OPT_SPEED};
static const int analysis_opts[] = {OPT_ELEPHANT_RATE, OPT_DATA_DSCP, OPT_CNP_DSCP,
				    OPT_DATA_PCP,      OPT_CNP_PCP,   OPT_HASH_MODEL,
				    OPT_HASH_FIELDS,   OPT_HASH_SEED, OPT_HASH_PATHS};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Every refusal prints a line; keep the fuzzer's own output (and crash reports) readable.
	 */
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		abort();
	fp_log_to(null);
	return 0;
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	struct analysis_opts ao;
	struct cli_source cs;
	char *arg, name[16];
	const char *value;
	__u64 u64;
	__u32 u32;
	__u16 port;
	double d;

	if (size < 1)
		return 0;
	arg = strndup((const char *)data + 1, size - 1);
	if (!arg)
		return 0;
	if (!opt_parse_u32("--x", arg, 3, 70000, &u32) && (u32 < 3 || u32 > 70000))
		abort();
	if (!opt_parse_u64("--x", arg, 0, ~0ULL, &u64) && !*arg)
		abort();
	if (!opt_parse_port("--p", arg, &port) && port == 0)
		abort();
	if (!opt_parse_seconds("--d", arg, 0.1, 3600, &d) && (d < 0.1 || d > 3600))
		abort();
	if (!opt_parse_rate("--r", arg, &d) && !(d > 0 && d <= 1e15))
		abort();
	if (!opt_parse_bytes("--b", arg, 4096, 1ULL << 29, &u64) &&
	    (u64 < 4096 || u64 > 1ULL << 29))
		abort();
	if (!opt_parse_count("--flows", arg, 1, 1U << 24, &u32) && (u32 < 1 || u32 > 1U << 24))
		abort();

	cli_source_init(&cs, "fuzz", 1);
	analysis_opts_default(&ao);
	/* The first byte picks which option the value goes to. */
	if (data[0] & 0x80) {
		int opt = analysis_opts[data[0] % (sizeof(analysis_opts) / sizeof(int))];

		if (opt_parse_analysis(&ao, opt, arg) == 1 &&
		    (ao.data_dscp > 63 || ao.cnp_dscp > 63 || ao.data_pcp > 7 ||
		     ao.hash.n_paths < 1 || ao.hash.model >= HASH_MODEL_MAX || !ao.hash.fields))
			abort();
	} else {
		int opt = live_opts[data[0] % (sizeof(live_opts) / sizeof(int))];
		char *copy = strdup(arg);

		/* Accepted names are within bounds, and the argument is never changed. */
		if (copy && cli_parse_source(&cs, opt, copy) == 1) {
			for (int i = 0; i < cs.live.n_ifaces; i++)
				if (!*cs.live.ifaces[i] || strlen(cs.live.ifaces[i]) >= 16)
					abort();
			if (cs.pcap.speed < 0)
				abort();
		}
		if (copy && strcmp(copy, arg))
			abort();
		free(copy);
	}
	if (!opt_split_pair("--path", "NAME=FILE", arg, name, sizeof(name), &value) &&
	    (!*name || !*value || strlen(name) >= sizeof(name)))
		abort();
	free(arg);
	return 0;
}
