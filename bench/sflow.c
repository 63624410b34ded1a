// SPDX-License-Identifier: GPL-2.0
/*
 * sflow.c - the sFlow v5 decoder alone (source/sflow_decode.c): no socket,
 * no BPF. Datagrams are built with the test encoder (tests/lib/sflow_enc.c)
 * as switches send them, in two mixes:
 *   flow      6 compact flow samples, each a 128-byte sampled header
 *             (Ethernet/IPv4/UDP/VXLAN/.../BTH) and an extended_switch record
 *   counters  7 expanded counter samples, each generic + ethernet counters
 * Each mix is 256 distinct datagrams decoded round robin, on one pinned CPU.
 *
 * Figures: datagrams/s and samples/s for
 *   memcpy      copy each datagram's bytes (baseline: touching the same bytes)
 *   validate    sflow_decode with no visitor (checks and counts)
 *   decode      sflow_decode with a visitor that reads what the session needs
 *               (rate, output port, header bytes and length, octets)
 * all in the same run; median of the trials.
 *
 *   sflow [-n DATAGRAMS] [-t TRIALS]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sflow_enc.h"
#include "source/sflow_decode.h"

#define RING	   256
#define DGRAM_MAX  1500
#define MAX_TRIALS 15

struct ring {
	__u8 data[RING][DGRAM_MAX];
	size_t len[RING];
	__u32 samples; /* per datagram */
	size_t bytes;  /* per datagram, on average */
};

/* What a session reads from each sample: kept so the compiler cannot drop it. */
struct sink {
	__u64 rate, port, header_bytes, octets, samples;
};

static void on_flow_sample(void *ctx, const struct sflow_flow_sample *s)
{
	struct sink *k = ctx;

	k->rate += s->sampling_rate;
	k->port += s->output.value;
	k->samples++;
}

static void on_sampled_header(void *ctx, const struct sflow_flow_sample *s,
			      const struct sflow_sampled_header *h)
{
	struct sink *k = ctx;

	(void)s;
	k->header_bytes +=
	    h->header_length + (h->header_length ? h->header[h->header_length - 1] : 0);
}

static void on_counter_sample(void *ctx, const struct sflow_counter_sample *s)
{
	struct sink *k = ctx;

	(void)s;
	k->samples++;
}

static void on_if_counters(void *ctx, const struct sflow_counter_sample *s,
			   const struct sflow_if_counters *c)
{
	struct sink *k = ctx;

	(void)s;
	k->octets += c->in_octets + c->out_octets + c->out_discards;
}

static const struct sflow_visitor visitor = {
    .flow_sample = on_flow_sample,
    .sampled_header = on_sampled_header,
    .counter_sample = on_counter_sample,
    .if_counters = on_if_counters,
};

static void header_bytes(__u8 *h, __u32 seed)
{
	/* A plausible VXLAN RoCE header; only its length matters to the decoder. */
	for (int i = 0; i < 128; i++)
		h[i] = (__u8)(seed * 31 + i * 7);
	h[12] = 0x08;
	h[13] = 0x00;
}

static void build_flow(struct ring *r)
{
	struct sflow_addr agent = sfe_ipv4("192.0.2.1");
	static const __u8 ext_switch[16] = {0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 10};
	__u8 hdr[128];
	size_t total = 0;

	for (__u32 d = 0; d < RING; d++) {
		struct sfe e;

		sfe_init(&e, r->data[d], DGRAM_MAX);
		sfe_datagram(&e, &agent, 0, d + 1, d * 10);
		for (__u32 s = 0; s < 6; s++) {
			header_bytes(hdr, d * 6 + s);
			sfe_flow_sample(&e, &(struct sfe_flow){.sequence = d * 6 + s,
							       .source = {0, 1 + s % 4},
							       .sampling_rate = 4096,
							       .sample_pool = (d * 6 + s) * 4096,
							       .input = sfe_ifindex(1 + s % 4),
							       .output = sfe_ifindex(49 + s % 2)});
			sfe_sampled_header(&e, SFLOW_HEADER_ETHERNET, 4158, 4, hdr, sizeof(hdr));
			sfe_record(&e, 0, 1001, ext_switch, sizeof(ext_switch));
		}
		r->len[d] = sfe_end(&e);
		if (!r->len[d] || sflow_decode(r->data[d], r->len[d], NULL, NULL, NULL)) {
			fprintf(stderr, "sflow bench: bad flow datagram\n");
			exit(1);
		}
		total += r->len[d];
	}
	r->samples = 6;
	r->bytes = total / RING;
}

static void build_counters(struct ring *r)
{
	struct sflow_addr agent = sfe_ipv4("192.0.2.2");
	static const __u8 ethernet[52];
	size_t total = 0;

	for (__u32 d = 0; d < RING; d++) {
		struct sfe e;

		sfe_init(&e, r->data[d], DGRAM_MAX);
		sfe_datagram(&e, &agent, 1, d + 1, d * 10);
		for (__u32 s = 0; s < 7; s++) {
			struct sflow_if_counters c = {.if_index = 1 + s,
						      .if_type = 6,
						      .if_speed = 400000000000ULL,
						      .if_status = 3,
						      .in_octets = (__u64)d << 30 | s,
						      .out_octets = (__u64)d << 31 | s};

			sfe_counter_sample(&e, true, d, &(struct sflow_source){0, 1 + s});
			sfe_if_counters(&e, &c);
			sfe_record(&e, 0, 2, ethernet, sizeof(ethernet));
		}
		r->len[d] = sfe_end(&e);
		if (!r->len[d] || sflow_decode(r->data[d], r->len[d], NULL, NULL, NULL)) {
			fprintf(stderr, "sflow bench: bad counter datagram\n");
			exit(1);
		}
		total += r->len[d];
	}
	r->samples = 7;
	r->bytes = total / RING;
}

enum mode { MODE_MEMCPY, MODE_VALIDATE, MODE_DECODE };

/* Seconds to process n datagrams of the ring in the given mode. */
static double run(const struct ring *r, enum mode mode, __u64 n, struct sink *k)
{
	static __u8 copy[DGRAM_MAX];
	__u64 t0 = bench_now_ns();

	for (__u64 i = 0; i < n; i++) {
		__u32 d = i % RING;

		switch (mode) {
		case MODE_MEMCPY:
			memcpy(copy, r->data[d], r->len[d]);
			/* The copy is used: the compiler may not drop it. */
			__asm__ volatile("" : : "r"(copy) : "memory");
			break;
		case MODE_VALIDATE:
			if (sflow_decode(r->data[d], r->len[d], NULL, NULL, NULL))
				abort();
			break;
		case MODE_DECODE:
			if (sflow_decode(r->data[d], r->len[d], &visitor, k, NULL))
				abort();
			break;
		}
	}
	return (bench_now_ns() - t0) / 1e9;
}

static void measure(const char *mix, const struct ring *r, __u64 n, int trials)
{
	static const char *const names[] = {"memcpy of the bytes", "validate (no visitor)",
					    "decode (visitor)"};
	double per_s[3][MAX_TRIALS], med[3];
	struct sink k = {};
	char section[64], value[64], base[64], vs[64];

	for (int t = 0; t < trials; t++)
		for (int m = 0; m < 3; m++) /* modes interleaved: drift hits them alike */
			per_s[m][t] = n / run(r, m, n, &k);
	for (int m = 0; m < 3; m++)
		med[m] = bench_median(per_s[m], trials);
	if (k.samples != (__u64)trials * n * r->samples)
		fprintf(stderr, "sflow bench: visitor saw %llu samples, expected %llu\n",
			(unsigned long long)k.samples, (unsigned long long)trials * n * r->samples);

	snprintf(section, sizeof(section), "sflow decode, %s mix (%u samples, %zu B)", mix,
		 r->samples, r->bytes);
	snprintf(base, sizeof(base), "%.2f M dgram/s memcpy", med[MODE_MEMCPY] / 1e6);
	for (int m = 0; m < 3; m++) {
		snprintf(value, sizeof(value), "%.2f M dgram/s, %.1f M samples/s", med[m] / 1e6,
			 med[m] * r->samples / 1e6);
		snprintf(vs, sizeof(vs), "%.0f ns/dgram, %.1fx memcpy time", 1e9 / med[m],
			 med[MODE_MEMCPY] / med[m]);
		bench_row(section, names[m], value, m == MODE_MEMCPY ? "-" : base,
			  m == MODE_MEMCPY ? "baseline" : vs,
			  m == MODE_DECODE ? ">= 500 k samples/s (issue 15, with BPF)" : "-",
			  m == MODE_DECODE
			      ? (med[m] * r->samples >= 500000 ? "met (decode only)" : "MISSED")
			      : "-");
	}
}

int main(int argc, char **argv)
{
	__u64 n = 1000000;
	int trials = 5, c;
	struct ring *r;

	while ((c = getopt(argc, argv, "n:t:")) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 't':
			trials = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n DATAGRAMS] [-t TRIALS]\n", argv[0]);
			return 2;
		}
	}
	if (n == 0 || trials < 1 || trials > MAX_TRIALS) {
		fprintf(stderr, "sflow bench: -n > 0, 1 <= -t <= %d\n", MAX_TRIALS);
		return 2;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	bench_pin_last_cpu();
	build_flow(r);
	measure("flow", r, n, trials);
	build_counters(r);
	measure("counters", r, n, trials);
	bench_note("sflow: one pinned CPU, %d trials of %llu datagrams per mode, modes "
		   "interleaved, median; 256 distinct datagrams round robin; no socket, no BPF",
		   trials, (unsigned long long)n);
	free(r);
	return 0;
}
