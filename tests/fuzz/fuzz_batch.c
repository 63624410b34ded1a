// SPDX-License-Identifier: GPL-2.0
/*
 * Replay's batches against frames run alone: every input is a run of
 * frames, each run alone through fp_xdp on one probe and handed to
 * replay's pool of one thread on another, which packs them into fp_replay's
 * batches and runs the frames no batch takes alone, as replay does. The
 * two probes must then hold the same counters and the same flows, byte for
 * byte, and the pool must refuse exactly the frames the kernel refused
 * alone: batching only changes how many frames a BPF_PROG_TEST_RUN
 * carries, never what the parser sees.
 *
 * An input is records of a 3-byte head (the frame's length, big-endian,
 * and its wire length's excess over it) and then the frame's bytes, cut
 * where the input ends. Each input is checked, and both probes emptied:
 * the tables never evict, whose choice of victim need not be the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/collect.h"
#include "probe/probe.h"
#include "probe/runpool.h"

#define FLOWS	   1024
#define MAX_FRAMES 160	/* more than two full batches */
#define MAX_FRAME  5000 /* past what a batch takes, and past a page: fragments */

static struct probe alone, batched;
static struct runpool *pool;
static struct snapshot snap_alone, snap_batched;
static unsigned long runs;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_batch: %s\n", what);
	abort();
}

static int cmp_record(const void *a, const void *b)
{
	return memcmp(&((const struct flow_record *)a)->key, &((const struct flow_record *)b)->key,
		      sizeof(struct flow_key));
}

/* Both probes hold the same: every counter, every flow and its counters. */
static void check(void)
{
	if (collect_snapshot(&alone, &snap_alone) || collect_snapshot(&batched, &snap_batched))
		die("collect_snapshot failed");
	if (memcmp(snap_alone.totals, snap_batched.totals, sizeof(__u64) * FP_CNT_MAX))
		die("the counters differ between frames alone and in batches");
	if (snap_alone.n_flows != snap_batched.n_flows)
		die("the flow count differs between frames alone and in batches");
	if (snap_alone.n_flows) {
		qsort(snap_alone.flows, snap_alone.n_flows, sizeof(*snap_alone.flows), cmp_record);
		qsort(snap_batched.flows, snap_batched.n_flows, sizeof(*snap_batched.flows),
		      cmp_record);
	}
	for (size_t i = 0; i < snap_alone.n_flows; i++)
		if (memcmp(&snap_alone.flows[i].key, &snap_batched.flows[i].key,
			   sizeof(struct flow_key)) ||
		    memcmp(&snap_alone.flows[i].c, &snap_batched.flows[i].c,
			   sizeof(struct flow_counters)))
			die("a flow differs between frames alone and in batches");
	if (snap_alone.totals[FP_CNT_FLOW_NEW] > FLOWS / 2)
		die("too many flows for a table that must not evict");
	if (probe_clear(&alone) || probe_clear(&batched))
		die("cannot empty the maps");
}

static void load(struct probe *p, unsigned int hooks)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;

	opts.replay = true;
	opts.hooks = hooks;
	opts.flow_entries = FLOWS;
	opts.flow6_entries = FLOWS;
	if (probe_load(p, &opts))
		exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	load(&alone, PROBE_HOOK_XDP);
	load(&batched, PROBE_HOOK_REPLAY);
	if (!batched.batch_bytes)
		die("the kernel runs no batch");
	pool = runpool_new(&batched, 1);
	if (!pool)
		die("no replay pool");
	return 0;
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	__u64 refused_alone = 0, refused = runpool_refused(pool);
	size_t at = 0;

	for (int n = 0; n < MAX_FRAMES && at + 3 <= size; n++) {
		__u32 len = ((__u32)data[at] << 8 | data[at + 1]) % MAX_FRAME;
		struct fp_replay_meta m = {.ts_ns = runs * 1000 + n, .path_id = 1 + n % 3};
		int a;

		if (len > size - at - 3)
			len = size - at - 3;
		m.wire_len = len + data[at + 2];
		a = probe_run_frame(&alone, data + at + 3, len, m.wire_len, m.ts_ns, m.path_id);
		if (a && a != -EINVAL)
			die("BPF_PROG_TEST_RUN failed");
		refused_alone += a == -EINVAL;
		if (runpool_submit(pool, 0, data + at + 3, len, m.wire_len, m.ts_ns, m.path_id, n))
			die("replay's pool failed");
		at += 3 + len;
	}
	if (runpool_drain(pool))
		die("a batch did not run");
	/* Alone, the kernel refuses frames shorter than Ethernet: replay must refuse them too. */
	if (runpool_refused(pool) - refused != refused_alone)
		die("replay refused other frames than the kernel did alone");
	check();
	runs++;
	return 0;
}
