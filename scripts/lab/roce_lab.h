/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire constants shared by the lab tools (rocegen, congest.bpf.c and
 * congest).  Lab only: the probe keeps its own definitions in bpf/.
 */
#ifndef ROCE_LAB_H
#define ROCE_LAB_H

#define ROCE_UDP_PORT  4791
#define VXLAN_UDP_PORT 4789
#define VXLAN_HDR_LEN  8

/* IBTA Vol 1 9.2 / Annex A17: BTH and the extension headers we use. */
#define BTH_LEN		 12
#define RETH_LEN	 16
#define AETH_LEN	 4
#define ICRC_LEN	 4
#define CNP_RSVD_LEN	 16
#define BTH_PKEY_DEFAULT 0xffff
#define BTH_ACKREQ	 0x80 /* byte 8, bit 7 */
#define BTH_BECN	 0x40 /* byte 4, set in CNPs (A17.9.3) */
#define PSN_MASK	 0xffffff

enum roce_opcode {
	RC_SEND_FIRST = 0x00,
	RC_SEND_MIDDLE = 0x01,
	RC_SEND_LAST = 0x02,
	RC_SEND_ONLY = 0x04,
	RC_WRITE_FIRST = 0x06,
	RC_WRITE_MIDDLE = 0x07,
	RC_WRITE_LAST = 0x08,
	RC_WRITE_ONLY = 0x0a,
	RC_READ_REQUEST = 0x0c,
	RC_READ_RESP_FIRST = 0x0d,
	RC_READ_RESP_MIDDLE = 0x0e,
	RC_READ_RESP_LAST = 0x0f,
	RC_READ_RESP_ONLY = 0x10,
	RC_ACK = 0x11,
	ROCE_CNP = 0x81,
};

/*
 * AETH syndrome (IBTA 9.7.5.1.1): bits 6:5 are the type, bits 4:0 the
 * credit count or NAK code.  Credit count 31 means "no credit info".
 */
#define AETH_TYPE_SHIFT	     5
#define AETH_TYPE_MASK	     0x3
#define AETH_TYPE_ACK	     0
#define AETH_TYPE_NAK	     3
#define AETH_SYN_ACK	     0x1f
#define AETH_SYN_NAK_PSN_SEQ 0x60

/* congest.bpf.c per-CPU counters, one array slot each. */
enum congest_counter {
	CONGEST_PACKETS,
	CONGEST_BYTES,
	CONGEST_OVER_RATE,
	CONGEST_MARKED,
	CONGEST_DROPPED,
	CONGEST_NR_COUNTERS,
};

#endif /* ROCE_LAB_H */
