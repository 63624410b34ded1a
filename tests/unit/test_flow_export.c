// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the per-flow delta bookkeeping (user/core/flow_export.c):
 * a simulated flow table is snapshotted, records are caught by a collector
 * that sums them per key, and the sums are compared with what the
 * simulated flows really counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "core/flow_export.h"

#define S  1000000000ULL /* ns */
#define MS 1000000ULL
#define T0 (1000 * S) /* the flows' clock at the start */

#define MAX_FLOWS 64
#define MAX_RECS  4096

/* The simulated BPF flow table: the counters a snapshot would read. */
struct table {
	struct flow_record rec[MAX_FLOWS];
	bool present[MAX_FLOWS];
};

/* What a collector would store. */
struct caught {
	struct flow_export_record r[MAX_RECS];
	struct flow_key key[MAX_RECS];
	int n;
	int refuse_after; /* take this many records per emit call, then -ENOBUFS; <0: all */
	int taken_this_call;
};

static struct flow_key key_of(int i)
{
	struct flow_key k = {};

	k.src[0] = 10;
	k.src[3] = i;
	k.dst[0] = 10;
	k.dst[3] = 200;
	k.sport = 49152 + i;
	k.dport = 4791;
	k.dest_qp = 100 + i;
	return k;
}

/* Flow i sends n packets of 100 bytes at t (the first one makes it present). */
static void send_pkts(struct table *t, int i, int n, __u64 at_ns)
{
	struct flow_record *r = &t->rec[i];

	if (!t->present[i]) {
		memset(r, 0, sizeof(*r));
		r->key = key_of(i);
		r->c.first_seen_ns = at_ns;
		t->present[i] = true;
	}
	r->c.packets += n;
	r->c.bytes += 100 * n;
	r->c.ecn[2] += n; /* ECT(0) */
	r->c.ecn[3] += n / 4;
	r->c.acks += n / 2;
	r->c.retransmits += n / 3;
	r->c.last_seen_ns = at_ns;
}

/* The flow table drops flow i (LRU eviction): its counters are gone. */
static void evict(struct table *t, int i)
{
	t->present[i] = false;
}

static struct snapshot *snap_of(struct table *t, __u64 now_ns)
{
	static struct flow_record flows[MAX_FLOWS];
	static struct snapshot s;

	memset(&s, 0, sizeof(s));
	s.flows = flows;
	s.flow_capacity = MAX_FLOWS;
	s.taken_ns = now_ns;
	for (int i = 0; i < MAX_FLOWS; i++)
		if (t->present[i])
			flows[s.n_flows++] = t->rec[i];
	return &s;
}

static int catch_rec(void *ctx, const struct flow_export_record *r)
{
	struct caught *c = ctx;

	if (c->refuse_after >= 0 && c->taken_this_call >= c->refuse_after)
		return -ENOBUFS;
	assert_true(c->n < MAX_RECS);
	c->r[c->n] = *r;
	c->key[c->n] = *r->key;
	c->r[c->n].key = &c->key[c->n];
	c->r[c->n].last = NULL;
	c->n++;
	c->taken_this_call++;
	return 0;
}

static size_t emit(struct flow_export *fx, struct caught *c)
{
	c->taken_this_call = 0;
	return flow_export_emit(fx, catch_rec, c);
}

/* The sum of one counter over flow i's records. */
static __u64 sum_of(const struct caught *c, int i, enum flow_export_count k)
{
	struct flow_key want = key_of(i);
	__u64 sum = 0;

	for (int j = 0; j < c->n; j++)
		if (!memcmp(&c->key[j], &want, sizeof(want)))
			sum += c->r[j].delta.v[k];
	return sum;
}

static int records_of(const struct caught *c, int i)
{
	struct flow_key want = key_of(i);
	int n = 0;

	for (int j = 0; j < c->n; j++)
		n += !memcmp(&c->key[j], &want, sizeof(want));
	return n;
}

static struct caught *caught_new(void)
{
	struct caught *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->refuse_after = -1;
	return c;
}

/*
 * Flow i, fed by sFlow: n samples at one in rate, counted as the sFlow
 * source does (sflow_ports_scale): estimates of samples x rate, the
 * samples seen, and the flow's mean rate over its life.
 */
static void send_sampled(struct table *t, int i, int n, __u32 rate, __u64 at_ns)
{
	struct flow_record *r;

	send_pkts(t, i, n * rate, at_ns);
	r = &t->rec[i];
	r->samples += n;
	r->rate = (__u32)((r->c.packets + r->samples / 2) / r->samples);
}

/* Record j's sampling (flow_export_sampling) is rate and samples. */
static void assert_sampling(const struct caught *c, int j, __u32 rate, __u64 samples)
{
	__u32 got_rate;
	__u64 got_samples;

	flow_export_sampling(&c->r[j], &got_rate, &got_samples);
	assert_int_equal(got_samples, samples);
	assert_int_equal(got_rate, rate);
}

/*
 * A sampled flow's records carry the samples behind each of them and that
 * record's own rate, not the flow's lifetime mean: a rate that dropped
 * between records, rates 1 to 10 within one record, and a flow that left
 * the table (and so is in no analysis) before its idle timeout.
 */
static void test_sampled_records(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 0);
	/* 11 samples at 1000, then 5 at 10: the flow's mean rate is 691. */
	send_sampled(&t, 0, 10, 1000, T0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 5 * S)), 0);
	send_sampled(&t, 0, 1, 1000, T0 + 9 * S);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 10 * S)), 0);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[0].delta.v[FX_PACKETS], 11000);
	assert_sampling(c, 0, 1000, 11);
	send_sampled(&t, 0, 5, 10, T0 + 19 * S);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 20 * S)), 0);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[1].delta.v[FX_PACKETS], 50);
	assert_int_equal(t.rec[0].rate, 691);
	assert_sampling(c, 1, 10, 5);

	/* One sample at each rate from 1 to 10: 55 packets, 10 samples, mean 5.5. */
	for (int k = 1; k <= 10; k++)
		send_sampled(&t, 1, 1, k, T0 + 20 * S + k * MS);
	/* Flow 2 leaves the table before its idle timeout: 10 samples at 10. */
	send_sampled(&t, 2, 10, 10, T0 + 20 * S);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 21 * S)), 0);
	evict(&t, 2);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 22 * S)), 0);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[2].reason, FLOW_END_IDLE);
	assert_int_equal(c->r[2].delta.v[FX_PACKETS], 100);
	assert_sampling(c, 2, 10, 10);
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[3].delta.v[FX_PACKETS], 55);
	assert_sampling(c, 3, 6, 10);

	/* Every-packet input: no samples, each packet seen (rate 1), never a rate of 0. */
	send_pkts(&t, 3, 7, T0 + 30 * S);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 31 * S)), 0);
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[4].delta.v[FX_SAMPLES], 0);
	assert_sampling(c, 4, 1, 7);
	flow_export_free(&fx);
	free(c);
}

/* A flow that is never due gets one record at the forced end: all of it. */
static void test_forced_end_carries_everything(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 0);
	send_pkts(&t, 0, 8, T0);
	send_pkts(&t, 0, 4, T0 + 500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	assert_int_equal(emit(&fx, c), 0);
	send_pkts(&t, 0, 4, T0 + 1500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 2 * S)), 0);
	assert_int_equal(emit(&fx, c), 0);
	flow_export_force(&fx);
	assert_int_equal(flow_export_due(&fx), 1);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[0].reason, FLOW_END_FORCED);
	assert_int_equal(c->r[0].delta.v[FX_PACKETS], 16);
	assert_int_equal(c->r[0].delta.v[FX_BYTES], 1600);
	assert_int_equal(c->r[0].delta.v[FX_ECT0], 16);
	assert_int_equal(c->r[0].delta.v[FX_CE], 4);
	assert_int_equal(c->r[0].delta.v[FX_ACKS], 8);
	assert_int_equal(c->r[0].delta.v[FX_RETRANSMITS], 4);
	assert_int_equal(c->r[0].start_ns, T0);
	assert_int_equal(c->r[0].end_ns, T0 + 1500 * MS);
	/* Nothing left: a second force sends nothing. */
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 0);
	flow_export_free(&fx);
	free(c);
}

/*
 * A flow sending all the time gets a record every active timeout, cut at
 * a snapshot; the next record starts where the previous one was cut, and
 * the records add up to the flow.
 */
static void test_active_timeout(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;

	(void)state;
	flow_export_init(&fx, 3 * S, 5 * S, 0);
	for (int sec = 0; sec < 10; sec++) {
		for (int k = 0; k < 10; k++)
			send_pkts(&t, 0, 1, T0 + sec * S + k * 100 * MS);
		assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + (sec + 1) * S)), 0);
		emit(&fx, c);
	}
	/* Cut at 3, 6 and 9 s: open since T0, then since each cut. */
	assert_int_equal(c->n, 3);
	for (int j = 0; j < 3; j++) {
		assert_int_equal(c->r[j].reason, FLOW_END_ACTIVE);
		assert_int_equal(c->r[j].delta.v[FX_PACKETS], 30);
		assert_int_equal(c->r[j].start_ns, j ? T0 + 3 * j * S : T0);
		assert_int_equal(c->r[j].end_ns, T0 + (3 * j + 2) * S + 900 * MS);
	}
	flow_export_force(&fx);
	emit(&fx, c);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->r[3].reason, FLOW_END_FORCED);
	assert_int_equal(sum_of(c, 0, FX_PACKETS), 100);
	assert_int_equal(sum_of(c, 0, FX_BYTES), 10000);
	flow_export_free(&fx);
	free(c);
}

/*
 * A flow that stopped is not cut by its active timer (it had no packet
 * since the previous snapshot): it waits for the idle timeout, so its last
 * record says it went idle. Then nothing more, even at the forced end.
 */
static void test_idle_timeout(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;

	(void)state;
	flow_export_init(&fx, 2 * S, 3 * S, 0);
	send_pkts(&t, 0, 5, T0);
	send_pkts(&t, 0, 5, T0 + 500 * MS);
	for (int sec = 1; sec <= 3; sec++) {
		assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + sec * S)), 0);
		assert_int_equal(emit(&fx, c), 0);
	}
	/* 3.5 s after its last packet: idle. */
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 4 * S)), 0);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[0].reason, FLOW_END_IDLE);
	assert_int_equal(c->r[0].delta.v[FX_PACKETS], 10);
	assert_int_equal(c->r[0].start_ns, T0);
	assert_int_equal(c->r[0].end_ns, T0 + 500 * MS);
	for (int sec = 5; sec <= 8; sec++) {
		assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + sec * S)), 0);
		assert_int_equal(emit(&fx, c), 0);
	}
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 0);
	/* It sends again: a new record, starting after the snapshot before. */
	send_pkts(&t, 0, 2, T0 + 8500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 9 * S)), 0);
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[1].delta.v[FX_PACKETS], 2);
	assert_int_equal(c->r[1].start_ns, T0 + 8 * S);
	assert_int_equal(c->r[1].reason, FLOW_END_FORCED);
	flow_export_free(&fx);
	free(c);
}

/* A flow that leaves the table gets its last record at once (idle), and its baseline goes. */
static void test_left_table(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	struct flow_export_stats st;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 0);
	send_pkts(&t, 0, 7, T0);
	send_pkts(&t, 1, 3, T0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	evict(&t, 0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 2 * S)), 0);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(c->r[0].reason, FLOW_END_IDLE);
	assert_int_equal(c->r[0].delta.v[FX_PACKETS], 7);
	/* Back later: counted from zero again, nothing of the old one twice. */
	send_pkts(&t, 0, 2, T0 + 2500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 3 * S)), 0);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.flows, 2);
	assert_int_equal(st.left_table, 1);
	assert_int_equal(st.incarnations, 0);
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 2);
	assert_int_equal(sum_of(c, 0, FX_PACKETS), 9);
	assert_int_equal(sum_of(c, 1, FX_PACKETS), 3);
	assert_int_equal(records_of(c, 0), 2);
	flow_export_free(&fx);
	free(c);
}

/*
 * Evicted and inserted again between two snapshots: the new incarnation
 * starts from zero, even when it has already counted more than the old
 * one had (its first_seen_ns tells), and what was pending stays pending.
 */
static void test_evicted_and_back(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	struct flow_export_stats st;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 0);
	send_pkts(&t, 0, 10, T0);
	send_pkts(&t, 1, 10, T0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	/* Flow 0 comes back with fewer packets, flow 1 with more. */
	evict(&t, 0);
	evict(&t, 1);
	send_pkts(&t, 0, 4, T0 + 1200 * MS);
	send_pkts(&t, 1, 25, T0 + 1200 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 2 * S)), 0);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.incarnations, 2);
	assert_int_equal(st.due, 0);
	send_pkts(&t, 1, 5, T0 + 2500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 3 * S)), 0);
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 2);
	assert_int_equal(sum_of(c, 0, FX_PACKETS), 14);
	assert_int_equal(sum_of(c, 1, FX_PACKETS), 40);
	assert_int_equal(sum_of(c, 1, FX_BYTES), 4000);
	/* The pending record began with the old incarnation's first packet. */
	assert_int_equal(c->r[0].start_ns, T0);
	assert_int_equal(c->r[1].start_ns, T0);
	flow_export_free(&fx);
	free(c);
}

/*
 * A replayed capture's time steps back: the flow's first packet moves
 * earlier (bpf/core.h keeps the earliest). The same flow, not a new one:
 * its counts go on, never sent twice.
 */
static void test_first_seen_back_same_flow(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	struct flow_export_stats st;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 0);
	send_pkts(&t, 0, 10, T0 + 5 * S);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 6 * S)), 0);
	send_pkts(&t, 0, 1, T0 + 6 * S);
	t.rec[0].c.first_seen_ns = T0 + 4 * S;
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 7 * S)), 0);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.incarnations, 0);
	flow_export_force(&fx);
	emit(&fx, c);
	assert_int_equal(sum_of(c, 0, FX_PACKETS), 11);
	flow_export_free(&fx);
	free(c);
}

/*
 * -ENOBUFS: the refused record's counts stay pending and go out later,
 * with what came in between; the emitter resumes with the refused flow,
 * so none waits behind flows after it.
 */
static void test_enobufs_retry(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	struct flow_export_stats st;

	(void)state;
	flow_export_init(&fx, 1 * S, 10 * S, 0);
	for (int i = 0; i < 10; i++)
		send_pkts(&t, i, 10 + i, T0 + i * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 500 * MS)), 0);
	for (int i = 0; i < 10; i++)
		send_pkts(&t, i, 1, T0 + 900 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	assert_int_equal(flow_export_due(&fx), 1); /* flow 0: open since T0 */
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1100 * MS)), 0);
	/* Still no new packets at 1.1 s: the others wait for their idle timeout. */
	assert_int_equal(flow_export_due(&fx), 1);
	for (int i = 0; i < 10; i++)
		send_pkts(&t, i, 1, T0 + 1500 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1600 * MS)), 0);
	assert_int_equal(flow_export_due(&fx), 10);

	c->refuse_after = 3;
	assert_int_equal(emit(&fx, c), 3);
	assert_int_equal(emit(&fx, c), 3);
	/* More packets while flows 6-9 wait: they go out with the refused records. */
	for (int i = 0; i < 10; i++)
		send_pkts(&t, i, 100, T0 + 1700 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1800 * MS)), 0);
	assert_int_equal(emit(&fx, c), 3);
	assert_int_equal(emit(&fx, c), 1);
	assert_int_equal(emit(&fx, c), 0);
	/* Each flow once, in order. */
	for (int j = 0; j < 10; j++)
		assert_int_equal(c->key[j].sport, 49152 + j);
	assert_int_equal(c->r[0].delta.v[FX_PACKETS], 10 + 0 + 2);
	assert_int_equal(c->r[5].delta.v[FX_PACKETS], 10 + 5 + 2);
	assert_int_equal(c->r[6].delta.v[FX_PACKETS], 10 + 6 + 2 + 100);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.refused, 3);
	assert_int_equal(st.records, 10);
	/* Flows 0-5 still have their 100 packets pending: late, not lost. */
	c->refuse_after = -1;
	flow_export_force(&fx);
	assert_int_equal(emit(&fx, c), 6);
	for (int i = 0; i < 10; i++)
		assert_int_equal(sum_of(c, i, FX_PACKETS), 10 + i + 2 + 100);
	flow_export_free(&fx);
	free(c);
}

/* A refused active-timeout record of a flow that then leaves the table goes as idle. */
static void test_reason_of_waiting_record(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;

	(void)state;
	flow_export_init(&fx, 1 * S, 10 * S, 0);
	send_pkts(&t, 0, 5, T0);
	send_pkts(&t, 1, 5, T0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 500 * MS)), 0);
	send_pkts(&t, 0, 5, T0 + 800 * MS);
	send_pkts(&t, 1, 5, T0 + 800 * MS);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	assert_int_equal(flow_export_due(&fx), 2);
	c->refuse_after = 0;
	assert_int_equal(emit(&fx, c), 0);
	evict(&t, 1);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1500 * MS)), 0);
	/* A forced end leaves a record already due with its own reason. */
	flow_export_force(&fx);
	c->refuse_after = -1;
	assert_int_equal(emit(&fx, c), 2);
	assert_int_equal(c->r[0].reason, FLOW_END_ACTIVE);
	assert_int_equal(c->r[1].reason, FLOW_END_IDLE);
	assert_int_equal(sum_of(c, 1, FX_PACKETS), 10);
	flow_export_free(&fx);
	free(c);
}

/*
 * A collector that never takes anything: flows that left the table and
 * wait are bounded (max_waiting); the oldest are given up and counted.
 */
static void test_waiting_is_bounded(void **state)
{
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	struct flow_export_stats st;

	(void)state;
	flow_export_init(&fx, 10 * S, 10 * S, 4);
	for (int i = 0; i < 10; i++)
		send_pkts(&t, i, 3, T0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 1 * S)), 0);
	for (int i = 0; i < 10; i++)
		evict(&t, i);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 2 * S)), 0);
	c->refuse_after = 0;
	assert_int_equal(emit(&fx, c), 0);
	assert_int_equal(flow_export_observe(&fx, snap_of(&t, T0 + 3 * S)), 0);
	flow_export_get_stats(&fx, &st);
	assert_int_equal(st.dropped, 6);
	assert_int_equal(st.dropped_packets, 18);
	assert_int_equal(st.due, 4);
	assert_int_equal(st.flows, 4);
	c->refuse_after = -1;
	assert_int_equal(emit(&fx, c), 4);
	/* The newest four kept: flows 6-9. */
	for (int i = 6; i < 10; i++)
		assert_int_equal(sum_of(c, i, FX_PACKETS), 3);
	flow_export_free(&fx);
	free(c);
}

/*
 * Random traffic, evictions (a flow is absent for at least one snapshot,
 * so no packet escapes every snapshot) and refusals: after the forced end
 * every flow's records add up to what it sent, no record is empty, and
 * each record's start is not after its end.
 */
static void test_random_sums(void **state)
{
	static __u64 sent[MAX_FLOWS], sent_bytes[MAX_FLOWS];
	struct table t = {};
	struct caught *c = caught_new();
	struct flow_export fx;
	unsigned int seed = 12345;

	(void)state;
	memset(sent, 0, sizeof(sent));
	memset(sent_bytes, 0, sizeof(sent_bytes));
	flow_export_init(&fx, 2 * S, 3 * S, 0);
	for (int step = 1; step <= 120; step++) {
		__u64 now = T0 + step * 250 * MS;

		for (int i = 0; i < 40; i++) {
			int r = rand_r(&seed) % 10;

			if (r < 4) {
				int n = 1 + rand_r(&seed) % 20;

				send_pkts(&t, i, n, now - 100 * MS);
				sent[i] += n;
				sent_bytes[i] += 100 * n;
			} else if (r == 9 && t.present[i]) {
				evict(&t, i);
			}
		}
		assert_int_equal(flow_export_observe(&fx, snap_of(&t, now)), 0);
		c->refuse_after = rand_r(&seed) % 4 ? (int)(rand_r(&seed) % 6) : -1;
		emit(&fx, c);
		/* Nothing evicted comes back before a snapshot has seen it gone. */
	}
	flow_export_force(&fx);
	c->refuse_after = -1;
	emit(&fx, c);
	assert_int_equal(flow_export_due(&fx), 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(sum_of(c, i, FX_PACKETS), sent[i]);
		assert_int_equal(sum_of(c, i, FX_BYTES), sent_bytes[i]);
	}
	for (int j = 0; j < c->n; j++) {
		assert_true(c->r[j].delta.v[FX_PACKETS] > 0);
		assert_true(c->r[j].start_ns <= c->r[j].end_ns);
	}
	flow_export_free(&fx);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forced_end_carries_everything),
	    cmocka_unit_test(test_active_timeout),
	    cmocka_unit_test(test_idle_timeout),
	    cmocka_unit_test(test_left_table),
	    cmocka_unit_test(test_evicted_and_back),
	    cmocka_unit_test(test_first_seen_back_same_flow),
	    cmocka_unit_test(test_enobufs_retry),
	    cmocka_unit_test(test_reason_of_waiting_record),
	    cmocka_unit_test(test_waiting_is_bounded),
	    cmocka_unit_test(test_random_sums),
	    cmocka_unit_test(test_sampled_records),
	};

	return cmocka_run_group_tests_name("flow_export", tests, NULL, NULL);
}
