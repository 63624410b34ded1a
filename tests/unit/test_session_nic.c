// SPDX-License-Identifier: GPL-2.0
/*
 * core/session_nic.c over the recorded mlx5 tree (tests/fixtures/nic):
 * flows matched to local QPs through the index by port agree with
 * roce_match_flow()'s linear rule on every key tried, in both directions
 * and in VXLAN; owners land in the evidence of alerts naming those flows;
 * peers learned from flows give the predicted path; NIC alerts are added
 * to the analysis sorted; a missing --nic-root is refused.
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

#include "core/alert_log.h"
#include "core/roce_sport.h"
#include "core/session_nic.h"

static const char *mlx5_root(void)
{
	const char *env = getenv("FP_NIC_FIXTURES");
	static char path[512];

	snprintf(path, sizeof(path), "%s/mlx5", env ? env : "tests/fixtures/nic");
	return path;
}

static struct flow_key key(const char *src, const char *dst, __u16 sport, __u32 dest_qp)
{
	struct flow_key k = {0};

	inet_pton(AF_INET, src, k.src);
	inet_pton(AF_INET, dst, k.dst);
	k.sport = sport;
	k.dport = 4791;
	k.dest_qp = dest_qp;
	return k;
}

static struct session_nic *start(struct analysis_opts *ao)
{
	struct nic_opts o = {.root = mlx5_root()};
	struct session_nic *n = NULL;

	assert_int_equal(session_nic_start(&n, &o, ao), 0);
	assert_non_null(n);
	return n;
}

static void test_match_agrees_with_roce_match_flow(void **state)
{
	struct analysis_opts ao;
	struct snapshot snap = {0};
	struct analysis an = {0};
	struct session_nic *n;
	int tried = 0, matched = 0;

	(void)state;
	analysis_opts_default(&ao);
	n = start(&ao);
	assert_int_equal(session_nic_refresh(n, &snap, &an), 0);
	/* Every predicted port, every QP number of the table and a stranger, both ways. */
	for (size_t i = 0; i < n->now.st.n_qps; i++) {
		for (size_t j = 0; j < n->now.st.n_qps; j++) {
			const struct nic_qp *q = &n->now.st.qps[i], *r = &n->now.st.qps[j];
			__u32 qpns[] = {r->lqpn, r->rqpn, 12345};

			for (int x = 0; x < 3; x++) {
				/* To this host's QP (its own number): arriving. */
				bool in = qpns[x] == r->lqpn;
				struct flow_key k =
				    key(in ? "10.0.9.9" : "10.0.1.2", in ? "10.0.1.2" : "10.0.9.9",
					q->predicted_sport ?: 49153, qpns[x]);
				bool o1 = false, o2 = false;
				int a = nic_picture_match(&n->now, &k, &o1);
				int b = roce_match_flow(&n->now.st, &k, &o2);

				assert_int_equal(a, b);
				if (a >= 0)
					assert_int_equal(o1, o2);
				tried++;
				matched += a >= 0;
			}
		}
	}
	assert_true(tried > 100);
	assert_true(matched >= 4); /* QP 17 and QP 4660, each way */
	analysis_free(&an);
	session_nic_free(n);
}

static void test_flows_owners_and_paths(void **state)
{
	struct flow_record flows[4] = {0};
	struct snapshot snap = {.flows = flows, .n_flows = 4};
	struct analysis_opts ao;
	struct analysis an = {0};
	struct session_nic *n;
	const struct nic_qp *o;
	struct alert *al;
	bool out;

	(void)state;
	analysis_opts_default(&ao);
	ao.predict = true;
	ao.hash.model = HASH_CRC32_LO;
	flows[0].key = key("10.0.1.2", "10.0.9.9", 49730, 34); /* QP 17's data */
	flows[1].key = key("10.0.9.9", "10.0.1.2", 49730, 17); /* its ACKs */
	/* Another host's QP pair with QP 17's numbers and port: not this host's. */
	flows[2].key = key("10.0.7.7", "10.0.9.9", 49730, 34);
	/* QP 4660's data, seen inside VXLAN: the inner port and addresses count. */
	flows[3].key = key("192.168.0.1", "192.168.0.2", 4789, 22136);
	flows[3].key.flags = FP_FLOW_VXLAN;
	flows[3].key.inner_sport = roce_udp_sport(0, 4660, 22136);
	inet_pton(AF_INET, "10.0.1.2", flows[3].key.inner_src);
	inet_pton(AF_INET, "10.0.9.7", flows[3].key.inner_dst);
	n = start(&ao);
	/* An alert naming QP 17's flow and the stranger, as a detector would add it. */
	al = alert_push(&an.alerts, &an.n_alerts, &an.cap_alerts, ALERT_RETRANSMITS, SEV_WARNING,
			-1, "");
	assert_non_null(al);
	al->flows[al->n_flows++] = flows[0].key;
	al->flows[al->n_flows++] = flows[2].key;
	alert_printf(al->evidence, "5 retransmits");
	assert_int_equal(session_nic_refresh(n, &snap, &an), 0);

	o = nic_flow_owner(&n->now, 0);
	assert_non_null(o);
	assert_int_equal(o->lqpn, 17);
	assert_string_equal(o->comm, "ib_write_bw");
	assert_ptr_equal(nic_flow_owner(&n->now, 1), o);
	assert_null(nic_flow_owner(&n->now, 2));
	o = nic_flow_owner(&n->now, 3);
	assert_non_null(o);
	assert_int_equal(o->lqpn, 4660);
	assert_int_equal(nic_picture_match(&n->now, &flows[1].key, &out) >= 0 && !out, 1);
	assert_string_equal(an.alerts[0].evidence,
			    "5 retransmits; local QP owners: ib_write_bw[41001] QP 17");
	/*
	 * The peers the flows showed place the QPs: CRC-32 of the 4-tuple, as
	 * for the flow. Not QP 4660's, whose flow is in VXLAN: the next tier
	 * hashes the VTEPs' headers, which the QP does not show.
	 */
	for (size_t i = 0; i < n->now.st.n_qps; i++) {
		const struct nic_qp *q = &n->now.st.qps[i];
		const char *peer = q->lqpn == 17 ? "10.0.9.9" : NULL;
		struct flow_key k;

		if (!peer) {
			assert_int_equal(q->predicted_path, -1);
			continue;
		}
		k = key("10.0.1.2", peer, q->predicted_sport, q->rqpn);
		assert_int_equal(q->predicted_path, hash_path(&ao.hash, &k));
	}
	analysis_free(&an);
	session_nic_free(n);
}

static void test_nic_alerts_join_sorted(void **state)
{
	char dir[] = "/tmp/fp-session-nic-XXXXXX", cmd[1024];
	struct nic_opts o = {0};
	struct analysis_opts ao;
	struct snapshot snap = {0};
	struct analysis an = {0};
	struct session_nic *n = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r %s %s/t", mlx5_root(), dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/t", dir);
	o.root = cmd;
	analysis_opts_default(&ao);
	assert_int_equal(session_nic_start(&n, &o, &ao), 0);
	/* A flow alert the analysis raised, then the NIC's over the same interval. */
	assert_non_null(alert_push(&an.alerts, &an.n_alerts, &an.cap_alerts, ALERT_LOW_ENTROPY,
				   SEV_WARNING, -1, ""));
	snprintf(
	    cmd, sizeof(cmd),
	    "sed -i 's/rx_prio3_buf_discard: 0/rx_prio3_buf_discard: 9/' %s/t/ethtool/ens1f0np0",
	    dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/t", dir);
	assert_int_equal(session_nic_refresh(n, &snap, &an), 0);
	assert_int_equal(an.n_alerts, 2);
	/* Worst first, as the log and every renderer expect. */
	assert_int_equal(an.alerts[0].type, ALERT_LOSSLESS_DISCARDS);
	assert_string_equal(an.alerts[0].subject, "ens1f0np0");
	assert_true(nic_alert_type(an.alerts[0].type));
	assert_int_equal(an.alerts[1].type, ALERT_LOW_ENTROPY);
	assert_false(nic_alert_type(an.alerts[1].type));
	/* The next interval saw nothing: the NIC alert is gone, the flow alert stays. */
	an.n_alerts = 1;
	an.alerts[0].type = ALERT_LOW_ENTROPY;
	assert_int_equal(session_nic_refresh(n, &snap, &an), 0);
	assert_int_equal(an.n_alerts, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	analysis_free(&an);
	session_nic_free(n);
}

static void test_missing_root_refused(void **state)
{
	struct nic_opts o = {.root = "/nonexistent/fabprobe-nic-root"};
	struct session_nic *n = (void *)1;
	struct analysis_opts ao;

	(void)state;
	analysis_opts_default(&ao);
	assert_true(session_nic_start(&n, &o, &ao) < 0);
	assert_null(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_agrees_with_roce_match_flow),
	    cmocka_unit_test(test_flows_owners_and_paths),
	    cmocka_unit_test(test_nic_alerts_join_sorted),
	    cmocka_unit_test(test_missing_root_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
