/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames.h - the benchmarks' own frame builder: Ethernet/IPv4/UDP RoCEv2
 * (bare, in VXLAN, or mirrored in ERSPAN II/III), ACKs, CNPs and a TCP segment. Kept apart from
 * tests/lib/frames.c so the benchmarks do not move with the test fixtures.
 */
#ifndef __BENCH_FRAMES_H
#define __BENCH_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include "fabprobe.h"

enum bench_kind {
	BENCH_WRITE,	     /* RC RDMA WRITE Only: BTH + RETH + payload + ICRC */
	BENCH_VXLAN_WRITE,   /* the same inside VXLAN (RFC 7348) */
	BENCH_READ,	     /* RC RDMA READ Request: BTH + RETH + ICRC */
	BENCH_ACK,	     /* RC Acknowledge: BTH + AETH + ICRC */
	BENCH_CNP,	     /* CNP: BTH + 16 reserved bytes + ICRC (Annex A17.9.3) */
	BENCH_TCP,	     /* not RoCE: a TCP segment */
	BENCH_ERSPAN2_WRITE, /* the WRITE as an ERSPAN type II mirror copy (GRE with S, IPv4) */
	BENCH_ERSPAN3_WRITE, /* the same in ERSPAN type III (GRE with S, no subheader) */
};

struct bench_frame {
	enum bench_kind kind;
	uint32_t src_ip, dst_ip; /* host order */
	uint16_t sport;
	uint32_t dest_qp;
	uint32_t psn;
	uint32_t vni;
	uint32_t payload; /* WRITE payload bytes */
	uint8_t dscp;
	uint8_t ecn;
};

static inline void bench_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void bench_put32(uint8_t *p, uint32_t v)
{
	bench_put16(p, v >> 16);
	bench_put16(p + 2, v & 0xffff);
}

static inline uint16_t bench_ip_csum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The UDP payload of a RoCEv2 packet (BTH onwards, ICRC zero). Returns its length. */
static inline size_t bench_roce_payload(uint8_t *out, const struct bench_frame *f)
{
	uint8_t opcode;
	size_t n = FP_BTH_LEN;

	switch (f->kind) {
	case BENCH_ACK:
		opcode = FP_TRANSPORT_RC | FP_OP_ACK;
		break;
	case BENCH_CNP:
		opcode = FP_OPCODE_CNP;
		break;
	case BENCH_READ:
		opcode = FP_TRANSPORT_RC | FP_OP_READ_REQ;
		break;
	default:
		opcode = FP_TRANSPORT_RC | FP_OP_WRITE_ONLY;
		break;
	}
	memset(out, 0, FP_BTH_LEN);
	out[0] = opcode;
	bench_put16(out + 2, 0xffff); /* P_Key */
	bench_put32(out + 4, f->dest_qp & FP_PSN_MASK);
	bench_put32(out + 8, f->psn & FP_PSN_MASK);
	if (f->kind == BENCH_WRITE || f->kind == BENCH_VXLAN_WRITE || f->kind == BENCH_READ) {
		out[8] |= FP_BTH_ACKREQ;
		memset(out + n, 0, FP_RETH_LEN);
		bench_put32(out + n + 8, 0x1234);				      /* R_Key */
		bench_put32(out + n + 12, f->kind == BENCH_READ ? 4096 : f->payload); /* length */
		n += FP_RETH_LEN;
		if (f->kind != BENCH_READ) {
			memset(out + n, 0xab, f->payload);
			n += f->payload;
		}
	} else if (f->kind == BENCH_ACK) {
		bench_put32(out + n, f->psn & FP_PSN_MASK); /* syndrome 0 (ACK), MSN */
		n += FP_AETH_LEN;
	} else if (f->kind == BENCH_CNP) {
		memset(out + n, 0, 16);
		n += 16;
	}
	memset(out + n, 0, FP_ICRC_LEN);
	return n + FP_ICRC_LEN;
}

static inline size_t bench_eth(uint8_t *out, uint16_t proto)
{
	static const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};

	memcpy(out, macs, 12);
	bench_put16(out + 12, proto);
	return 14;
}

/* IPv4 + UDP headers in front of l4_len bytes of UDP payload. */
static inline size_t bench_ip_udp(uint8_t *out, uint32_t src, uint32_t dst, uint8_t tos,
				  uint8_t proto, uint16_t sport, uint16_t dport, size_t l4_len)
{
	size_t l4 = proto == 6 ? 20 : 8;

	memset(out, 0, 20 + l4);
	out[0] = 0x45;
	out[1] = tos;
	bench_put16(out + 2, 20 + l4 + l4_len);
	out[6] = 0x40; /* DF */
	out[8] = 64;
	out[9] = proto;
	bench_put32(out + 12, src);
	bench_put32(out + 16, dst);
	bench_put16(out + 10, bench_ip_csum(out, 20));
	bench_put16(out + 20, sport);
	bench_put16(out + 22, dport);
	if (proto == 6) {
		out[32] = 5 << 4;
		out[33] = 0x10; /* ACK */
		bench_put16(out + 34, 512);
	} else {
		bench_put16(out + 24, 8 + l4_len); /* UDP checksum 0: none */
	}
	return 20 + l4;
}

static inline size_t bench_frame_build(uint8_t *out, const struct bench_frame *f);

/*
 * A switch's mirror copy of f as a WRITE: outer IPv4 (switch 10.200.0.1 to
 * collector 10.200.0.2), GRE with a sequence number (RFC 2890), the ERSPAN
 * header (session 101, draft-foschiano-erspan-03), then f's whole frame.
 */
static inline size_t bench_erspan(uint8_t *out, const struct bench_frame *f)
{
	struct bench_frame inner = *f;
	size_t n = bench_eth(out, FP_ETH_P_IP), ip = n, hlen;
	bool type3 = f->kind == BENCH_ERSPAN3_WRITE;

	inner.kind = BENCH_WRITE;
	hlen = type3 ? FP_ERSPAN3_HLEN : FP_ERSPAN2_HLEN;
	memset(out + n, 0, 20 + 8 + hlen);
	out[n] = 0x45;
	out[n + 6] = 0x40; /* DF */
	out[n + 8] = 64;
	out[n + 9] = FP_IPPROTO_GRE;
	bench_put32(out + n + 12, 0x0ac80001);
	bench_put32(out + n + 16, 0x0ac80002);
	n += 20;
	bench_put16(out + n, FP_GRE_FLAG_S);
	bench_put16(out + n + 2, type3 ? FP_ETH_P_ERSPAN3 : FP_ETH_P_ERSPAN);
	bench_put32(out + n + 4, 1); /* sequence number */
	n += 8;
	out[n] = (type3 ? FP_ERSPAN3_VER : FP_ERSPAN2_VER) << 4;
	out[n + 3] = 101; /* session ID */
	n += hlen;
	n += bench_frame_build(out + n, &inner);
	bench_put16(out + ip + 2, n - ip);
	bench_put16(out + ip + 10, bench_ip_csum(out + ip, 20));
	return n;
}

/* A whole Ethernet frame; out must hold 192 bytes more than the payload. */
static inline size_t bench_frame_build(uint8_t *out, const struct bench_frame *f)
{
	uint8_t roce[2048];
	uint8_t tos = f->dscp << 2 | (f->ecn & 3);
	size_t rlen, n;

	if (f->kind == BENCH_ERSPAN2_WRITE || f->kind == BENCH_ERSPAN3_WRITE)
		return bench_erspan(out, f);
	n = bench_eth(out, FP_ETH_P_IP);
	if (f->kind == BENCH_TCP) {
		n += bench_ip_udp(out + n, f->src_ip, f->dst_ip, tos, 6, f->sport, 5201, 64);
		memset(out + n, 0x5a, 64);
		return n + 64;
	}
	rlen = bench_roce_payload(roce, f);
	if (f->kind == BENCH_VXLAN_WRITE) {
		/* Outer headers between VTEPs, the inner frame between hosts. */
		size_t inner = 14 + 20 + 8 + rlen;

		n += bench_ip_udp(out + n, 0x0a640001, 0x0a640002, tos, 17,
				  0xc000 | (f->sport & 0x3fff), FP_VXLAN_PORT_DEFAULT,
				  FP_VXLAN_HLEN + inner);
		memset(out + n, 0, FP_VXLAN_HLEN);
		out[n] = FP_VXLAN_FLAG_I;
		bench_put32(out + n + 4, f->vni << 8);
		n += FP_VXLAN_HLEN;
		n += bench_eth(out + n, FP_ETH_P_IP);
	}
	n += bench_ip_udp(out + n, f->src_ip, f->dst_ip, tos, 17, f->sport, FP_ROCE_PORT_DEFAULT,
			  rlen);
	memcpy(out + n, roce, rlen);
	return n + rlen;
}

#endif /* __BENCH_FRAMES_H */
