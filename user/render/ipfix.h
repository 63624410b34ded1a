/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipfix.h - an IPFIX exporter (RFC 7011): per-flow delta records, as
 * templates and data records over UDP, TCP or into a file (RFC 5655: a
 * file is the messages one after another).
 *
 * The caller adds records (ipfix_add: encoded at once into a bounded
 * queue, never any I/O) and calls ipfix_tick often, say every 10 ms: each
 * call sends at most cfg.budget_msgs messages on a non-blocking socket
 * and, over UDP, no more bytes than the pacing allows (cfg.rate_bytes_per_s,
 * in bursts of at most cfg.burst_bytes), and leaves the rest for the next
 * call. Nothing here ever waits on the network; a collector that is down,
 * slow or unreachable shows up in the counters (struct ipfix_stats) and
 * nowhere else.
 *
 * One exporter is used from one thread. The elements, the templates, the
 * transports and the bounds are in docs/ipfix.md.
 */
#ifndef __FP_IPFIX_H
#define __FP_IPFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* RFC 5612: the enterprise number reserved for documentation. */
#define IPFIX_PEN_DEFAULT	     32473
#define IPFIX_PORT_DEFAULT	     4739 /* RFC 7011 section 10.3.1 */
#define IPFIX_MAX_MSG_DEFAULT	     1400
#define IPFIX_MAX_MSG_MIN	     512
#define IPFIX_MAX_MSG_MAX	     65535 /* the Message Length field is 16 bits */
#define IPFIX_REFRESH_MS_DEFAULT     60000
#define IPFIX_BUDGET_MSGS_DEFAULT    512
#define IPFIX_QUEUE_BYTES_DEFAULT    (16u << 20)
#define IPFIX_BACKOFF_MIN_MS_DEFAULT 1000
#define IPFIX_BACKOFF_MAX_MS_DEFAULT 60000
/*
 * UDP has no flow control: what a collector has not read yet waits in its
 * socket's receive buffer, and past that the kernel drops it. Linux gives
 * a socket net.core.rmem_default (212992 bytes, commonly), counted with
 * each datagram's overhead: about 90 datagrams of 1400 bytes. A burst of
 * 64 KiB (46 such datagrams) leaves half of that to spare; at 4 MB/s,
 * nfcapd on a shared 2-core VM read each burst before the next one
 * (docs/ipfix.md, "Pacing").
 */
#define IPFIX_RATE_BYTES_DEFAULT  4000000
#define IPFIX_BURST_BYTES_DEFAULT 65536

/* flowEndReason (IANA element 136). */
enum ipfix_end_reason {
	IPFIX_END_IDLE_TIMEOUT = 1,
	IPFIX_END_ACTIVE_TIMEOUT = 2,
	IPFIX_END_OF_FLOW = 3,
	IPFIX_END_FORCED = 4, /* e.g. the exporter shuts down */
	IPFIX_END_LACK_OF_RESOURCES = 5,
};

/* ipfix_flow.flags: which template the record uses (docs/ipfix.md). */
#define IPFIX_FLOW_IPV6 0x01 /* src and dst are IPv6, else IPv4 in their first 4 bytes */
#define IPFIX_FLOW_SAMPLED                                                                         \
	0x02		       /* sFlow-fed: sampling_rate and samples are valid;                  \
				  retransmits and psn_gaps are unknown and not sent */
#define IPFIX_FLOW_MIRROR 0x04 /* mirror_session is valid */
#define IPFIX_FLOW_VXLAN  0x08 /* vni is valid: layer2SegmentId = 0x01 << 56 | vni */

/* roceOpcodeClasses: flags of the BTH operations seen on the flow. */
#define IPFIX_OPC_SEND	    0x01
#define IPFIX_OPC_WRITE	    0x02
#define IPFIX_OPC_READ_REQ  0x04
#define IPFIX_OPC_READ_RESP 0x08
#define IPFIX_OPC_ATOMIC    0x10 /* compare-swap, fetch-add, atomic acknowledge */
#define IPFIX_OPC_ACK	    0x20 /* acknowledge: ACK, NAK, RNR NAK */
#define IPFIX_OPC_CNP	    0x40
#define IPFIX_OPC_OTHER	    0x80

/*
 * One flow's record for one interval: what it did since its previous
 * record. Neutral: nothing here knows where the numbers came from.
 * Ports and numbers in host order, addresses in network order.
 */
struct ipfix_flow {
	__u8 flags; /* IPFIX_FLOW_* */
	__u8 src[16];
	__u8 dst[16];
	__u16 sport;
	__u16 dport;
	__u8 protocol;	 /* protocolIdentifier, 17 for RoCEv2 */
	__u8 tos;	 /* ipClassOfService: DSCP << 2 (ECN is counted below) */
	__u8 direction;	 /* flowDirection: 0 ingress, 1 egress */
	__u8 end_reason; /* enum ipfix_end_reason */
	__u8 opcode_classes;
	__u32 ingress_ifindex; /* 0 when unknown */
	__u32 egress_ifindex;
	__u32 vni;
	__u32 dest_qp;
	__u32 mirror_session; /* IPFIX_FLOW_MIRROR */
	__u32 sampling_rate;  /* IPFIX_FLOW_SAMPLED: 1 in N */
	__u64 samples;	      /* IPFIX_FLOW_SAMPLED: sampled packets behind this record */
	__u64 octets;	      /* deltas since the flow's previous record */
	__u64 packets;
	__u64 start_ms;		       /* UNIX time of the first packet counted in this record */
	__u64 end_ms;		       /* ... and of the last */
	__u64 not_ect, ect0, ect1, ce; /* outer IP ECN codepoints (RFC 3168) */
	__u64 cnp, acks, naks, rnr_naks;
	__u64 retransmits, psn_gaps; /* not sent when IPFIX_FLOW_SAMPLED */
	const char *path; /* observed path (interfaceName), UTF-8; NULL or "" when none */
};

enum ipfix_transport {
	IPFIX_UDP,
	IPFIX_TCP,
	IPFIX_FILE,
};

struct ipfix_config {
	enum ipfix_transport transport;
	const char *collector;	     /* UDP, TCP: "HOST:PORT" or "[IPv6]:PORT" */
	int fd;			     /* IPFIX_FILE: written to, never closed here */
	__u32 pen;		     /* enterprise number of the RoCE elements */
	__u32 domain_id;	     /* observation domain ID */
	__u32 max_msg_bytes;	     /* never exceeded; UDP: fit the path MTU */
	__u32 template_refresh_ms;   /* UDP: resend templates this often */
	__u32 template_refresh_msgs; /* UDP: ... and after this many messages (0: off) */
	__u32 budget_msgs;	     /* messages per ipfix_tick */
	__u32 rate_bytes_per_s;	     /* UDP: bytes a second on average (0: unpaced) */
	__u32 burst_bytes;	     /* UDP: ... sent back to back at most (one message at least) */
	__u32 queue_bytes;	     /* records waiting beyond this are dropped */
	__u32 backoff_min_ms;	     /* TCP reconnect, doubled up to backoff_max_ms */
	__u32 backoff_max_ms;
	bool no_type_records; /* do not send RFC 5610 descriptions of the elements */
	/*
	 * Tests: instead of a socket or file, hand each whole message to
	 * sink, with the transport's rules kept (UDP refreshes templates,
	 * TCP sends them once per connection and withdraws them). Return 0,
	 * -EAGAIN to be called again with the same message on the next tick,
	 * or another -errno (the message is lost; on TCP, a reconnect).
	 */
	int (*sink)(void *ctx, const void *msg, size_t len);
	void *sink_ctx;
};

struct ipfix_stats {
	__u64 messages_sent;
	__u64 bytes_sent;
	__u64 records_sent;   /* flow records in messages handed to the transport */
	__u64 templates_sent; /* template records, withdrawals included */
	/* Failed sends, connects and TCP disconnects; UDP datagrams refused once sent. */
	__u64 send_errors;
	/*
	 * Flow records not delivered: in messages that failed to send, and in
	 * UDP datagrams sent and then refused (records_refused, in records_sent too).
	 */
	__u64 records_lost;
	__u64 records_refused;	 /* UDP: sent, then an ICMP error came back (nothing listens) */
	__u64 records_dropped;	 /* refused by a full queue (ipfix_add), or unsent at close */
	__u64 strings_truncated; /* paths cut to fit max_msg_bytes */
	__u64 would_block;	 /* sends deferred to the next tick */
	__u64 connects;		 /* TCP connections made */
	__u64 queue_records;	 /* records waiting now */
	__u64 queue_bytes;
	__u32 sequence; /* data records sent in this session, mod 2^32 */
	bool connected; /* TCP: a session is up; UDP, file: always */
};

struct ipfix_exporter;

/* Every default (IPFIX_*_DEFAULT), transport UDP. */
void ipfix_config_init(struct ipfix_config *cfg);

/*
 * Check cfg, resolve the collector (once, here: a name lookup may wait) and
 * open the socket. TCP connects later, in ipfix_tick. Errors are one line
 * on stderr and a negative errno.
 */
int ipfix_open(struct ipfix_exporter **out, const struct ipfix_config *cfg);

/*
 * Queue one record. Returns 0, or -ENOBUFS when the queue is full: the
 * record is dropped and counted (records_dropped). A caller that keeps
 * deltas can leave the flow's baseline where it was and send the sum in
 * its next record instead.
 */
int ipfix_add(struct ipfix_exporter *x, const struct ipfix_flow *f);

/*
 * True when the queue has room for any record ipfix_add could make: a
 * caller that keeps deltas asks first, and waits for a later tick instead
 * of having a record refused (and counted as dropped).
 */
bool ipfix_room(const struct ipfix_exporter *x);

/*
 * Do the transport's work, never waiting: connect or reconnect (TCP), send
 * templates when due, then queued records, at most cfg.budget_msgs
 * messages and, over UDP, as many bytes as the pacing has allowed since the
 * previous call (at most cfg.burst_bytes). now_ms is UNIX time in ms
 * (ipfix_now_ms()): it stamps the messages, runs the timers and the
 * pacing. Returns the messages sent.
 */
int ipfix_tick(struct ipfix_exporter *x, __u64 now_ms);

/* Nothing queued and nothing half sent. */
bool ipfix_idle(const struct ipfix_exporter *x);

/*
 * Send what is queued for up to timeout_ms (ticking at the budget's pace,
 * a millisecond apart), withdraw the data templates (TCP only: RFC 7011
 * section 8.4 forbids it over UDP), close and free. Returns the records
 * left unsent; final (may be NULL) gets the last counters, those records
 * counted as dropped.
 */
int ipfix_close(struct ipfix_exporter *x, int timeout_ms, struct ipfix_stats *final);

void ipfix_get_stats(const struct ipfix_exporter *x, struct ipfix_stats *s);

/* CLOCK_REALTIME in ms. */
__u64 ipfix_now_ms(void);

/* roceOpcodeClasses of a BTH opcode bitmap (flow_counters.opcodes). */
__u8 ipfix_opcode_classes(const __u64 opcodes[4]);

/* The enterprise elements as a libfixbuf/IANA-style XML registry. */
int ipfix_write_elements_xml(FILE *out, __u32 pen);

#endif /* __FP_IPFIX_H */
