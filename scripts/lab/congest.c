// SPDX-License-Identifier: GPL-2.0
/*
 * congest - attach, detach or read the lab congestion emulator on one
 * interface's tc egress hook.  Run it inside the spine's namespace
 * (ip netns exec).  The filter outlives this process and dies with the
 * namespace; --stats finds the program again through the tc hook, since
 * bpffs pins would not survive the private mount namespace that
 * "ip netns exec" creates.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "roce_lab.h"
#include "congest.skel.h"

/* Fixed so a re-run replaces the filter and --stats/--detach find it. */
#define CONGEST_HANDLE 0xfab
#define CONGEST_PRIO   0xfab
#define STATS_MAP_NAME "congest_stats"
#define MAX_MAP_IDS    8

enum congest_action { ACT_ATTACH, ACT_DETACH, ACT_STATS };

struct congest_opts {
	const char *ifname;
	int ifindex;
	double ce_above_mbps;
	unsigned int drop_permille;
	enum congest_action action;
	bool verbose;
};

static const char *const counter_names[CONGEST_NR_COUNTERS] = {
    [CONGEST_PACKETS] = "packets", [CONGEST_BYTES] = "bytes",	  [CONGEST_OVER_RATE] = "over_rate",
    [CONGEST_MARKED] = "marked",   [CONGEST_DROPPED] = "dropped",
};

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int fail(const char *what, int err)
{
	char msg[128];

	libbpf_strerror(err, msg, sizeof(msg));
	fprintf(stderr, "congest: %s: %s\n", what, msg);
	return err;
}

static void usage(void)
{
	fprintf(stderr, "usage: congest -i IFACE [--ce-above-mbps N] "
			"[--drop-permille N] [-v]\n"
			"       congest -i IFACE --detach\n"
			"       congest -i IFACE --stats\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct congest_opts *o)
{
	static const struct option opts[] = {
	    {"iface", required_argument, NULL, 'i'},
	    {"ce-above-mbps", required_argument, NULL, 'c'},
	    {"drop-permille", required_argument, NULL, 'd'},
	    {"detach", no_argument, NULL, 'D'},
	    {"stats", no_argument, NULL, 's'},
	    {"verbose", no_argument, NULL, 'v'},
	    {0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "i:v", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->ifname = optarg;
			break;
		case 'c':
			o->ce_above_mbps = atof(optarg);
			break;
		case 'd':
			o->drop_permille = atoi(optarg);
			break;
		case 'D':
			o->action = ACT_DETACH;
			break;
		case 's':
			o->action = ACT_STATS;
			break;
		case 'v':
			o->verbose = true;
			break;
		default:
			usage();
		}
	}
	if (!o->ifname || o->drop_permille > 1000 || o->ce_above_mbps < 0)
		usage();
}

static int attach(const struct congest_opts *o, struct bpf_tc_hook *hook)
{
	LIBBPF_OPTS(bpf_tc_opts, tc, .handle = CONGEST_HANDLE, .priority = CONGEST_PRIO,
		    .flags = BPF_TC_F_REPLACE);
	struct congest_bpf *skel;
	int err;

	skel = congest_bpf__open();
	if (!skel)
		return fail("open", -errno);
	skel->rodata->ce_above_bytes_per_s = o->ce_above_mbps * 1e6 / 8;
	skel->rodata->drop_permille = o->drop_permille;
	err = congest_bpf__load(skel);
	if (err) {
		fail("load", err);
		goto cleanup;
	}
	/* -EEXIST: clsact is already there, e.g. the probe's own tc hook. */
	err = bpf_tc_hook_create(hook);
	if (err && err != -EEXIST) {
		fail("tc hook", err);
		goto cleanup;
	}
	tc.prog_fd = bpf_program__fd(skel->progs.congest);
	err = bpf_tc_attach(hook, &tc);
	if (err) {
		fail("tc attach", err);
		goto cleanup;
	}
	printf("{\"iface\":\"%s\",\"prog_id\":%u,\"ce_above_mbps\":%g,"
	       "\"drop_permille\":%u}\n",
	       o->ifname, tc.prog_id, o->ce_above_mbps, o->drop_permille);
cleanup:
	congest_bpf__destroy(skel);
	return err;
}

/* Only our filter goes: the clsact qdisc may carry the probe too. */
static int detach(struct bpf_tc_hook *hook)
{
	LIBBPF_OPTS(bpf_tc_opts, tc, .handle = CONGEST_HANDLE, .priority = CONGEST_PRIO);
	int err = bpf_tc_detach(hook, &tc);

	return err ? fail("tc detach", err) : 0;
}

static int stats_map_fd(__u32 prog_id)
{
	__u32 map_ids[MAX_MAP_IDS], i;
	struct bpf_prog_info prog = {
	    .nr_map_ids = MAX_MAP_IDS,
	    .map_ids = (__u64)(unsigned long)map_ids,
	};
	__u32 len = sizeof(prog);
	int prog_fd, fd = -ENOENT;

	prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (prog_fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(prog_fd, &prog, &len)) {
		fd = -errno;
		goto out;
	}
	for (i = 0; i < prog.nr_map_ids && i < MAX_MAP_IDS && fd < 0; i++) {
		struct bpf_map_info map = {};
		__u32 mlen = sizeof(map);

		fd = bpf_map_get_fd_by_id(map_ids[i]);
		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &map, &mlen) && !strcmp(map.name, STATS_MAP_NAME))
			break;
		close(fd);
		fd = -ENOENT;
	}
out:
	close(prog_fd);
	return fd;
}

static int print_stats(const struct congest_opts *o, int map_fd)
{
	int ncpus = libbpf_num_possible_cpus(), cpu;
	__u64 values[ncpus > 0 ? ncpus : 1], sum;
	__u32 key;

	if (ncpus <= 0)
		return fail("possible cpus", ncpus);
	printf("{\"iface\":\"%s\"", o->ifname);
	for (key = 0; key < CONGEST_NR_COUNTERS; key++) {
		if (bpf_map_lookup_elem(map_fd, &key, values))
			return fail("map lookup", -errno);
		for (sum = 0, cpu = 0; cpu < ncpus; cpu++)
			sum += values[cpu];
		printf(",\"%s\":%" PRIu64, counter_names[key], (uint64_t)sum);
	}
	printf("}\n");
	return 0;
}

static int stats(const struct congest_opts *o, struct bpf_tc_hook *hook)
{
	LIBBPF_OPTS(bpf_tc_opts, tc, .handle = CONGEST_HANDLE, .priority = CONGEST_PRIO);
	int err, map_fd;

	err = bpf_tc_query(hook, &tc);
	if (err)
		return fail("no congest filter on this interface", err);
	map_fd = stats_map_fd(tc.prog_id);
	if (map_fd < 0)
		return fail("stats map", map_fd);
	err = print_stats(o, map_fd);
	close(map_fd);
	return err;
}

int main(int argc, char **argv)
{
	struct congest_opts o = {.action = ACT_ATTACH};
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	int err;

	parse_args(argc, argv, &o);
	verbose = o.verbose;
	libbpf_set_print(print_libbpf);
	o.ifindex = if_nametoindex(o.ifname);
	if (!o.ifindex)
		return fail(o.ifname, -errno) ? 1 : 0;
	hook.ifindex = o.ifindex;
	switch (o.action) {
	case ACT_DETACH:
		err = detach(&hook);
		break;
	case ACT_STATS:
		err = stats(&o, &hook);
		break;
	default:
		err = attach(&o, &hook);
	}
	return err ? 1 : 0;
}
