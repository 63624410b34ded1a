// SPDX-License-Identifier: GPL-2.0
/*
 * The sFlow source's ports and points: the port map (good and bad lines),
 * point naming and classes, rate ids, port counters and their rates, and
 * the scaling and merging of sampled flows at collect time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "source/sflow_ports.h"
#include "util/log.h"

static struct sflow_ports t;
static struct sflow_addr leaf1, leaf2;

static int setup(void **state)
{
	(void)state;
	assert_int_equal(sflow_ports_init(&t), 0);
	memset(&leaf1, 0, sizeof(leaf1));
	leaf1.family = 4;
	memcpy(leaf1.bytes, (__u8[]){192, 0, 2, 1}, 4);
	memset(&leaf2, 0, sizeof(leaf2));
	leaf2.family = 6;
	leaf2.bytes[0] = 0x20;
	leaf2.bytes[1] = 0x01;
	leaf2.bytes[15] = 2;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sflow_ports_free(&t);
	return 0;
}

static int read_map(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err = sflow_ports_read_map(&t, f, "map");

	fclose(f);
	return err;
}

static void test_map_good(void **state)
{
	(void)state;
	assert_int_equal(read_map("# leaves\n\n192.0.2.1 49 leaf1-up1 leaf1  # spine 1\n"
				  "192.0.2.1\t50\tleaf1-up2\tleaf1\n2001::2 49 leaf2-up1\n"),
			 0);
	assert_int_equal(t.n_points, 3);
	assert_string_equal(t.points[0].name, "leaf1-up1");
	assert_string_equal(t.points[0].group, "leaf1");
	assert_false(t.points[0].solo);
	assert_true(t.points[0].uplink);
	assert_string_equal(t.points[2].name, "leaf2-up1");
	assert_true(t.points[2].solo); /* no GROUP column: a path in no group */
	/* A sample at a mapped port counts at its point. */
	assert_int_equal(sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.value = 50}, 100),
			 2);
}

static void test_map_bad_lines(void **state)
{
	FILE *err = tmpfile();
	char buf[1024] = "";

	(void)state;
	fp_log_to(err);
	assert_int_equal(read_map("192.0.2.1 49 a g\n"	     /* 1 fine */
				  "192.0.2.1 x b\n"	     /* 2 ifindex */
				  "nowhere 3 c\n"	     /* 3 agent */
				  "192.0.2.1 4\n"	     /* 4 too few */
				  "192.0.2.1 5 e f g\n"	     /* 5 too many */
				  "192.0.2.1 49 again\n"     /* 6 duplicate */
				  "192.0.2.1 1073741823 i\n" /* 7 the internal value */
				  "# 192.0.2.1 8 fine\n"
				  "192.0.2.2 49 a\n"), /* 9 another port's name */
			 -EINVAL);
	fp_log_to(stderr);
	rewind(err);
	fread(buf, 1, sizeof(buf) - 1, err);
	fclose(err);
	for (int line = 2; line <= 9; line += line == 7 ? 2 : 1) {
		char want[16];

		snprintf(want, sizeof(want), "map:%d:", line);
		assert_non_null(strstr(buf, want));
	}
	assert_null(strstr(buf, "map:1:"));
	assert_null(strstr(buf, "map:8:"));
	assert_non_null(strstr(buf, "map:9: NAME is already another port's"));
}

static void test_points_and_names(void **state)
{
	__u32 a, b, c, d, e;

	(void)state;
	a = sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.value = 7}, 1000);
	b = sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.value = 7}, 1000);
	c = sflow_ports_rate_id(&t, &leaf2, &(struct sflow_port){.value = 7}, 1000);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_string_equal(t.points[a - 1].name, "192.0.2.1:7");
	/*
	 * An IPv6 agent in brackets (RFC 5952 section 6): "2001::2:7" would
	 * read as the address 2001::2:7, not port 7 of agent 2001::2.
	 */
	assert_string_equal(t.points[c - 1].name, "[2001::2]:7");
	sflow_ports_port_name(&t, &leaf2, 7, "swp7", 4);
	assert_string_equal(t.points[c - 1].name, "[2001::2]:swp7");
	e = sflow_ports_rate_id(&t, &leaf2, &(struct sflow_port){.kind = SFLOW_PORT_INTERNAL}, 1);
	assert_string_equal(t.points[e - 1].name, "[2001::2]:internal");
	/* A port name record renames a port the map does not name. */
	sflow_ports_port_name(&t, &leaf1, 7, "swp7\x1b[2J", 8);
	assert_string_equal(t.points[a - 1].name, "192.0.2.1:swp7[2J");
	/* Dropped, multiple, internal, unknown: one point per agent and kind, not paths. */
	d = sflow_ports_rate_id(
	    &t, &leaf1, &(struct sflow_port){.kind = SFLOW_PORT_DROPPED, .format = 1, .value = 3},
	    1000);
	e = sflow_ports_rate_id(
	    &t, &leaf1, &(struct sflow_port){.kind = SFLOW_PORT_DROPPED, .format = 1, .value = 9},
	    1000);
	assert_int_equal(d, e);
	assert_string_equal(t.points[d - 1].name, "192.0.2.1:dropped");
	assert_false(t.points[d - 1].uplink);
	e = sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.kind = SFLOW_PORT_INTERNAL}, 1);
	assert_string_equal(t.points[e - 1].name, "192.0.2.1:internal");
	e = sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.kind = SFLOW_PORT_MULTIPLE}, 1);
	assert_string_equal(t.points[e - 1].name, "192.0.2.1:multiple");
	assert_true(t.points[a - 1].uplink);
}

static void test_rate_ids(void **state)
{
	struct sflow_port p49 = {.value = 49};
	__u32 first, second, again;

	(void)state;
	first = sflow_ports_rate_id(&t, &leaf1, &p49, 1000);
	second = sflow_ports_rate_id(&t, &leaf1, &p49, 2000);
	again = sflow_ports_rate_id(&t, &leaf1, &p49, 1000);
	assert_int_equal(first, 1); /* the point's id while its first rate holds */
	assert_int_equal(again, first);
	assert_true(second >= SFLOW_RATE_ID_BASE);
	assert_int_equal(sflow_ports_rate_id(&t, &leaf1, &p49, 2000), second);
}

static void test_counters(void **state)
{
	struct sflow_if_counters c = {.if_index = 49,
				      .if_speed = 100000000000ULL,
				      .if_status = 3,
				      .out_octets = 1000,
				      .out_discards = 0xFFFFFFF0u};
	const struct port_counters *pc;
	__u32 id;

	(void)state;
	id = sflow_ports_rate_id(&t, &leaf1, &(struct sflow_port){.value = 49}, 1);
	assert_null(t.points[id - 1].counters);
	sflow_ports_counters(&t, &leaf1, 10000, &c);
	pc = t.points[id - 1].counters;
	assert_non_null(pc);
	assert_false(pc->have_rate);
	assert_true(t.points[id - 1].speed_bps == 1e11);
	c.out_octets += 2500000000ULL; /* 20 Gb in 2 s */
	c.out_discards = 0x10;	       /* wrapped: 32 discards */
	sflow_ports_counters(&t, &leaf1, 12000, &c);
	assert_true(pc->have_rate);
	assert_true(pc->out_bps == 1e10);
	assert_true(pc->out_discards_per_s == 16);
	/* The agent rebooted (uptime went back): no rate from across it. */
	sflow_ports_counters(&t, &leaf1, 500, &c);
	assert_false(pc->have_rate);
	assert_int_equal(pc->counter_samples, 3);
}

static void test_scale_and_merge(void **state)
{
	struct flow_record recs[3] = {};
	struct snapshot s = {.flows = recs, .n_flows = 3, .cap = 3};
	struct sflow_port p49 = {.value = 49};
	__u32 a, b;

	(void)state;
	a = sflow_ports_rate_id(&t, &leaf1, &p49, 1000);
	b = sflow_ports_rate_id(&t, &leaf1, &p49, 3000);
	/* One flow: 4 samples at 1000, then 2 at 3000 (CE on one); and another flow. */
	recs[0].key.dest_qp = 7;
	recs[0].key.ifindex = a;
	recs[0].c = (struct flow_counters){.packets = 4,
					   .bytes = 4000,
					   .ecn = {0, 0, 4, 0},
					   .retransmits = 1,
					   .first_seen_ns = 10,
					   .last_seen_ns = 20,
					   .dscp = 26};
	recs[1].key.dest_qp = 8;
	recs[1].key.ifindex = a;
	recs[1].c = (struct flow_counters){.packets = 1, .bytes = 100};
	recs[2].key.dest_qp = 7;
	recs[2].key.ifindex = b;
	recs[2].c = (struct flow_counters){.packets = 2,
					   .bytes = 2000,
					   .ecn = {0, 0, 1, 1},
					   .psn_gaps = 5,
					   .first_seen_ns = 30,
					   .last_seen_ns = 40,
					   .dscp = 27};
	assert_int_equal(sflow_ports_scale(&t, &s), 0);
	assert_int_equal(s.n_flows, 2);
	assert_int_equal(recs[0].key.ifindex, a);
	assert_int_equal(recs[0].samples, 6);
	assert_int_equal(recs[0].c.packets, 4 * 1000 + 2 * 3000);
	assert_int_equal(recs[0].c.bytes, 4000 * 1000 + 2000 * 3000);
	assert_int_equal(recs[0].c.ecn[3], 3000);
	assert_int_equal(recs[0].c.ecn[2], 4000 + 3000);
	assert_int_equal(recs[0].rate, 10000 / 6 + 1); /* the mean, rounded */
	assert_int_equal(recs[0].c.retransmits, 0);
	assert_int_equal(recs[0].c.psn_gaps, 0);
	assert_int_equal(recs[0].c.first_seen_ns, 10);
	assert_int_equal(recs[0].c.last_seen_ns, 40);
	assert_int_equal(recs[0].c.dscp, 27); /* the later part's */
	assert_int_equal(recs[1].c.packets, 1000);
	assert_int_equal(recs[1].rate, 1000);
	assert_int_equal(recs[1].samples, 1);
}

/*
 * Rates near 2^32 on 64 KB frames: the estimates of one flow reach 2^64 in
 * 2^16 samples, and two parts of a flow at two rates add past it. They are
 * held at 2^64 - 1, never wrapped to a small count, and said.
 */
static void test_scale_saturates(void **state)
{
	struct flow_record recs[3] = {};
	struct snapshot s = {.flows = recs, .n_flows = 3, .cap = 3};
	struct sflow_port p49 = {.value = 49};
	__u32 a, b;

	(void)state;
	a = sflow_ports_rate_id(&t, &leaf1, &p49, UINT32_MAX);
	b = sflow_ports_rate_id(&t, &leaf1, &p49, UINT32_MAX - 1);
	/* Flow 7: 65536 samples of 65601 bytes at each rate; flow 8: one small sample. */
	recs[0].key.dest_qp = 7;
	recs[0].key.ifindex = a;
	recs[0].c = (struct flow_counters){.packets = 65536, .bytes = 65536ULL * 65601};
	recs[1].key.dest_qp = 7;
	recs[1].key.ifindex = b;
	recs[1].c = (struct flow_counters){.packets = 1u << 31, .bytes = 1000};
	recs[2].key.dest_qp = 8;
	recs[2].key.ifindex = a;
	recs[2].c = (struct flow_counters){.packets = 1, .bytes = 1000};
	assert_int_equal(sflow_ports_scale(&t, &s), 0);
	assert_int_equal(s.n_flows, 2);
	assert_int_equal(recs[0].samples, 65536 + (1u << 31));
	/* 65536 * 65601 * (2^32 - 1) is past 2^64; 2^31 * (2^32 - 2) + 65536 * (2^32 - 1) is not.
	 */
	assert_true(recs[0].c.bytes == UINT64_MAX);
	assert_true(recs[0].c.packets ==
		    (1ULL << 31) * (UINT32_MAX - 1ULL) + 65536ULL * UINT32_MAX);
	assert_true(recs[0].rate >= UINT32_MAX - 1);
	assert_true(recs[1].c.bytes == 1000ULL * UINT32_MAX);
	assert_int_equal(t.saturated, 1);

	/* Two parts each past half of 2^64 add to the most, not to less than either. */
	recs[0] = (struct flow_record){.key = {.dest_qp = 9, .ifindex = a},
				       .c = {.packets = 1ULL << 32, .bytes = 1ULL << 33}};
	recs[1] = (struct flow_record){.key = {.dest_qp = 9, .ifindex = b},
				       .c = {.packets = 1ULL << 32, .bytes = 1ULL << 33}};
	s.n_flows = 2;
	assert_int_equal(sflow_ports_scale(&t, &s), 0);
	assert_int_equal(s.n_flows, 1);
	assert_true(recs[0].c.packets == UINT64_MAX);
	assert_true(recs[0].c.bytes == UINT64_MAX);
	assert_int_equal(t.saturated, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_map_good, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_map_bad_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_points_and_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rate_ids, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_counters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scale_and_merge, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scale_saturates, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
