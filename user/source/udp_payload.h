/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udp_payload.h - the UDP payload of one captured frame.
 *
 * This is transport decapsulation of a collector's own traffic (sFlow
 * datagrams sent to it, as in `replay --sflow`), not RoCE parsing: RoCE is
 * parsed by the BPF program only. Minimal and bounds-checked: Ethernet with
 * up to two VLAN tags, Linux cooked (SLL, SLL2) and raw IP link types;
 * IPv4 (options skipped by IHL) and IPv6 (up to four hop-by-hop,
 * destination or routing extension headers); first fragments and
 * unfragmented datagrams only.
 */
#ifndef __FP_UDP_PAYLOAD_H
#define __FP_UDP_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum udp_payload_result {
	UDP_PAYLOAD_OK = 0,
	UDP_PAYLOAD_NOT_UDP,   /* not IP, not UDP, or a link type not handled */
	UDP_PAYLOAD_FRAGMENT,  /* a later IP fragment: no UDP header in it */
	UDP_PAYLOAD_MALFORMED, /* cut short or inconsistent before the payload */
};

struct udp_datagram {
	__u8 family;	       /* 4 or 6 */
	__u8 src[16], dst[16]; /* IPv4 in the first 4 bytes */
	__u16 sport, dport;
	const __u8 *payload; /* inside the frame */
	size_t len;	     /* payload bytes present: the UDP length's, or less if cut */
	bool truncated;	     /* the capture holds less than the UDP length says */
	bool fragmented;     /* a first fragment: the rest of the payload is elsewhere */
};

/*
 * Find the UDP payload in a frame of link type dlt (DLT_* of pcap). For
 * any IP packet, UDP or not, family, src and dst are filled in even when
 * the result is not UDP_PAYLOAD_OK (source/shard.c spreads on them).
 */
enum udp_payload_result udp_payload(int dlt, const __u8 *frame, size_t caplen,
				    struct udp_datagram *out);

#endif /* __FP_UDP_PAYLOAD_H */
