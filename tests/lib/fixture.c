// SPDX-License-Identifier: GPL-2.0
/* fixture.c - the BPF fixture harness shared by tests/bpf (see fixture.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "fixture.h"
#include "probe/runpool.h"
#include "source/shard.h"

struct probe g_probe;
struct snapshot g_snap;
struct fx g_fx;

struct frame *fx_frame(struct fx *fx)
{
	struct frame *f;

	if (fx->n == FX_MAX_FRAMES)
		fail_msg("fixture has more than %d frames", FX_MAX_FRAMES);
	f = &fx->frames[fx->n];
	fr_init(f);
	f->ts_ns = TS(fx->n);
	f->path_id = FX_PATH;
	fx->n++;
	return f;
}

void key_from(struct flow_key *k, const struct exp_key *e, __u8 dir)
{
	memset(k, 0, sizeof(*k));
	inet_pton(e->flags & FP_FLOW_IPV6 ? AF_INET6 : AF_INET, e->src, k->src);
	inet_pton(e->flags & FP_FLOW_IPV6 ? AF_INET6 : AF_INET, e->dst, k->dst);
	if (e->isrc) {
		inet_pton(e->flags & FP_FLOW_INNER_IPV6 ? AF_INET6 : AF_INET, e->isrc,
			  k->inner_src);
		inet_pton(e->flags & FP_FLOW_INNER_IPV6 ? AF_INET6 : AF_INET, e->idst,
			  k->inner_dst);
	}
	k->sport = e->sport;
	k->dport = e->dport;
	k->inner_sport = e->isport;
	k->inner_dport = e->idport;
	k->vni = e->vni;
	k->dest_qp = e->qp;
	k->ifindex = e->ifindex ? e->ifindex : FX_PATH;
	k->dir = dir;
	k->flags = e->flags;
	k->mirror = e->mirror;
	k->mirror_id = e->mirror_id;
	if (e->msrc && (e->flags & FP_FLOW_MIRROR_IPV6)) {
		__u8 a[16];
		__u64 hi, lo;

		assert_int_equal(inet_pton(AF_INET6, e->msrc, a), 1);
		memcpy(&hi, a, 8);
		memcpy(&lo, a + 8, 8);
		k->mirror_src = fp_addr6_digest(hi, lo);
	} else if (e->msrc) {
		assert_int_equal(inet_pton(AF_INET, e->msrc, &k->mirror_src), 1);
	}
}

void print_key(const struct flow_key *k)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], is[INET6_ADDRSTRLEN], id[INET6_ADDRSTRLEN];
	int af = k->flags & FP_FLOW_IPV6 ? AF_INET6 : AF_INET;
	int iaf = k->flags & FP_FLOW_INNER_IPV6 ? AF_INET6 : AF_INET;

	inet_ntop(af, k->src, s, sizeof(s));
	inet_ntop(af, k->dst, d, sizeof(d));
	inet_ntop(iaf, k->inner_src, is, sizeof(is));
	inet_ntop(iaf, k->inner_dst, id, sizeof(id));
	print_message("  key %s:%u > %s:%u vni %#x inner %s:%u > %s:%u qp %#x if %u dir %u "
		      "flags %#x mirror %u id %u src %#x\n",
		      s, k->sport, d, k->dport, k->vni, is, k->inner_sport, id, k->inner_dport,
		      k->dest_qp, k->ifindex, k->dir, k->flags, k->mirror, k->mirror_id,
		      k->mirror_src);
}

static int check_u64(const char *what, __u64 got, __u64 want)
{
	if (got == want)
		return 0;
	print_message("  %s: got %llu (%#llx), want %llu (%#llx)\n", what, (unsigned long long)got,
		      (unsigned long long)got, (unsigned long long)want, (unsigned long long)want);
	return 1;
}

/* Every field of struct flow_counters but the padding; returns mismatches. */
static int check_counters(const struct flow_counters *got, const struct flow_counters *want)
{
	static const char *const ecn_names[] = {"not_ect", "ect1", "ect0", "ce"};
	char name[32];
	int bad = 0;

#define CHECK(f) (bad += check_u64(#f, got->f, want->f))
	CHECK(packets);
	CHECK(bytes);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "ecn[%s]", ecn_names[i]);
		bad += check_u64(name, got->ecn[i], want->ecn[i]);
		snprintf(name, sizeof(name), "inner_ecn[%s]", ecn_names[i]);
		bad += check_u64(name, got->inner_ecn[i], want->inner_ecn[i]);
		snprintf(name, sizeof(name), "opcodes[%d]", i);
		bad += check_u64(name, got->opcodes[i], want->opcodes[i]);
	}
	CHECK(cnp);
	CHECK(acks);
	CHECK(naks);
	CHECK(rnr_naks);
	CHECK(retransmits);
	CHECK(psn_gaps);
	CHECK(fecn);
	CHECK(becn);
	CHECK(first_seen_ns);
	CHECK(last_seen_ns);
	CHECK(dscp_mask);
	CHECK(vlan);
	CHECK(dscp);
	CHECK(pcp);
	CHECK(vlan_tagged);
	CHECK(last_opcode);
	CHECK(last_nak_code);
#undef CHECK
	return bad;
}

static const char *const cnt_names[FP_CNT_MAX] = {
    [FP_CNT_FRAMES] = "frames",
    [FP_CNT_BYTES] = "bytes",
    [FP_CNT_ROCE] = "roce",
    [FP_CNT_VXLAN] = "vxlan",
    [FP_CNT_CNP] = "cnp",
    [FP_CNT_OTHER] = "other",
    [FP_CNT_MALFORMED] = "malformed",
    [FP_CNT_FLOW_NEW] = "flow_new",
    [FP_CNT_FLOW_INSERT_FAIL] = "flow_insert_fail",
    [FP_CNT_SAMPLES] = "samples",
    [FP_CNT_SAMPLE_DROPS] = "sample_drops",
    [FP_CNT_MIRRORED] = "mirrored",
    [FP_CNT_MIRROR_TRUNCATED] = "mirror_truncated",
    [FP_CNT_MIRROR_ROCE_CUT] = "mirror_roce_cut",
    [FP_CNT_MIRROR_NOT_ETH] = "mirror_not_eth",
    [FP_CNT_MIRROR_DROPPED] = "mirror_dropped",
    [FP_CNT_ROCE_CUT] = "roce_cut",
};

void check_totals(const struct snapshot *s, const __u64 want[FP_CNT_MAX])
{
	int bad = 0;

	for (int i = 0; i < FP_CNT_MAX; i++)
		bad += check_u64(cnt_names[i], s->totals[i], want[i]);
	bad += check_u64("frames - (roce + other + malformed)",
			 s->totals[FP_CNT_FRAMES] - s->totals[FP_CNT_ROCE] -
			     s->totals[FP_CNT_OTHER] - s->totals[FP_CNT_MALFORMED],
			 0);
	if (bad)
		fail_msg("%d total(s) differ", bad);
}

void check_flows(const struct snapshot *s, const struct fixture *fx, __u8 dir)
{
	int bad = 0;

	if (s->n_flows != (size_t)fx->n_flows) {
		print_message("  %zu flow(s) in the table, want %d:\n", s->n_flows, fx->n_flows);
		for (size_t i = 0; i < s->n_flows; i++)
			print_key(&s->flows[i].key);
		fail_msg("flow count differs");
	}
	for (int i = 0; i < fx->n_flows; i++) {
		const struct flow_record *r = NULL;
		struct flow_key k;

		key_from(&k, &fx->flows[i].k, dir);
		for (size_t j = 0; j < s->n_flows; j++)
			if (!memcmp(&s->flows[j].key, &k, sizeof(k)))
				r = &s->flows[j];
		if (!r) {
			print_message("  no flow with the expected key\n");
			print_key(&k);
			print_message("  flows present:\n");
			for (size_t j = 0; j < s->n_flows; j++)
				print_key(&s->flows[j].key);
			fail_msg("flow %d missing", i);
		}
		bad += check_counters(&r->c, &fx->flows[i].c);
		if (r->cnp_dscp_mask != fx->flows[i].cnp_dscp_mask) {
			print_message("  cnp_dscp_mask: got 0x%llx, want 0x%llx\n",
				      (unsigned long long)r->cnp_dscp_mask,
				      (unsigned long long)fx->flows[i].cnp_dscp_mask);
			bad++;
		}
	}
	if (bad)
		fail_msg("%d flow field(s) differ", bad);
}

/* A fresh probe with only the programs the test runs (hooks). */
/*
 * Loading costs the verifier ~0.3 s a program, so a probe of each
 * configuration is loaded once and its maps are emptied between tests:
 * every test still starts from zero counters, no flow and no PSN state.
 */
#define PROBE_CACHE 16

static struct cached_probe {
	struct probe probe;
	__u32 flow_entries;
	unsigned int hooks;
	__u16 roce_port, vxlan_port;
	bool mirror_drop;
	__u64 slot_tag_mask;
} g_cache[PROBE_CACHE];
static int g_cached;

void load(struct probe *p, const struct fixture *fx, __u32 flow_entries, unsigned int hooks)
{
	load_tagged(p, fx, flow_entries, hooks, 0);
}

struct probe_opts fixture_opts(const struct fixture *fx, __u32 flow_entries, unsigned int hooks,
			       __u64 slot_tag_mask)
{
	struct probe_opts opts = PROBE_OPTS_DEFAULT;

	opts.hooks = hooks;
	opts.replay = true;
	opts.flow_entries = flow_entries;
	opts.slot_tag_mask = slot_tag_mask;
	if (fx && fx->roce_port)
		opts.roce_port = fx->roce_port;
	if (fx && fx->vxlan_port)
		opts.vxlan_port = fx->vxlan_port;
	opts.mirror_drop = fx && fx->mirror_drop;
	return opts;
}

void load_tagged(struct probe *p, const struct fixture *fx, __u32 flow_entries, unsigned int hooks,
		 __u64 slot_tag_mask)
{
	struct probe_opts opts = fixture_opts(fx, flow_entries, hooks, slot_tag_mask);
	struct cached_probe *c;

	if (geteuid() != 0)
		skip();
	for (int i = 0; i < g_cached; i++) {
		c = &g_cache[i];
		if (c->flow_entries == flow_entries && c->hooks == hooks &&
		    c->roce_port == opts.roce_port && c->vxlan_port == opts.vxlan_port &&
		    c->mirror_drop == opts.mirror_drop && c->slot_tag_mask == slot_tag_mask) {
			assert_int_equal(probe_clear(&c->probe), 0);
			*p = c->probe;
			return;
		}
	}
	assert_true(g_cached < PROBE_CACHE);
	c = &g_cache[g_cached];
	assert_int_equal(probe_load(&c->probe, &opts), 0);
	c->flow_entries = flow_entries;
	c->hooks = hooks;
	c->roce_port = opts.roce_port;
	c->vxlan_port = opts.vxlan_port;
	c->mirror_drop = opts.mirror_drop;
	c->slot_tag_mask = slot_tag_mask;
	g_cached++;
	*p = c->probe;
}

/*
 * One frame through a tc program, with the replay clock, path and length
 * it carries as probe_run_frame() passes them to XDP. Returns the verdict.
 */
int run_tc(struct bpf_program *prog, const struct frame *f, void *out, __u32 *out_len)
{
	/* fp_replay_meta in cb[0..3], where the tc entry points read it in replay. */
	struct __sk_buff ctx = {
	    .cb = {(__u32)f->ts_ns, (__u32)(f->ts_ns >> 32), f->path_id, fr_wire_len(f)}};
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = f->data, .data_size_in = f->len,
		    .data_out = out, .data_size_out = out ? *out_len : 0, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &topts), 0);
	if (out_len)
		*out_len = topts.data_size_out;
	return topts.retval;
}

/* As probe_run_frame() runs it, but returning the verdict itself. */
int run_xdp(struct probe *p, const struct frame *f)
{
	struct fp_replay_meta meta = {
	    .ts_ns = f->ts_ns, .path_id = f->path_id, .wire_len = fr_wire_len(f)};
	static __u8 buf[sizeof(meta) + FR_MAX_LEN];
	struct xdp_md ctx = {.data = sizeof(meta), .data_end = sizeof(meta) + f->len};
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = buf, .data_size_in = ctx.data_end,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	assert_true(f->len <= FR_MAX_LEN);
	memcpy(buf, &meta, sizeof(meta));
	memcpy(buf + sizeof(meta), f->data, f->len);
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(p->skel->progs.fp_xdp), &topts), 0);
	return topts.retval;
}

void build(struct fx *fx, void (*builder)(struct fx *), const void *arg)
{
	if (!fx->frames)
		fx->frames = calloc(FX_MAX_FRAMES, sizeof(*fx->frames));
	assert_non_null(fx->frames);
	fx->n = 0;
	fx->arg = arg;
	builder(fx);
}

/*
 * The frames as replay runs them: through fp_replay, packed into batches by
 * a pool of threads threads (runpool.h), each flow's frames in order.
 */
void run_replay(struct probe *p, const struct fx *fx, int threads)
{
	struct runpool *rp = runpool_new(p, threads);

	assert_non_null(rp);
	assert_int_equal(p->batch_bytes, PROBE_BATCH_BYTES);
	for (int i = 0; i < fx->n; i++) {
		const struct frame *f = &fx->frames[i];

		assert_int_equal(
		    shard_submit(rp, f->data, f->len, fr_wire_len(f), f->ts_ns, f->path_id, i), 0);
	}
	assert_int_equal(runpool_drain(rp), 0);
	assert_int_equal(runpool_refused(rp), 0);
	runpool_free(rp);
}

void run_fixture(const struct fixture *fx, enum fx_prog prog)
{
	static const unsigned int hooks[] = {
	    [PROG_XDP] = PROBE_HOOK_XDP,
	    [PROG_TC_INGRESS] = PROBE_HOOK_TC_IN,
	    [PROG_TC_EGRESS] = PROBE_HOOK_TC_OUT,
	    [PROG_REPLAY] = PROBE_HOOK_REPLAY,
	    [PROG_REPLAY_THREADS] = PROBE_HOOK_REPLAY,
	};
	struct bpf_program *tc;

	load(&g_probe, fx, FX_FLOWS, hooks[prog]);
	build(&g_fx, fx->build, fx->arg);
	if (prog == PROG_REPLAY || prog == PROG_REPLAY_THREADS) {
		run_replay(&g_probe, &g_fx, prog == PROG_REPLAY ? 1 : 2);
		assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
		check_totals(&g_snap, fx->totals);
		check_flows(&g_snap, fx, FP_DIR_INGRESS);
		return;
	}
	tc = prog == PROG_TC_EGRESS ? g_probe.skel->progs.fp_tc_egress
				    : g_probe.skel->progs.fp_tc_ingress;
	for (int i = 0; i < g_fx.n; i++) {
		const struct frame *f = &g_fx.frames[i];

		/*
		 * XDP passes every frame (probe_run_frame says so), but with
		 * mirror_drop it drops exactly the mirror copies; tc passes all.
		 */
		if (prog == PROG_XDP && fx->mirror_drop)
			assert_int_equal(run_xdp(&g_probe, f),
					 fx->mirror_frames & 1U << i ? XDP_DROP_ : XDP_PASS_);
		else if (prog == PROG_XDP)
			assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, fr_wire_len(f),
							 f->ts_ns, f->path_id),
					 0);
		else
			assert_int_equal(run_tc(tc, f, NULL, NULL), TC_ACT_UNSPEC_);
	}
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	check_totals(&g_snap, fx->totals);
	check_flows(&g_snap, fx, prog == PROG_TC_EGRESS ? FP_DIR_EGRESS : FP_DIR_INGRESS);
}

void test_xdp(void **state)
{
	run_fixture(*state, PROG_XDP);
}

void test_tc_ingress(void **state)
{
	run_fixture(*state, PROG_TC_INGRESS);
}

void test_tc_egress(void **state)
{
	run_fixture(*state, PROG_TC_EGRESS);
}

void test_replay(void **state)
{
	run_fixture(*state, PROG_REPLAY);
}

void test_replay_threads(void **state)
{
	run_fixture(*state, PROG_REPLAY_THREADS);
}

/* The probe is an observer: XDP and tc hand back the frame byte for byte. */
void test_unmodified(void **state)
{
	const struct fixture *fx = *state;
	static __u8 out[FR_MAX_LEN];

	load(&g_probe, fx, FX_FLOWS, PROBE_HOOK_XDP | PROBE_HOOK_TC_IN);
	build(&g_fx, fx->build, fx->arg);
	for (int i = 0; i < g_fx.n; i++) {
		const struct frame *f = &g_fx.frames[i];
		LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = f->data, .data_size_in = f->len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
		__u32 out_len = sizeof(out);

		memset(out, 0xA5, sizeof(out));
		assert_int_equal(
		    bpf_prog_test_run_opts(bpf_program__fd(g_probe.skel->progs.fp_xdp), &topts), 0);
		assert_int_equal(topts.retval, XDP_PASS_);
		assert_int_equal(topts.data_size_out, f->len);
		assert_memory_equal(out, f->data, f->len);

		/* The kernel builds an skb only up to one page. */
		if (f->len > 3000)
			continue;
		memset(out, 0xA5, sizeof(out));
		assert_int_equal(run_tc(g_probe.skel->progs.fp_tc_ingress, f, out, &out_len),
				 TC_ACT_UNSPEC_);
		assert_int_equal(out_len, f->len);
		assert_memory_equal(out, f->data, f->len);
	}
}

/* ---- registry ------------------------------------------------------------ */

#define MAX_TESTS 1024
#define NAME_LEN  96

static struct CMUnitTest tests[MAX_TESTS];
static char names[MAX_TESTS][NAME_LEN];
static size_t n_tests;

/* The probe is borrowed from the cache, which fx_run_all() destroys at the end. */
static int teardown(void **state)
{
	(void)state;
	memset(&g_probe, 0, sizeof(g_probe));
	return 0;
}

void fx_add(const char *prefix, const char *name, void (*fn)(void **), const void *state)
{
	if (n_tests == MAX_TESTS) {
		fprintf(stderr, "fixture: more than %d tests\n", MAX_TESTS);
		abort();
	}
	snprintf(names[n_tests], NAME_LEN, "%s%s", prefix, name);
	tests[n_tests] = (struct CMUnitTest){
	    .name = names[n_tests],
	    .test_func = fn,
	    .teardown_func = teardown,
	    .initial_state = (void *)state,
	};
	n_tests++;
}

int fx_run_all(const char *name)
{
	int failed = _cmocka_run_group_tests(name, tests, n_tests, NULL, NULL);

	for (int i = 0; i < g_cached; i++)
		probe_destroy(&g_cache[i].probe);
	g_cached = 0;
	free(g_fx.frames);
	g_fx.frames = NULL;
	snapshot_free(&g_snap);
	return failed;
}
