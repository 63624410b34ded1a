// SPDX-License-Identifier: GPL-2.0
/*
 * Detectors on known inputs: snapshots built by hand, analysed, and the
 * alerts, elephants and collisions checked, thresholds at their boundaries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/analysis.h"
#include "core/series.h"
#include "util/json.h"
#include "core/detect.h"
#include "core/mirror.h"
#include "render/summary.h"
#include "probe/par.h"

#define MAX_FLOWS 32
#define UP1	  101
#define UP2	  102
#define UP3	  103
#define UP4	  104
#define SOLO	  105

struct fixture {
	struct flow_record flows[MAX_FLOWS];
	struct snapshot snap;
	struct obs_point names[5];
	struct source_desc ro;
	struct analysis_opts ao;
	struct analysis an;
};

static struct fixture fx;

static int setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	fx.snap.flows = fx.flows;
	fx.snap.cap = MAX_FLOWS;
	fx.snap.flow_capacity = 1024;
	fx.snap.taken_ns = 1000000000ULL;
	fx.names[0] = (struct obs_point){.id = UP1, .name = "up1", .uplink = true};
	fx.names[1] = (struct obs_point){.id = UP2, .name = "up2", .uplink = true};
	fx.ro = (struct source_desc){
	    .mode = "replay", .points = fx.names, .n_points = 2, .every_packet = true};
	analysis_opts_default(&fx.ao);
	fx.ao.elephant_bps = 1e6;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	analysis_free(&fx.an);
	return 0;
}

/* A data flow (RC WRITE) src -> dst, sport, qp, on an uplink, with bytes over 1 s. */
static struct flow_record *add_flow(const char *src, const char *dst, __u16 sport, __u32 qp,
				    __u32 ifindex, __u64 bytes)
{
	struct flow_record *r = &fx.flows[fx.snap.n_flows++];

	inet_pton(AF_INET, src, r->key.src);
	inet_pton(AF_INET, dst, r->key.dst);
	r->key.sport = sport;
	r->key.dport = 4791;
	r->key.dest_qp = qp;
	r->key.ifindex = ifindex;
	r->c.bytes = bytes;
	r->c.packets = bytes / 1000 + 1;
	r->c.ecn[2] = r->c.packets; /* ECT(0) */
	r->c.dscp_mask = 1ULL << 26;
	r->c.dscp = 26;
	r->c.opcodes[0] = 1ULL << FP_OP_WRITE_MIDDLE;
	return r;
}

/* The reverse direction of r: ACKs (and CNPs) back to the requester. */
static struct flow_record *add_reverse(const struct flow_record *r, __u64 acks, __u64 cnps)
{
	struct flow_record *rev = &fx.flows[fx.snap.n_flows++];

	memcpy(rev->key.src, r->key.dst, 16);
	memcpy(rev->key.dst, r->key.src, 16);
	rev->key.sport = r->key.sport;
	rev->key.dport = 4791;
	rev->key.dest_qp = r->key.dest_qp + 100;
	rev->key.ifindex = r->key.ifindex;
	rev->c.packets = acks + cnps;
	rev->c.bytes = rev->c.packets * 62;
	rev->c.acks = acks;
	rev->c.cnp = cnps;
	rev->c.opcodes[0] = 1ULL << FP_OP_ACK;
	if (cnps)
		rev->c.opcodes[FP_OPCODE_CNP >> 6] |= 1ULL << (FP_OPCODE_CNP & 63);
	/* ACKs in the data class, CNPs in theirs: the map keeps the two apart. */
	rev->c.dscp_mask = acks ? 1ULL << 26 : 0;
	rev->cnp_dscp_mask = cnps ? 1ULL << 48 : 0;
	rev->c.dscp = 26;
	return rev;
}

static void analyse(double span_s)
{
	snapshot_flow_totals(&fx.snap); /* what collect does */
	assert_int_equal(analysis_update(&fx.an, &fx.snap, &fx.ro, &fx.ao, span_s), 0);
}

static const struct alert *find_alert(enum alert_type t)
{
	for (size_t i = 0; i < fx.an.n_alerts; i++)
		if (fx.an.alerts[i].type == t)
			return &fx.an.alerts[i];
	return NULL;
}

static void test_elephant_threshold_boundary(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 125000);     /* exactly 1 Mb/s */
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 125000 - 1); /* just below */
	analyse(1.0);
	assert_true(fx.an.flows[0].elephant);
	assert_false(fx.an.flows[1].elephant);
	assert_int_equal(fx.an.paths[0].elephants, 1);
}

/* A share of the busiest flow alone would call a 114 kb/s flow an elephant: the floor does not. */
static void test_elephant_floor(void **state)
{
	(void)state;
	fx.ao.elephant_bps = 0; /* the default: a share of the group's peak */
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 14250); /* 114 kb/s */
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 1000);
	analyse(1.0);
	assert_false(fx.an.flows[0].elephant);
	assert_true(fx.an.elephant_bps >= 1e6);
	/* Above the floor, the share applies again. */
	fx.snap.n_flows = 0;
	analysis_free(&fx.an);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 12500000); /* 100 Mb/s */
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 1000);
	analyse(1.0);
	assert_true(fx.an.flows[0].elephant);
	assert_false(fx.an.flows[1].elephant);
}

/*
 * Uplinks with a speed: a flow is an elephant from a share of its link, and
 * the threshold shown (report, metrics, the Paths view) is that one, not a
 * share of the group's peak: 200 Mb/s flows on 10G links are not elephants
 * and the threshold says 1 Gb/s (it said 10% of their 400 Mb/s).
 */
static void test_elephant_threshold_shown_is_applied(void **state)
{
	(void)state;
	fx.ao.elephant_bps = 0;
	fx.names[0].speed_bps = 10e9;
	fx.names[1].speed_bps = 25e9;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 25000000); /* 200 Mb/s */
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 25000000);
	analyse(1.0);
	assert_false(fx.an.flows[0].elephant);
	assert_false(fx.an.flows[1].elephant);
	/* The slowest uplink's: a flow at it there is one. */
	assert_true(fx.an.elephant_bps == 1e9);
	fx.snap.n_flows = 0;
	analysis_free(&fx.an);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 125000000); /* 1 Gb/s */
	analyse(1.0);
	assert_true(fx.an.flows[0].elephant);
	/* No speeds: a share of the group's peak, as before. */
	fx.names[0].speed_bps = fx.names[1].speed_bps = 0;
	fx.snap.n_flows = 0;
	analysis_free(&fx.an);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 25000000);
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 25000000);
	analyse(1.0);
	assert_true(fx.an.elephant_bps == 0.10 * 400e6);
	assert_true(fx.an.flows[0].elephant);
}

/* An alert says the window its numbers cover. */
static void test_alert_window(void **state)
{
	struct flow_record *r;

	(void)state;
	r = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	r->c.retransmits = 7;
	analyse(1.0);
	assert_non_null(strstr(find_alert(ALERT_RETRANSMITS)->evidence, "in the whole 1.0 s"));
	assert_non_null(strstr(find_alert(ALERT_RETRANSMITS)->message, "1 flow resends"));
	fx.snap.taken_ns += 5000000000ULL;
	r->c.packets += 10;
	r->c.retransmits += 3;
	analyse(0);
	assert_non_null(strstr(find_alert(ALERT_RETRANSMITS)->evidence, "3 packets resent"));
	assert_non_null(strstr(find_alert(ALERT_RETRANSMITS)->evidence, "in the last 5.0 s"));
}

static void test_elephant_hysteresis(void **state)
{
	struct flow_record *r;

	(void)state;
	r = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 200000); /* 1.6 Mb/s */
	analyse(1.0);
	assert_true(fx.an.flows[0].elephant);
	/* One second later at 0.85 Mb/s: above 80% of the threshold, stays an elephant. */
	fx.snap.taken_ns += 1000000000ULL;
	r->c.bytes += 106250;
	analyse(0);
	assert_true(fx.an.flows[0].elephant);
	/* Then at 0.75 Mb/s: below the hold level, no longer one. */
	fx.snap.taken_ns += 1000000000ULL;
	r->c.bytes += 93750;
	analyse(0);
	assert_false(fx.an.flows[0].elephant);
}

static void test_rates_from_previous_snapshot(void **state)
{
	struct flow_record *r;

	(void)state;
	r = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	analyse(1.0);
	fx.snap.taken_ns += 2000000000ULL;
	r->c.bytes += 2000;
	r->c.packets += 4;
	r->c.retransmits = 2;
	analyse(0);
	assert_true(fx.an.flows[0].bps > 7999.9 && fx.an.flows[0].bps < 8000.1);
	assert_true(analysis_per_s(&fx.an, fx.an.flows[0].d.packets) > 1.99 &&
		    analysis_per_s(&fx.an, fx.an.flows[0].d.packets) < 2.01);
	assert_true(analysis_per_s(&fx.an, fx.an.flows[0].d.rtx) > 0.99 &&
		    analysis_per_s(&fx.an, fx.an.flows[0].d.rtx) < 1.01);
	assert_int_equal(fx.an.flows[0].d.rtx, 2);
}

static void test_observed_collision(void **state)
{
	const struct alert *al;

	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP1, 500000);
	add_flow("10.0.0.3", "10.0.1.3", 50002, 3, UP2, 1000); /* a mouse on the idle uplink */
	analyse(1.0);
	assert_int_equal(fx.an.n_collisions, 1);
	assert_int_equal(fx.an.collisions[0].path, 0);
	assert_int_equal(fx.an.collisions[0].idle_path, 1);
	al = find_alert(ALERT_ELEPHANT_COLLISION);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 2);
	assert_int_equal(al->path, 0);
	assert_non_null(strstr(al->message, "up1"));
	assert_non_null(strstr(al->message, "up2"));
}

static void test_no_collision_when_balanced(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP1, 500000);
	add_flow("10.0.0.3", "10.0.1.3", 50002, 3, UP2, 500000);
	add_flow("10.0.0.4", "10.0.1.4", 50003, 4, UP2, 500000);
	analyse(1.0);
	assert_int_equal(fx.an.n_collisions, 0);
	assert_null(find_alert(ALERT_ELEPHANT_COLLISION));
	assert_null(find_alert(ALERT_PATH_IMBALANCE));
}

/* Predictions by a CRC32 model of four next-tier paths. */
static void use_hash_model(void)
{
	fx.ao.predict = true;
	fx.ao.hash.model = HASH_CRC32_LO;
	fx.ao.hash.n_paths = 4;
}

static void test_predicted_collision_and_suggestion(void **state)
{
	struct flow_record *a, *b;
	const struct alert *al;
	__u16 port = 0;
	__u32 want;

	(void)state;
	use_hash_model();
	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP2, 500000);
	/* Move b's source port until the model puts it on a's path. */
	want = hash_path(&fx.ao.hash, &a->key);
	while (hash_path(&fx.ao.hash, &b->key) != want)
		b->key.sport++;
	analyse(1.0);
	al = find_alert(ALERT_PREDICTED_COLLISION);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 2);
	/* The suggested port really moves the flow to the least-loaded path. */
	for (size_t i = 0; i < fx.an.n_collisions; i++)
		if (fx.an.collisions[i].predicted)
			port = hash_nearest_sport(&fx.ao.hash,
						  &fx.an.flows[fx.an.collisions[i].flows[0]].r->key,
						  fx.an.collisions[i].idle_path);
	assert_int_not_equal(port, 0);
	a->key.sport = port;
	assert_int_not_equal(hash_path(&fx.ao.hash, &a->key), want);
}

/*
 * One queue pair seen at two points hashes alike at both: one elephant on
 * its predicted path, not two colliding. With a second QP there, one alert
 * naming each QP once.
 */
static void test_predicted_collision_counts_queue_pairs(void **state)
{
	struct flow_record *a, *b;
	const struct alert *al;
	__u32 want;

	(void)state;
	use_hash_model();
	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP2, 490000);
	analyse(1.0);
	assert_null(find_alert(ALERT_PREDICTED_COLLISION));
	want = hash_path(&fx.ao.hash, &a->key);
	b = add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP1, 480000);
	while (hash_path(&fx.ao.hash, &b->key) != want)
		b->key.sport++;
	analysis_free(&fx.an);
	analyse(1.0);
	al = find_alert(ALERT_PREDICTED_COLLISION);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 2);
}

/*
 * Two paths, two elephants predicted on each: no path has room, so no
 * collision is predicted (the least-loaded "other" path was the colliding
 * one itself, or as loaded). One path only: nowhere to move to.
 */
static void test_predicted_collision_needs_room(void **state)
{
	struct flow_key k = {};
	int on[2] = {0, 0}, qp = 1;

	(void)state;
	use_hash_model();
	fx.ao.hash.n_paths = 2;
	/* Source ports from 50000 on, kept while their path has fewer than two. */
	inet_pton(AF_INET, "10.0.0.1", k.src);
	inet_pton(AF_INET, "10.0.1.1", k.dst);
	k.dport = 4791;
	for (k.sport = 50000; on[0] + on[1] < 4; k.sport++) {
		__u32 p = hash_path(&fx.ao.hash, &k) % 2;

		if (on[p] < 2) {
			on[p]++;
			add_flow("10.0.0.1", "10.0.1.1", k.sport, qp++, UP1, 500000);
		}
	}
	analyse(1.0);
	assert_null(find_alert(ALERT_PREDICTED_COLLISION));
	fx.ao.hash.n_paths = 1;
	analysis_free(&fx.an);
	analyse(1.0);
	assert_null(find_alert(ALERT_PREDICTED_COLLISION));
}

/* A model that hashes no source port: no port is suggested, none could move a flow. */
static void test_predicted_collision_without_port_field(void **state)
{
	const struct alert *al;

	(void)state;
	use_hash_model();
	fx.ao.hash.fields = HF_SRC_IP | HF_DST_IP | HF_DPORT;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	add_flow("10.0.0.1", "10.0.1.1", 50001, 2, UP2, 500000);
	analyse(1.0);
	al = find_alert(ALERT_PREDICTED_COLLISION);
	assert_non_null(al);
	assert_non_null(strstr(al->message, "no source port moves"));
	assert_null(strstr(al->message, "sport 0"));
}

static void test_ce_without_cnp(void **state)
{
	struct flow_record *d;
	const struct alert *al;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.ecn[3] = 10;
	add_reverse(d, 5, 0);
	analyse(1.0);
	al = find_alert(ALERT_CE_WITHOUT_CNP);
	assert_non_null(al);
	assert_int_equal(al->severity, SEV_CRITICAL);
	assert_int_equal(al->flows[0].sport, 50000);
	assert_null(find_alert(ALERT_CNP_WITHOUT_CE));
}

static void test_ce_with_cnp_is_fine(void **state)
{
	struct flow_record *d;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.ecn[3] = 10;
	add_reverse(d, 5, 1);
	analyse(1.0);
	assert_null(find_alert(ALERT_CE_WITHOUT_CNP));
	assert_null(find_alert(ALERT_CNP_WITHOUT_CE));
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
}

/* Without the reverse direction in view, missing CNPs cannot be told. */
static void test_ce_without_reverse_is_silent(void **state)
{
	struct flow_record *d;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.ecn[3] = 10;
	analyse(1.0);
	assert_null(find_alert(ALERT_CE_WITHOUT_CNP));
}

/*
 * Two QPs from A to B, one reverse flow B to A: the ACKs of the first
 * (same source port). The second QP's reverse is not in view, so its CE
 * marks tell nothing: the only flow back is the first one's, not its.
 */
static void test_reverse_fallback_not_another_flows(void **state)
{
	struct flow_record *a, *b;

	(void)state;
	a = add_flow("10.0.0.1", "10.0.1.1", 50001, 1, UP1, 100000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50002, 3, UP1, 100000);
	b->c.ecn[3] = 10;
	add_reverse(a, 5, 0);
	analyse(1.0);
	assert_int_equal(fx.an.flows[0].reverse, 2);
	assert_int_equal(fx.an.flows[1].reverse, -1);
	assert_null(find_alert(ALERT_CE_WITHOUT_CNP));
}

/* A requester's PSNs: its highest request, and the highest its responder acknowledged. */
static void sent_up_to(struct flow_record *r, __u32 psn)
{
	r->c.psn.tracking = 1;
	r->c.psn.max_psn = r->c.psn.last_psn = psn;
	r->c.psn.next_psn_max = psn + 1;
}

static void acked_up_to(struct flow_record *r, __u32 psn)
{
	r->c.psn.resp_seen = 1;
	r->c.psn.resp_psn = psn;
}

/*
 * Two QPs from A to B on one source port (a NIC that fixes it), their
 * ACKs back on it too: the port cannot tell the reverse flows apart, the
 * PSNs can. QP 1's CE marks get no CNP back; QP 3's reverse, the larger,
 * carries CNPs and must not stand in for QP 1's.
 */
static void test_reverse_by_psn_on_a_shared_port(void **state)
{
	struct flow_record *a, *b, *ra, *rb;
	const struct alert *al;

	(void)state;
	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50000, 3, UP1, 90000);
	a->c.ecn[3] = 10;
	sent_up_to(a, 0x100500);
	sent_up_to(b, 0xFFFFF0);
	rb = add_reverse(b, 50, 7);
	ra = add_reverse(a, 5, 0);
	acked_up_to(rb, 0xFFFF80);
	acked_up_to(ra, 0x1004F0);
	analyse(1.0);
	assert_int_equal(fx.an.flows[0].reverse, 3);
	assert_int_equal(fx.an.flows[1].reverse, 2);
	assert_int_equal(fx.an.flows[3].reverse, 0);
	assert_int_equal(fx.an.flows[2].reverse, 1);
	al = find_alert(ALERT_CE_WITHOUT_CNP);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 1);
	assert_int_equal(al->flows[0].dest_qp, 1);
	assert_non_null(strstr(al->evidence, "5 packets"));
}

/*
 * The same, with only QP 1's ACKs in view: QP 3 has no reverse (the one
 * flow back is QP 1's), and a port whose flows carry no PSNs pairs none.
 */
static void test_reverse_on_a_shared_port_none_rather_than_another(void **state)
{
	struct flow_record *a, *b, *c, *d;

	(void)state;
	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50000, 3, UP1, 90000);
	sent_up_to(a, 0x100500);
	sent_up_to(b, 0x200500);
	acked_up_to(add_reverse(a, 5, 0), 0x100400);
	c = add_flow("10.0.0.2", "10.0.1.2", 50000, 1, UP1, 100000);
	d = add_flow("10.0.0.2", "10.0.1.2", 50000, 3, UP1, 90000);
	d->c.ecn[3] = 10;
	add_reverse(c, 5, 0);
	analyse(1.0);
	assert_int_equal(fx.an.flows[0].reverse, 2);
	assert_int_equal(fx.an.flows[2].reverse, 0);
	assert_int_equal(fx.an.flows[1].reverse, -1);
	assert_int_equal(fx.an.flows[3].reverse, -1);
	assert_int_equal(fx.an.flows[4].reverse, -1);
	assert_int_equal(fx.an.flows[5].reverse, -1);
	assert_null(find_alert(ALERT_CE_WITHOUT_CNP));
}

/*
 * QP 1 seen on two uplinks and QP 3 on one, all on one port, their ACKs
 * back: both copies of QP 1 pair with QP 1's reverse, the larger of its
 * two copies.
 */
static void test_reverse_on_a_shared_port_copies(void **state)
{
	struct flow_record *a1, *a2, *b, *r1, *r2, *rb;

	(void)state;
	a1 = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	a2 = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP2, 99000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50000, 3, UP1, 50000);
	sent_up_to(a1, 0x000500);
	sent_up_to(a2, 0x000502);
	sent_up_to(b, 0x800000);
	r1 = add_reverse(a1, 5, 0);
	r2 = add_reverse(a2, 4, 0);
	rb = add_reverse(b, 5, 0);
	acked_up_to(r1, 0x0004F0);
	acked_up_to(r2, 0x0004F0);
	acked_up_to(rb, 0x7FFFF0);
	analyse(1.0);
	assert_int_equal(fx.an.flows[0].reverse, 3);
	assert_int_equal(fx.an.flows[1].reverse, 3);
	assert_int_equal(fx.an.flows[2].reverse, 5);
	assert_int_equal(fx.an.flows[3].reverse, 0);
	assert_int_equal(fx.an.flows[4].reverse, 0);
	assert_int_equal(fx.an.flows[5].reverse, 2);
}

/* A VXLAN flow between inner hosts: its inner source port, and the VTEP's outer one. */
static struct flow_record *vxlan_of(struct flow_record *r, const char *in_src, const char *in_dst,
				    __u16 in_sport, __u16 outer_sport)
{
	r->key.flags |= FP_FLOW_VXLAN;
	r->key.vni = 5001;
	r->key.dport = 4789;
	inet_pton(AF_INET, in_src, r->key.inner_src);
	inet_pton(AF_INET, in_dst, r->key.inner_dst);
	r->key.inner_sport = in_sport;
	r->key.inner_dport = 4791;
	r->key.sport = outer_sport;
	return r;
}

/*
 * In VXLAN the NIC's symmetric source port is the inner one; the outer one
 * is each VTEP's hash, different both ways. Two QPs between the VTEPs, so
 * the hosts alone cannot pair them: the inner port must.
 */
static void test_vxlan_reverse_by_inner_port(void **state)
{
	struct flow_record *d, *e;
	const struct alert *al;

	(void)state;
	d = vxlan_of(add_flow("10.20.0.1", "10.20.0.2", 0, 1, UP1, 100000), "192.168.0.1",
		     "192.168.0.2", 52001, 40001);
	d->c.ecn[3] = 10;
	e = vxlan_of(add_flow("10.20.0.1", "10.20.0.2", 0, 3, UP1, 100000), "192.168.0.1",
		     "192.168.0.2", 52003, 40003);
	vxlan_of(add_reverse(d, 5, 0), "192.168.0.2", "192.168.0.1", 52001, 45001);
	vxlan_of(add_reverse(e, 5, 1), "192.168.0.2", "192.168.0.1", 52003, 45003);
	analyse(1.0);
	assert_int_equal(fx.an.flows[0].reverse, 2);
	assert_int_equal(fx.an.flows[1].reverse, 3);
	al = find_alert(ALERT_CE_WITHOUT_CNP);
	assert_non_null(al);
	assert_int_equal(al->flows[0].sport, 40001);
}

static void test_cnp_without_ce(void **state)
{
	(void)state;
	add_reverse(add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000), 5, 3);
	analyse(1.0);
	assert_non_null(find_alert(ALERT_CNP_WITHOUT_CE));
}

static void test_not_ect(void **state)
{
	struct flow_record *d, *rev;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	rev = add_reverse(d, 5, 0);
	rev->c.ecn[0] = rev->c.packets; /* ACKs Not-ECT: allowed */
	analyse(1.0);
	assert_null(find_alert(ALERT_NOT_ECT_ROCE));
	d->c.ecn[0] = 1;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_NOT_ECT_ROCE));
	/* One flow is "it", not "them". */
	assert_non_null(
	    strstr(find_alert(ALERT_NOT_ECT_ROCE)->message,
		   "1 RoCE data flow is sent Not-ECT: switches cannot mark it and DCQCN "
		   "cannot slow it down"));
}

/* One alert for the group: the count of all, the evidence of the largest flow. */
static void test_grouped_alert(void **state)
{
	const struct alert *al;

	(void)state;
	/* Flows arrive sorted by bytes, as snapshot_sort_by_bytes leaves them. */
	add_flow("10.0.0.1", "10.0.1.1", 50001, 1, UP1, 300000)->c.ecn[0] = 1;
	add_flow("10.0.0.2", "10.0.1.2", 50002, 2, UP2, 200000)->c.ecn[0] = 1;
	add_flow("10.0.0.3", "10.0.1.3", 50003, 3, UP1, 100000)->c.ecn[0] = 1;
	analyse(1.0);
	al = find_alert(ALERT_NOT_ECT_ROCE);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 3);
	assert_non_null(strstr(al->message, "3 RoCE data flows"));
	assert_non_null(strstr(al->evidence, "10.0.0.1:50001"));
	assert_int_equal(al->path, -1); /* flows on both uplinks */
}

/*
 * Every grouped alert names its flows largest first and takes its
 * evidence from the largest; CE marks on ACKs (no data) ask for no CNPs.
 */
static void test_grouped_alerts_first_flow(void **state)
{
	struct flow_record *d, *rev;
	const struct alert *al;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50001, 1, UP1, 300000);
	d->c.dscp_mask |= 1ULL << 8 | 1ULL << 40; /* the lowest outside the plan is named */
	d->c.retransmits = 4;
	rev = add_reverse(d, 5, 0);
	rev->c.naks = 2;
	rev->c.ecn[3] = 3; /* CE on the ACKs: no CNP is owed for them */
	d = add_flow("10.0.0.2", "10.0.1.2", 50002, 2, UP2, 200000);
	d->c.dscp_mask |= 1ULL << 0;
	d->c.retransmits = 1;
	analyse(1.0);
	al = find_alert(ALERT_WRONG_TRAFFIC_CLASS);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 2);
	assert_int_equal(al->flows[0].sport, 50001);
	assert_int_equal(al->flows[1].sport, 50002);
	assert_non_null(strstr(al->evidence, "DSCP 8"));
	al = find_alert(ALERT_RETRANSMITS);
	assert_non_null(al);
	assert_int_equal(al->n_flows, 2);
	assert_int_equal(al->flows[1].sport, 50002);
	assert_non_null(strstr(al->evidence, "4 packets resent after 2 NAKs"));
	assert_null(find_alert(ALERT_CE_WITHOUT_CNP));

	/* A second later, 4 more resent with no NAK between (READ responses sent again). */
	fx.snap.taken_ns += 1000000000ULL;
	fx.flows[0].c.retransmits += 4;
	fx.flows[0].c.packets += 4;
	fx.flows[0].c.ecn[2] += 4;
	fx.flows[0].c.bytes += 4000;
	analyse(0);
	al = find_alert(ALERT_RETRANSMITS);
	assert_non_null(al);
	assert_non_null(strstr(al->evidence, "4 packets resent in "));
	assert_null(strstr(al->evidence, "NAK"));
}

static void test_retransmits_gaps_rnr(void **state)
{
	struct flow_record *d, *rev;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	rev = add_reverse(d, 5, 0);
	analyse(2.0);
	assert_null(find_alert(ALERT_RETRANSMITS));
	assert_null(find_alert(ALERT_PSN_GAPS));
	d->c.retransmits = 3;
	d->c.psn_gaps = 1;
	rev->c.naks = 1;
	rev->c.rnr_naks = 19; /* 9.5/s over 2 s: below the 10/s storm level */
	analyse(2.0);
	assert_non_null(find_alert(ALERT_RETRANSMITS));
	assert_non_null(find_alert(ALERT_PSN_GAPS));
	assert_null(find_alert(ALERT_RNR_NAKS));
	rev->c.rnr_naks = 20; /* exactly 10/s, measured afresh over 2 s */
	analysis_free(&fx.an);
	analyse(2.0);
	assert_non_null(find_alert(ALERT_RNR_NAKS));
}

static void test_traffic_class(void **state)
{
	struct flow_record *d;
	const struct alert *al;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	add_reverse(d, 5, 2); /* ACKs in 26, CNPs in 48: the plan */
	analyse(1.0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	d->c.dscp_mask |= 1ULL << 0; /* some data in the lossy default class */
	analysis_free(&fx.an);
	analyse(1.0);
	al = find_alert(ALERT_WRONG_TRAFFIC_CLASS);
	assert_non_null(al);
	assert_non_null(strstr(al->evidence, "DSCP 0"));
	/* The plan is configuration: with data in DSCP 0 allowed it is fine again. */
	d->c.dscp_mask = 1ULL << 0;
	d->c.dscp = 0;
	fx.ao.data_dscp = 0;
	fx.flows[1].c.dscp_mask = 1ULL << 0;
	fx.flows[1].c.dscp = 0;
	analysis_free(&fx.an);
	analyse(1.0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/*
	 * CNPs in the data class, on the flow that carries the ACKs (the RC
	 * case): the CNPs' DSCPs are kept apart, so it shows.
	 */
	fx.flows[1].cnp_dscp_mask = 1ULL << 0;
	analysis_free(&fx.an);
	analyse(1.0);
	al = find_alert(ALERT_WRONG_TRAFFIC_CLASS);
	assert_non_null(al);
	assert_non_null(strstr(al->evidence, "CNPs in DSCP 0"));
	/* And ACKs in the CNP class: as wrong. */
	fx.flows[1].cnp_dscp_mask = 1ULL << 48;
	fx.flows[1].c.dscp_mask = 1ULL << 48;
	analysis_free(&fx.an);
	analyse(1.0);
	assert_non_null(strstr(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->evidence, "DSCP 48"));
}

/*
 * Over an interval a flow is judged by its last packet's DSCP, and only if
 * it sent: a class put right clears the alert, and so does silence.
 */
static void test_traffic_class_interval(void **state)
{
	struct flow_record *d;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.dscp_mask |= 1ULL << 0;
	d->c.dscp = 0; /* sending in the lossy class */
	analyse(1.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	assert_non_null(strstr(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->message,
			       "1 RoCE flow outside the lossless plan"));
	assert_non_null(strstr(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->message, "protect it"));
	fx.snap.taken_ns += 1000000000ULL;
	d->c.packets += 10;
	analyse(0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/* Silent for a second: nothing to judge. */
	fx.snap.taken_ns += 1000000000ULL;
	analyse(0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/* Sending again, in DSCP 26 now: the mask still holds 0, the class is right. */
	fx.snap.taken_ns += 1000000000ULL;
	d->c.packets += 10;
	d->c.dscp = 26;
	analyse(0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/* The whole run still tells of it. */
	analysis_free(&fx.an);
	analyse(3.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
}

static void test_pcp_audit(void **state)
{
	struct flow_record *d;

	(void)state;
	fx.ao.data_pcp = 3;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.vlan_tagged = 1;
	d->c.pcp = 3;
	analyse(1.0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	d->c.pcp = 0;
	analysis_free(&fx.an);
	analyse(1.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
}

/*
 * READ requests A->B, ECT(0), and in the same flow the CNPs A sends for
 * B's CE-marked responses (they go to B's QP, as the requests do): the
 * CNPs are Not-ECT by design, the data is not, so no not_ect_roce.
 */
static void test_not_ect_counts_data_only(void **state)
{
	struct flow_record *d;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.cnp = 4;
	d->c.ecn[0] = 4; /* the CNPs */
	d->c.packets += 4;
	d->c.opcodes[FP_OPCODE_CNP >> 6] |= 1ULL << (FP_OPCODE_CNP & 63);
	d->c.dscp_mask |= 1ULL << 48;
	analyse(1.0);
	assert_null(find_alert(ALERT_NOT_ECT_ROCE));
	/* One data packet Not-ECT beyond the CNPs is one. */
	analysis_free(&fx.an);
	d->c.ecn[0] = 5;
	d->c.packets += 1;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_NOT_ECT_ROCE));
	assert_non_null(strstr(find_alert(ALERT_NOT_ECT_ROCE)->evidence, ": 1 data of "));
}

/* Atomic ACKs answer data: in the lossless class as ACKs are. */
static void test_traffic_class_atomic_acks(void **state)
{
	struct flow_record *rev;

	(void)state;
	rev = add_reverse(add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000), 0, 0);
	rev->c.opcodes[0] = 1ULL << FP_OP_ATOMIC_ACK;
	rev->c.packets = 5;
	rev->c.dscp_mask = 1ULL << 0;
	rev->c.dscp = 0;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	assert_int_equal(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->flows[0].dest_qp, 101);
}

/* --cnp-pcp is checked on CNPs; a flow with ACKs and CNPs only when both PCPs are given. */
static void test_pcp_audit_cnps(void **state)
{
	struct flow_record *d, *rev;

	(void)state;
	fx.ao.cnp_pcp = 6;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	rev = add_reverse(d, 0, 3);
	rev->c.vlan_tagged = 1;
	rev->c.pcp = 0;
	rev->c.dscp = 48;
	rev->c.opcodes[0] = 0;
	rev->c.last_opcode = FP_OPCODE_CNP;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	assert_non_null(
	    strstr(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->evidence, "a CNP in PCP 0, expected 6"));
	analysis_free(&fx.an);
	rev->c.pcp = 6;
	analyse(1.0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/* ACKs too, the last packet one, and no --data-pcp: not judged. */
	analysis_free(&fx.an);
	rev->c.acks = 5;
	rev->c.opcodes[0] = 1ULL << FP_OP_ACK;
	rev->c.dscp_mask = 1ULL << 26;
	rev->c.last_opcode = FP_OP_ACK;
	rev->c.pcp = 3;
	analyse(1.0);
	assert_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	/*
	 * A data flow that carries CNPs too (both directions of RC) is still
	 * judged by --data-pcp when its last packet was data; and data in the
	 * CNP priority is wrong, though a CNP there would not be.
	 */
	analysis_free(&fx.an);
	fx.ao.data_pcp = 3;
	d->c.cnp = 2;
	d->c.vlan_tagged = 1;
	d->c.pcp = 0;
	d->c.last_opcode = FP_OP_WRITE_MIDDLE;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	analysis_free(&fx.an);
	d->c.pcp = 6;
	analyse(1.0);
	assert_non_null(
	    strstr(find_alert(ALERT_WRONG_TRAFFIC_CLASS)->evidence, "data in PCP 6, expected 3"));
}

/* Ten elephants on one uplink are ten, though the alert names eight. */
static void test_collision_counts_every_elephant(void **state)
{
	const struct alert *al;
	char src[16];

	(void)state;
	for (int i = 0; i < 10; i++) {
		snprintf(src, sizeof(src), "10.0.0.%d", i + 1);
		add_flow(src, "10.0.1.1", 50000 + i, i + 1, UP1, 500000);
	}
	add_flow("10.0.0.99", "10.0.1.2", 50100, 99, UP2, 1000);
	analyse(1.0);
	al = find_alert(ALERT_ELEPHANT_COLLISION);
	assert_non_null(al);
	assert_int_equal(al->n_flows, AN_ALERT_FLOWS);
	assert_non_null(strstr(al->message, "10 elephant flows share uplink up1"));
}

/* Live, the table's pressure is the interval's: no eviction since, no alert. */
static void test_table_pressure_clears(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	fx.snap.totals[FP_CNT_FLOW_NEW] = 2; /* one flow evicted */
	analyse(1.0);
	assert_non_null(find_alert(ALERT_FLOW_TABLE_PRESSURE));
	fx.snap.taken_ns += 1000000000ULL;
	analyse(0);
	assert_null(find_alert(ALERT_FLOW_TABLE_PRESSURE));
}

/* Over an interval a queue pair that sent nothing in it shares no port. */
static void test_low_entropy_interval(void **state)
{
	struct flow_record *b;

	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	b = add_flow("10.0.0.1", "10.0.1.1", 50000, 2, UP1, 100000);
	analyse(1.0);
	assert_non_null(find_alert(ALERT_LOW_ENTROPY));
	fx.snap.taken_ns += 1000000000ULL;
	b->c.packets += 10;
	b->c.bytes += 10000;
	analyse(0);
	assert_null(find_alert(ALERT_LOW_ENTROPY));
}

/* One RNR NAK in a capture of a few ms is no storm: the rate is over a second at least. */
static void test_rnr_storm_needs_a_second(void **state)
{
	struct flow_record *rev;

	(void)state;
	rev = add_reverse(add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000), 5, 0);
	rev->c.rnr_naks = 1;
	analyse(0.0034);
	assert_null(find_alert(ALERT_RNR_NAKS));
	analysis_free(&fx.an);
	rev->c.rnr_naks = 10;
	analyse(0.0034);
	assert_non_null(find_alert(ALERT_RNR_NAKS));
}

/* Rates over no less than 1 ms (json.md): three frames 7 ns apart are not 200 Gb/s. */
static void test_interval_at_least_1ms(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 366);
	analyse(7e-9);
	assert_true(fx.an.interval_s >= 1e-3);
	assert_true(fx.an.flows[0].bps <= 366 * 8 / 1e-3 + 1);
}

static void test_low_entropy(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 2, UP1, 1000);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 3, UP1, 1000);
	add_flow("10.0.0.1", "10.0.1.2", 50001, 4, UP1, 1000);
	add_flow("10.0.0.1", "10.0.1.2", 50002, 5, UP1, 1000);
	analyse(1.0);
	assert_non_null(find_alert(ALERT_LOW_ENTROPY));
	assert_int_equal(fx.an.n_entropy, 2);
	assert_int_equal(fx.an.entropy[0].qps, 3);
	assert_int_equal(fx.an.entropy[0].sports, 1);
	assert_int_equal(fx.an.entropy[1].qps, 2);
	assert_int_equal(fx.an.entropy[1].sports, 2);
	assert_int_equal(find_alert(ALERT_LOW_ENTROPY)->n_flows, 1);
	/* Counted in words, one or several. */
	assert_non_null(
	    strstr(find_alert(ALERT_LOW_ENTROPY)->evidence, ": 3 queue pairs over 1 source port"));
	assert_non_null(strstr(find_alert(ALERT_LOW_ENTROPY)->message, "between 1 host pair:"));
}

/*
 * An IPv4 flow keeps its addresses in the first 4 bytes of the 16, the
 * rest zero, so IPv6 a00:1:: is 10.0.0.1's 16 bytes: the address family
 * is part of a host pair. One QP between two IPv4 hosts and one between
 * two IPv6 hosts, on one source port, are two host pairs of one QP each.
 */
static void test_low_entropy_apart_by_family(void **state)
{
	struct flow_record *v6;

	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	v6 = add_flow("10.0.0.1", "10.0.1.1", 50000, 2, UP1, 1000);
	assert_int_equal(inet_pton(AF_INET6, "a00:1::", v6->key.src), 1);
	assert_int_equal(inet_pton(AF_INET6, "a00:101::", v6->key.dst), 1);
	v6->key.flags |= FP_FLOW_IPV6;
	analyse(1.0);
	assert_null(find_alert(ALERT_LOW_ENTROPY));
	assert_int_equal(fx.an.n_entropy, 2);
	assert_int_equal(fx.an.entropy[0].qps, 1);
	assert_int_equal(fx.an.entropy[1].qps, 1);
}

/*
 * A queue pair is one however many points see it (two mirror sessions, a
 * router's ingress and egress): two points of one QP are no low entropy,
 * and QPs that do share a port are each counted once.
 */
static void test_low_entropy_counts_queue_pairs(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 3000);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP2, 2900);
	analyse(1.0);
	assert_null(find_alert(ALERT_LOW_ENTROPY));
	assert_int_equal(fx.an.entropy[0].qps, 1);
	/* Two QPs on one port, each at both points, the same QP's flows apart in byte order. */
	add_flow("10.0.0.1", "10.0.1.1", 50000, 2, UP1, 2950);
	add_flow("10.0.0.1", "10.0.1.1", 50000, 2, UP2, 2800);
	fx.flows[0].key.dir = 1; /* and one of them seen again, in the other direction */
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 2700);
	analysis_free(&fx.an);
	analyse(1.0);
	assert_non_null(find_alert(ALERT_LOW_ENTROPY));
	assert_int_equal(fx.an.entropy[0].qps, 2);
	assert_int_equal(fx.an.entropy[0].sports, 1);
	assert_non_null(
	    strstr(find_alert(ALERT_LOW_ENTROPY)->evidence, ": 2 queue pairs over 1 source port"));
}

/*
 * A capture's series keeps each path's column by name: the analysis orders
 * its paths anew each refresh (mirror sessions by bytes), and a sample's
 * figures must stay with the path they were measured on.
 */
static void test_series_columns_by_name(void **state)
{
	struct analysis a = {.interval_s = 1.0};
	struct series s = {};

	(void)state;
	a.n_paths = 1;
	snprintf(a.paths[0].name, FP_NAME_LEN, "erspan:1");
	a.paths[0].bps = 100;
	assert_int_equal(series_add(&s, &a, 1.0), 0);
	/* The second session sends more: it comes first now. */
	a.n_paths = 2;
	snprintf(a.paths[0].name, FP_NAME_LEN, "erspan:2");
	a.paths[0].bps = 900;
	snprintf(a.paths[1].name, FP_NAME_LEN, "erspan:1");
	a.paths[1].bps = 50;
	assert_int_equal(series_add(&s, &a, 2.0), 0);
	assert_int_equal(s.n_paths, 2);
	assert_string_equal(s.path_names[0], "erspan:1");
	assert_string_equal(s.path_names[1], "erspan:2");
	assert_int_equal(s.samples[0].n_paths, 1);
	assert_true(s.samples[0].path_bps[0] == 100);
	assert_true(s.samples[1].path_bps[0] == 50);
	assert_true(s.samples[1].path_bps[1] == 900);
	/* Two paths of one name (two sessions named alike): one column, their sum. */
	snprintf(a.paths[0].name, FP_NAME_LEN, "erspan:1");
	assert_int_equal(series_add(&s, &a, 3.0), 0);
	assert_int_equal(s.n_paths, 2);
	assert_true(s.samples[2].path_bps[0] == 950);
	assert_true(s.samples[2].path_bps[1] == 0);
	series_free(&s);
}

/* sFlow sees no retransmit: the series' rate is null, not a reassuring 0.0. */
static void test_series_sampled_rtx_null(void **state)
{
	struct analysis a = {.interval_s = 1.0};
	struct series s = {};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct json j;

	(void)state;
	assert_non_null(out);
	s.sampled = true;
	assert_int_equal(series_add(&s, &a, 1.0), 0);
	json_init(&j, out);
	json_obj_begin(&j);
	series_json(&j, &s);
	json_obj_end(&j);
	json_flush(&j);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "\"retransmits_per_s\":null"));
	assert_non_null(strstr(text, "\"cnp_per_s\":0.0"));
	free(text);
	series_free(&s);
}

static void test_imbalance_boundary(void **state)
{
	struct flow_record *a;

	(void)state;
	fx.ao.elephant_bps = 1e12;
	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 3000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP2, 1000);
	analyse(1.0); /* max/mean = 3000/2000 = 1.5: at the ratio, not above */
	assert_true(fx.an.imbalance_bytes > 1.4999 && fx.an.imbalance_bytes < 1.5001);
	assert_null(find_alert(ALERT_PATH_IMBALANCE));
	a->c.bytes = 3100;
	analyse(1.0);
	assert_non_null(find_alert(ALERT_PATH_IMBALANCE));
	assert_int_equal(find_alert(ALERT_PATH_IMBALANCE)->path, 0);
	/* Uplinks are one host's ECMP group: its hashing is what to compare. */
	assert_non_null(strstr(find_alert(ALERT_PATH_IMBALANCE)->message,
			       "uplink up1 carries 2.00x the group's mean load: the ECMP group is "
			       "out of balance")); /* the interval's: up1 +100 bytes, up2 none */
	assert_false(find_alert(ALERT_PATH_IMBALANCE)->mirror_sessions);
	assert_non_null(
	    strstr(alert_advice(find_alert(ALERT_PATH_IMBALANCE)), "Compare the uplinks' hashing"));
}

static void test_malformed_and_table_pressure(void **state)
{
	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	fx.snap.totals[FP_CNT_FLOW_NEW] = 1;
	analyse(1.0);
	assert_null(find_alert(ALERT_MALFORMED));
	assert_null(find_alert(ALERT_FLOW_TABLE_PRESSURE));
	fx.snap.totals[FP_CNT_MALFORMED] = 1;
	fx.snap.totals[FP_CNT_FLOW_NEW] = 2; /* one flow evicted */
	analyse(1.0);
	assert_non_null(find_alert(ALERT_MALFORMED));
	assert_non_null(strstr(find_alert(ALERT_MALFORMED)->message, "1 malformed frame on "));
	assert_non_null(find_alert(ALERT_FLOW_TABLE_PRESSURE));
}

static void test_alerts_worst_first(void **state)
{
	struct flow_record *d;

	(void)state;
	d = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 100000);
	d->c.ecn[3] = 1;
	d->c.retransmits = 1;
	add_reverse(d, 1, 0);
	analyse(1.0);
	assert_true(fx.an.n_alerts >= 2);
	for (size_t i = 1; i < fx.an.n_alerts; i++)
		assert_true(fx.an.alerts[i - 1].severity >= fx.an.alerts[i].severity);
}

/* Two named groups (up1, up2 | up3, up4) and a path in none. */
static void two_groups(void)
{
	fx.names[0].group[0] = 'a';
	fx.names[1].group[0] = 'a';
	fx.names[2] = (struct obs_point){.id = UP3, .name = "up3", .uplink = true, .group = "b"};
	fx.names[3] = (struct obs_point){.id = UP4, .name = "up4", .uplink = true, .group = "b"};
	fx.names[4] = (struct obs_point){.id = SOLO, .name = "solo", .uplink = true, .solo = true};
	fx.ro.n_points = 5;
}

static void test_groups_collide_within(void **state)
{
	(void)state;
	two_groups();
	/* b: two elephants on each uplink, no room inside b; a: up2 idle with room. */
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP3, 500000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP3, 500000);
	add_flow("10.0.0.3", "10.0.1.3", 50002, 3, UP4, 500000);
	add_flow("10.0.0.4", "10.0.1.4", 50003, 4, UP4, 500000);
	add_flow("10.0.0.5", "10.0.1.5", 50004, 5, UP1, 1000);
	/* The solo path has two elephants and nowhere to move them: no collision. */
	add_flow("10.0.0.6", "10.0.1.6", 50005, 6, SOLO, 500000);
	add_flow("10.0.0.7", "10.0.1.7", 50006, 7, SOLO, 500000);
	analyse(1.0);
	assert_int_equal(fx.an.n_groups, 2);
	assert_int_equal(fx.an.n_paths, 5);
	assert_int_equal(fx.an.paths[4].group, -1); /* the solo path comes last */
	assert_int_equal(fx.an.groups[0].n_paths, 2);
	assert_int_equal(fx.an.n_collisions, 0); /* b's elephants would fit on a's up2 */
	assert_null(find_alert(ALERT_ELEPHANT_COLLISION));
	/* Now up3 takes all four: up4 in the same group has room. */
	fx.flows[2].key.ifindex = UP3;
	fx.flows[3].key.ifindex = UP3;
	fx.flows[4].key.ifindex = UP4;
	analyse(1.0);
	assert_int_equal(fx.an.n_collisions, 1);
	assert_string_equal(fx.an.paths[fx.an.collisions[0].path].name, "up3");
	assert_string_equal(fx.an.paths[fx.an.collisions[0].idle_path].name, "up4");
	assert_non_null(strstr(find_alert(ALERT_ELEPHANT_COLLISION)->message, "(group b)"));
}

static void test_groups_balance_apart(void **state)
{
	const struct alert *al;

	(void)state;
	two_groups();
	fx.ao.elephant_bps = 1e12;
	/* a balanced at 1:1; b at 3:1; solo alone never balanced. */
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 2000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP2, 2000);
	add_flow("10.0.0.3", "10.0.1.3", 50002, 3, UP3, 3000);
	add_flow("10.0.0.4", "10.0.1.4", 50003, 4, UP4, 1000);
	add_flow("10.0.0.5", "10.0.1.5", 50004, 5, SOLO, 900000);
	analyse(1.0);
	assert_true(fx.an.groups[0].imbalance_bytes > 0.999 &&
		    fx.an.groups[0].imbalance_bytes < 1.001);
	assert_true(fx.an.groups[1].imbalance_bytes > 1.4999 &&
		    fx.an.groups[1].imbalance_bytes < 1.5001);
	assert_int_equal(fx.an.imbalance_group, 1);    /* the least balanced */
	assert_null(find_alert(ALERT_PATH_IMBALANCE)); /* 1.5 is the ratio, not above */
	fx.flows[2].c.bytes = 3100;
	analyse(1.0);
	al = find_alert(ALERT_PATH_IMBALANCE);
	assert_non_null(al);
	assert_string_equal(al->subject, "up3");
	assert_non_null(strstr(al->message, "group b"));
}

/* A mirror copy of flow i's packets: ERSPAN II session id from switch sw. */
static struct flow_record *add_mirror(__u16 sport, __u32 id, const char *sw)
{
	struct flow_record *r = add_flow("10.0.0.1", "10.0.1.1", sport, sport, 0, 1000);

	r->key.mirror = FP_MIRROR_ERSPAN_II;
	r->key.mirror_id = id;
	inet_pton(AF_INET, sw, &r->key.mirror_src);
	return r;
}

/*
 * ERSPAN II and III share the name erspan:N: a type II session 5 of one
 * switch and a type III session 5 of another are two paths, each named
 * with its switch (both were "erspan:5": one name, two paths).
 */
static void test_mirror_types_one_number_two_names(void **state)
{
	(void)state;
	add_mirror(50001, 5, "10.9.0.1");
	add_mirror(50002, 5, "10.9.0.2")->key.mirror = FP_MIRROR_ERSPAN_III;
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 4);
	assert_string_equal(fx.an.paths[2].name, "erspan:5@10.9.0.1");
	assert_string_equal(fx.an.paths[3].name, "erspan:5@10.9.0.2");
}

/*
 * A type II and a type III session 5 of one switch (and a keyed type I
 * and a GRE TEB copy with one key) have one name: they are one path, as
 * a name is one path's. They were two paths both named erspan:5, two
 * Prometheus series with one label set.
 */
static void test_mirror_types_one_switch_one_path(void **state)
{
	(void)state;
	add_mirror(50001, 5, "10.9.0.1");
	add_mirror(50002, 5, "10.9.0.1")->key.mirror = FP_MIRROR_ERSPAN_III;
	add_mirror(50003, 7, "10.9.0.1")->key.mirror = FP_MIRROR_ERSPAN_I;
	fx.flows[2].key.flags |= FP_FLOW_MIRROR_KEY;
	add_mirror(50004, 7, "10.9.0.1")->key.mirror = FP_MIRROR_GRE_TEB;
	fx.flows[3].key.flags |= FP_FLOW_MIRROR_KEY;
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 4);
	assert_string_equal(fx.an.paths[2].name, "erspan:5");
	assert_string_equal(fx.an.paths[3].name, "gre:7");
	assert_int_equal(fx.an.paths[2].flows, 2);
	assert_int_equal(fx.an.paths[3].flows, 2);
	assert_int_equal(fx.an.flows[0].path, fx.an.flows[1].path);
	assert_int_equal(fx.an.flows[2].path, fx.an.flows[3].path);
}

/*
 * Each mirror session is a path after the uplinks, in the order of its
 * largest flow, named by --mirror-session or type and number; two switches
 * with one number name both sessions with their switch, the first one
 * too once the second is seen.
 */
static void test_mirror_sessions_are_paths(void **state)
{
	(void)state;
	assert_int_equal(mirror_names_add(&fx.ao.mirror_names, "9=leaf1:eth49"), 0);
	add_flow("10.0.0.9", "10.0.1.9", 50000, 1, UP1, 5000);
	add_mirror(50001, 7, "10.9.0.1");
	add_mirror(50002, 9, "10.9.0.1");
	add_mirror(50003, 7, "10.9.0.2");
	add_mirror(50004, 7, "10.9.0.1");
	add_mirror(50005, 11, "10.9.0.3");
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 6);
	assert_string_equal(fx.an.paths[0].name, "up1");
	assert_string_equal(fx.an.paths[1].name, "up2");
	assert_string_equal(fx.an.paths[2].name, "erspan:7@10.9.0.1");
	assert_string_equal(fx.an.paths[3].name, "leaf1:eth49");
	assert_string_equal(fx.an.paths[4].name, "erspan:7@10.9.0.2");
	assert_string_equal(fx.an.paths[5].name, "erspan:11");
	assert_int_equal(fx.an.paths[2].rep, 1);
	assert_int_equal(fx.an.paths[4].rep, 3);
	for (int p = 3; p < 6; p++)
		assert_int_equal(fx.an.paths[p].group, fx.an.paths[2].group);
	{
		static const int path_of_flow[] = {0, 2, 3, 4, 2, 5};

		for (int i = 0; i < 6; i++) {
			assert_int_equal(fx.an.flows[i].path, path_of_flow[i]);
			assert_int_equal(fx.an.paths[fx.an.flows[i].path].ifindex,
					 flow_point_id(&fx.flows[i].key));
		}
	}
	assert_int_equal(fx.an.paths[2].flows, 2);
}

/*
 * A name is one path's. A session's name that a name given for another
 * path already has takes its switch: an automatic one equal to an
 * uplink's (a --path NAME) or to another session's --mirror-session NAME,
 * and a --mirror-session NAME equal to an uplink's where the command did
 * not refuse it.
 */
static void test_mirror_session_names_are_distinct(void **state)
{
	(void)state;
	snprintf(fx.names[1].name, sizeof(fx.names[1].name), "erspan:7");
	assert_int_equal(mirror_names_add(&fx.ao.mirror_names, "9=erspan:11,12=up1"), 0);
	add_mirror(50001, 7, "10.9.0.1")->c.bytes = 5000;
	add_mirror(50002, 9, "10.9.0.1")->c.bytes = 4000;
	add_mirror(50003, 11, "10.9.0.3")->c.bytes = 3000;
	add_mirror(50004, 12, "10.9.0.2")->c.bytes = 2000;
	add_mirror(50005, 13, "10.9.0.2")->c.bytes = 1000;
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 7);
	assert_string_equal(fx.an.paths[0].name, "up1");
	assert_string_equal(fx.an.paths[1].name, "erspan:7");
	assert_string_equal(fx.an.paths[2].name, "erspan:7@10.9.0.1");
	assert_string_equal(fx.an.paths[3].name, "erspan:11");
	assert_string_equal(fx.an.paths[4].name, "erspan:11@10.9.0.3");
	assert_string_equal(fx.an.paths[5].name, "up1@10.9.0.2");
	assert_string_equal(fx.an.paths[6].name, "erspan:13");
}

/*
 * A capture (--path) that holds only mirror copies is the collector's
 * link: its flows are on the session's path, and it is no idle uplink of
 * the group, neither in the balance nor as room for a collision. A path
 * with no flows and no copies stays an idle uplink.
 */
static void test_collector_link_leaves_the_group(void **state)
{
	int g;

	(void)state;
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 500000);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP1, 500000);
	add_mirror(50002, 7, "10.9.0.1")->key.ifindex = UP2;
	fx.flows[2].c.bytes = 400000;
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 3);
	assert_string_equal(fx.an.paths[1].name, "up2");
	assert_int_equal(fx.an.paths[1].flows, 0);
	assert_int_equal(fx.an.paths[1].group, -1);
	g = fx.an.paths[0].group;
	assert_true(g >= 0);
	assert_int_equal(fx.an.paths[2].group, g);
	assert_int_equal(fx.an.groups[g].n_paths, 2);
	/* up1 8 Mb/s, erspan:7 3.2: the mean is theirs, not a third of it. */
	assert_true(fx.an.groups[g].imbalance_bytes > 1.42 &&
		    fx.an.groups[g].imbalance_bytes < 1.43);
	/* erspan:7 has one elephant, so no room for one of up1's; up2 is no room either. */
	assert_int_equal(fx.an.n_collisions, 0);

	/* Without the copies up2 is an idle uplink, with room for one of up1's. */
	fx.snap.n_flows = 2;
	analysis_free(&fx.an);
	analyse(1.0);
	assert_int_equal(fx.an.paths[1].group, fx.an.paths[0].group);
	assert_int_equal(fx.an.n_collisions, 1);
	assert_int_equal(fx.an.collisions[0].idle_path, 1);
}

/* An ERSPAN III copy of QP qp's packets in session id, taken at ingress or egress. */
static struct flow_record *add_mirror3(__u32 qp, __u32 id, bool ingress, __u64 bytes)
{
	char src[16];
	struct flow_record *r;

	snprintf(src, sizeof(src), "10.0.0.%u", qp);
	r = add_flow(src, "10.0.1.1", 50000 + qp, qp, 0, bytes);
	r->key.mirror = FP_MIRROR_ERSPAN_III;
	r->key.mirror_id = id;
	inet_pton(AF_INET, "10.9.0.1", &r->key.mirror_src);
	r->key.flags |= ingress ? FP_FLOW_MIRROR_INGRESS : FP_FLOW_MIRROR_EGRESS;
	return r;
}

/*
 * One ERSPAN III session copies a queue pair at ingress and at egress:
 * two flows (the direction is in the key) on one path, and one queue pair
 * that never collides with itself. Two QPs so copied do collide, counted
 * and named each once. The path's own counts are its copies.
 */
static void test_mirror_copies_at_two_points_collide_once(void **state)
{
	const struct alert *al;

	(void)state;
	add_mirror3(1, 5, true, 500000);
	add_mirror3(1, 5, false, 499000);
	add_mirror3(2, 6, true, 1000); /* a mouse in the other session */
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 4);
	assert_string_equal(fx.an.paths[2].name, "erspan:5");
	assert_int_equal(fx.an.paths[2].flows, 2);
	assert_int_equal(fx.an.paths[2].elephants, 2);
	assert_int_equal(fx.an.n_collisions, 0);
	assert_null(find_alert(ALERT_ELEPHANT_COLLISION));

	add_mirror3(3, 5, true, 480000);
	add_mirror3(3, 5, false, 490000);
	analysis_free(&fx.an);
	analyse(1.0);
	assert_int_equal(fx.an.paths[2].elephants, 4);
	assert_int_equal(fx.an.n_collisions, 1);
	assert_int_equal(fx.an.collisions[0].count, 2);
	assert_non_null(find_alert(ALERT_ELEPHANT_COLLISION));
	assert_non_null(strstr(find_alert(ALERT_ELEPHANT_COLLISION)->message,
			       "2 elephant flows share mirror session erspan:5 while "));
	al = find_alert(ALERT_ELEPHANT_COLLISION);
	/* Each QP once, by its larger copy: QP 1 at ingress, QP 3 at egress. */
	assert_int_equal(al->n_flows, 2);
	assert_int_equal(al->flows[0].dest_qp, 1);
	assert_true(al->flows[0].flags & FP_FLOW_MIRROR_INGRESS);
	assert_int_equal(al->flows[1].dest_qp, 3);
	assert_true(al->flows[1].flags & FP_FLOW_MIRROR_EGRESS);
}

/*
 * Mirror sessions are one balance group by design, but they are mirrored
 * switch ports (here of two switches), not one host's ECMP uplinks: the
 * alerts and what to check next say so, and never call them uplinks.
 */
static void test_mirror_sessions_are_no_uplinks(void **state)
{
	const struct alert *al;

	(void)state;
	fx.ro.n_points = 0; /* a replay of copies: the sessions are the only paths */
	fx.ao.elephant_bps = 1e12;
	add_mirror(50001, 5, "10.9.0.1")->c.bytes = 3100;
	add_mirror(50002, 6, "10.9.0.2");
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 2);
	al = find_alert(ALERT_PATH_IMBALANCE);
	assert_non_null(al);
	assert_string_equal(al->subject, "erspan:5");
	assert_string_equal(
	    al->message, "mirror session erspan:5 carries 1.51x the sessions' mean: the mirrored "
			 "ports' loads differ (if they are one ECMP group's members, its hashing "
			 "is uneven)");
	assert_string_equal(al->evidence,
			    "erspan:5 at 24.8 kb/s, sessions' mean 16.4 kb/s over the whole "
			    "1.0 s; flows max/mean 1.00");
	assert_true(al->mirror_sessions);
	assert_null(strstr(alert_advice(al), "uplinks' hashing"));
	assert_non_null(strstr(alert_advice(al), "Find which switch ports the sessions mirror"));

	/* Two elephants on erspan:5, none on erspan:6. */
	analysis_free(&fx.an);
	fx.ao.elephant_bps = 1e6;
	fx.snap.n_flows = 0;
	add_mirror(50001, 5, "10.9.0.1")->c.bytes = 500000;
	add_mirror(50003, 5, "10.9.0.1")->c.bytes = 400000;
	add_mirror(50002, 6, "10.9.0.2");
	analyse(1.0);
	al = find_alert(ALERT_ELEPHANT_COLLISION);
	assert_non_null(al);
	assert_string_equal(al->message,
			    "2 elephant flows share mirror session erspan:5 while mirror session "
			    "erspan:6 has room: the mirrored ports' loads differ (if they are one "
			    "ECMP group's members, ECMP put them on one path)");
	assert_true(al->mirror_sessions);
	assert_null(strstr(alert_advice(al), "Change the colliding"));
	assert_non_null(strstr(alert_advice(al), "if they are one ECMP group's members"));
}

/*
 * ERSPAN II's Index (the port a copy was taken at) separates flows, not
 * sessions: a session's copies at two ports are two flows on one path,
 * named by the session alone (--mirror-session matches it, or erspan:ID).
 */
static void test_mirror_index_one_path(void **state)
{
	(void)state;
	assert_int_equal(mirror_names_add(&fx.ao.mirror_names, "9=leaf1:eth49"), 0);
	add_mirror(50001, 7 | 3U << FP_MIRROR_INDEX_SHIFT, "10.9.0.1");
	add_mirror(50001, 7 | 0xFFFFFU << FP_MIRROR_INDEX_SHIFT, "10.9.0.1");
	add_mirror(50002, 9 | 5U << FP_MIRROR_INDEX_SHIFT, "10.9.0.1");
	add_mirror(50002, 9 | 6U << FP_MIRROR_INDEX_SHIFT, "10.9.0.1");
	assert_int_equal(flow_point_id(&fx.flows[0].key), flow_point_id(&fx.flows[1].key));
	assert_int_equal(flow_point_id(&fx.flows[2].key), flow_point_id(&fx.flows[3].key));
	analyse(1.0);
	assert_int_equal(fx.an.n_paths, 4);
	assert_string_equal(fx.an.paths[2].name, "erspan:7");
	assert_string_equal(fx.an.paths[3].name, "leaf1:eth49");
	assert_int_equal(fx.an.flows[0].path, 2);
	assert_int_equal(fx.an.flows[1].path, 2);
	assert_int_equal(fx.an.flows[2].path, 3);
	assert_int_equal(fx.an.flows[3].path, 3);
	assert_int_equal(fx.an.paths[2].flows, 2);
	assert_int_equal(fx.an.paths[3].flows, 2);
}

/*
 * The joins' members and the index of the last refresh hold while the
 * same flows sit at the same rids (their places, for records without
 * rids); a refresh reuses them then and only then, and counts the joins
 * again in its own order. Each refresh's answers are checked against a
 * fresh analysis of the same snapshot.
 */
static void expect_as_fresh(void)
{
	struct analysis fresh = {};

	assert_int_equal(analysis_update(&fresh, &fx.snap, &fx.ro, &fx.ao, 1.0), 0);
	assert_int_equal(fresh.n_flows, fx.an.n_flows);
	for (size_t i = 0; i < fresh.n_flows; i++) {
		assert_int_equal(fx.an.flows[i].reverse, fresh.flows[i].reverse);
		assert_int_equal(fx.an.flows[i].is_data, fresh.flows[i].is_data);
		assert_int_equal(analysis_find(&fx.an, &fx.snap.flows[i].key), i);
	}
	assert_int_equal(fx.an.n_entropy, fresh.n_entropy);
	for (size_t i = 0; i < fresh.n_entropy; i++) {
		assert_int_equal(fx.an.entropy[i].flow, fresh.entropy[i].flow);
		assert_int_equal(fx.an.entropy[i].qps, fresh.entropy[i].qps);
		assert_int_equal(fx.an.entropy[i].sports, fresh.entropy[i].sports);
	}
	analysis_free(&fresh);
}

static void next_refresh(void)
{
	fx.snap.taken_ns += 1000000000ULL;
	for (size_t i = 0; i < fx.snap.n_flows; i++) {
		fx.flows[i].c.packets += 10;
		fx.flows[i].c.bytes += 10000;
	}
	analyse(0);
	expect_as_fresh();
}

/* Three flows between a's hosts and one elsewhere: a, its ACKs, c (ACKs for now), b. */
static struct flow_record *joins_fixture(void)
{
	struct flow_record *a, *c;

	a = add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 1000);
	add_reverse(a, 5, 0);
	add_flow("10.0.0.2", "10.0.1.2", 50001, 2, UP2, 1000);
	/* ACKs only, for now: the same hosts as a, another port. */
	c = add_reverse(a, 5, 0);
	memcpy(c->key.src, a->key.src, 16);
	memcpy(c->key.dst, a->key.dst, 16);
	c->key.sport = 50009;
	return c;
}

static void swap_flows(size_t i, size_t j)
{
	struct flow_record tmp = fx.flows[i];

	fx.flows[i] = fx.flows[j];
	fx.flows[j] = tmp;
}

static void test_refresh_reuses_joins_while_flows_stay(void **state)
{
	struct flow_record *c;

	(void)state;
	c = joins_fixture();
	analyse(1.0);
	expect_as_fresh();
	assert_false(fx.an.same_flows);
	assert_true(fx.an.by_pos);
	assert_int_equal(fx.an.flows[0].reverse, 1);

	next_refresh();
	assert_true(fx.an.same_flows);
	assert_int_equal(fx.an.flows[0].reverse, 1);
	assert_int_equal(fx.an.entropy[0].qps, 1);

	/* c starts carrying data: the members stand, the counts move. */
	c->c.opcodes[0] |= 1ULL << FP_OP_WRITE_ONLY;
	next_refresh();
	assert_true(fx.an.same_flows);
	assert_int_equal(fx.an.entropy[0].qps, 2);
	assert_int_equal(fx.an.entropy[0].sports, 2);

	/* Without rids a flow's place is its rid: another order is other flows. */
	swap_flows(0, 1);
	next_refresh();
	assert_false(fx.an.same_flows);
	assert_int_equal(fx.an.flows[1].reverse, 0);

	next_refresh();
	assert_true(fx.an.same_flows);

	/* A flow leaves the table. */
	fx.snap.n_flows--;
	next_refresh();
	assert_false(fx.an.same_flows);
}

/*
 * Records with rids, as collect reads them: a new order by bytes is the
 * same flows, and every answer follows the order; a rid repeated (or out
 * of range) makes the places serve instead.
 */
static void test_refresh_by_rid_survives_a_new_order(void **state)
{
	(void)state;
	joins_fixture();
	fx.snap.n_rids = 100;
	for (size_t i = 0; i < fx.snap.n_flows; i++)
		fx.flows[i].rid = 90 - 7 * i;
	analyse(1.0);
	expect_as_fresh();
	assert_false(fx.an.by_pos);
	assert_int_equal(fx.an.flows[0].reverse, 1);

	/* The table's flows by bytes in another order: a and its ACKs swap. */
	swap_flows(0, 1);
	next_refresh();
	assert_true(fx.an.same_flows);
	assert_int_equal(fx.an.flows[1].reverse, 0);
	assert_int_equal(fx.an.flows[0].reverse, 1);
	/* The rates are against each flow's own previous counters. */
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);

	/* b overtakes a: the entropy groups change places with them. */
	assert_int_equal(fx.an.entropy[0].flow, 1);
	swap_flows(1, 2);
	next_refresh();
	assert_true(fx.an.same_flows);
	assert_int_equal(fx.an.n_entropy, 2);
	assert_int_equal(fx.an.entropy[0].flow, 1); /* b */
	assert_int_equal(fx.an.entropy[1].flow, 2); /* a */

	/* A flow moves to another rid: found by key, but not the same flows. */
	fx.flows[2].rid = 99;
	next_refresh();
	assert_false(fx.an.same_flows);
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);
	next_refresh();
	assert_true(fx.an.same_flows);

	/* Two flows trade rids: each is found by its key, never by the other's rid. */
	{
		__u32 rid = fx.flows[0].rid;

		fx.flows[0].rid = fx.flows[1].rid;
		fx.flows[1].rid = rid;
	}
	next_refresh();
	assert_false(fx.an.same_flows);
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);

	/* Two records claim one rid: their places serve, the rates still hold. */
	fx.flows[3].rid = fx.flows[0].rid;
	next_refresh();
	assert_true(fx.an.by_pos);
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);
	fx.flows[3].rid = 100; /* past n_rids */
	next_refresh();
	assert_true(fx.an.by_pos);
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);
}

/*
 * Flows come and go between refreshes of records with rids: each refresh
 * adds the new flows to the index and the joins and leaves the gone ones
 * behind; a gone flow is found by no lookup, one that comes back at
 * another rid counts from zero, and every answer is a fresh analysis'.
 */
static void test_refresh_by_rid_as_flows_come_and_go(void **state)
{
	struct flow_record gone;
	struct flow_key d_key;
	__u32 b_rid;

	(void)state;
	joins_fixture(); /* a, a's ACKs, b, c */
	fx.snap.n_rids = 100;
	for (size_t i = 0; i < fx.snap.n_flows; i++)
		fx.flows[i].rid = 10 + i;
	analyse(1.0);
	expect_as_fresh();

	/* b leaves; d, between new hosts, takes b's rid. */
	gone = fx.flows[2];
	b_rid = gone.rid;
	fx.flows[2] = *add_flow("10.0.0.9", "10.0.1.9", 50100, 9, UP2, 5000);
	fx.snap.n_flows--;
	fx.flows[2].rid = b_rid;
	d_key = fx.flows[2].key;
	next_refresh();
	assert_false(fx.an.same_flows);
	assert_int_equal(fx.an.n_fresh, 1);
	assert_int_equal(analysis_find(&fx.an, &gone.key), -1);
	assert_int_equal(analysis_find(&fx.an, &d_key), 2);
	assert_int_equal(fx.an.flows[2].d.bytes, 5000 + 10000); /* new: its whole life */

	/* The same flows again: nothing is new, the joins stand. */
	next_refresh();
	assert_true(fx.an.same_flows);
	assert_int_equal(fx.an.n_fresh, 0);

	/* b comes back at another rid, and d's ACKs appear beside it. */
	fx.flows[fx.snap.n_flows] = gone;
	fx.flows[fx.snap.n_flows].rid = 50;
	fx.snap.n_flows++;
	add_reverse(&fx.flows[2], 3, 0)->rid = 60;
	next_refresh();
	assert_int_equal(fx.an.n_fresh, 2);
	/* Gone for a refresh: b counts from zero, as a flow evicted and back does. */
	assert_int_equal(fx.an.flows[4].d.bytes, gone.c.bytes + 10000);
	assert_int_equal(fx.an.flows[5].reverse, 2);
	assert_int_equal(fx.an.flows[2].reverse, 5);
	next_refresh();
	assert_true(fx.an.same_flows);
	for (size_t i = 0; i < fx.an.n_flows; i++)
		assert_int_equal(fx.an.flows[i].d.bytes, 10000);

	/*
	 * a's ACKs leave, and the only flow back between a's hosts now has
	 * another port: a's reverse is that flow, by hosts, though the join
	 * of a's ACKs' port is still there, empty. The last flow leaves too.
	 */
	gone = fx.flows[1];
	fx.flows[1].key.sport = 50007;
	fx.flows[1].rid = 70;
	fx.snap.n_flows--;
	next_refresh();
	assert_int_equal(fx.an.flows[0].reverse, 1);
	assert_int_equal(analysis_find(&fx.an, &gone.key), -1);
	assert_int_equal(analysis_find(&fx.an, &fx.flows[fx.snap.n_flows].key), -1);
}

/* What an analysis answers, each flow by its key: the same whatever order its flows came in. */
static void put(char **o, size_t *left, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*o, *left, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < *left);
	*o += n;
	*left -= n;
}

static void put_key(char **o, size_t *left, const struct flow_key *k)
{
	for (size_t b = 0; b < sizeof(*k); b++)
		put(o, left, "%02x", ((const __u8 *)k)[b]);
	put(o, left, " ");
}

static int cmp_keys(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct flow_key));
}

static void answers(const struct analysis *a, char *o, size_t left)
{
	struct flow_key keys[MAX_FLOWS];

	/* Rates to the last bit (%a): sums of them must not follow the flows' order. */
	put(&o, &left, "peak %a threshold %a\n", a->group_peak_bps, a->elephant_bps);
	for (int p = 0; p < a->n_paths; p++)
		put(&o, &left, "path %s %llu %llu %a %d\n", a->paths[p].name,
		    (unsigned long long)a->paths[p].flows,
		    (unsigned long long)a->paths[p].elephants, a->paths[p].bps,
		    a->paths[p].predicted_elephants);
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];

		put(&o, &left, "alert %d %d %s|%s|%s|%d:", al->type, al->severity, al->subject,
		    al->message, al->evidence, al->path);
		for (int f = 0; f < al->n_flows; f++)
			put_key(&o, &left, &al->flows[f]);
		put(&o, &left, "\n");
	}
	for (size_t i = 0; i < a->n_collisions; i++) {
		const struct collision *c = &a->collisions[i];

		put(&o, &left, "collision %d %d %d %d:", c->path, c->idle_path, c->count,
		    c->predicted);
		for (int f = 0; f < c->n_flows; f++)
			put_key(&o, &left, &a->flows[c->flows[f]].r->key);
		put(&o, &left, "\n");
	}
	/* Each flow's answers, and the entropy groups, by key. */
	for (size_t i = 0; i < a->n_flows; i++)
		keys[i] = a->flows[i].r->key;
	qsort(keys, a->n_flows, sizeof(keys[0]), cmp_keys);
	for (size_t k = 0; k < a->n_flows; k++) {
		const struct flow_view *v = &a->flows[analysis_find(a, &keys[k])];

		put_key(&o, &left, &keys[k]);
		put(&o, &left, "%d %d %d %d ", v->elephant, v->path, v->predicted_path, v->is_data);
		if (v->reverse >= 0)
			put_key(&o, &left, &a->flows[v->reverse].r->key);
		for (size_t e = 0; e < a->n_entropy; e++)
			if (a->entropy[e].flow == v - a->flows)
				put(&o, &left, "entropy %d %d", a->entropy[e].qps,
				    a->entropy[e].sports);
		put(&o, &left, "\n");
	}
}

/*
 * The answers do not depend on the snapshot's order: every "largest"
 * flow an answer names (the first flows of a grouped alert or a
 * collision, a join's flow, a mirror session's name and place) is taken
 * by bytes and key, not by where it sits. Flows sorted by bytes, then
 * shuffled: the same answers, each time from a fresh analysis.
 */
static void test_answers_in_any_order(void **state)
{
	static char want[32768], got[32768];
	struct flow_record *d;
	__u32 seed = 12345;

	(void)state;
	use_hash_model();
	/* Ten elephants on up1, every one resending and outside the plan: more than an alert names.
	 */
	for (int i = 0; i < 10; i++) {
		char src[32];

		snprintf(src, sizeof(src), "10.0.0.%d", 10 + i);
		/* Two of them tie on bytes: their keys decide. */
		d = add_flow(src, "10.0.1.1", 50100 + i, 10 + i, UP1, 400000 + (i % 8) * 10000);
		d->c.retransmits = i + 1;
		d->c.dscp_mask |= 1ULL << (i + 1);
	}
	/* One of them seen at up2 too, smaller there: one queue pair, named by its larger flow. */
	d = add_flow("10.0.0.12", "10.0.1.1", 50102, 12, UP2, 390000);
	/* CE marks on one, ACKs back without CNPs. */
	d = &fx.flows[3];
	d->c.ecn[3] = 40;
	add_reverse(d, 5, 0);
	/* A mouse on up2, and three QPs on one source port between two hosts. */
	add_flow("10.0.0.50", "10.0.1.50", 50200, 50, UP2, 1000);
	for (int q = 0; q < 3; q++)
		add_flow("10.0.0.60", "10.0.1.60", 50300, 60 + q, UP2, 2000 + q * 500);
	/* Mirror sessions: one number at two switches, and one of its own. */
	add_mirror(50401, 7, "10.9.0.1")->c.bytes = 900;
	add_mirror(50402, 7, "10.9.0.2")->c.bytes = 1100;
	add_mirror(50403, 11, "10.9.0.3")->c.bytes = 1000;
	add_mirror(50404, 7, "10.9.0.1")->c.bytes = 1200;

	snapshot_sort_by_bytes(&fx.snap);
	/* Over 0.3 s: rates no float holds exactly, so that their sums show the order. */
	analyse(0.3);
	answers(&fx.an, want, sizeof(want));
	/* The fixture reaches what it is for. */
	assert_non_null(strstr(want, "collision 0 4 10 0")); /* up1's, erspan:11 idle */
	assert_non_null(find_alert(ALERT_RETRANSMITS));
	assert_int_equal(find_alert(ALERT_RETRANSMITS)->n_flows, AN_ALERT_FLOWS);
	assert_non_null(find_alert(ALERT_CE_WITHOUT_CNP));
	assert_non_null(find_alert(ALERT_LOW_ENTROPY));
	assert_non_null(find_alert(ALERT_WRONG_TRAFFIC_CLASS));
	assert_non_null(find_alert(ALERT_PREDICTED_COLLISION));
	assert_string_equal(fx.an.paths[2].name, "erspan:7@10.9.0.1");

	for (int round = 0; round < 50; round++) {
		struct analysis fresh = {};

		for (size_t i = fx.snap.n_flows - 1; i > 0; i--) {
			size_t j;

			seed = seed * 1103515245 + 12345;
			j = (seed >> 8) % (i + 1);
			swap_flows(i, j);
		}
		assert_int_equal(analysis_update(&fresh, &fx.snap, &fx.ro, &fx.ao, 0.3), 0);
		answers(&fresh, got, sizeof(got));
		analysis_free(&fresh);
		assert_string_equal(got, want);
	}
}

/* A READ's responses are data, but the responder's: only its requests make a flow a requester's. */
static void test_read_responses_are_not_requests(void **state)
{
	struct flow_record *req, *resp;

	(void)state;
	req = add_flow("10.0.0.2", "10.0.0.1", 50000, 28, UP1, 370);
	req->c.opcodes[0] = 1ULL << FP_OP_READ_REQ;
	resp = add_flow("10.0.0.1", "10.0.0.2", 50000, 30, UP1, 15900);
	resp->c.opcodes[0] = 1ULL << FP_OP_READ_RESP_FIRST | 1ULL << FP_OP_READ_RESP_LAST;
	add_reverse(req, 5, 0)->key.dest_qp = 40; /* ACKs only */
	analyse(1.0);
	assert_true(fx.an.flows[0].is_data && fx.an.flows[0].is_request);
	assert_true(fx.an.flows[1].is_data && !fx.an.flows[1].is_request);
	assert_true(!fx.an.flows[2].is_data && !fx.an.flows[2].is_request);
}

/* One refresh a second later, ROCE more RoCE packets counted in it. */
static void refresh_after(__u64 roce)
{
	fx.snap.taken_ns += 1000000000ULL;
	fx.snap.totals[FP_CNT_ROCE] += roce;
	analyse(0);
}

/*
 * RoCE seen, then none for 2 s of the source's time: roce_stopped, until
 * it flows again. Never before any RoCE, never over the whole run, never
 * from a sampled source (a quiet interval may just have drawn no sample).
 */
static void test_roce_stopped(void **state)
{
	const struct alert *al;
	(void)state;
	analyse(1.0); /* nothing yet: silence before traffic is no stall */
	refresh_after(0);
	refresh_after(0);
	refresh_after(0);
	assert_null(find_alert(ALERT_ROCE_STOPPED));
	add_flow("10.0.0.1", "10.0.1.1", 50000, 1, UP1, 300000)->c.last_seen_ns =
	    fx.snap.taken_ns + 500000000ULL;
	refresh_after(300);
	assert_null(find_alert(ALERT_ROCE_STOPPED));
	refresh_after(0);
	assert_null(find_alert(ALERT_ROCE_STOPPED)); /* 1 s: a pause between collectives */
	refresh_after(0);
	al = find_alert(ALERT_ROCE_STOPPED);
	assert_non_null(al);
	assert_int_equal(al->severity, SEV_WARNING);
	/* 2 s of refreshes without RoCE; the last packet came 2.5 s ago: that is said. */
	assert_non_null(strstr(al->message, "no RoCE packet for 2.5 s"));
	assert_non_null(
	    strstr(al->evidence, "0 RoCE packets in the last 2.5 s, 1 flow in the table"));
	refresh_after(0);
	assert_non_null(strstr(find_alert(ALERT_ROCE_STOPPED)->message, "for 3.5 s"));
	refresh_after(1);
	assert_null(find_alert(ALERT_ROCE_STOPPED));

	/* The same silence from a sampled source: no alert. */
	fx.ro.every_packet = false;
	refresh_after(0);
	refresh_after(0);
	refresh_after(0);
	assert_null(find_alert(ALERT_ROCE_STOPPED));

	/*
	 * Over the whole run (a replay, a bundle's findings): from the last
	 * RoCE packet to the end, here 3.5 s: stopped, not resumed.
	 */
	fx.ro.every_packet = true;
	analysis_free(&fx.an);
	fx.flows[0].c.last_seen_ns = fx.snap.taken_ns - 3500000000ULL;
	analyse(10.0);
	al = find_alert(ALERT_ROCE_STOPPED);
	assert_non_null(al);
	assert_non_null(strstr(al->message, "stopped 3.5 s before the end and did not resume"));
	/* RoCE to the last second: none. */
	analysis_free(&fx.an);
	fx.flows[0].c.last_seen_ns = fx.snap.taken_ns - 1000000000ULL;
	analyse(10.0);
	assert_null(find_alert(ALERT_ROCE_STOPPED));
}

/*
 * A refresh of a hundred thousand flows runs its loops in parts, one a
 * CPU (probe/par.h): its answers are one loop's, to the last bit. Two
 * analyses of the same snapshots, one in one part, one in four: a first
 * refresh, then one where flows moved rids, came and went, then one where
 * the hosts' joins come in another order than they were made, then one
 * whose snapshot repeats a rid.
 */
#define MANY_FLOWS 100000
#define SAME_PORT  (4999 * 2) /* many_flows()' next flow on the same hosts and port */

static void many_flows(struct snapshot *s, struct flow_record *f, size_t n, unsigned int round)
{
	s->flows = f;
	s->n_flows = n;
	s->cap = n;
	s->n_rids = 2 * MANY_FLOWS;
	s->flow_capacity = 2 * MANY_FLOWS;
	s->taken_ns = (round + 1) * 1000000000ULL;
	for (size_t i = 0; i < n; i++) {
		struct flow_record *r = &f[i];
		/*
		 * In the third round each flow has other hosts, but the same
		 * hosts in all: their joins stay, not in their first flows' order.
		 */
		__u32 host = (__u32)((i + (round == 2) * 2500) % 4999),
		      id = (__u32)(i + round * (i % 7 == 0) * 1000);

		memset(r, 0, sizeof(*r));
		r->key.src[0] = 10;
		r->key.src[3] = (__u8)(host >> 8);
		r->key.src[4] = (__u8)host;
		r->key.dst[0] = 10;
		r->key.dst[1] = 1;
		r->key.dst[4] = (__u8)(host ^ 0x55);
		/* Ten QPs a port, but every eleventh flow's port is its own. */
		r->key.sport = (__u16)(i % 11 == 3 ? 60000 + i % 5000 : 49152 + id % 2);
		r->key.dport = 4791;
		r->key.dest_qp = id;
		r->key.ifindex = i % 3 == 0 ? UP1 : i % 3 == 1 ? UP2 : SOLO;
		if (i % 5 == 0) { /* ACKs: back between the same hosts, on the same ports */
			__u8 tmp[16];

			memcpy(tmp, r->key.src, 16);
			memcpy(r->key.src, r->key.dst, 16);
			memcpy(r->key.dst, tmp, 16);
		}
		/* Every 97th flow an elephant, every 5th ACKs only. */
		r->c.bytes = (i % 97 == 0 ? 900000 : 900 + i % 1000) * (round + 1);
		r->c.packets = r->c.bytes / 1000 + 1;
		r->c.ecn[i % 4] = r->c.packets;
		r->c.cnp = i % 11 == 0 ? round + 1 : 0;
		r->c.dscp_mask = 1ULL << (i % 13 == 0 ? 0 : 26);
		r->c.opcodes[0] = 1ULL << (i % 5 == 0 ? FP_OP_ACK : FP_OP_WRITE_MIDDLE);
		/*
		 * Ports carry more than one QP: PSNs pair them, an ACK flow
		 * with the flow SAME_PORT on (same hosts and port), if data.
		 */
		if (i % 5 == 0) {
			r->c.psn.resp_seen = 1;
			r->c.psn.resp_psn = (i + SAME_PORT) * 0x9E3779 - 5;
		} else {
			r->c.psn.tracking = 1;
			r->c.psn.max_psn = i * 0x9E3779;
		}
		/* Rids: a permutation; in the second round a tenth of the flows moved. */
		r->rid = (__u32)((i * 7919 + (round && i % 10 == 0 ? MANY_FLOWS : 0)) %
				 (2 * MANY_FLOWS));
	}
	/* In the fourth round the last flow repeats the first one's rid: no rid is a place. */
	if (round == 3)
		f[n - 1].rid = f[0].rid;
}

static void expect_same_analysis(const struct analysis *one, const struct analysis *parts)
{
	assert_int_equal(one->n_flows, parts->n_flows);
	assert_int_equal(one->last_seen_ns, parts->last_seen_ns);
	assert_memory_equal(one->flows, parts->flows, one->n_flows * sizeof(*one->flows));
	assert_int_equal(one->n_fresh, parts->n_fresh);
	assert_memory_equal(one->fresh, parts->fresh, one->n_fresh * sizeof(*one->fresh));
	assert_int_equal(one->n_paths, parts->n_paths);
	assert_memory_equal(one->paths, parts->paths, one->n_paths * sizeof(*one->paths));
	assert_true(one->group_peak_bps == parts->group_peak_bps);
	assert_int_equal(one->n_alerts, parts->n_alerts);
	for (size_t i = 0; i < one->n_alerts; i++) {
		const struct alert *x = &one->alerts[i], *y = &parts->alerts[i];

		assert_int_equal(x->type, y->type);
		assert_string_equal(x->message, y->message);
		assert_string_equal(x->evidence, y->evidence);
		assert_int_equal(x->path, y->path);
		assert_int_equal(x->n_flows, y->n_flows);
		assert_memory_equal(x->flows, y->flows, x->n_flows * sizeof(x->flows[0]));
	}
	assert_int_equal(one->n_collisions, parts->n_collisions);
	assert_int_equal(one->same_flows, parts->same_flows);
	/* The hosts in the order of their first flows, and their entropy groups. */
	assert_int_equal(one->joins.n_order, parts->joins.n_order);
	assert_memory_equal(one->joins.order, parts->joins.order,
			    one->joins.n_order * sizeof(*one->joins.order));
	assert_int_equal(one->n_entropy, parts->n_entropy);
	assert_memory_equal(one->entropy, parts->entropy, one->n_entropy * sizeof(*one->entropy));
}

/* Each path's flows, packets, bytes, rate and elephants are its flows' summed. */
static void expect_path_sums(const struct analysis *a)
{
	for (int p = 0; p < a->n_paths; p++) {
		__u64 flows = 0, packets = 0, bytes = 0, moved = 0, elephants = 0;

		for (size_t i = 0; i < a->n_flows; i++) {
			const struct flow_view *v = &a->flows[i];

			if (v->path != p)
				continue;
			flows++;
			packets += v->r->c.packets;
			bytes += v->r->c.bytes;
			moved += v->d.bytes;
			elephants += v->elephant;
		}
		assert_int_equal(a->paths[p].flows, flows);
		assert_int_equal(a->paths[p].packets, packets);
		assert_int_equal(a->paths[p].bytes, bytes);
		assert_true(a->paths[p].bps == moved * 8.0 / a->interval_s);
		assert_int_equal(a->paths[p].elephants, elephants);
	}
}

static size_t reversed(const struct analysis *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_flows; i++)
		n += a->flows[i].reverse >= 0;
	return n;
}

static void test_parts_answer_as_one_loop(void **state)
{
	struct flow_record *f1 = calloc(MANY_FLOWS, sizeof(*f1));
	struct analysis one = {}, parts = {};
	struct snapshot s = {};

	(void)state;
	assert_non_null(f1);
	fx.names[2] = (struct obs_point){.id = SOLO, .name = "solo", .uplink = true};
	fx.ro.n_points = 3;
	for (unsigned int round = 0; round < 4; round++) {
		/* Flows come and go: the second refresh has fewer, the third more again. */
		size_t n = round == 1 ? MANY_FLOWS - 3000 : MANY_FLOWS;

		many_flows(&s, f1, n, round);
		snapshot_flow_totals(&s);
		/* The latest packet in the last part's flows, then in the first's. */
		for (size_t i = 0; i < n; i++)
			f1[i].c.last_seen_ns = 1000 + i % 977;
		f1[round % 2 ? 5 : n - 5].c.last_seen_ns = 5000 + round;
		par_set_parts(1);
		assert_int_equal(analysis_update(&one, &s, &fx.ro, &fx.ao, round ? 0 : 1.0), 0);
		par_set_parts(PAR_MAX);
		assert_int_equal(analysis_update(&parts, &s, &fx.ro, &fx.ao, round ? 0 : 1.0), 0);
		par_set_parts(0);
		expect_same_analysis(&one, &parts);
		expect_path_sums(&one);
		assert_true(one.n_paths >= 2 && one.paths[1].flows > 0);
		assert_int_equal(one.last_seen_ns, 5000 + round);
		/* A rid two parts' flows have is found: the places serve. */
		assert_int_equal(one.by_pos, round == 3);
		assert_int_equal(parts.by_pos, round == 3);
		/* Not a trivial input: elephants, fresh flows and rates to compare. */
		assert_true(one.paths[0].elephants > 0);
		assert_true(round == 0 || one.n_fresh > 0);
		assert_true(one.flows[1].d.bytes > 0);
		assert_true(reversed(&one) > MANY_FLOWS / 100);
		/* QPs that share a port, paired by their PSNs (qp_pairs.c, crowded_pairs()). */
		assert_true(one.joins.crowded);
		assert_int_equal(one.flows[10].reverse, 10 + SAME_PORT);
		assert_int_equal(one.flows[10 + SAME_PORT].reverse, 10);
		assert_true(one.n_entropy > 0);
		/* Alerts of flows found in every part: each names its first flows of all. */
		assert_true(one.n_alerts >= 2);
		assert_int_equal(one.alerts[0].n_flows, AN_ALERT_FLOWS);
	}
	analysis_free(&one);
	analysis_free(&parts);
	free(f1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_elephant_threshold_boundary),
	    T(test_elephant_floor),
	    T(test_elephant_threshold_shown_is_applied),
	    T(test_alert_window),
	    T(test_elephant_hysteresis),
	    T(test_rates_from_previous_snapshot),
	    T(test_observed_collision),
	    T(test_no_collision_when_balanced),
	    T(test_predicted_collision_and_suggestion),
	    T(test_predicted_collision_counts_queue_pairs),
	    T(test_predicted_collision_needs_room),
	    T(test_predicted_collision_without_port_field),
	    T(test_ce_without_cnp),
	    T(test_ce_with_cnp_is_fine),
	    T(test_ce_without_reverse_is_silent),
	    T(test_reverse_fallback_not_another_flows),
	    T(test_reverse_by_psn_on_a_shared_port),
	    T(test_reverse_on_a_shared_port_none_rather_than_another),
	    T(test_reverse_on_a_shared_port_copies),
	    T(test_vxlan_reverse_by_inner_port),
	    T(test_cnp_without_ce),
	    T(test_not_ect),
	    T(test_grouped_alert),
	    T(test_grouped_alerts_first_flow),
	    T(test_retransmits_gaps_rnr),
	    T(test_traffic_class),
	    T(test_traffic_class_interval),
	    T(test_pcp_audit),
	    T(test_not_ect_counts_data_only),
	    T(test_traffic_class_atomic_acks),
	    T(test_pcp_audit_cnps),
	    T(test_collision_counts_every_elephant),
	    T(test_table_pressure_clears),
	    T(test_low_entropy_interval),
	    T(test_rnr_storm_needs_a_second),
	    T(test_interval_at_least_1ms),
	    T(test_low_entropy),
	    T(test_low_entropy_apart_by_family),
	    T(test_low_entropy_counts_queue_pairs),
	    T(test_series_columns_by_name),
	    T(test_series_sampled_rtx_null),
	    T(test_imbalance_boundary),
	    T(test_malformed_and_table_pressure),
	    T(test_alerts_worst_first),
	    T(test_groups_collide_within),
	    T(test_groups_balance_apart),
	    T(test_mirror_sessions_are_paths),
	    T(test_mirror_types_one_number_two_names),
	    T(test_mirror_types_one_switch_one_path),
	    T(test_mirror_index_one_path),
	    T(test_mirror_copies_at_two_points_collide_once),
	    T(test_mirror_sessions_are_no_uplinks),
	    T(test_mirror_session_names_are_distinct),
	    T(test_collector_link_leaves_the_group),
	    T(test_refresh_reuses_joins_while_flows_stay),
	    T(test_refresh_by_rid_survives_a_new_order),
	    T(test_refresh_by_rid_as_flows_come_and_go),
	    T(test_answers_in_any_order),
	    T(test_read_responses_are_not_requests),
	    T(test_roce_stopped),
	    T(test_parts_answer_as_one_loop),
	};

	return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
