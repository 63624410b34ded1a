// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_scenario - a small fabric's sFlow, crafted with the test encoder,
 * and the generator's own count of what it holds: the ground truth the
 * sFlow source is checked against (tests/sflow/scenario.py).
 *
 * Two leaves. leaf1 (agent 192.0.2.1, IPv4) has uplinks 49-52 in group
 * "leaf1" (51 and 52 idle), two elephants on 49 (a collision), a mouse,
 * a VXLAN flow and a raw-IPv4 (protocol 11) flow on 50, a flow to a
 * downlink named by its port name record only (10, "swp10"), and a flow
 * the switch dropped. leaf2 (agent 2001:db8::2, IPv6) has uplinks 49-50
 * in group "leaf2" with two elephants each (no room: no collision, even
 * though leaf1's idle uplinks have room) and a raw-IPv6 (protocol 12)
 * flow. One elephant's sampling rate doubles half way. Sequence numbers
 * skip 3 datagrams of leaf1 and 1 of leaf2. Every uplink sends counter
 * samples each second.
 *
 *   sflow_scenario pcap OUT.pcap EXPECT.json MAP    the datagrams, the truth, the port map
 *   sflow_scenario send HOST PORT [RATE]            the same datagrams over UDP, RATE per s
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"
#include "sflow_enc.h"

#define SECONDS	    4
#define T0_S	    1700000000ULL
#define SNAP	    128
#define PAYLOAD	    4096
#define PER_DGRAM   8
#define SFLOW_PORT_ 6343

enum { HDR_ETH, HDR_IPV4, HDR_IPV6, HDR_VXLAN };

struct sflow_flow_def {
	const char *src, *dst;
	__u16 sport;
	__u32 qp;
	int agent; /* 0 leaf1, 1 leaf2 */
	struct sflow_port out;
	int per_s; /* samples per second */
	__u32 rate;
	int hdr;
	bool ce;
	bool rate_doubles; /* half the samples at twice the rate after SECONDS/2 */
};

/* The generator's own count of each flow. */
struct flow_truth {
	__u64 samples, packets, bytes, ce_packets;
};
static struct flow_truth truth[16];

static struct sflow_flow_def flows[] = {
    {"10.0.0.1", "10.0.1.1", 49152, 0x101, 0, {.value = 49}, 20, 4096, HDR_ETH, false, true},
    {"10.0.0.2", "10.0.1.2", 49153, 0x102, 0, {.value = 49}, 20, 4096, HDR_ETH, true, false},
    {"10.0.0.3", "10.0.1.3", 49154, 0x103, 0, {.value = 50}, 1, 4096, HDR_ETH, false, false},
    {"10.0.0.4", "10.0.1.4", 49155, 0x104, 0, {.value = 50}, 1, 4096, HDR_VXLAN, false, false},
    {"10.0.0.5", "10.0.1.5", 49156, 0x105, 0, {.value = 50}, 1, 4096, HDR_IPV4, false, false},
    {"10.0.0.6", "10.0.1.6", 49157, 0x106, 0, {.value = 10}, 2, 4096, HDR_ETH, false, false},
    {"10.0.0.7",
     "10.0.1.7",
     49158,
     0x107,
     0,
     {.format = 1, .value = 256},
     2,
     4096,
     HDR_ETH,
     false,
     false},
    {"10.1.0.1", "10.1.1.1", 49160, 0x201, 1, {.value = 49}, 20, 4096, HDR_ETH, false, false},
    {"10.1.0.2", "10.1.1.2", 49161, 0x202, 1, {.value = 49}, 20, 4096, HDR_ETH, false, false},
    {"10.1.0.3", "10.1.1.3", 49162, 0x203, 1, {.value = 50}, 20, 4096, HDR_ETH, false, false},
    {"10.1.0.4", "10.1.1.4", 49163, 0x204, 1, {.value = 50}, 20, 4096, HDR_ETH, false, false},
    {"fd00::5", "fd00::6", 49164, 0x205, 1, {.value = 50}, 1, 4096, HDR_IPV6, false, false},
};
#define N_FLOWS (sizeof(flows) / sizeof(flows[0]))
_Static_assert(N_FLOWS <= 16, "truth[] holds every flow");

static const char *const agent_text[2] = {"192.0.2.1", "2001:db8::2"};
/* The agents as points' names begin: an IPv6 one in brackets (RFC 5952 section 6). */
static const char *const agent_label[2] = {"192.0.2.1", "[2001:db8::2]"};
static const __u32 uplinks[2][4] = {{49, 50, 51, 52}, {49, 50}};
static const int n_uplinks[2] = {4, 2};
#define OUT_BPS_PER_PORT 40000000000ULL /* counters: each uplink sends 40 Gb/s */
#define DISCARDS_PER_S	 7

struct agent_state {
	struct sflow_addr addr;
	__u32 seq, flow_seq, skip_at, skip;
	struct sfe e;
	__u8 buf[9000];
	int in_dgram;
};

static struct agent_state agents[2];
static __u64 n_datagrams, n_samples;

/* output: one datagram */
static pcap_dumper_t *dumper;
static int sock = -1;
static struct sockaddr_storage dest;
static socklen_t dest_len;
static double send_rate;

static void emit(const __u8 *payload, size_t len, __u64 ts_ns)
{
	static __u8 frame[9100];
	struct pcap_pkthdr h = {};
	size_t n;

	n_datagrams++;
	if (sock >= 0) {
		if (sendto(sock, payload, len, 0, (struct sockaddr *)&dest, dest_len) < 0)
			perror("sendto");
		if (send_rate > 0)
			usleep((useconds_t)(1e6 / send_rate));
		return;
	}
	/* Ethernet / IPv4 / UDP to the collector */
	memset(frame, 0, 42);
	frame[12] = 0x08;
	frame[14] = 0x45;
	n = len + 28;
	frame[16] = n >> 8;
	frame[17] = n & 0xff;
	frame[22] = 64;
	frame[23] = 17;
	memcpy(frame + 26, (__u8[]){192, 0, 2, 1}, 4);
	memcpy(frame + 30, (__u8[]){192, 0, 2, 100}, 4);
	frame[34] = 40000 >> 8;
	frame[35] = 40000 & 0xff;
	frame[36] = SFLOW_PORT_ >> 8;
	frame[37] = SFLOW_PORT_ & 0xff;
	frame[38] = (len + 8) >> 8;
	frame[39] = (len + 8) & 0xff;
	memcpy(frame + 42, payload, len);
	h.ts.tv_sec = ts_ns / 1000000000ULL;
	h.ts.tv_usec = (ts_ns % 1000000000ULL) / 1000; /* microsecond pcap */
	h.caplen = h.len = len + 42;
	pcap_dump((u_char *)dumper, &h, frame);
}

static void flush_agent(int a, __u64 ts_ns)
{
	struct agent_state *as = &agents[a];
	size_t len;

	if (!as->in_dgram)
		return;
	len = sfe_end(&as->e);
	if (!len) {
		fprintf(stderr, "sflow_scenario: datagram did not fit\n");
		exit(1);
	}
	emit(as->buf, len, ts_ns);
	as->in_dgram = 0;
}

static void open_dgram(int a, __u64 ts_ns)
{
	struct agent_state *as = &agents[a];

	if (as->in_dgram >= PER_DGRAM)
		flush_agent(a, ts_ns);
	if (as->in_dgram)
		return;
	as->seq++;
	/* A gap: these sequence numbers are never sent. */
	if (as->seq == as->skip_at)
		as->seq += as->skip;
	sfe_init(&as->e, as->buf, sizeof(as->buf));
	sfe_datagram(&as->e, &as->addr, 0, as->seq, (__u32)((ts_ns / 1000000) % 100000000));
	as->in_dgram = 1;
}

/* The sampled packet of flow f and the header the agent copies. */
static __u32 build(struct sflow_flow_def *f, struct frame *fr, __u32 *hdr_off)
{
	bool v6 = f->hdr == HDR_IPV6;

	fr_init(fr);
	fr_eth(fr, v6 ? 0x86DD : 0x0800);
	if (f->hdr == HDR_VXLAN) {
		fr_ipv4(fr,
			&(struct fr_ip){
			    .src = "172.16.0.1", .dst = "172.16.0.2", .dscp = 26, .ecn = FR_ECT0});
		fr_udp(fr, 51000, 4789);
		fr_vxlan(fr, 0x08, 5001);
		fr_eth(fr, 0x0800);
	}
	if (v6)
		fr_ipv6(fr,
			&(struct fr_ip){.src = f->src, .dst = f->dst, .dscp = 26, .ecn = FR_ECT0},
			17);
	else
		fr_ipv4(fr, &(struct fr_ip){.src = f->src,
					    .dst = f->dst,
					    .dscp = 26,
					    .ecn = f->ce ? FR_CE : FR_ECT0});
	fr_udp(fr, f->sport, 4791);
	fr_bth(fr, &(struct fr_bth){.opcode = 0x07, .dest_qp = f->qp, .psn = 1});
	fr_payload(fr, PAYLOAD);
	fr_icrc(fr);
	fr_finish(fr);
	*hdr_off = f->hdr == HDR_IPV4 || f->hdr == HDR_IPV6 ? FR_ETH_LEN : 0;
	return fr->len;
}

static void flow_sample(struct sflow_flow_def *f, __u64 ts_ns, __u32 rate)
{
	struct agent_state *as = &agents[f->agent];
	static struct frame fr;
	__u32 off, len = build(f, &fr, &off), hlen = len - off < SNAP ? len - off : SNAP;
	__u32 proto = f->hdr == HDR_IPV4   ? SFLOW_HEADER_IPV4
		      : f->hdr == HDR_IPV6 ? SFLOW_HEADER_IPV6
					   : SFLOW_HEADER_ETHERNET;
	/* Ethernet headers: frame length with the FCS, 4 stripped; raw IP: the IP length. */
	__u32 frame_len = off ? len - off : len + 4, stripped = off ? 0 : 4;

	open_dgram(f->agent, ts_ns);
	sfe_flow_sample(&as->e,
			&(struct sfe_flow){.expanded = f->agent == 1,
					   .sequence = ++as->flow_seq,
					   .source = {0, f->out.format ? 1 : f->out.value},
					   .sampling_rate = rate,
					   .sample_pool = as->flow_seq * rate,
					   .input = sfe_ifindex(1),
					   .output = sfe_port(f->out.format, f->out.value)});
	sfe_sampled_header(&as->e, proto, frame_len, stripped, fr.data + off, hlen);
	as->in_dgram++;
	n_samples++;
	/* The probe counts the Ethernet frame as it was on the wire. */
	truth[f - flows].samples++;
	truth[f - flows].packets += rate;
	truth[f - flows].bytes += (__u64)rate * len;
	truth[f - flows].ce_packets += f->ce ? rate : 0;
}

static void counter_samples(int a, int second, __u64 ts_ns)
{
	struct agent_state *as = &agents[a];

	for (int p = 0; p < n_uplinks[a]; p++) {
		struct sflow_if_counters c = {
		    .if_index = uplinks[a][p],
		    .if_type = 6,
		    .if_speed = 100000000000ULL,
		    .if_direction = 1,
		    .if_status = SFLOW_IF_ADMIN_UP | SFLOW_IF_OPER_UP,
		    .in_octets = 1000 + (__u64)second * (OUT_BPS_PER_PORT / 16),
		    .out_octets = 5000 + (__u64)second * (OUT_BPS_PER_PORT / 8),
		    .out_discards = 100 + second * DISCARDS_PER_S,
		};
		char name[16];

		open_dgram(a, ts_ns);
		sfe_counter_sample(&as->e, a == 1, second + 1,
				   &(struct sflow_source){0, c.if_index});
		sfe_if_counters(&as->e, &c);
		snprintf(name, sizeof(name), "swp%u", c.if_index);
		sfe_port_name(&as->e, name);
		as->in_dgram++;
		n_samples++;
	}
	/* The downlink: a port name, no map entry. */
	if (a == 0) {
		open_dgram(a, ts_ns);
		sfe_counter_sample(&as->e, false, second + 1, &(struct sflow_source){0, 10});
		sfe_port_name(&as->e, "swp10");
		as->in_dgram++;
		n_samples++;
	}
}

static void run(void)
{
	agents[0].addr = sfe_ipv4(agent_text[0]);
	agents[1].addr = sfe_ipv6(agent_text[1]);
	agents[0].skip_at = 5;
	agents[0].skip = 3;
	agents[1].skip_at = 7;
	agents[1].skip = 1;
	for (int s = 0; s < SECONDS; s++) {
		for (int a = 0; a < 2; a++) {
			__u64 ts = (T0_S + s) * 1000000000ULL;

			counter_samples(a, s, ts);
			/* 20 slots a second; a flow with per_s samples fills the first per_s slots.
			 */
			for (int slot = 0; slot < 20; slot++) {
				__u64 t = ts + slot * 50000000ULL;

				for (size_t i = 0; i < N_FLOWS; i++) {
					struct sflow_flow_def *f = &flows[i];
					bool late = f->rate_doubles && s >= SECONDS / 2;
					int per_s = late ? f->per_s / 2 : f->per_s;

					if (f->agent == a && slot < per_s)
						flow_sample(f, t, late ? 2 * f->rate : f->rate);
				}
			}
			flush_agent(a, ts + 999000000ULL);
		}
	}
}

static const char *point_name(const struct sflow_flow_def *f, char *buf, size_t len)
{
	if (f->out.format == 1)
		snprintf(buf, len, "%s:dropped", agent_label[f->agent]);
	else if (f->out.value == 10)
		snprintf(buf, len, "%s:swp10", agent_label[f->agent]);
	else
		snprintf(buf, len, "leaf%d-up%u", f->agent + 1, f->out.value);
	return buf;
}

static void write_truth(const char *path, const char *map)
{
	FILE *o = fopen(path, "w"), *m = fopen(map, "w");
	char name[64];

	if (!o || !m) {
		perror(path);
		exit(1);
	}
	fprintf(m, "# AGENT IFINDEX NAME [GROUP]\n");
	for (int a = 0; a < 2; a++)
		for (int p = 0; p < n_uplinks[a]; p++)
			fprintf(m, "%s %u leaf%d-up%u leaf%d\n", agent_text[a], uplinks[a][p],
				a + 1, uplinks[a][p], a + 1);
	fprintf(o, "{\"datagrams\": %llu, \"samples\": %llu, \"lost\": 4,\n",
		(unsigned long long)n_datagrams, (unsigned long long)n_samples);
	fprintf(o, " \"port_out_bps\": %llu, \"port_discards_per_s\": %d, \"seconds\": %d,\n",
		OUT_BPS_PER_PORT, DISCARDS_PER_S, SECONDS);
	fprintf(o, " \"collisions\": [{\"path\": \"leaf1-up49\", \"group\": \"leaf1\"}],\n");
	fprintf(o, " \"flows\": [\n");
	for (size_t i = 0; i < N_FLOWS; i++) {
		const struct sflow_flow_def *f = &flows[i];
		const struct flow_truth *t = &truth[i];
		bool path = f->out.format == 0;

		fprintf(
		    o,
		    "  {\"src\": \"%s\", \"sport\": %u, \"dest_qp\": %u, \"vni\": %s, "
		    "\"point\": \"%s\", \"path\": %s%s%s, \"group\": %s%s%s, \"samples\": %llu, "
		    "\"packets\": %llu, \"bytes\": %llu, \"ce\": %llu, \"rate\": %u}%s\n",
		    f->hdr == HDR_VXLAN ? "172.16.0.1" : f->src,
		    f->hdr == HDR_VXLAN ? 51000 : f->sport, f->qp,
		    f->hdr == HDR_VXLAN ? "5001" : "null", point_name(f, name, sizeof(name)),
		    path ? "\"" : "", path ? name : "null", path ? "\"" : "",
		    path && f->out.value != 10 ? "\"leaf" : "",
		    path && f->out.value != 10 ? (f->agent ? "2" : "1") : "null",
		    path && f->out.value != 10 ? "\"" : "", (unsigned long long)t->samples,
		    (unsigned long long)t->packets, (unsigned long long)t->bytes,
		    (unsigned long long)t->ce_packets,
		    (__u32)((t->packets + t->samples / 2) / t->samples),
		    i + 1 < N_FLOWS ? "," : "");
	}
	fprintf(o, " ]}\n");
	fclose(o);
	fclose(m);
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "pcap")) {
		pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);

		dumper = pcap_dump_open(dead, argv[2]);
		if (!dumper) {
			fprintf(stderr, "sflow_scenario: %s\n", pcap_geterr(dead));
			return 1;
		}
		run();
		pcap_dump_close(dumper);
		pcap_close(dead);
		write_truth(argv[3], argv[4]);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "send")) {
		struct sockaddr_in *in = (struct sockaddr_in *)&dest;

		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(argv[3]));
		if (inet_pton(AF_INET, argv[2], &in->sin_addr) != 1) {
			fprintf(stderr, "sflow_scenario: %s is not an IPv4 address\n", argv[2]);
			return 2;
		}
		dest_len = sizeof(*in);
		send_rate = argc > 4 ? atof(argv[4]) : 0;
		sock = socket(AF_INET, SOCK_DGRAM, 0);
		run();
		printf("%llu datagrams, %llu samples\n", (unsigned long long)n_datagrams,
		       (unsigned long long)n_samples);
		return 0;
	}
	fprintf(stderr, "usage: %s pcap OUT.pcap EXPECT.json MAP | send HOST PORT [RATE]\n",
		argv[0]);
	return 2;
}
