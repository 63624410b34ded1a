// SPDX-License-Identifier: GPL-2.0
/* fixture_dump.c - fixture frames to pcap and TSV, captures to totals (fixture_dump.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <pcap/pcap.h>

#include "fixture.h"
#include "fixture_dump.h"
#include "source/pcap.h"

#define FRAME_MAX 65536

static struct dump_job {
	const char *dir;
	const char *name;
	const struct frame *frames;
	const char *const *labels;
	size_t n;
} g_job;

static struct replay_job {
	int n;
	char **files;
} g_replay;

static const char *class_of(const __u64 *t)
{
	if (t[FP_CNT_ROCE])
		return "roce";
	if (t[FP_CNT_MALFORMED])
		return "malformed";
	return "other";
}

static void addr_text(char *out, size_t len, const __u8 *a, bool v6)
{
	inet_ntop(v6 ? AF_INET6 : AF_INET, a, out, len);
}

/* The switch as the key holds it: an IPv4 address, or an IPv6 address's digest. */
static void mirror_src_text(char *out, size_t len, const struct flow_key *k)
{
	if (k->flags & FP_FLOW_MIRROR_IPV6)
		snprintf(out, len, "digest:%08x", k->mirror_src);
	else
		inet_ntop(AF_INET, &k->mirror_src, out, len);
}

static void write_flow(FILE *tsv, const struct flow_record *r)
{
	const struct flow_key *k = &r->key;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], is[INET6_ADDRSTRLEN] = "",
						       id[INET6_ADDRSTRLEN] = "", ms[32] = "";

	addr_text(s, sizeof(s), k->src, k->flags & FP_FLOW_IPV6);
	addr_text(d, sizeof(d), k->dst, k->flags & FP_FLOW_IPV6);
	if (k->flags & FP_FLOW_VXLAN) {
		addr_text(is, sizeof(is), k->inner_src, k->flags & FP_FLOW_INNER_IPV6);
		addr_text(id, sizeof(id), k->inner_dst, k->flags & FP_FLOW_INNER_IPV6);
	}
	if (k->mirror)
		mirror_src_text(ms, sizeof(ms), k);
	fprintf(tsv,
		"\t%s\t%s\t%u\t%u\t%u\t%s\t%s\t%u\t%u\t%u\t%#x\t%u\t%u\t%s\t%llu\t%llu\t%u\t%u", s,
		d, k->sport, k->dport, k->vni, is, id, k->inner_sport, k->inner_dport, k->dest_qp,
		k->flags, k->mirror, k->mirror_id, ms, (unsigned long long)r->c.bytes,
		(unsigned long long)r->c.acks, r->c.vlan, r->c.vlan_tagged);
}

static const char tsv_header[] =
    "index\tlabel\twire_len\tclass\tmirrored\ttruncated\troce_cut\tnot_eth\tvxlan\tflows"
    "\tsrc\tdst\tsport\tdport\tvni\tinner_src\tinner_dst\tinner_sport\tinner_dport\tdest_qp"
    "\tflags\tmirror\tmirror_id\tmirror_src\tbytes\tacks\tvlan\tvlan_tagged\n";

static void test_dump(void **state)
{
	char path[512];
	pcap_t *dead =
	    pcap_open_dead_with_tstamp_precision(DLT_EN10MB, FRAME_MAX, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *pcap;
	FILE *tsv;

	(void)state;
	assert_non_null(dead);
	snprintf(path, sizeof(path), "%s/%s.pcap", g_job.dir, g_job.name);
	pcap = pcap_dump_open(dead, path);
	assert_non_null(pcap);
	snprintf(path, sizeof(path), "%s/%s.tsv", g_job.dir, g_job.name);
	tsv = fopen(path, "w");
	assert_non_null(tsv);
	fputs(tsv_header, tsv);
	for (size_t i = 0; i < g_job.n; i++) {
		const struct frame *f = &g_job.frames[i];
		struct pcap_pkthdr h = {.caplen = f->len, .len = fr_wire_len(f)};
		const __u64 *t;

		/* Timestamps 1 s apart, so tshark's frame numbers follow the file. */
		h.ts.tv_sec = 1700000000 + i;
		pcap_dump((u_char *)pcap, &h, f->data);

		load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
		assert_int_equal(probe_run_frame(&g_probe, f->data, f->len, fr_wire_len(f),
						 f->ts_ns, f->path_id),
				 0);
		assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
		t = g_snap.totals;
		assert_true(g_snap.n_flows <= 1);
		fprintf(tsv, "%zu\t%s\t%u\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%zu", i + 1,
			g_job.labels[i], fr_wire_len(f), class_of(t),
			(unsigned long long)t[FP_CNT_MIRRORED],
			(unsigned long long)t[FP_CNT_MIRROR_TRUNCATED],
			(unsigned long long)t[FP_CNT_MIRROR_ROCE_CUT],
			(unsigned long long)t[FP_CNT_MIRROR_NOT_ETH],
			(unsigned long long)t[FP_CNT_VXLAN], g_snap.n_flows);
		if (g_snap.n_flows)
			write_flow(tsv, &g_snap.flows[0]);
		fputc('\n', tsv);
	}
	pcap_dump_close(pcap);
	pcap_close(dead);
	assert_int_equal(fclose(tsv), 0);
}

int fx_dump_frames(const char *dir, const char *name, const struct frame *frames,
		   const char *const *labels, size_t n)
{
	g_job =
	    (struct dump_job){.dir = dir, .name = name, .frames = frames, .labels = labels, .n = n};
	fx_add("dump/", name, test_dump, NULL);
	return fx_run_all(name);
}

/* One capture through XDP into empty maps. */
static void replay_one(const char *file)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	static __u8 frame[FRAME_MAX];
	struct pcap_pkthdr *hdr;
	const __u8 *data;
	__u64 skipped = 0;
	const __u64 *t;
	pcap_t *pc;
	int rc;

	load(&g_probe, NULL, FX_FLOWS, PROBE_HOOK_XDP);
	pc = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc)
		fail_msg("%s: %s", file, errbuf);
	while ((rc = pcap_next_ex(pc, &hdr, &data)) == 1) {
		size_t len =
		    replay_to_ethernet(pcap_datalink(pc), data, hdr->caplen, frame, sizeof(frame));
		__u32 wire = (__u32)(hdr->len - hdr->caplen + len);
		int err;

		if (len < 14) {
			skipped++;
			continue;
		}
		err = probe_run_frame(&g_probe, frame, len, wire, 0, FX_PATH);
		if (err == -EINVAL) {
			skipped++;
			continue;
		}
		assert_int_equal(err, 0);
	}
	assert_int_equal(rc, PCAP_ERROR_BREAK);
	pcap_close(pc);
	assert_int_equal(collect_snapshot(&g_probe, &g_snap), 0);
	t = g_snap.totals;
	printf(
	    "TOTALS {\"file\": \"%s\", \"frames\": %llu, \"roce\": %llu, \"other\": %llu, "
	    "\"malformed\": %llu, \"vxlan\": %llu, \"mirrored\": %llu, \"mirror_truncated\": %llu, "
	    "\"mirror_roce_cut\": %llu, \"mirror_not_eth\": %llu, \"flows\": %zu, "
	    "\"skipped\": %llu}\n",
	    file, (unsigned long long)t[FP_CNT_FRAMES], (unsigned long long)t[FP_CNT_ROCE],
	    (unsigned long long)t[FP_CNT_OTHER], (unsigned long long)t[FP_CNT_MALFORMED],
	    (unsigned long long)t[FP_CNT_VXLAN], (unsigned long long)t[FP_CNT_MIRRORED],
	    (unsigned long long)t[FP_CNT_MIRROR_TRUNCATED],
	    (unsigned long long)t[FP_CNT_MIRROR_ROCE_CUT],
	    (unsigned long long)t[FP_CNT_MIRROR_NOT_ETH], g_snap.n_flows,
	    (unsigned long long)skipped);
	fflush(stdout);
}

static void test_replay_captures(void **state)
{
	(void)state;
	for (int i = 0; i < g_replay.n; i++)
		replay_one(g_replay.files[i]);
}

int fx_replay_totals(int n_files, char **files)
{
	g_replay = (struct replay_job){.n = n_files, .files = files};
	fx_add("replay/", "captures", test_replay_captures, NULL);
	return fx_run_all("replay");
}
