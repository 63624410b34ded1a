// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_source.c - the sFlow source end to end (source/sflow.c): samples
 * decoded and run through the BPF program per second on one CPU and on
 * every core, what each part costs, and the listener's loss at a fixed
 * datagram rate.
 *
 * Datagrams as a switch sends them: 6 compact flow samples each, a 128-byte
 * Ethernet/IPv4/UDP/BTH header per sample, 1024 distinct flows over 8
 * output ports, sampling rate 1000.
 *
 *   run-only    probe_run_frame on the same headers, one BPF_PROG_TEST_RUN
 *               each: the floor of "no second parser" (baseline); and in
 *               fp_replay's batches (a pool of one thread), as the source
 *               runs them
 *   userspace   decode + Ethernet adapter + rate id, no BPF
 *   source      the source reading a capture of the datagrams: pcap, UDP
 *               payload, decode, run, as `replay --sflow` does; with
 *               one worker, it and the reading thread on one CPU, then
 *               with its default workers (probe/runpool.c) on every CPU
 *   listener    a sender thread (sendmmsg, paced) at RATE datagrams/s for
 *               2 s to the source's UDP socket on loopback; datagrams
 *               decoded vs sent, the kernel's drops (SO_RXQ_OVFL), 1- and
 *               6-sample datagrams
 *
 *   sflow_source [-n DATAGRAMS] [-r RATE]     (root: loads BPF)
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bench.h"
#include "../tests/lib/frames.h" /* the test frame builder, not bench/frames.h */
#include "sflow_enc.h"
#include "probe/collect.h"
#include "probe/probe.h"
#include "probe/runpool.h"
#include "source/pcap.h"
#include "source/sflow.h"
#include "source/sflow_decode.h"
#include "source/sflow_ports.h"
#include "util/stop.h"

#ifndef EMPTY_OBJ
#define EMPTY_OBJ "build/bench/empty.bpf.o"
#endif
#define RING	  256
#define DGRAM_MAX 1500
#define FLOWS	  1024

static __u8 dgrams[RING][DGRAM_MAX];
static size_t dlen[RING];
static __u8 headers[FLOWS][128];

static void build(int per_dgram)
{
	struct sflow_addr agent = sfe_ipv4("192.0.2.1");
	struct frame f;
	struct sfe e;
	__u32 seq = 0;

	for (int q = 0; q < FLOWS; q++) {
		fr_init(&f);
		fr_eth(&f, 0x0800);
		fr_ipv4(&f, &(struct fr_ip){
				.src = "10.0.0.1", .dst = "10.0.1.1", .dscp = 26, .ecn = FR_ECT0});
		fr_udp(&f, 49152 + q, 4791);
		fr_bth(&f, &(struct fr_bth){.opcode = 0x07, .dest_qp = 0x100 + q, .psn = q});
		fr_payload(&f, 4096);
		fr_icrc(&f);
		fr_finish(&f);
		memcpy(headers[q], f.data, 128);
	}
	for (int d = 0; d < RING; d++) {
		sfe_init(&e, dgrams[d], DGRAM_MAX);
		sfe_datagram(&e, &agent, 0, ++seq, d);
		for (int s = 0; s < per_dgram; s++) {
			int q = (d * per_dgram + s) % FLOWS;

			sfe_flow_sample(&e, &(struct sfe_flow){.sequence = d * per_dgram + s,
							       .source = {0, 1},
							       .sampling_rate = 1000,
							       .sample_pool = 1000 * (d + 1),
							       .input = sfe_ifindex(1),
							       .output = sfe_ifindex(49 + q % 8)});
			sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 4158, 4, headers[q], 128);
		}
		dlen[d] = sfe_end(&e);
	}
}

/* The userspace part of a sample, without the BPF run. */
struct us_ctx {
	struct sflow_ports ports;
	__u8 frame[256];
	__u64 sink;
};

static void us_header(void *ctx, const struct sflow_flow_sample *s,
		      const struct sflow_sampled_header *h)
{
	struct us_ctx *c = ctx;

	c->sink += replay_to_ethernet(1 /* DLT_EN10MB */, h->header, h->header_length, c->frame,
				      sizeof(c->frame));
	c->sink +=
	    sflow_ports_rate_id(&c->ports, &s->datagram->agent, &s->output, s->sampling_rate);
}

static double per_s(__u64 n, __u64 ns)
{
	return ns ? n * 1e9 / ns : 0;
}

/* The same runs of the empty XDP_PASS program: what the syscall and test context cost. */
static double empty_runs(__u64 n)
{
	struct bpf_object *obj = bpf_object__open_file(EMPTY_OBJ, NULL);
	struct bpf_program *prog;
	__u64 t0;
	int fd;

	if (!obj || bpf_object__load(obj))
		return 0;
	prog = bpf_object__next_program(obj, NULL);
	fd = bpf_program__fd(prog);
	t0 = bench_now_ns();
	for (__u64 i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = headers[i % FLOWS],
			    .data_size_in = 128, .repeat = 1);
		bpf_prog_test_run_opts(fd, &o);
	}
	t0 = bench_now_ns() - t0;
	bpf_object__close(obj);
	return per_s(n, t0);
}

/* A pcap file (microsecond, Ethernet) of n datagrams to port 6343, written by hand. */
static int write_capture(const char *path, __u64 n)
{
	static const __u32 global[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	static __u8 frame[DGRAM_MAX + 42];
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(global, sizeof(global), 1, f);
	for (__u64 i = 0; i < n; i++) {
		size_t len = dlen[i % RING];
		__u32 rec[4] = {1700000000 + i / 100000, i % 100000 * 10, len + 42, len + 42};

		memset(frame, 0, 42);
		frame[12] = 0x08;
		frame[14] = 0x45;
		frame[16] = (len + 28) >> 8;
		frame[17] = (len + 28) & 0xff;
		frame[23] = 17;
		frame[36] = 6343 >> 8;
		frame[37] = 6343 & 0xff;
		frame[38] = (len + 8) >> 8;
		frame[39] = (len + 8) & 0xff;
		memcpy(frame + 42, dgrams[i % RING], len);
		fwrite(rec, sizeof(rec), 1, f);
		fwrite(frame, len + 42, 1, f);
	}
	return fclose(f);
}

struct sender {
	int port, per_dgram;
	double rate;
	double seconds;
	__u64 sent;
};

static void *send_loop(void *arg)
{
	struct sender *s = arg;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(s->port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	__u64 t0 = bench_now_ns(), total = (__u64)(s->rate * s->seconds);
	struct mmsghdr m[32];
	struct iovec iov[32];

	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	while (s->sent < total) {
		__u64 due = t0 + (__u64)(s->sent * 1e9 / s->rate);
		int n = 0;

		while (bench_now_ns() < due)
			;
		for (; n < 32 && s->sent + n < total; n++) {
			int d = (s->sent + n) % RING;

			/* Sequence numbers in order (IPv4 agent: at byte 16): gaps are counted. */
			*(__u32 *)(dgrams[d] + 16) = htonl((__u32)(s->sent + n + 1));
			iov[n] = (struct iovec){.iov_base = dgrams[d], .iov_len = dlen[d]};
			m[n] = (struct mmsghdr){.msg_hdr = {.msg_name = &to,
							    .msg_namelen = sizeof(to),
							    .msg_iov = &iov[n],
							    .msg_iovlen = 1}};
		}
		n = sendmmsg(fd, m, n, 0);
		if (n <= 0)
			break;
		s->sent += n;
	}
	close(fd);
	return NULL;
}

static void listener(double rate, int per_dgram)
{
	struct sender snd = {
	    .port = 16343 + per_dgram, .per_dgram = per_dgram, .rate = rate, .seconds = 2};
	struct sflow_opts o;
	struct snapshot snap = {};
	struct source *src;
	char addr[32], v[64], b[64];
	pthread_t th;

	build(per_dgram);
	sflow_opts_init(&o);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", snd.port);
	o.listen = addr;
	src = sflow_source_new(&o);
	if (!src || src->ops->start(src)) {
		fprintf(stderr, "sflow_source: cannot start the listener\n");
		exit(1);
	}
	pthread_create(&th, NULL, send_loop, &snd);
	src->ops->advance(src, snd.seconds + 1.0);
	pthread_join(th, NULL);
	src->ops->advance(src, 0.5);
	src->ops->collect(src, &snap);
	snprintf(v, sizeof(v), "%llu of %llu decoded",
		 (unsigned long long)snap.totals[SNAP_CNT_SFLOW_DATAGRAMS],
		 (unsigned long long)snd.sent);
	snprintf(b, sizeof(b), "%llu socket drops, %llu lost by sequence",
		 (unsigned long long)snap.totals[SNAP_CNT_SFLOW_SOCKET_DROPS],
		 (unsigned long long)snap.totals[SNAP_CNT_SFLOW_LOST]);
	{
		char fig[96];

		snprintf(fig, sizeof(fig), "listener %.0fk datagrams/s, %d sample%s each",
			 rate / 1e3, per_dgram, per_dgram == 1 ? "" : "s");
		bench_row("sflow source", fig, v, b, "-", "no datagram lost",
			  snap.totals[SNAP_CNT_SFLOW_DATAGRAMS] == snd.sent ? "met" : "MISSED");
	}
	snapshot_free(&snap);
	src->ops->destroy(src);
}

int main(int argc, char **argv)
{
	__u64 n = 200000, t0, samples;
	struct probe_opts po = PROBE_OPTS_DEFAULT;
	struct probe p = {};
	struct us_ctx *us = calloc(1, sizeof(*us));
	struct sflow_visitor vis = {.sampled_header = us_header};
	struct snapshot snap = {};
	struct sflow_opts o;
	struct source *src;
	char path[] = "/tmp/fabprobe-bench-sflow-XXXXXX";
	double run_ps, batch_ps, us_ps, src_ps, src_all_ps = 0, empty_ps, rate = 100000;
	struct runpool *rp;
	char v[64], b[64], vs[32];
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = strtoull(optarg, NULL, 10);
		else if (opt == 'r')
			rate = atof(optarg);
	}
	bench_pin_last_cpu();
	build(6);
	samples = n * 6;

	/* run-only: one BPF_PROG_TEST_RUN per sample, the same headers */
	po.replay = true;
	po.hooks = PROBE_HOOK_XDP;
	if (probe_load(&p, &po))
		return 1;
	t0 = bench_now_ns();
	for (__u64 i = 0; i < samples; i++)
		probe_run_frame(&p, headers[i % FLOWS], 128, 4154, i, 1 + i % 8);
	run_ps = per_s(samples, bench_now_ns() - t0);
	probe_destroy(&p);
	empty_ps = empty_runs(samples);
	/* the same, in batches through replay's own entry point */
	po.hooks = PROBE_HOOK_REPLAY;
	if (probe_load(&p, &po))
		return 1;
	rp = runpool_new(&p, 1);
	if (!rp)
		return 1;
	t0 = bench_now_ns();
	for (__u64 i = 0; i < samples; i++)
		runpool_submit(rp, 0, headers[i % FLOWS], 128, 4154, i, 1 + i % 8, i);
	runpool_drain(rp);
	batch_ps = per_s(samples, bench_now_ns() - t0);
	runpool_free(rp);
	probe_destroy(&p);

	/* userspace: decode, adapter, rate id */
	sflow_ports_init(&us->ports);
	t0 = bench_now_ns();
	for (__u64 i = 0; i < n; i++)
		sflow_decode(dgrams[i % RING], dlen[i % RING], &vis, us, NULL);
	us_ps = per_s(samples, bench_now_ns() - t0);
	sflow_ports_free(&us->ports);

	/* the source on a capture of n datagrams: all on one CPU, then every core */
	fd = mkstemp(path);
	close(fd);
	write_capture(path, n);
	for (int pass = 0; pass < 2; pass++) {
		double ps;

		sflow_opts_init(&o);
		o.capture = path;
		o.threads = pass ? 0 : 1;
		if (pass)
			bench_unpin();
		src = sflow_source_new(&o);
		if (!src || src->ops->start(src))
			return 1;
		t0 = bench_now_ns();
		while (src->ops->advance(src, 1e12) == 0)
			;
		/* collect waits for the workers: every sample has run */
		src->ops->collect(src, &snap);
		ps = per_s(samples, bench_now_ns() - t0);
		if (snap.totals[FP_CNT_ROCE] != samples)
			fprintf(stderr, "sflow_source: %llu of %llu samples ran\n",
				(unsigned long long)snap.totals[FP_CNT_ROCE],
				(unsigned long long)samples);
		src->ops->destroy(src);
		if (pass)
			src_all_ps = ps;
		else
			src_ps = ps;
	}
	bench_pin_last_cpu();
	unlink(path);
	snapshot_free(&snap);

	snprintf(b, sizeof(b), "%.0f k/s run-only", run_ps / 1e3);
	snprintf(v, sizeof(v), "%.0f k samples/s", us_ps / 1e3);
	snprintf(vs, sizeof(vs), "%.1fx", us_ps / run_ps);
	bench_row("sflow source", "userspace part: decode + adapter + rate id", v, b, vs, "-", "-");
	snprintf(v, sizeof(v), "%.0f k samples/s", src_ps / 1e3);
	snprintf(vs, sizeof(vs), "%.0f%%", 100 * src_ps / run_ps);
	bench_row("sflow source", "source end to end (capture, one CPU)", v, b, vs, "-", "-");
	snprintf(v, sizeof(v), "%.0f k samples/s", src_all_ps / 1e3);
	snprintf(b, sizeof(b), "%.0f k/s on one CPU", src_ps / 1e3);
	snprintf(vs, sizeof(vs), "%.2fx", src_all_ps / src_ps);
	bench_row("sflow source", "source end to end (capture, every core: --threads default)", v,
		  b, vs, ">= 500 k samples/s", src_all_ps >= 500000 ? "met" : "MISSED");
	snprintf(b, sizeof(b), "%.0f k/s run-only", run_ps / 1e3);
	snprintf(v, sizeof(v), "%.0f k samples/s", batch_ps / 1e3);
	snprintf(vs, sizeof(vs), "%.1fx", batch_ps / run_ps);
	bench_row("sflow source", "run-only in fp_replay's batches (one thread)", v, b, vs, "-",
		  "-");
	bench_note(
	    "sflow source: per sample %.0f ns in all on one CPU. A sample alone takes %.0f ns "
	    "of BPF_PROG_TEST_RUN (%.0f ns of it the same run of an empty XDP_PASS program: "
	    "syscall and test context); in fp_replay's batches, %.0f ns. Decoding, adapting and "
	    "finding the rate id: %.0f ns; the rest is reading the capture",
	    1e9 / src_ps, 1e9 / run_ps, empty_ps > 0 ? 1e9 / empty_ps : 0, 1e9 / batch_ps,
	    1e9 / us_ps);
	listener(rate, 1);
	listener(rate, 6);
	/* What six-sample datagrams sustain: the run-only floor over six, with margin. */
	listener(rate / 2, 6);
	return 0;
}
