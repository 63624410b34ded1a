// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary frames through the probe's XDP program (BPF_PROG_TEST_RUN),
 * then the invariants: the verdict is always XDP_PASS, every frame is
 * exactly one of RoCE, other or malformed, and no flow holds impossible
 * fields (mirror copies' included). A small flow table makes the LRU
 * evict all the time.
 *
 * libFuzzer cannot see inside the BPF program, so the harness turns what
 * the program did to the counters (RoCE, malformed, VXLAN, CNP, a new
 * flow, ...) into distinct branches here: inputs that reach a new outcome
 * count as new coverage and are kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/collect.h"
#include "fabprobe.skel.h"
#include "util/log.h"
#include "probe/probe.h"

#define FLOWS	    512
#define CHECK_EVERY 512

static struct probe probe;
static __u64 before[FP_CNT_MAX];
static volatile int outcome_sink;
static struct snapshot snap;
static unsigned long runs;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_bpf: invariant broken: %s\n", what);
	abort();
}

/* The observation point: all zero on the wire, consistent with the mirror type otherwise. */
static void check_mirror(const struct flow_key *k)
{
	__u8 mirror_flags = FP_FLOW_MIRROR_KEY | FP_FLOW_MIRROR_IPV6 | FP_FLOW_MIRROR_INGRESS |
			    FP_FLOW_MIRROR_EGRESS;
	__u8 dir = k->flags & (FP_FLOW_MIRROR_INGRESS | FP_FLOW_MIRROR_EGRESS);

	if (k->mirror == FP_MIRROR_NONE) {
		if ((k->flags & mirror_flags) || k->mirror_id || k->mirror_src || k->pad)
			die("mirror fields in a flow seen on the wire");
		return;
	}
	if (k->mirror > FP_MIRROR_GRE_TEB || k->pad)
		die("unknown mirror type");
	if (k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III) {
		if (k->mirror_id > 0x3FF || (k->flags & FP_FLOW_MIRROR_KEY))
			die("ERSPAN session wider than 10 bits, or named by a key");
	} else if (!(k->flags & FP_FLOW_MIRROR_KEY) && k->mirror_id) {
		die("a type I or TEB mirror id without a GRE key");
	}
	if (k->mirror == FP_MIRROR_ERSPAN_III
		? dir != FP_FLOW_MIRROR_INGRESS && dir != FP_FLOW_MIRROR_EGRESS
		: dir != 0)
		die("a direction only ERSPAN III has, and always exactly one");
}

static void check_flow(const struct flow_record *r)
{
	const struct flow_key *k = &r->key;
	const struct flow_counters *c = &r->c;
	__u64 ecn = c->ecn[0] + c->ecn[1] + c->ecn[2] + c->ecn[3];

	if (k->dest_qp > FP_PSN_MASK)
		die("dest_qp wider than 24 bits");
	if (k->flags & ~(FP_FLOW_VXLAN | FP_FLOW_IPV6 | FP_FLOW_INNER_IPV6 | FP_FLOW_MIRROR_KEY |
			 FP_FLOW_MIRROR_IPV6 | FP_FLOW_MIRROR_INGRESS | FP_FLOW_MIRROR_EGRESS))
		die("unknown flow flags");
	check_mirror(k);
	if (k->flags & FP_FLOW_VXLAN) {
		if (k->dport != FP_VXLAN_PORT_DEFAULT || k->inner_dport != FP_ROCE_PORT_DEFAULT ||
		    k->vni > 0xFFFFFF)
			die("VXLAN flow not on the VXLAN/RoCE ports");
	} else if (k->dport != FP_ROCE_PORT_DEFAULT || k->vni || k->inner_dport) {
		die("bare flow not on the RoCE port");
	}
	if (!c->packets || ecn != c->packets)
		die("ECN codepoints do not add up to packets");
	if ((k->flags & FP_FLOW_VXLAN) &&
	    c->inner_ecn[0] + c->inner_ecn[1] + c->inner_ecn[2] + c->inner_ecn[3] != c->packets)
		die("inner ECN codepoints do not add up to packets");
	if (c->bytes < c->packets * (14 + 20 + 8 + FP_BTH_LEN + FP_ICRC_LEN))
		die("a flow packet shorter than Ethernet+IPv4+UDP+BTH+ICRC");
	if (c->acks + c->naks + c->rnr_naks + c->cnp + c->retransmits > c->packets)
		die("more ACK/NAK/CNP/retransmits than packets");
	if (!(c->opcodes[0] | c->opcodes[1] | c->opcodes[2] | c->opcodes[3]))
		die("a flow without an opcode");
}

static void check(void)
{
	const __u64 *t = snap.totals;

	if (collect_snapshot(&probe, &snap))
		die("collect_snapshot failed");
	if (t[FP_CNT_FRAMES] != t[FP_CNT_ROCE] + t[FP_CNT_OTHER] + t[FP_CNT_MALFORMED])
		die("frames != roce + other + malformed");
	if (snap.n_flows > snap.flow_capacity)
		die("more flows than the tables hold");
	if (t[FP_CNT_FLOW_INSERT_FAIL])
		die("an LRU insert failed");
	for (size_t i = 0; i < snap.n_flows; i++)
		check_flow(&snap.flows[i]);
}

static void read_totals(__u64 out[FP_CNT_MAX])
{
	struct fp_totals vals[256];
	__u32 zero = 0;

	if ((size_t)probe.ncpus > sizeof(vals) / sizeof(vals[0]) ||
	    bpf_map_lookup_elem(bpf_map__fd(probe.skel->maps.fp_totals), &zero, vals))
		die("cannot read the counters");
	totals_sum(out, vals, probe.ncpus, sizeof(vals[0]));
}

/* One branch per combination of outcomes: the feedback libFuzzer can see. */
#define OUTCOME(n)                                                                                 \
	case n:                                                                                    \
		outcome_sink = n;                                                                  \
		break;
#define OUTCOME4(n)   OUTCOME(n) OUTCOME(n + 1) OUTCOME(n + 2) OUTCOME(n + 3)
#define OUTCOME16(n)  OUTCOME4(n) OUTCOME4(n + 4) OUTCOME4(n + 8) OUTCOME4(n + 12)
#define OUTCOME64(n)  OUTCOME16(n) OUTCOME16(n + 16) OUTCOME16(n + 32) OUTCOME16(n + 48)
#define OUTCOME256(n) OUTCOME64(n) OUTCOME64(n + 64) OUTCOME64(n + 128) OUTCOME64(n + 192)

static void feedback(void)
{
	static const int which[] = {FP_CNT_ROCE,
				    FP_CNT_OTHER,
				    FP_CNT_MALFORMED,
				    FP_CNT_VXLAN,
				    FP_CNT_CNP,
				    FP_CNT_FLOW_NEW,
				    FP_CNT_MIRRORED,
				    FP_CNT_MIRROR_TRUNCATED,
				    FP_CNT_MIRROR_ROCE_CUT};
	__u64 after[FP_CNT_MAX];
	unsigned int sig = 0;

	read_totals(after);
	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
		if (after[which[i]] != before[which[i]])
			sig |= 1U << i;
	memcpy(before, after, sizeof(before));
	switch (sig) {
		OUTCOME256(0)
		OUTCOME256(256)
		OUTCOME256(512)
		OUTCOME256(768)
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;

	(void)argc;
	(void)argv;
	opts.replay = true;
	opts.hooks = PROBE_HOOK_XDP;
	opts.flow_entries = FLOWS;
	if (probe_load(&probe, &opts))
		exit(1);
	return 0;
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	int err;

	/* The first two bytes choose the wire length's excess over the capture. */
	if (size < 2)
		return 0;
	err = probe_run_frame(&probe, data + 2, size - 2, size - 2 + data[0], runs, 0);
	if (err == -EPROTO)
		die("the program returned something other than XDP_PASS");
	/* The kernel refuses frames shorter than Ethernet or larger than it lays out. */
	if (err && err != -EINVAL)
		die("BPF_PROG_TEST_RUN failed");
	feedback();
	if (++runs % CHECK_EVERY == 0)
		check();
	return 0;
}
