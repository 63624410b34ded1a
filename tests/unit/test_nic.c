// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC data layer end to end: recorded trees (tests/fixtures/nic) copied
 * to a temporary directory and changed between refreshes, so rates, wraps,
 * resets and each NIC alert are checked against numbers the test wrote;
 * RDMA netlink messages built here per <rdma/rdma_netlink.h>; the live
 * path on this host (no RDMA device) and, when tests/nic/veth.sh runs it,
 * on a veth pair against `ethtool -S`.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <cmocka.h>

#include "core/nic_detect.h"
#include "core/roce_sport.h"
#include "core/session_nic.h"
#include "render/report_nic.h"
#include "render/summary.h"
#include "source/nic.h"

#define SEC 1000000000ULL

static const char *fixtures(void)
{
	const char *env = getenv("FP_NIC_FIXTURES");

	return env ? env : "tests/fixtures/nic";
}

/* mkdir -p of the directory part of path. */
static void mkdirs(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
}

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdirs(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *copy_from, *copy_to;

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char dst[1024], buf[4096];
	FILE *in, *out;
	size_t n;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	snprintf(dst, sizeof(dst), "%s%s", copy_to, path + strlen(copy_from));
	mkdirs(dst);
	in = fopen(path, "r");
	out = fopen(dst, "w");
	if (!in || !out)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
	return 0;
}

/* A private copy of a fixture tree (copied here: no process per test), removed by the test. */
static char *tree_copy(const char *name)
{
	char tmpl[] = "/tmp/fp-nic-XXXXXX", src[512];
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	if (name) {
		snprintf(src, sizeof(src), "%s/%s", fixtures(), name);
		copy_from = src;
		copy_to = dir;
		assert_int_equal(nftw(src, copy_one, 16, FTW_PHYS), 0);
	}
	return strdup(dir);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void tree_remove(char *dir)
{
	assert_int_equal(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
}

static void set_u64(const char *root, const char *rel, __u64 v)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	write_file(root, rel, text);
}

static __u64 get_u64(const char *root, const char *rel)
{
	char path[1024];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

static void add_u64(const char *root, const char *rel, __u64 inc)
{
	set_u64(root, rel, get_u64(root, rel) + inc);
}

/* Rewrite one "NAME: VALUE" line of ROOT/ethtool/NETDEV, keeping NAME as spelled. */
static void ethtool_set(const char *root, const char *netdev, const char *name, __u64 value,
			bool add)
{
	char path[1024], *out;
	size_t olen = 0;
	bool found = false;
	FILE *f, *o;
	char *line = NULL;
	size_t cap = 0;

	snprintf(path, sizeof(path), "%s/ethtool/%s", root, netdev);
	f = fopen(path, "r");
	assert_non_null(f);
	o = open_memstream(&out, &olen);
	while (getline(&line, &cap, f) > 0) {
		char key[128];
		unsigned long long v;

		if (sscanf(line, " %127[^:]: %llu", key, &v) == 2) {
			char trimmed[128];

			snprintf(trimmed, sizeof(trimmed), "%s", key);
			trimmed[strcspn(trimmed, " ")] = '\0';
			if (!strcmp(trimmed, name)) {
				fprintf(o, "     %s: %llu\n", key, add ? v + value : value);
				found = true;
				continue;
			}
		}
		fputs(line, o);
	}
	free(line);
	fclose(f);
	fclose(o);
	if (!found)
		fail_msg("no %s in %s", name, path);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(out, 1, olen, f);
	fclose(f);
	free(out);
}

static const char *MLX5_HW = "class/infiniband/mlx5_0/ports/1/hw_counters/";

static void mlx5_add(const char *root, const char *counter, __u64 inc)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s%s", MLX5_HW, counter);
	add_u64(root, rel, inc);
}

static void open_tree(struct nic_state *s, const char *root)
{
	struct nic_opts o = {.root = root};

	assert_int_equal(nic_init(s, &o), 0);
}

/* ---- the counter rule --------------------------------------------------- */

static void test_counter_delta_rule(void **state)
{
	unsigned int f;

	(void)state;
	f = 0;
	assert_int_equal(nic_counter_delta(10, 25, &f), 15);
	assert_int_equal(f, 0);
	f = 0; /* a 32-bit counter wraps: 0xFFFFFF00 -> 0x10 moved by 0x110 */
	assert_int_equal(nic_counter_delta(0xFFFFFF00ULL, 0x10, &f), 0x110);
	assert_int_equal(f, NIC_CNT_WRAPPED);
	f = 0;
	assert_int_equal(nic_counter_delta(0xFFFFFFFFULL, 1, &f), 2);
	assert_int_equal(f, NIC_CNT_WRAPPED);
	f = 0; /* down to exactly 0: cleared, not wrapped (3e9 -> 0 was a wrap of 1.29e9) */
	assert_int_equal(nic_counter_delta(3000000000ULL, 0, &f), 0);
	assert_int_equal(f, NIC_CNT_RESET);
	f = 0; /* from above 2^32 down: a reset, counted from zero */
	assert_int_equal(nic_counter_delta(5000000000ULL, 7, &f), 7);
	assert_int_equal(f, NIC_CNT_RESET);
	f = 0; /* below 2^32 but "wrapped" by more than half the range: a reset */
	assert_int_equal(nic_counter_delta(1000, 5, &f), 5);
	assert_int_equal(f, NIC_CNT_RESET);
	f = 0; /* the boundary: a change of exactly 2^31 is no longer a wrap */
	assert_int_equal(nic_counter_delta((1ULL << 31) + 1, 1, &f), 1);
	assert_int_equal(f, NIC_CNT_RESET);
	f = 0;
	assert_int_equal(nic_counter_delta((1ULL << 31) + 2, 1, &f), (1ULL << 31) - 1);
	assert_int_equal(f, NIC_CNT_WRAPPED);
}

static void test_canonical_names(void **state)
{
	static const struct {
		enum nic_domain d;
		const char *in, *out;
	} v[] = {
	    {NIC_DOM_ETHTOOL, "tx_pause_storm_warning_events ", "tx_pause_storm_warning_events"},
	    {NIC_DOM_ETHTOOL, "  rx_prio3_pause\t", "rx_prio3_pause"},
	    {NIC_DOM_ETHTOOL, "rx_pfc_ena_frames_pri3", "rx_prio3_pause"},
	    {NIC_DOM_ETHTOOL, "tx_pfc_ena_frames_pri0", "tx_prio0_pause"},
	    {NIC_DOM_ETHTOOL, "pfc_pri7_rx_duration_us", "rx_prio7_pause_duration"},
	    {NIC_DOM_ETHTOOL, "pfc_pri2_tx_duration_us", "tx_prio2_pause_duration"},
	    {NIC_DOM_ETHTOOL, "pfc_pri5_rx_transitions", "rx_prio5_pause_transition"},
	    {NIC_DOM_ETHTOOL, "pfc_pri5_tx_transitions", "tx_prio5_pause_transition"},
	    {NIC_DOM_ETHTOOL, "rx_priority_4_xoff.nic", "rx_prio4_pause"},
	    {NIC_DOM_ETHTOOL, "tx_priority_4_xoff.nic", "tx_prio4_pause"},
	    {NIC_DOM_ETHTOOL, "rx_priority_4_xon.nic", "rx_priority_4_xon.nic"},
	    {NIC_DOM_ETHTOOL, "rx_pfc_ena_frames_pri8", "rx_pfc_ena_frames_pri8"},
	    {NIC_DOM_ETHTOOL, "rx_pfc_ena_frames_pri33", "rx_pfc_ena_frames_pri33"},
	    {NIC_DOM_ETHTOOL, "rx_pfc_ena_frames_pri", "rx_pfc_ena_frames_pri"},
	    {NIC_DOM_ETHTOOL, "tx_cnp_pkts", "tx_cnp_pkts"}, /* an RDMA alias only */
	    {NIC_DOM_RDMA, "tx_cnp_pkts", "np_cnp_sent"},
	    {NIC_DOM_RDMA, "rx_cnp_pkts", "rp_cnp_handled"},
	    {NIC_DOM_RDMA, "rx_ecn_marked_pkts", "np_ecn_marked_roce_packets"},
	    {NIC_DOM_RDMA, "oos_drop_count", "out_of_sequence"},
	    {NIC_DOM_RDMA, "seq_err_naks_rcvd", "packet_seq_err"},
	    {NIC_DOM_RDMA, "to_retransmits", "local_ack_timeout_err"},
	    {NIC_DOM_RDMA, "rnr_naks_rcvd", "rnr_nak_retry_err"},
	    {NIC_DOM_RDMA, "dup_req", "duplicate_request"},
	    {NIC_DOM_RDMA, "np_cnp_sent", "np_cnp_sent"},
	    {NIC_DOM_PMA, "to_retransmits", "to_retransmits"},
	};
	char out[NIC_NAME_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_string_equal(nic_canonical_name(v[i].d, v[i].in, out, sizeof(out)),
				    v[i].out);
}

/* ---- reading the recorded trees ----------------------------------------- */

static void test_mlx5_tree(void **state)
{
	const struct nic_port *p;
	const struct nic_counter *c;
	struct nic_state s;
	char addr[INET6_ADDRSTRLEN], path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/mlx5", fixtures());
	open_tree(&s, path);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_string_equal(s.info, "");
	assert_string_equal(s.qp_error, "");
	assert_int_equal(s.n_ports, 2);
	p = &s.ports[0];
	assert_string_equal(p->device, "mlx5_0");
	assert_int_equal(p->port, 1);
	assert_string_equal(p->netdev, "ens1f0np0");
	assert_string_equal(p->link_layer, "Ethernet");
	assert_true(p->has_gid_addr);
	assert_false(p->gid_v6);
	assert_string_equal(inet_ntop(AF_INET, p->gid_addr, addr, sizeof(addr)), "10.0.1.2");
	assert_string_equal(s.ports[1].device, "mlx5_1");
	assert_string_equal(s.ports[1].netdev, "ens1f1np1");
	/* 29 files in hw_counters/, "lifespan" is no counter */
	assert_int_equal(p->hw.n, 28);
	assert_null(nic_counter_get(&p->hw, "lifespan"));
	c = nic_counter_get(&p->hw, "np_cnp_sent");
	assert_non_null(c);
	assert_int_equal(c->value, 5120);
	assert_int_equal(c->delta, 0);
	assert_int_equal(c->flags, NIC_CNT_NEW);
	assert_int_equal(nic_counter_get(&p->pma, "port_xmit_data")->value, 87123456789ULL);
	for (size_t i = 1; i < p->hw.n; i++)
		assert_true(strcmp(p->hw.v[i - 1].name, p->hw.v[i].name) < 0);
	/* the netdevs of the ports, each with its ethtool text */
	assert_int_equal(s.n_netdevs, 2);
	assert_string_equal(s.netdevs[0].name, "ens1f0np0");
	assert_string_equal(s.netdevs[0].error, "");
	assert_int_equal(nic_counter_get(&s.netdevs[0].ethtool, "rx_packets")->value, 301234567);
	assert_int_equal(s.n_qps, 8);
	assert_true(s.interval_s == 0);
	nic_free(&s);
}

static void test_rates_over_interval(void **state)
{
	char *root = tree_copy("mlx5");
	const struct nic_counter *c;
	struct nic_state s;

	(void)state;
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, 1 * SEC), 0);
	mlx5_add(root, "np_cnp_sent", 500);
	ethtool_set(root, "ens1f0np0", "rx_prio3_pause", 300, true);
	ethtool_set(root, "ens1f0np0", "rx_packets", 1000000, true);
	assert_int_equal(nic_refresh(&s, 6 * SEC), 0);
	assert_true(s.interval_s == 5.0);
	c = nic_counter_get(&s.ports[0].hw, "np_cnp_sent");
	assert_int_equal(c->value, 5620);
	assert_int_equal(c->delta, 500);
	assert_true(c->per_s == 100.0);
	assert_int_equal(c->flags, 0);
	c = nic_counter_get(&s.ports[0].hw, "np_ecn_marked_roce_packets");
	assert_int_equal(c->delta, 0);
	assert_true(c->per_s == 0);
	c = nic_pfc(&s.netdevs[0], 3, NIC_PFC_RX_PAUSE);
	assert_int_equal(c->value, 1800);
	assert_int_equal(c->delta, 300);
	assert_true(c->per_s == 60.0);
	assert_true(nic_counter_get(&s.netdevs[0].ethtool, "rx_packets")->per_s == 200000.0);
	/* The other port and netdev moved by nothing. */
	assert_int_equal(nic_counter_get(&s.ports[1].hw, "np_cnp_sent")->delta, 0);
	assert_int_equal(nic_pfc(&s.netdevs[1], 3, NIC_PFC_RX_PAUSE)->delta, 0);
	/* A third refresh measures from the second. */
	mlx5_add(root, "np_cnp_sent", 20);
	assert_int_equal(nic_refresh(&s, 8 * SEC), 0);
	c = nic_counter_get(&s.ports[0].hw, "np_cnp_sent");
	assert_int_equal(c->delta, 20);
	assert_true(c->per_s == 10.0);
	nic_free(&s);
	tree_remove(root);
}

static void test_wrap_and_reset(void **state)
{
	char *root = tree_copy("mlx5");
	const struct nic_counter *c;
	struct nic_state s;
	char rel[256];

	(void)state;
	open_tree(&s, root);
	snprintf(rel, sizeof(rel), "%sout_of_sequence", MLX5_HW);
	set_u64(root, rel, 4294967000ULL);
	snprintf(rel, sizeof(rel), "%srx_write_requests", MLX5_HW);
	set_u64(root, rel, 9000000000ULL);
	ethtool_set(root, "ens1f0np0", "rx_prio3_packets", 4294967290ULL, false);
	assert_int_equal(nic_refresh(&s, SEC), 0);

	snprintf(rel, sizeof(rel), "%sout_of_sequence", MLX5_HW);
	set_u64(root, rel, 200);
	snprintf(rel, sizeof(rel), "%srx_write_requests", MLX5_HW);
	set_u64(root, rel, 1234);
	ethtool_set(root, "ens1f0np0", "rx_prio3_packets", 4, false);
	snprintf(rel, sizeof(rel), "%snp_cnp_sent", MLX5_HW); /* 5120 -> 3: cleared */
	set_u64(root, rel, 3);
	assert_int_equal(nic_refresh(&s, 2 * SEC), 0);

	c = nic_counter_get(&s.ports[0].hw, "out_of_sequence");
	assert_int_equal(c->delta, 4294967296ULL - 4294967000ULL + 200);
	assert_int_equal(c->flags, NIC_CNT_WRAPPED);
	c = nic_counter_get(&s.netdevs[0].ethtool, "rx_prio3_packets");
	assert_int_equal(c->delta, 10);
	assert_int_equal(c->flags, NIC_CNT_WRAPPED);
	c = nic_counter_get(&s.ports[0].hw, "rx_write_requests");
	assert_int_equal(c->delta, 1234);
	assert_int_equal(c->flags, NIC_CNT_RESET);
	c = nic_counter_get(&s.ports[0].hw, "np_cnp_sent");
	assert_int_equal(c->delta, 3);
	assert_int_equal(c->flags, NIC_CNT_RESET);
	nic_free(&s);
	tree_remove(root);
}

/* The lines of report_nic_text() that start with prefix, joined by '\n'. */
static char *nic_text_lines(const struct nic_picture *p, const char *prefix)
{
	char *text = NULL, *out = NULL, *line, *save;
	size_t len = 0, olen = 0;
	FILE *f = open_memstream(&text, &len), *o = open_memstream(&out, &olen);

	assert_non_null(f);
	assert_non_null(o);
	report_nic_text(f, p, 0);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, prefix, strlen(prefix)))
			fprintf(o, "%s\n", line);
	fclose(o);
	free(text);
	return out;
}

/*
 * The PFC table marks a counter that wrapped or reset in the interval, as
 * the RDMA counter lines do and JSON's "wraps" and "resets" list them (it
 * marked none: a cleared counter's new count read as the interval's).
 */
static void test_pfc_text_marks_wraps_and_resets(void **state)
{
	char *root = tree_copy("mlx5"), *rows;
	struct nic_picture pic = {.lossless_prio = 3};

	(void)state;
	open_tree(&pic.st, root);
	ethtool_set(root, "ens1f0np0", "rx_prio3_buf_discard", 4294967000ULL, false);
	assert_int_equal(nic_refresh(&pic.st, SEC), 0);
	ethtool_set(root, "ens1f0np0", "rx_prio3_buf_discard", 100, false); /* wrapped: +396 */
	ethtool_set(root, "ens1f0np0", "rx_prio3_pause", 20, false); /* 1500 -> 20: cleared */
	ethtool_set(root, "ens1f0np0", "tx_prio3_pause", 7, false);  /* 600 -> 7 */
	assert_int_equal(nic_refresh(&pic.st, 2 * SEC), 0);
	rows = nic_text_lines(&pic, "ens1f");
	assert_string_equal(
	    rows, "ens1f0np0       3*               20 (20/s)           7 (7.00/s)        "
		  "0%        0%        100          0 (reset: rx_prio3_pause, "
		  "tx_prio3_pause; 32-bit wrap: rx_prio3_buf_discard)\n"
		  "ens1f1np1       3*              1500 (0/s)            600 (0/s)        "
		  "0%        0%          0          0\n");
	free(rows);
	/* The RDMA counter lines mark theirs the same way. */
	set_u64(root, "class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 0);
	assert_int_equal(nic_refresh(&pic.st, 3 * SEC), 0);
	rows = nic_text_lines(&pic, "  np_cnp_sent");
	assert_non_null(strstr(rows, " (reset)\n"));
	free(rows);
	nic_free(&pic.st);
	tree_remove(root);
}

/*
 * A counter reset to 0 moved: the NETDEV line counts it with the others
 * (it said "1 moved" while the PFC row marked two resets), and a netdev
 * without RDMA lists it among the counters that moved.
 */
static void test_moved_counts_resets(void **state)
{
	char *root = tree_copy("mlx5"), *veth = tree_copy(NULL), *rows;
	struct nic_picture pic = {.lossless_prio = 3};

	(void)state;
	open_tree(&pic.st, root);
	assert_int_equal(nic_refresh(&pic.st, SEC), 0);
	ethtool_set(root, "ens1f0np0", "rx_prio3_pause", 10, false); /* 1500 -> 10: reset */
	ethtool_set(root, "ens1f0np0", "tx_prio3_pause", 0, false);  /* 600 -> 0: reset */
	assert_int_equal(nic_refresh(&pic.st, 2 * SEC), 0);
	rows = nic_text_lines(&pic, "NETDEV ens1f0np0");
	assert_string_equal(
	    rows,
	    "NETDEV ens1f0np0: 127 ethtool statistics, 2 moved (PFC above; --json lists all)\n");
	free(rows);
	nic_free(&pic.st);

	write_file(veth, "ethtool/veth0", "NIC statistics:\n     peer_ifindex: 4\n     rx: 9\n");
	open_tree(&pic.st, veth);
	assert_int_equal(nic_refresh(&pic.st, SEC), 0);
	assert_int_equal(nic_refresh(&pic.st, 2 * SEC), 0);
	write_file(veth, "ethtool/veth0", "NIC statistics:\n     peer_ifindex: 4\n     rx: 0\n");
	assert_int_equal(nic_refresh(&pic.st, 3 * SEC), 0);
	rows = nic_text_lines(&pic, "");
	assert_non_null(strstr(rows,
			       "NETDEV veth0: 2 ethtool statistics, 1 moved in the last "
			       "1.0 s\n  rx                                          0          "
			       "0/s (reset)\n"));
	free(rows);
	nic_free(&pic.st);
	tree_remove(root);
	tree_remove(veth);
}

static void test_trailing_space_name(void **state)
{
	char *root = tree_copy("mlx5");
	const struct nic_netdev *nd;
	const struct nic_counter *c;
	struct nic_state s;

	(void)state;
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	nd = nic_netdev_get(&s, "ens1f0np0");
	c = nic_counter_get(&nd->ethtool, "tx_pause_storm_warning_events");
	assert_non_null(c);
	assert_string_equal(c->driver_name, "tx_pause_storm_warning_events");
	assert_int_equal(nd->storm_warning, (int)(c - nd->ethtool.v));
	assert_true(nd->storm_error >= 0);
	assert_null(nic_counter_get(&nd->ethtool, "tx_pause_storm_warning_events "));
	ethtool_set(root, "ens1f0np0", "tx_pause_storm_warning_events", 2, true);
	assert_int_equal(nic_refresh(&s, 2 * SEC), 0);
	nd = nic_netdev_get(&s, "ens1f0np0");
	assert_int_equal(nd->ethtool.v[nd->storm_warning].delta, 2);
	nic_free(&s);
	tree_remove(root);
}

static void test_pfc_extraction_mlx5(void **state)
{
	char path[512];
	const struct nic_netdev *nd;
	struct nic_state s;
	struct nic_opts o = {.root = path};

	(void)state;
	snprintf(path, sizeof(path), "%s/mlx5", fixtures());
	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	nd = nic_netdev_get(&s, "ens1f0np0");
	assert_non_null(nd);
	for (int p = 0; p < NIC_PRIOS; p++) {
		bool lossless = p == 3;

		assert_int_equal(nic_pfc(nd, p, NIC_PFC_RX_PAUSE)->value, lossless ? 1500 : 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_RX_PAUSE_US)->value, lossless ? 30000 : 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_TX_PAUSE)->value, lossless ? 600 : 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_TX_PAUSE_US)->value, lossless ? 12000 : 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_RX_TRANSITIONS)->value, lossless ? 750 : 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_BUF_DISCARD)->value, 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_CONG_DISCARD)->value, 0);
		assert_int_equal(nic_pfc(nd, p, NIC_PFC_MARKED)->value, lossless ? 48211 : 0);
		/* mlx5 counts no transmitted transitions */
		assert_null(nic_pfc(nd, p, NIC_PFC_TX_TRANSITIONS));
	}
	assert_null(nic_pfc(nd, 8, NIC_PFC_RX_PAUSE));
	assert_null(nic_pfc(nd, -1, NIC_PFC_RX_PAUSE));
	/* the table names the JSON contract's keys */
	assert_string_equal(nic_pfc_fields[NIC_PFC_RX_PAUSE].json_key, "rx_pause");
	assert_string_equal(nic_pfc_fields[NIC_PFC_TX_PAUSE_US].json_key, "tx_pause_duration_us");
	nic_free(&s);
}

static void test_bnxt_aliases(void **state)
{
	char path[512];
	const struct nic_netdev *nd;
	const struct nic_port *p;
	const struct nic_counter *c;
	struct nic_state s;
	struct nic_opts o = {.root = path};

	(void)state;
	snprintf(path, sizeof(path), "%s/bnxt", fixtures());
	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_int_equal(s.n_ports, 1);
	p = &s.ports[0];
	assert_string_equal(p->device, "bnxt_re0");
	/* no GID table in this tree: the netdev comes from device/net */
	assert_string_equal(p->netdev, "ens2f0np0");
	assert_false(p->has_gid_addr);
	c = nic_counter_get(&p->hw, "np_cnp_sent");
	assert_non_null(c);
	assert_int_equal(c->value, 800);
	assert_string_equal(c->driver_name, "tx_cnp_pkts");
	assert_int_equal(nic_counter_get(&p->hw, "rp_cnp_handled")->value, 700);
	assert_int_equal(nic_counter_get(&p->hw, "np_ecn_marked_roce_packets")->value, 9000);
	assert_int_equal(nic_counter_get(&p->hw, "out_of_sequence")->value, 11);
	assert_int_equal(nic_counter_get(&p->hw, "packet_seq_err")->value, 4);
	assert_int_equal(nic_counter_get(&p->hw, "local_ack_timeout_err")->value, 1);
	assert_int_equal(nic_counter_get(&p->hw, "duplicate_request")->value, 1);
	assert_int_equal(nic_counter_get(&p->hw, "out_of_buffer")->value, 0);
	assert_null(nic_counter_get(&p->hw, "tx_cnp_pkts"));
	assert_non_null(nic_counter_get(&p->hw, "max_retry_exceeded")); /* unknown: kept */

	nd = nic_netdev_get(&s, "ens2f0np0");
	assert_non_null(nd);
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_RX_PAUSE)->value, 321);
	assert_string_equal(nic_pfc(nd, 3, NIC_PFC_RX_PAUSE)->driver_name,
			    "rx_pfc_ena_frames_pri3");
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_TX_PAUSE)->value, 45);
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_RX_PAUSE_US)->value, 6400);
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_TX_PAUSE_US)->value, 900);
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_RX_TRANSITIONS)->value, 160);
	assert_int_equal(nic_pfc(nd, 3, NIC_PFC_TX_TRANSITIONS)->value, 22);
	assert_int_equal(nic_pfc(nd, 0, NIC_PFC_RX_PAUSE)->value, 0);
	assert_null(nic_pfc(nd, 3, NIC_PFC_BUF_DISCARD));
	assert_int_equal(nd->storm_warning, -1);
	/* rdma -jp: pretty-printed, with driver keys in the objects */
	assert_int_equal(s.n_qps, 2);
	assert_string_equal(s.qps[1].comm, "all_reduce_perf");
	assert_int_equal(s.qps[1].lqpn, 0x10a3);
	assert_string_equal(s.qps[1].netdev, "ens2f0np0");
	/* bnxt_re picks its own source ports: the kernel's formula is not its. */
	roce_predict_qps(&s, NULL, NULL, NULL);
	assert_int_equal(s.qps[1].predicted_sport, 0);
	nic_free(&s);
}

/*
 * A device renamed by udev (rocep2s0f0) is told by the driver bound under
 * it: bnxt_re's QPs get no predicted port, another driver's do.
 */
static void test_sport_scheme_by_driver(void **state)
{
	char *root = tree_copy("bnxt"), from[700], to[600], cmd[1400];
	struct nic_state s;

	(void)state;
	snprintf(from, sizeof(from), "%s/class/infiniband/bnxt_re0", root);
	snprintf(to, sizeof(to), "%s/class/infiniband/rocep2s0f0", root);
	assert_int_equal(rename(from, to), 0);
	snprintf(cmd, sizeof(cmd), "sed -i s/bnxt_re0/rocep2s0f0/ %s/rdma-res-qp.json", root);
	assert_int_equal(system(cmd), 0);
	snprintf(from, sizeof(from), "%s/device/driver", to);
	assert_int_equal(symlink("../../../bus/auxiliary/drivers/mlx5_ib", from), 0);
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	roce_predict_qps(&s, NULL, NULL, NULL);
	assert_string_equal(s.qps[1].device, "rocep2s0f0");
	assert_int_equal(s.qps[1].predicted_sport, roce_udp_sport(0, 4259, 4260));
	nic_free(&s);
	assert_int_equal(unlink(from), 0);
	assert_int_equal(symlink("../../../bus/auxiliary/drivers/bnxt_re", from), 0);
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	roce_predict_qps(&s, NULL, NULL, NULL);
	assert_int_equal(s.qps[1].predicted_sport, 0);
	nic_free(&s);
	tree_remove(root);
}

/* A device with two ports and two netdevs, no GID table: dev_port decides. */
static void test_netdev_by_dev_port(void **state)
{
	char *root = tree_copy(NULL);
	struct nic_state s;

	(void)state;
	write_file(root, "class/infiniband/mlx4_0/ports/1/hw_counters/np_cnp_sent", "1\n");
	write_file(root, "class/infiniband/mlx4_0/ports/2/hw_counters/np_cnp_sent", "2\n");
	write_file(root, "class/infiniband/mlx4_0/ports/notaport/hw_counters/x", "2\n");
	write_file(root, "class/infiniband/mlx4_0/device/net/eth7/ifindex", "7\n");
	write_file(root, "class/infiniband/mlx4_0/device/net/eth6/ifindex", "6\n");
	write_file(root, "class/net/eth7/dev_port", "0\n");
	write_file(root, "class/net/eth6/dev_port", "1\n");
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_int_equal(s.n_ports, 2);
	assert_string_equal(s.ports[0].netdev, "eth7");
	assert_string_equal(s.ports[1].netdev, "eth6");
	/* no ethtool texts in this tree: each netdev says why */
	assert_int_equal(s.n_netdevs, 2);
	assert_non_null(strstr(s.netdevs[0].error, "ethtool/eth6"));
	/* no QP file in a tree with RDMA ports is worth a line */
	assert_non_null(strstr(s.qp_error, "rdma-res-qp.json"));
	nic_free(&s);
	tree_remove(root);
}

/* Odd files are skipped, not fatal; values are trimmed. */
static void test_odd_counter_files(void **state)
{
	char *root = tree_copy(NULL);
	const struct nic_port *p;
	struct nic_state s;

	(void)state;
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/good", "  123  \n");
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/garbage", "12abc\n");
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/empty", "");
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/negative", "-4\n");
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/huge",
		   "18446744073709551616\n");
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/lifespan", "10\n");
	/* A directory among the counters is no counter, readable or not. */
	write_file(root, "class/infiniband/rxe0/ports/1/hw_counters/adir/inside", "7\n");
	write_file(root, "class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "\n");
	write_file(root, "class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "veth0\n");
	write_file(root, "class/infiniband/rxe0/hw_counters/dev_wide", "5\n");
	write_file(root, "ethtool/veth0",
		   "NIC statistics:\n     peer_ifindex: 4\n"
		   "     no value here\n     odd: 12x\n     : 5\n"
		   "     rx_prio5_pause: notanumber\n"
		   "     huge: 18446744073709551616\n\n");
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_int_equal(s.n_ports, 2);
	p = nic_port_get(&s, "rxe0", 0);
	assert_non_null(p);
	assert_int_equal(nic_counter_get(&p->hw, "dev_wide")->value, 5);
	p = nic_port_get(&s, "rxe0", 1);
	assert_non_null(p);
	assert_int_equal(p->hw.n, 1);
	assert_int_equal(nic_counter_get(&p->hw, "good")->value, 123);
	/*
	 * garbage, empty, negative, huge: left out, and counted as such
	 * (lifespan and adir are no counters)
	 */
	assert_int_equal(p->hw.unreadable, 4);
	assert_string_equal(p->netdev, "veth0");
	assert_int_equal(s.n_netdevs, 1);
	assert_int_equal(s.netdevs[0].ethtool.n, 1);
	assert_int_equal(nic_counter_get(&s.netdevs[0].ethtool, "peer_ifindex")->value, 4);
	/*
	 * The ethtool lines that give no counter are counted as the files are
	 * (the header and the blank line are none of them).
	 */
	assert_int_equal(s.netdevs[0].ethtool.unreadable, 5);
	nic_free(&s);
	tree_remove(root);
}

/* A recorded host without RDMA: the one info line, and its netdevs still read. */
static void test_tree_without_rdma(void **state)
{
	char *root = tree_copy(NULL);
	struct nic_state s;

	(void)state;
	write_file(root, "ethtool/veth0", "NIC statistics:\n     peer_ifindex: 4\n");
	open_tree(&s, root);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_string_equal(s.info, "no RDMA devices found");
	assert_string_equal(s.qp_error, "");
	assert_int_equal(s.n_ports, 0);
	assert_int_equal(s.n_qps, 0);
	assert_int_equal(s.n_netdevs, 1);
	assert_string_equal(s.netdevs[0].error, "");
	nic_free(&s);
	tree_remove(root);
}

/*
 * A bundle of NIC counters alone watched no packet: its "RoCE traffic"
 * line says so, and what the NICs counted of RDMA over the run, instead
 * of "no RoCE flows" as if packets had been watched and none was RoCE.
 */
static void test_nic_only_span(void **state)
{
	char *root = tree_copy("mlx5"), *bnxt = tree_copy("bnxt"), span[320];
	struct source_desc nic_only = {.mode = "nic"}, replay = {.mode = "replay"};
	struct snapshot snap = {0};
	struct nic_picture pic = {0};
	struct report r = {.snap = &snap, .src = &nic_only, .nic = &pic};

	(void)state;
	open_tree(&pic.st, root);
	assert_int_equal(nic_refresh(&pic.st, 1 * SEC), 0);
	assert_string_equal(report_span(&r, span, sizeof(span)),
			    "no packets watched (NIC counters only); the NICs count 602000000 RDMA "
			    "packets received and 596000000 sent since their counters started "
			    "(rx/tx_vport_rdma_unicast_packets)");
	ethtool_set(root, "ens1f0np0", "rx_vport_rdma_unicast_packets", 1000, true);
	ethtool_set(root, "ens1f1np1", "tx_vport_rdma_unicast_packets", 2500, true);
	assert_int_equal(nic_refresh(&pic.st, 6 * SEC), 0);
	assert_string_equal(
	    report_span(&r, span, sizeof(span)),
	    "no packets watched (NIC counters only); the NICs counted 1000 RDMA "
	    "packets received and 2500 sent in the whole 5.0 s, 602001000 and "
	    "596002500 since their counters started (rx/tx_vport_rdma_unicast_packets)");
	/* The same picture beside packets: the flows' span, none here. */
	r.src = &replay;
	assert_string_equal(report_span(&r, span, sizeof(span)), "no RoCE flows");
	r.src = &nic_only;
	nic_free(&pic.st);

	/* bnxt has neither count; no NIC read at all. */
	open_tree(&pic.st, bnxt);
	assert_int_equal(nic_refresh(&pic.st, 1 * SEC), 0);
	assert_non_null(strstr(report_span(&r, span, sizeof(span)),
			       "no packets watched (NIC counters only); they hold no count of RDMA "
			       "packets"));
	nic_free(&pic.st);
	r.nic = NULL;
	assert_string_equal(
	    report_span(&r, span, sizeof(span)),
	    "no packets watched (NIC counters only), and no NIC counters were read");
	tree_remove(root);
	tree_remove(bnxt);
}

/* Rename ROOT/FROM to ROOT/TO: 0 or -1. */
static int rename_in(const char *root, const char *from, const char *to)
{
	char a[1024], b[1024];

	snprintf(a, sizeof(a), "%s/%s", root, from);
	snprintf(b, sizeof(b), "%s/%s", root, to);
	return rename(a, b);
}

/* Remove ROOT/REL and everything under it: a device that goes away. */
static void subtree_remove(const char *root, const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/*
 * An RDMA device that goes away while fabprobe runs (a driver reload, a
 * function reset, a hot unplug) is said, not silently left out: the
 * ports read earlier and missing now are named in info until they come
 * back; with every one gone, info is no longer the plain "no RDMA devices
 * found" of a host that never had one, and a NIC-only bundle's span line
 * does not claim no NIC counter was ever read.
 */
static void test_port_gone_said(void **state)
{
	char *root = tree_copy("mlx5"), span[320];
	struct source_desc nic_only = {.mode = "nic"};
	struct snapshot snap = {0};
	struct nic_picture pic = {0};
	struct report r = {.snap = &snap, .src = &nic_only, .nic = &pic};
	struct nic_state *s = &pic.st;

	(void)state;
	open_tree(s, root);
	assert_int_equal(nic_refresh(s, 1 * SEC), 0);
	assert_string_equal(s->info, "");
	subtree_remove(root, "class/infiniband/mlx5_1");
	assert_int_equal(nic_refresh(s, 2 * SEC), 0);
	assert_int_equal(s->n_ports, 1);
	assert_string_equal(s->info, "RDMA port gone since an earlier read: mlx5_1/1 (ens1f1np1)");
	/* Said as long as it stays away, not for one refresh only. */
	assert_int_equal(nic_refresh(s, 3 * SEC), 0);
	assert_string_equal(s->info, "RDMA port gone since an earlier read: mlx5_1/1 (ens1f1np1)");
	subtree_remove(root, "class/infiniband/mlx5_0");
	assert_int_equal(nic_refresh(s, 4 * SEC), 0);
	assert_int_equal(s->n_ports, 0);
	assert_string_equal(s->info, "no RDMA devices found (RDMA ports gone since an earlier "
				     "read: mlx5_0/1 (ens1f0np0), mlx5_1/1 (ens1f1np1))");
	subtree_remove(root, "ethtool");
	assert_int_equal(nic_refresh(s, 5 * SEC), 0);
	assert_int_equal(s->n_netdevs, 0);
	assert_string_equal(report_span(&r, span, sizeof(span)),
			    "no packets watched (NIC counters only), and no RDMA devices found "
			    "(RDMA ports gone since an earlier read: mlx5_0/1 (ens1f0np0), "
			    "mlx5_1/1 (ens1f1np1))");
	nic_free(s);
	tree_remove(root);

	/* Back again: nothing is said any more. */
	root = tree_copy("mlx5");
	open_tree(s, root);
	assert_int_equal(nic_refresh(s, 1 * SEC), 0);
	assert_int_equal(rename_in(root, "class/infiniband/mlx5_1", "mlx5_1.away"), 0);
	assert_int_equal(nic_refresh(s, 2 * SEC), 0);
	assert_non_null(strstr(s->info, "mlx5_1/1"));
	assert_int_equal(rename_in(root, "mlx5_1.away", "class/infiniband/mlx5_1"), 0);
	assert_int_equal(nic_refresh(s, 3 * SEC), 0);
	assert_int_equal(s->n_ports, 2);
	assert_string_equal(s->info, "");
	nic_free(s);
	tree_remove(root);
}

/* ---- the QP table -------------------------------------------------------- */

static bool peer_10_0_2_3(void *ctx, const struct nic_qp *q, __u8 dst[16], bool *v6)
{
	(void)ctx;
	(void)q;
	inet_pton(AF_INET, "10.0.2.3", dst);
	*v6 = false;
	return true;
}

static void test_qp_table_json(void **state)
{
	char path[512];
	struct hash_config hc;
	const struct nic_qp *q;
	struct nic_state s;
	struct nic_opts o = {.root = path};
	__u8 src[16] = {0}, dst[16] = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/mlx5", fixtures());
	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_int_equal(s.n_qps, 8);
	q = &s.qps[0];
	assert_string_equal(q->device, "mlx5_0");
	assert_int_equal(q->type, NIC_QPT_SMI);
	assert_true(q->kernel);
	assert_false(q->has_pid);
	assert_string_equal(q->comm, "ib_core");
	q = &s.qps[2];
	assert_int_equal(q->lqpn, 0x11);
	assert_int_equal(q->rqpn, 0x22);
	assert_true(q->has_rqpn);
	assert_int_equal(q->type, NIC_QPT_RC);
	assert_string_equal(nic_qp_state_name(q->state), "RTS");
	assert_int_equal(q->rq_psn, 9301);
	assert_int_equal(q->sq_psn, 88412);
	assert_int_equal(q->pid, 41001);
	assert_false(q->kernel);
	assert_string_equal(q->comm, "ib_write_bw");
	assert_string_equal(q->netdev, "ens1f0np0");
	assert_int_equal(q->pdn, 3);
	q = &s.qps[7]; /* not bound to a port yet, comm with escapes */
	assert_int_equal(q->port, 0);
	assert_string_equal(q->netdev, "");
	assert_string_equal(q->comm, "nccl \"ring\" \xc3\xa9");
	assert_string_equal(nic_qp_type_name(s.qps[5].type), "UD");

	/* ports: only connected RC/UC QPs */
	hash_config_default(&hc);
	hc.n_paths = 8;
	roce_predict_qps(&s, &hc, peer_10_0_2_3, NULL);
	assert_int_equal(s.qps[2].predicted_sport, 49730);
	assert_int_equal(s.qps[3].predicted_sport, 49178); /* 0x1234 x 0x5678 */
	assert_int_equal(s.qps[4].predicted_sport, 0);	   /* INIT, no remote QP */
	assert_int_equal(s.qps[5].predicted_sport, 0);	   /* UD */
	assert_int_equal(s.qps[1].predicted_sport, 0);	   /* GSI */
	assert_int_equal(s.qps[7].predicted_sport, 0);	   /* RESET */
	inet_pton(AF_INET, "10.0.1.2", src);
	inet_pton(AF_INET, "10.0.2.3", dst);
	assert_int_equal(s.qps[2].predicted_path,
			 (int)roce_qp_path(&hc, src, dst, false, 0x11, 0x22));
	assert_int_equal(s.qps[4].predicted_path, -1);
	/* flows seen anywhere, matched to the QP (and process) by port and dest QP */
	{
		struct flow_key k = {.sport = 49730, .dport = 4791, .dest_qp = 0x22};
		bool out = false;

		memcpy(k.src, src, 16); /* leaving this host: from the port's address */
		memcpy(k.dst, dst, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), 2);
		assert_true(out);
		/* The peer's requests, or its ACKs: to the port's address. */
		k.dest_qp = 0x11;
		memcpy(k.src, dst, 16);
		memcpy(k.dst, src, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), 2);
		assert_false(out);
		/* Another host's QP pair with the same numbers and port: not ours. */
		memcpy(k.dst, dst, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), -1);
		k.dest_qp = 0x33;
		assert_int_equal(roce_match_flow(&s, &k, &out), -1);
		k = (struct flow_key){.sport = 49731, .dest_qp = 0x22};
		memcpy(k.src, src, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), -1);
		k = (struct flow_key){.sport = 49178, .dest_qp = 0x5678};
		memcpy(k.src, src, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), 3);
		assert_string_equal(s.qps[3].comm, "python3");
		/*
		 * Both ends with one QP number (hosts started alike): each way is
		 * told by its own address, the arriving one too.
		 */
		s.qps[2].rqpn = s.qps[2].lqpn;
		roce_predict_qps(&s, &hc, peer_10_0_2_3, NULL);
		k = (struct flow_key){.sport = s.qps[2].predicted_sport, .dest_qp = s.qps[2].lqpn};
		memcpy(k.src, src, 16);
		memcpy(k.dst, dst, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), 2);
		assert_true(out);
		memcpy(k.src, dst, 16);
		memcpy(k.dst, src, 16);
		assert_int_equal(roce_match_flow(&s, &k, &out), 2);
		assert_false(out);
		s.qps[2].rqpn = 0x22;
	}
	/* without a peer or a model: ports, no paths */
	roce_predict_qps(&s, NULL, NULL, NULL);
	assert_int_equal(s.qps[2].predicted_sport, 49730);
	assert_int_equal(s.qps[2].predicted_path, -1);
	nic_free(&s);
}

static void test_qp_json_refused(void **state)
{
	static const char *const bad[] = {
	    "{}",
	    "[1]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":-1,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":4294967296,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1.5,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RD\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"UNKNOWN\"}]",
	    "[{\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":5,\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\",\"pid\":\"7\"}]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\",\"comm\":7}]",
	    /* the hns driver-details bug: keys outside the object */
	    "[ {\"ifname\":\"hns_1\",\"lqpn\":1,\"type\":\"GSI\",\"state\":\"RTS\"},"
	    " \"drv_sq_wqe_cnt\": 128 ]",
	    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\"},]",
	};
	struct nic_state s;
	char why[NIC_MSG_LEN];

	(void)state;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (!nic_qp_parse_json(&s, bad[i], strlen(bad[i]), why, sizeof(why)))
			fail_msg("accepted: %s", bad[i]);
		assert_true(why[0] != '\0');
		assert_int_equal(s.n_qps, 0); /* all or nothing */
	}
	/* Valid, with an empty array and unknown keys of any type. */
	assert_int_equal(nic_qp_parse_json(&s, "[]", 2, why, sizeof(why)), 0);
	assert_int_equal(s.n_qps, 0);
	{
		const char *ok =
		    "[{\"ifname\":\"mlx5_0\",\"lqpn\":1,\"type\":\"RC\",\"state\":\"RTS\","
		    "\"drv\":{\"a\":[1,2,{}]},\"x\":null}]";

		assert_int_equal(nic_qp_parse_json(&s, ok, strlen(ok), why, sizeof(why)), 0);
		assert_int_equal(s.n_qps, 1);
	}
	free(s.qps);

	/* Through a tree: the refresh says which file and why, and keeps going. */
	{
		char *root = tree_copy("mlx5");
		struct nic_state t;

		write_file(root, "rdma-res-qp.json", "[{\"ifname\":\"mlx5_0\"}]\n");
		open_tree(&t, root);
		assert_int_equal(nic_refresh(&t, SEC), 0);
		assert_int_equal(t.n_qps, 0);
		assert_non_null(strstr(t.qp_error, "rdma-res-qp.json"));
		assert_non_null(strstr(t.qp_error, "entry 0"));
		assert_int_equal(t.n_ports, 2);
		nic_free(&t);
		tree_remove(root);
	}
}

/* ---- recording a state and reading it back ---------------------------- */

static void assert_same_counters(const struct nic_counters *a, const struct nic_counters *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->v[i].name, b->v[i].name);
		assert_string_equal(a->v[i].driver_name, b->v[i].driver_name);
		assert_true(a->v[i].value == b->v[i].value);
	}
}

/* What nic_record() wrote is what a refresh reads back. */
static void assert_same_state(const struct nic_state *a, const struct nic_state *b)
{
	assert_int_equal(a->n_ports, b->n_ports);
	for (size_t i = 0; i < a->n_ports; i++) {
		const struct nic_port *x = &a->ports[i], *y = &b->ports[i];

		assert_string_equal(x->device, y->device);
		assert_int_equal(x->port, y->port);
		assert_string_equal(x->netdev, y->netdev);
		assert_string_equal(x->link_layer, y->link_layer);
		assert_int_equal(x->has_gid_addr, y->has_gid_addr);
		assert_int_equal(x->gid_v6, y->gid_v6);
		assert_memory_equal(x->gid_addr, y->gid_addr, 16);
		assert_same_counters(&x->hw, &y->hw);
		assert_same_counters(&x->pma, &y->pma);
	}
	assert_int_equal(a->n_netdevs, b->n_netdevs);
	for (size_t i = 0; i < a->n_netdevs; i++) {
		assert_string_equal(a->netdevs[i].name, b->netdevs[i].name);
		assert_same_counters(&a->netdevs[i].ethtool, &b->netdevs[i].ethtool);
		assert_memory_equal(a->netdevs[i].pfc, b->netdevs[i].pfc,
				    sizeof(a->netdevs[i].pfc));
	}
	assert_int_equal(a->n_qps, b->n_qps);
	for (size_t i = 0; i < a->n_qps; i++)
		assert_memory_equal(&a->qps[i], &b->qps[i], sizeof(a->qps[i]));
	assert_string_equal(a->info, b->info);
}

static void test_record_reads_back(void **state)
{
	static const char *const trees[] = {"mlx5", "bnxt"};

	(void)state;
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		char path[512], *out = tree_copy(NULL);
		struct nic_state a, b;

		snprintf(path, sizeof(path), "%s/%s", fixtures(), trees[t]);
		open_tree(&a, path);
		assert_int_equal(nic_refresh(&a, SEC), 0);
		assert_int_equal(nic_record_dir(&a, out), 0);
		open_tree(&b, out);
		assert_int_equal(nic_refresh(&b, SEC), 0);
		assert_same_state(&a, &b);
		nic_free(&a);
		nic_free(&b);
		tree_remove(out);
	}
}

struct put_count {
	int calls, fail_at;
	bool saw_qps, saw_ethtool;
};

static int count_put(void *ctx, const char *path, const void *data, size_t len)
{
	struct put_count *c = ctx;

	(void)data;
	(void)len;
	c->saw_qps |= !strcmp(path, "rdma-res-qp.json");
	c->saw_ethtool |= !strncmp(path, "ethtool/", 8);
	if (++c->calls == c->fail_at)
		return -ENOSPC;
	return 0;
}

/* The bundle's writer gets every file through the callback, and its errors back. */
static void test_record_through_callback(void **state)
{
	char path[512];
	struct nic_state s;
	struct put_count c = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/mlx5", fixtures());
	open_tree(&s, path);
	assert_int_equal(nic_refresh(&s, SEC), 0);
	assert_int_equal(nic_record(&s, count_put, &c), 0);
	/* 28 + 21 counters and link_layer, 2 ndevs, gid, type per port; 2 ethtool; QPs */
	assert_int_equal(c.calls, 2 * (28 + 21 + 1 + 2 + 2) + 2 + 1);
	assert_true(c.saw_qps && c.saw_ethtool);
	c = (struct put_count){.fail_at = 7};
	assert_int_equal(nic_record(&s, count_put, &c), -ENOSPC);
	assert_int_equal(c.calls, 7);
	nic_free(&s);
}

/* ---- RDMA netlink, messages built per <rdma/rdma_netlink.h> ------------ */

struct qp_msg {
	bool no_dev_name, empty_dev_name, short_lqpn, unterminated_name, entry_without_lqpn,
	    nested_flag, bad_attr_len;
};

static struct nlmsghdr *build_qp_msg(char *buf, const struct qp_msg *m)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *table, *entry, *drv;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
	nlh->nlmsg_flags = NLM_F_MULTI;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	if (m->unterminated_name)
		mnl_attr_put(nlh, RDMA_NLDEV_ATTR_DEV_NAME, 6, "mlx5_2");
	else if (!m->no_dev_name)
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, m->empty_dev_name ? "" : "mlx5_2");
	/* an attribute newer than any uapi: ignored */
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX + 7, 1);
	table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
	if (!m->nested_flag)
		table->nla_type &= ~NLA_F_NESTED; /* the kernel nests "noflag" */

	entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!m->nested_flag)
		entry->nla_type &= ~NLA_F_NESTED;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	if (m->short_lqpn)
		mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 0x11);
	else
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 0x11);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 9);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 4242);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQPN, 0x22);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, 77);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 88);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, NIC_QPT_RC);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	drv = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_DRIVER); /* driver details: skipped */
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "sq_wqe_cnt");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DRIVER_U32, 128);
	mnl_attr_nest_end(nlh, drv);
	mnl_attr_nest_end(nlh, entry);

	entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!m->nested_flag)
		entry->nla_type &= ~NLA_F_NESTED;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	if (!m->entry_without_lqpn)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, NIC_QPT_GSI);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	if (m->bad_attr_len) /* a u8 attribute 2 bytes long */
		mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	mnl_attr_nest_end(nlh, entry);
	mnl_attr_nest_end(nlh, table);
	return nlh;
}

static void test_netlink_qp_messages(void **state)
{
	char buf[4096];
	struct nic_state s;
	const struct nic_qp *q;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){0})), 0);
	assert_int_equal(s.n_qps, 2);
	q = &s.qps[0];
	assert_string_equal(q->device, "mlx5_2");
	assert_int_equal(q->port, 1);
	assert_int_equal(q->lqpn, 0x11);
	assert_int_equal(q->rqpn, 0x22);
	assert_true(q->has_rqpn);
	assert_int_equal(q->rq_psn, 77);
	assert_true(q->has_rq_psn);
	assert_int_equal(q->sq_psn, 88);
	assert_int_equal(q->pid, 4242);
	assert_true(q->has_pid);
	assert_int_equal(q->pdn, 9);
	assert_int_equal(q->type, NIC_QPT_RC);
	assert_int_equal(q->state, 3);
	assert_false(q->kernel);
	q = &s.qps[1];
	assert_int_equal(q->lqpn, 1);
	assert_int_equal(q->type, NIC_QPT_GSI);
	assert_true(q->kernel);
	assert_false(q->has_pid);
	assert_false(q->has_rqpn);
	assert_string_equal(q->comm, "ib_core");
	/* NLA_F_NESTED set on the nests, as nla_nest_start() does: the same. */
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.nested_flag = true})), 0);
	assert_int_equal(s.n_qps, 4);

	/* Refused, and a refused message adds nothing. */
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.no_dev_name = true})),
	    -EINVAL);
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.empty_dev_name = true})),
	    -EINVAL); /* found by fuzz_nic */
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.short_lqpn = true})),
	    -EINVAL);
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.unterminated_name = true})),
	    -EINVAL);
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.entry_without_lqpn = true})),
	    -EINVAL);
	assert_int_equal(
	    nic_qp_parse_nlmsg(&s, build_qp_msg(buf, &(struct qp_msg){.bad_attr_len = true})),
	    -EINVAL);
	assert_int_equal(s.n_qps, 4);
	/* A message cut short: its attributes stop where the buffer does. */
	{
		struct nlmsghdr *nlh = build_qp_msg(buf, &(struct qp_msg){0});
		unsigned int full = nlh->nlmsg_len;

		for (unsigned int len = sizeof(*nlh); len < full; len += 4) {
			nlh->nlmsg_len = len;
			nic_qp_parse_nlmsg(&s, nlh); /* must not read past len */
		}
	}
	free(s.qps);
}

/* ---- alerts -------------------------------------------------------------- */

struct alerts {
	struct alert *v;
	size_t n, cap;
};

static void detect(const struct nic_state *s, const struct nic_detect_opts *o, struct alerts *a)
{
	a->n = 0;
	assert_int_equal(nic_detect(s, o, &a->v, &a->n, &a->cap), 0);
}

static const struct alert *find_alert(const struct alerts *a, enum alert_type t)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].type == t)
			return &a->v[i];
	return NULL;
}

/*
 * One change to a fresh copy of a tree: refresh (t = 1 s), change, refresh
 * (t = 6 s) and expect exactly `want` (or nothing when want is 0), with
 * `words` in the message; refresh again unchanged (t = 11 s): cleared.
 */
struct alert_case {
	const char *what;
	const char *tree;
	void (*change)(const char *root);
	enum alert_type want; /* 0: no alert */
	enum severity sev;
	const char *words[3];
	int lossless_prio;
	const char *evidence; /* in the alert's evidence, when given */
};

static void ch_rx_pause_60(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_pause_duration", 3000000, true);
	ethtool_set(r, "ens1f0np0", "rx_prio3_pause", 9000, true);
}
/* 16.6 s of pause in a 5 s interval: counters that jump. */
static void ch_rx_pause_332(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_pause_duration", 16600000, true);
}
static void ch_rx_pause_40(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_pause_duration", 2000000, true);
}
static void ch_tx_pause_90(const char *r)
{
	ethtool_set(r, "ens1f0np0", "tx_prio3_pause_duration", 4500000, true);
}
static void ch_storm_warning(const char *r)
{
	ethtool_set(r, "ens1f0np0", "tx_pause_storm_warning_events", 1, true);
}
static void ch_storm_error(const char *r)
{
	ethtool_set(r, "ens1f0np0", "tx_pause_storm_error_events", 1, true);
}
static void ch_pause_prio5(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio5_pause", 10, true);
}
static void ch_buf_discard_prio3(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_buf_discard", 4, true);
}
static void ch_cong_discard_prio3(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_cong_discard", 2, true);
}
static void ch_buf_discard_prio2(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio2_buf_discard", 4, true);
}
/* mlx5's port-level discards of a priority (5.6+), beside the per-host ones. */
static void ch_port_discard_prio3(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_discards", 6, true);
}
static void ch_port_and_buf_discard_prio3(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio3_discards", 6, true);
	ethtool_set(r, "ens1f0np0", "rx_prio3_cong_discard", 2, true);
}
static void ch_port_discard_prio2(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio2_discards", 6, true);
}
static void ch_port_discard_prio5(const char *r)
{
	ethtool_set(r, "ens1f0np0", "rx_prio5_discards", 3, true);
}
static void ch_marks_no_cnp(const char *r)
{
	mlx5_add(r, "np_ecn_marked_roce_packets", 500);
}
static void ch_marks_and_cnp(const char *r)
{
	mlx5_add(r, "np_ecn_marked_roce_packets", 500);
	mlx5_add(r, "np_cnp_sent", 5);
}
static void ch_few_marks(const char *r)
{
	mlx5_add(r, "np_ecn_marked_roce_packets", 50);
}
static void ch_cnp_ignored(const char *r)
{
	mlx5_add(r, "rp_cnp_ignored", 7);
}
static void ch_cnp_handled_and_ignored(const char *r)
{
	mlx5_add(r, "rp_cnp_ignored", 7);
	mlx5_add(r, "rp_cnp_handled", 70);
}
static void ch_oos_10(const char *r)
{
	mlx5_add(r, "out_of_sequence", 6);
	mlx5_add(r, "packet_seq_err", 3);
	mlx5_add(r, "implied_nak_seq_err", 1);
}
static void ch_oos_3(const char *r)
{
	mlx5_add(r, "out_of_sequence", 3);
}
static void ch_ack_timeout(const char *r)
{
	mlx5_add(r, "local_ack_timeout_err", 1);
}
static void ch_rnr_100(const char *r)
{
	mlx5_add(r, "rnr_nak_retry_err", 100);
}
static void ch_rnr_20(const char *r)
{
	mlx5_add(r, "rnr_nak_retry_err", 20);
}
static void ch_bnxt_oos(const char *r)
{
	add_u64(r, "class/infiniband/bnxt_re0/ports/1/hw_counters/oos_drop_count", 50);
}
static void ch_bnxt_pause(const char *r)
{
	ethtool_set(r, "ens2f0np0", "pfc_pri3_rx_duration_us", 4000000, true);
}
static void ch_bnxt_cnp(const char *r)
{
	add_u64(r, "class/infiniband/bnxt_re0/ports/1/hw_counters/rx_ecn_marked_pkts", 1000);
}
static void ch_nothing(const char *r)
{
	(void)r;
}

#define RAISES(w, t, ch, type, sv, ...)                                                            \
	{                                                                                          \
		.what = w, .tree = t, .change = ch, .want = type, .sev = sv, .words = {            \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}
#define QUIET(w, t, ch)                                                                            \
	{                                                                                          \
		.what = w, .tree = t, .change = ch                                                 \
	}

static const struct alert_case alert_cases[] = {
    RAISES("pause 60% received", "mlx5", ch_rx_pause_60, ALERT_PFC_STORM, SEV_CRITICAL,
	   "ens1f0np0 priority 3", "60%", "in the last 5 s"),
    QUIET("pause 40%: below the share", "mlx5", ch_rx_pause_40),
    RAISES("pause past the interval: 100%", "mlx5", ch_rx_pause_332, ALERT_PFC_STORM, SEV_CRITICAL,
	   "paused 100% of the time", "the switch pauses this NIC"),
    RAISES("pause 90% sent", "mlx5", ch_tx_pause_90, ALERT_PFC_STORM, SEV_CRITICAL, "90%",
	   "this host's NIC pauses", "priority 3"),
    RAISES("storm warning", "mlx5", ch_storm_warning, ALERT_PFC_STORM, SEV_WARNING, "ens1f0np0",
	   "watermark", "in the last 5 s"),
    RAISES("storm error", "mlx5", ch_storm_error, ALERT_PFC_STORM, SEV_CRITICAL, "stopped pausing",
	   "in the last 5 s"),
    RAISES("pause on priority 5", "mlx5", ch_pause_prio5, ALERT_PFC_WRONG_PRIORITY, SEV_WARNING,
	   "priority 5", "lossless priority 3", "in the last 5 s"),
    {.what = "pause on 5 with --data-pcp 5",
     .tree = "mlx5",
     .change = ch_pause_prio5,
     .lossless_prio = 5},
    RAISES("buffer discards on 3", "mlx5", ch_buf_discard_prio3, ALERT_LOSSLESS_DISCARDS,
	   SEV_CRITICAL, "4 packets", "lossless priority 3", "in the last 5 s"),
    RAISES("congestion discards on 3", "mlx5", ch_cong_discard_prio3, ALERT_LOSSLESS_DISCARDS,
	   SEV_CRITICAL, "2 packets", "congestion control"),
    QUIET("buffer discards on 2", "mlx5", ch_buf_discard_prio2),
    {.what = "port discards on 3",
     .tree = "mlx5",
     .change = ch_port_discard_prio3,
     .want = ALERT_LOSSLESS_DISCARDS,
     .sev = SEV_CRITICAL,
     .words = {"6 packets", "lossless priority 3", "receive buffer overflowed"},
     .evidence = "rx_prio3_discards +6, rx_prio3_buf_discard +0, rx_prio3_cong_discard +0"},
    {.what = "port and congestion discards on 3",
     .tree = "mlx5",
     .change = ch_port_and_buf_discard_prio3,
     .want = ALERT_LOSSLESS_DISCARDS,
     .sev = SEV_CRITICAL,
     .words = {"8 packets", "receive buffer overflowed"},
     .evidence = "rx_prio3_discards +6, rx_prio3_buf_discard +0, rx_prio3_cong_discard +2"},
    QUIET("port discards on 2, not lossless", "mlx5", ch_port_discard_prio2),
    QUIET("port discards on 5, not lossless", "mlx5", ch_port_discard_prio5),
    {.what = "port discards on 5 with --data-pcp 5",
     .tree = "mlx5",
     .change = ch_port_discard_prio5,
     .want = ALERT_LOSSLESS_DISCARDS,
     .sev = SEV_CRITICAL,
     .words = {"3 packets", "lossless priority 5"},
     .lossless_prio = 5,
     .evidence = "rx_prio5_discards +3, rx_prio5_buf_discard +0"},
    RAISES("marks, no CNP", "mlx5", ch_marks_no_cnp, ALERT_NIC_CNP_MISMATCH, SEV_CRITICAL,
	   "mlx5_0/1 (ens1f0np0)", "500 ECN-marked", "no CNP"),
    QUIET("marks and CNPs", "mlx5", ch_marks_and_cnp),
    QUIET("few marks", "mlx5", ch_few_marks),
    RAISES("CNPs ignored", "mlx5", ch_cnp_ignored, ALERT_NIC_CNP_MISMATCH, SEV_WARNING, "7 CNPs",
	   "handled none", "in the last 5 s"),
    QUIET("CNPs handled and ignored", "mlx5", ch_cnp_handled_and_ignored),
    RAISES("sequence errors 2/s", "mlx5", ch_oos_10, ALERT_NIC_SEQ_ERRORS, SEV_WARNING, "mlx5_0/1",
	   "2.0 sequence errors per second", "in the last 5 s"),
    QUIET("sequence errors 0.6/s", "mlx5", ch_oos_3),
    RAISES("ACK timeout", "mlx5", ch_ack_timeout, ALERT_NIC_ACK_TIMEOUTS, SEV_WARNING,
	   "1 ACK timeouts", "in the last 5 s"),
    RAISES("RNR 20/s", "mlx5", ch_rnr_100, ALERT_NIC_RNR_RETRIES, SEV_WARNING,
	   "20.0 RNR NAKs per second", "in the last 5 s"),
    QUIET("RNR 4/s", "mlx5", ch_rnr_20),
    RAISES("bnxt sequence errors", "bnxt", ch_bnxt_oos, ALERT_NIC_SEQ_ERRORS, SEV_WARNING,
	   "bnxt_re0/1 (ens2f0np0)", "10.0 sequence errors"),
    RAISES("bnxt pause 80%", "bnxt", ch_bnxt_pause, ALERT_PFC_STORM, SEV_CRITICAL,
	   "ens2f0np0 priority 3", "80%"),
    RAISES("bnxt marks, no CNP", "bnxt", ch_bnxt_cnp, ALERT_NIC_CNP_MISMATCH, SEV_CRITICAL,
	   "bnxt_re0/1", "1000 ECN-marked"),
    QUIET("nothing changed", "mlx5", ch_nothing),
};

static void test_alerts_raised_and_cleared(void **state)
{
	struct alerts a = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(alert_cases) / sizeof(alert_cases[0]); i++) {
		const struct alert_case *c = &alert_cases[i];
		char *root = tree_copy(c->tree);
		struct nic_detect_opts o;
		struct nic_state s;
		const struct alert *al;

		nic_detect_opts_default(&o);
		if (c->lossless_prio)
			o.lossless_prio = c->lossless_prio;
		open_tree(&s, root);
		assert_int_equal(nic_refresh(&s, 1 * SEC), 0);
		detect(&s, &o, &a);
		if (a.n)
			fail_msg("%s: an alert before any interval: %s", c->what, a.v[0].message);
		c->change(root);
		assert_int_equal(nic_refresh(&s, 6 * SEC), 0);
		detect(&s, &o, &a);
		if (!c->want && a.n)
			fail_msg("%s: unexpected %s: %s", c->what, alert_type_name(a.v[0].type),
				 a.v[0].message);
		if (c->want) {
			if (a.n != 1)
				fail_msg("%s: %zu alerts, want one %s", c->what, a.n,
					 alert_type_name(c->want));
			al = find_alert(&a, c->want);
			if (!al)
				fail_msg("%s: %s instead of %s", c->what,
					 alert_type_name(a.v[0].type), alert_type_name(c->want));
			assert_int_equal(al->severity, c->sev);
			assert_int_equal(al->path, -1);
			assert_int_equal(al->n_flows, 0);
			assert_true(al->evidence[0] != '\0');
			for (int w = 0; w < 3 && c->words[w]; w++)
				if (!strstr(al->message, c->words[w]))
					fail_msg("%s: no \"%s\" in: %s", c->what, c->words[w],
						 al->message);
			if (c->evidence && !strstr(al->evidence, c->evidence))
				fail_msg("%s: no \"%s\" in the evidence: %s", c->what, c->evidence,
					 al->evidence);
		}
		/* unchanged counters: the alert clears */
		assert_int_equal(nic_refresh(&s, 11 * SEC), 0);
		detect(&s, &o, &a);
		if (a.n)
			fail_msg("%s: not cleared: %s", c->what, a.v[0].message);
		nic_free(&s);
		tree_remove(root);
	}
	free(a.v);
}

/* ---- the live system --------------------------------------------------- */

/* This host has no RDMA device: one line, exactly, and no QP error. */
static void test_live_without_rdma(void **state)
{
	struct nic_state s;
	struct nic_opts o = {0};

	(void)state;
	if (!access("/sys/class/infiniband", F_OK))
		skip();
	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, 0), 0);
	assert_string_equal(s.info, "no RDMA devices found");
	assert_string_equal(NIC_NO_RDMA, "no RDMA devices found");
	assert_string_equal(s.qp_error, "");
	assert_int_equal(s.n_ports, 0);
	assert_int_equal(s.n_qps, 0);
	nic_free(&s);
}

/* A netdev that does not exist: its error says so, the refresh goes on. */
static void test_live_missing_netdev(void **state)
{
	const char *names[] = {"fpn-nonexist"};
	struct nic_opts o = {.netdevs = names, .n_netdevs = 1};
	struct nic_state s;

	(void)state;
	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, 0), 0);
	assert_int_equal(s.n_netdevs, 1);
	assert_int_equal(s.netdevs[0].ethtool.n, 0);
	assert_non_null(strstr(s.netdevs[0].error, "fpn-nonexist"));
	nic_free(&s);
}

/*
 * tests/nic/veth.sh runs this in a namespace with a veth pair, and gives
 * the netdev, its peer's ifindex and what `ethtool -S` printed for it.
 */
static void test_live_veth_against_ethtool(void **state)
{
	const char *ifname = getenv("FP_NIC_VETH"), *peer = getenv("FP_NIC_VETH_PEER_IFINDEX");
	const char *dump = getenv("FP_NIC_VETH_ETHTOOL");
	struct nic_counters want = {0};
	const struct nic_netdev *nd;
	struct nic_state s;
	struct nic_opts o;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	if (!ifname || !peer || !dump)
		skip();
	o = (struct nic_opts){.netdevs = &ifname, .n_netdevs = 1};
	f = fopen(dump, "r");
	assert_non_null(f);
	text = malloc(1 << 16);
	len = fread(text, 1, (1 << 16) - 1, f);
	fclose(f);
	assert_int_equal(nic_ethtool_parse_text(&want, text, len), 0);
	free(text);

	assert_int_equal(nic_init(&s, &o), 0);
	assert_int_equal(nic_refresh(&s, 0), 0);
	if (access("/sys/class/infiniband", F_OK))
		assert_string_equal(s.info, "no RDMA devices found");
	nd = nic_netdev_get(&s, ifname);
	assert_non_null(nd);
	assert_string_equal(nd->error, "");
	assert_int_equal(nic_counter_get(&nd->ethtool, "peer_ifindex")->value, atoi(peer));
	/* every counter ethtool printed, with its value (veth's do not move here) */
	assert_int_equal(nd->ethtool.n, want.n);
	for (size_t i = 0; i < want.n; i++) {
		const struct nic_counter *c = nic_counter_get(&nd->ethtool, want.v[i].name);

		if (!c)
			fail_msg("ethtool printed %s, the ioctl read lacks it", want.v[i].name);
		assert_int_equal(c->value, want.v[i].value);
	}
	/* recorded, the tree reads back with the same statistics */
	{
		char *out = tree_copy(NULL);
		struct nic_state back;
		const struct nic_netdev *rd;

		assert_int_equal(nic_record_dir(&s, out), 0);
		open_tree(&back, out);
		assert_int_equal(nic_refresh(&back, SEC), 0);
		rd = nic_netdev_get(&back, ifname);
		assert_non_null(rd);
		assert_same_counters(&nd->ethtool, &rd->ethtool);
		nic_free(&back);
		tree_remove(out);
	}
	/* and a second refresh gives rates over a real interval */
	usleep(20000);
	assert_int_equal(nic_refresh(&s, 0), 0);
	assert_true(s.interval_s > 0.015);
	nd = nic_netdev_get(&s, ifname);
	assert_int_equal(nic_counter_get(&nd->ethtool, "peer_ifindex")->flags, 0);
	nic_free(&s);
	nic_counters_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counter_delta_rule),
	    cmocka_unit_test(test_canonical_names),
	    cmocka_unit_test(test_mlx5_tree),
	    cmocka_unit_test(test_rates_over_interval),
	    cmocka_unit_test(test_wrap_and_reset),
	    cmocka_unit_test(test_trailing_space_name),
	    cmocka_unit_test(test_pfc_extraction_mlx5),
	    cmocka_unit_test(test_bnxt_aliases),
	    cmocka_unit_test(test_sport_scheme_by_driver),
	    cmocka_unit_test(test_netdev_by_dev_port),
	    cmocka_unit_test(test_odd_counter_files),
	    cmocka_unit_test(test_tree_without_rdma),
	    cmocka_unit_test(test_qp_table_json),
	    cmocka_unit_test(test_qp_json_refused),
	    cmocka_unit_test(test_record_reads_back),
	    cmocka_unit_test(test_record_through_callback),
	    cmocka_unit_test(test_netlink_qp_messages),
	    cmocka_unit_test(test_nic_only_span),
	    cmocka_unit_test(test_port_gone_said),
	    cmocka_unit_test(test_pfc_text_marks_wraps_and_resets),
	    cmocka_unit_test(test_moved_counts_resets),
	    cmocka_unit_test(test_alerts_raised_and_cleared),
	    cmocka_unit_test(test_live_without_rdma),
	    cmocka_unit_test(test_live_missing_netdev),
	    cmocka_unit_test(test_live_veth_against_ethtool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
