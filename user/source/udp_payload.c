// SPDX-License-Identifier: GPL-2.0
/*
 * udp_payload.c - the UDP payload of a captured frame, for sources that
 * read datagrams addressed to the collector out of a capture (the future
 * `replay --sflow`). Not a RoCE parser: see udp_payload.h.
 */
#include <string.h>
#include <pcap/dlt.h>

#include "source/udp_payload.h"

#define ETH_P_IPV4   0x0800
#define ETH_P_IPV6   0x86DD
#define ETH_P_VLAN   0x8100
#define ETH_P_QINQ   0x88A8
#define IPPROTO_UDP_ 17

static inline __u16 be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static enum udp_payload_result udp(const __u8 *p, size_t left, bool fragmented,
				   struct udp_datagram *out)
{
	__u16 ulen;

	if (left < 8)
		return UDP_PAYLOAD_MALFORMED;
	out->sport = be16(p);
	out->dport = be16(p + 2);
	ulen = be16(p + 4);
	if (ulen < 8)
		return UDP_PAYLOAD_MALFORMED;
	out->payload = p + 8;
	out->len = ulen - 8u;
	out->fragmented = fragmented;
	if (out->len > left - 8) {
		out->len = left - 8;
		out->truncated = true;
	}
	return UDP_PAYLOAD_OK;
}

static enum udp_payload_result ipv4(const __u8 *p, size_t left, struct udp_datagram *out)
{
	size_t ihl, total;
	__u16 frag;

	if (left < 20 || p[0] >> 4 != 4)
		return UDP_PAYLOAD_MALFORMED;
	ihl = (p[0] & 0xF) * 4u;
	total = be16(p + 2);
	if (ihl < 20 || ihl > left || total < ihl)
		return UDP_PAYLOAD_MALFORMED;
	out->family = 4;
	memcpy(out->src, p + 12, 4);
	memcpy(out->dst, p + 16, 4);
	if (p[9] != IPPROTO_UDP_)
		return UDP_PAYLOAD_NOT_UDP;
	frag = be16(p + 6);
	if (frag & 0x1FFF)
		return UDP_PAYLOAD_FRAGMENT;
	/* Ethernet pads short frames: the IP total length says where IP ends. */
	if (total < left)
		left = total;
	return udp(p + ihl, left - ihl, frag & 0x2000, out);
}

static enum udp_payload_result ipv6(const __u8 *p, size_t left, struct udp_datagram *out)
{
	bool fragmented = false;
	size_t off = 40, payload;
	__u8 next;

	if (left < 40 || p[0] >> 4 != 6)
		return UDP_PAYLOAD_MALFORMED;
	payload = be16(p + 4);
	if (payload && 40 + payload < left)
		left = 40 + payload;
	next = p[6];
	out->family = 6;
	memcpy(out->src, p + 8, 16);
	memcpy(out->dst, p + 24, 16);
	/* At most four extension headers, as the BPF parser allows. */
	for (int i = 0; i < 4 && next != IPPROTO_UDP_; i++) {
		size_t len;

		if (off + 8 > left)
			return UDP_PAYLOAD_MALFORMED;
		switch (next) {
		case 0:	 /* hop-by-hop options */
		case 43: /* routing */
		case 60: /* destination options */
			len = (p[off + 1] + 1u) * 8;
			break;
		case 44: /* fragment (RFC 8200 4.5) */
			if (be16(p + off + 2) & 0xFFF8)
				return UDP_PAYLOAD_FRAGMENT;
			fragmented = p[off + 3] & 1;
			len = 8;
			break;
		default:
			return UDP_PAYLOAD_NOT_UDP;
		}
		if (off + len > left)
			return UDP_PAYLOAD_MALFORMED;
		next = p[off];
		off += len;
	}
	if (next != IPPROTO_UDP_)
		return UDP_PAYLOAD_NOT_UDP;
	return udp(p + off, left - off, fragmented, out);
}

static enum udp_payload_result ip(__u16 ethertype, const __u8 *p, size_t left,
				  struct udp_datagram *out)
{
	if (ethertype == ETH_P_IPV4)
		return ipv4(p, left, out);
	if (ethertype == ETH_P_IPV6)
		return ipv6(p, left, out);
	return UDP_PAYLOAD_NOT_UDP;
}

enum udp_payload_result udp_payload(int dlt, const __u8 *frame, size_t caplen,
				    struct udp_datagram *out)
{
	size_t off;
	__u16 type;

	memset(out, 0, sizeof(*out));
	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return UDP_PAYLOAD_MALFORMED;
		type = be16(frame + 12);
		off = 14;
		for (int tags = 0; tags < 2 && (type == ETH_P_VLAN || type == ETH_P_QINQ); tags++) {
			if (caplen < off + 4)
				return UDP_PAYLOAD_MALFORMED;
			type = be16(frame + off + 2);
			off += 4;
		}
		return ip(type, frame + off, caplen - off, out);
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return UDP_PAYLOAD_MALFORMED;
		return ip(be16(frame + 14), frame + 16, caplen - 16, out);
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return UDP_PAYLOAD_MALFORMED;
		return ip(be16(frame), frame + 20, caplen - 20, out);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (caplen < 1)
			return UDP_PAYLOAD_MALFORMED;
		return ip(frame[0] >> 4 == 6 ? ETH_P_IPV6 : ETH_P_IPV4, frame, caplen, out);
	default:
		return UDP_PAYLOAD_NOT_UDP;
	}
}
