// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen - RoCEv2 RC traffic generator for the fabprobe lab.
 *
 * Emulates reliable-connected queue pairs over plain UDP sockets: the
 * kernel builds IPv4/UDP, rocegen writes BTH + RETH/AETH + payload +
 * ICRC.  "serve" is the responder, "run" the requester.  Both print
 * what they sent and received as JSON on exit; that is the lab's ground
 * truth.  See README.md for the wire details and the JSON schema.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "roce_lab.h"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

#define MAX_QPS	      64
#define MAX_FLOWS     256
#define BATCH	      32
#define RX_BATCHES    16 /* recvmmsg rounds per wakeup, bounds the rx loop */
#define MAX_PMTU      4096
#define MAX_PKT	      (BTH_LEN + RETH_LEN + MAX_PMTU + 4 + ICRC_LEN)
#define WIRE_OVERHEAD 42   /* Ethernet 14 + IPv4 20 + UDP 8, no FCS */
#define WINDOW_PSNS   4096 /* far below 2^23, so 24-bit PSNs stay unambiguous */
#define RTO_NS	      (10 * NSEC_PER_MSEC)
#define DRAIN_NS      (1000 * NSEC_PER_MSEC)
#define ACK_EVERY     64 /* unsolicited coalesced ACK for long messages */
#define CM_PORT	      18515
#define CM_MAX	      4096
#define MAX_WAIT_NS   NSEC_PER_MSEC

enum qp_kind { KIND_WRITE, KIND_SEND, KIND_READ };
static const char *const kind_names[] = {"write", "send", "read"};

struct flow_key {
	uint32_t src, dst; /* network order */
	uint16_t sport, dport;
	uint32_t dest_qp;
};

struct flow_stats {
	struct flow_key key;
	uint32_t src_qp;
	const char *kind;
	uint64_t packets, bytes, retransmits, cnps, naks, acks, ce, out_of_seq;
};

struct flow_table {
	int count;
	struct flow_stats flows[MAX_FLOWS];
	struct flow_stats overflow; /* absorbs flows past MAX_FLOWS */
};

struct config {
	struct in_addr dst;
	double duration_s;
	uint64_t max_msgs;
	uint32_t pmtu, start_psn;
	int tos, cnp_tos, sport_override;
	uint16_t cm_port;
	uint64_t cnp_interval_ns;
	bool no_cnp; /* a receiver with DCQCN's notification point off */
};

/* Requester side of one RC QP; seq numbers are unwrapped PSNs. */
struct req_qp {
	uint32_t lqp, rqp;
	enum qp_kind kind;
	uint64_t rate_bytes_per_s;
	uint32_t msg_bytes, pkts_per_msg;
	uint32_t start_psn; /* --start-psn for the first QP, each next one far on */
	uint16_t sport;
	uint64_t una, snd_nxt, snd_max, hi_sent, ackreq_end;
	uint64_t msgs_issued, rewound_at;
	int64_t tokens;
	uint64_t refill_ns, timer_ns, next_cost, last_cnp_ns;
	bool timer_armed;
	struct flow_stats *tx, *rx;
};

/* How far on each QP starts from the last (the golden ratio of 2^24: far from every other). */
#define START_PSN_STEP 0x9E3779U

/* Responder side of one RC QP, created by the CM exchange. */
struct rsp_qp {
	uint32_t peer; /* network order */
	uint32_t lqp, rqp, start_psn, pmtu, msn, since_ack;
	enum qp_kind kind;
	uint16_t sport;
	uint64_t epsn, last_cnp_ns;
	bool nak_sent, ack_pending;
	struct flow_stats *tx;
};

struct rx_pkt {
	uint8_t *buf;
	size_t len;
	uint32_t src, dst;
	uint16_t sport;
	uint8_t tos;
};

struct tx_batch {
	int count;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t seq[BATCH];
	uint8_t buf[BATCH][MAX_PKT];
};

static struct config cfg = {
    .duration_s = 0,
    .max_msgs = UINT64_MAX,
    .pmtu = 1024,
    .tos = 26 << 2 | 2,
    .cnp_tos = 48 << 2,
    .sport_override = -1,
    .cm_port = CM_PORT,
    .cnp_interval_ns = 50 * NSEC_PER_USEC,
};
static struct flow_table sent_flows, recv_flows;
static struct req_qp req_qps[MAX_QPS];
static struct rsp_qp rsp_qps[MAX_QPS];
static int nr_req_qps, nr_rsp_qps;
static int rx_fd = -1;
static volatile sig_atomic_t stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- wire encoding ---------------------------------------------------- */

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

static uint32_t get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | get_be24(p + 1);
}

static size_t put_bth(uint8_t *p, uint8_t opcode, unsigned int pad, uint32_t dest_qp, bool ackreq,
		      uint32_t psn)
{
	memset(p, 0, BTH_LEN);
	p[0] = opcode;
	p[1] = pad << 4; /* SE = M = 0, PadCnt in bits 5:4, TVer = 0 */
	put_be16(p + 2, BTH_PKEY_DEFAULT);
	put_be24(p + 5, dest_qp);
	p[8] = ackreq ? BTH_ACKREQ : 0;
	put_be24(p + 9, psn & PSN_MASK);
	return BTH_LEN;
}

static size_t put_reth(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len)
{
	put_be32(p, va >> 32);
	put_be32(p + 4, va);
	put_be32(p + 8, rkey);
	put_be32(p + 12, len);
	return RETH_LEN;
}

static size_t put_aeth(uint8_t *p, uint8_t syndrome, uint32_t msn)
{
	p[0] = syndrome;
	put_be24(p + 1, msn);
	return AETH_LEN;
}

/*
 * Payload plus pad to a 4-byte boundary plus ICRC.  The ICRC is sent as
 * zero: it covers the IP ID, which the kernel picks after we hand it the
 * payload, so it cannot be computed from a UDP socket.
 */
static size_t put_payload_icrc(uint8_t *p, uint32_t len, unsigned int pad)
{
	memset(p, 0, len + pad + ICRC_LEN);
	return len + pad + ICRC_LEN;
}

static unsigned int pad_of(uint32_t len)
{
	return (4 - (len & 3)) & 3;
}

static uint32_t pkts_for(uint32_t len, uint32_t pmtu)
{
	return len ? (len + pmtu - 1) / pmtu : 1;
}

/* Unwrap a 24-bit PSN to the seq nearest to @ref. */
static int64_t seq_of(uint64_t ref, uint32_t start_psn, uint32_t psn)
{
	uint32_t ref_psn = (start_psn + ref) & PSN_MASK;
	int32_t diff = (int32_t)(((psn - ref_psn) & PSN_MASK) << 8) >> 8;

	return (int64_t)ref + diff;
}

static uint32_t psn_of(uint64_t seq, uint32_t start_psn)
{
	return (start_psn + seq) & PSN_MASK;
}

/*
 * rdma_calc_flow_label() and rdma_flow_label_to_udp_sport() from
 * include/rdma/ib_verbs.h: the product is symmetric, so requester and
 * responder derive the same source port for a connection.
 */
static uint16_t roce_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl, fl_low, fl_high;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = v & 0xfffff;
	fl_low = fl & 0x3fff;
	fl_high = fl & 0xfc000;
	fl_low ^= fl_high >> 14;
	return fl_low | 0xc000;
}

/* ---- ground-truth flow table ------------------------------------------ */

static struct flow_stats *flow_get(struct flow_table *t, const struct flow_key *key)
{
	struct flow_stats *f;
	int i;

	for (i = 0; i < t->count; i++)
		if (!memcmp(&t->flows[i].key, key, sizeof(*key)))
			return &t->flows[i];
	if (t->count == MAX_FLOWS) {
		fprintf(stderr, "rocegen: flow table full\n");
		return &t->overflow;
	}
	f = &t->flows[t->count++];
	f->key = *key;
	f->kind = "unknown";
	return f;
}

static void flow_account(struct flow_stats *f, size_t udp_len)
{
	f->packets++;
	f->bytes += WIRE_OVERHEAD + udp_len;
}

static void print_flow(const struct flow_stats *f, bool received)
{
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &f->key.src, src, sizeof(src));
	inet_ntop(AF_INET, &f->key.dst, dst, sizeof(dst));
	printf("{\"src\":\"%s\",\"dst\":\"%s\",\"sport\":%u,\"dport\":%u,"
	       "\"src_qp\":%u,\"dest_qp\":%u,\"kind\":\"%s\","
	       "\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"retransmits\":%" PRIu64
	       ",\"cnps\":%" PRIu64 ",\"naks\":%" PRIu64 ",\"acks\":%" PRIu64,
	       src, dst, f->key.sport, f->key.dport, f->src_qp, f->key.dest_qp, f->kind, f->packets,
	       f->bytes, f->retransmits, f->cnps, f->naks, f->acks);
	if (received)
		printf(",\"ce\":%" PRIu64 ",\"out_of_seq\":%" PRIu64, f->ce, f->out_of_seq);
	printf("}");
}

static void print_table(const char *name, const struct flow_table *t, bool received)
{
	int i;

	printf("\"%s\":[", name);
	for (i = 0; i < t->count; i++) {
		printf(i ? ",\n  " : "\n  ");
		print_flow(&t->flows[i], received);
	}
	printf("]");
}

static void print_ground_truth(const char *role)
{
	printf("{\"role\":\"%s\",\"icrc\":\"zero\",", role);
	print_table("sent", &sent_flows, false);
	printf(",\n");
	print_table("received", &recv_flows, true);
	printf("}\n");
	fflush(stdout);
}

/* ---- sockets ---------------------------------------------------------- */

static struct sockaddr_in sin_of(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};

	sin.sin_addr.s_addr = addr;
	sin.sin_port = htons(port);
	return sin;
}

static int setopt_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) ? -errno : 0;
}

/*
 * Transmit sockets are bound to a QP's source port but left unconnected:
 * an unconnected UDP socket ignores ICMP errors, so a peer that exits
 * first does not make later sends fail.  SO_REUSEADDR lets QPs pinned to
 * one port (--sport-override) share it.
 */
static int udp_socket(uint32_t addr, uint16_t port, int tos)
{
	struct sockaddr_in sin = sin_of(addr, port);
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* RoCE sets DF; a too-large PMTU must fail, not fragment. */
	err = setopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1) ?:
	      setopt_int(fd, IPPROTO_IP, IP_TOS, tos) ?:
	      setopt_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
	if (!err && bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int rx_socket(void)
{
	struct sockaddr_in sin = sin_of(INADDR_ANY, ROCE_UDP_PORT);
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* Big buffer: a drop here would break sent == captured checks. */
	err = setopt_int(fd, IPPROTO_IP, IP_RECVTOS, 1) ?:
	      setopt_int(fd, IPPROTO_IP, IP_PKTINFO, 1) ?:
	      setopt_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20);
	if (!err && bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Sockets bound to each source port in use, shared by QPs on a port. */
static struct {
	uint16_t port;
	int fd;
} port_fds[MAX_QPS];
static int nr_port_fds;

static int port_fd(uint16_t port)
{
	int i, fd;

	for (i = 0; i < nr_port_fds; i++)
		if (port_fds[i].port == port)
			return port_fds[i].fd;
	if (nr_port_fds == MAX_QPS)
		return -ENOSPC;
	fd = udp_socket(INADDR_ANY, port, cfg.tos);
	if (fd < 0)
		return fd;
	port_fds[nr_port_fds].port = port;
	port_fds[nr_port_fds++].fd = fd;
	return fd;
}

static uint32_t local_addr_for(uint32_t dst)
{
	struct sockaddr_in sin = sin_of(dst, ROCE_UDP_PORT);
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t addr = 0;

	if (fd >= 0 && !connect(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
	    !getsockname(fd, (struct sockaddr *)&sin, &len))
		addr = sin.sin_addr.s_addr;
	if (fd >= 0)
		close(fd);
	return addr;
}

/* Send @b to @dst:4791 (TOS override if @tos >= 0); returns packets sent. */
static int send_batch(int fd, uint32_t dst, struct tx_batch *b, int tos)
{
	struct sockaddr_in sin = sin_of(dst, ROCE_UDP_PORT);
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct cmsghdr *cm;
	int i, sent = 0, ret;

	for (i = 0; i < b->count; i++) {
		struct msghdr *h = &b->msgs[i].msg_hdr;

		memset(h, 0, sizeof(*h));
		h->msg_name = &sin;
		h->msg_namelen = sizeof(sin);
		h->msg_iov = &b->iov[i];
		h->msg_iovlen = 1;
		if (tos >= 0) {
			/* Per-packet TOS, e.g. CNPs in their own class. */
			h->msg_control = cbuf;
			h->msg_controllen = sizeof(cbuf);
		}
	}
	if (tos >= 0) {
		cm = (struct cmsghdr *)cbuf;
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_TOS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &tos, sizeof(int));
	}
	while (sent < b->count) {
		ret = sendmmsg(fd, b->msgs + sent, b->count - sent, 0);
		if (ret < 0) {
			if (errno == EINTR && !stop)
				continue;
			fprintf(stderr, "rocegen: sendmmsg: %s\n", strerror(errno));
			break;
		}
		sent += ret;
	}
	return sent;
}

static uint8_t *batch_slot(struct tx_batch *b, size_t len, uint64_t seq)
{
	b->iov[b->count].iov_base = b->buf[b->count];
	b->iov[b->count].iov_len = len;
	b->seq[b->count] = seq;
	return b->buf[b->count++];
}

/* CNP (A17.9.3): BTH with BECN, 16 reserved bytes, ICRC. */
static void send_cnp(uint16_t sport, uint32_t dst, uint32_t dest_qp, struct flow_stats *tx)
{
	static struct tx_batch b;
	size_t len = BTH_LEN + CNP_RSVD_LEN + ICRC_LEN;
	uint8_t *p;
	int fd = port_fd(sport);

	if (fd < 0)
		return;
	b.count = 0;
	p = batch_slot(&b, len, 0);
	put_bth(p, ROCE_CNP, 0, dest_qp, false, 0);
	p[4] = BTH_BECN;
	memset(p + BTH_LEN, 0, CNP_RSVD_LEN + ICRC_LEN);
	if (send_batch(fd, dst, &b, cfg.cnp_tos) == 1) {
		flow_account(tx, len);
		tx->cnps++;
	}
}

/* DCQCN notification point: at most one CNP per QP per interval. */
static void maybe_cnp(uint64_t *last_ns, uint16_t sport, uint32_t dst, uint32_t dest_qp,
		      struct flow_stats *tx)
{
	uint64_t now = now_ns();

	if (cfg.no_cnp || now - *last_ns < cfg.cnp_interval_ns)
		return;
	*last_ns = now;
	send_cnp(sport, dst, dest_qp, tx);
}

static bool is_ce(uint8_t tos)
{
	return (tos & 3) == 3;
}

static bool is_request(uint8_t opcode)
{
	return opcode <= RC_READ_REQUEST;
}

static bool is_last(uint8_t opcode)
{
	return opcode == RC_SEND_LAST || opcode == RC_SEND_ONLY || opcode == RC_WRITE_LAST ||
	       opcode == RC_WRITE_ONLY;
}

static bool is_read_response(uint8_t opcode)
{
	return opcode >= RC_READ_RESP_FIRST && opcode <= RC_READ_RESP_ONLY;
}

/* ---- receive ---------------------------------------------------------- */

static void parse_cmsgs(struct msghdr *h, struct rx_pkt *pkt)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
		if (cm->cmsg_level != IPPROTO_IP)
			continue;
		if (cm->cmsg_type == IP_TOS)
			pkt->tos = *CMSG_DATA(cm);
		else if (cm->cmsg_type == IP_PKTINFO)
			pkt->dst = ((struct in_pktinfo *)CMSG_DATA(cm))->ipi_addr.s_addr;
	}
}

/* Drain the rx socket, handing each RoCE packet to @handle. */
static void rx_drain(void (*handle)(struct rx_pkt *pkt))
{
	static uint8_t bufs[BATCH][MAX_PKT];
	static char cbufs[BATCH][128];
	struct sockaddr_in from[BATCH];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct rx_pkt pkt;
	int i, n, round;

	for (round = 0; round < RX_BATCHES; round++) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = MAX_PKT;
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = cbufs[i];
			msgs[i].msg_hdr.msg_controllen = sizeof(cbufs[i]);
		}
		n = recvmmsg(rx_fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (i = 0; i < n; i++) {
			memset(&pkt, 0, sizeof(pkt));
			pkt.buf = bufs[i];
			pkt.len = msgs[i].msg_len;
			pkt.src = from[i].sin_addr.s_addr;
			pkt.sport = ntohs(from[i].sin_port);
			parse_cmsgs(&msgs[i].msg_hdr, &pkt);
			if (pkt.len >= BTH_LEN + ICRC_LEN)
				handle(&pkt);
		}
	}
}

static struct flow_stats *rx_flow(const struct rx_pkt *pkt, uint32_t dest_qp)
{
	struct flow_key key = {
	    .src = pkt->src,
	    .dst = pkt->dst,
	    .sport = pkt->sport,
	    .dport = ROCE_UDP_PORT,
	    .dest_qp = dest_qp,
	};
	struct flow_stats *f = flow_get(&recv_flows, &key);

	flow_account(f, pkt->len);
	if (is_ce(pkt->tos))
		f->ce++;
	return f;
}

static void wait_rx(uint64_t wait_ns)
{
	struct pollfd pfd = {.fd = rx_fd, .events = POLLIN};
	struct timespec ts = {
	    .tv_sec = wait_ns / NSEC_PER_SEC,
	    .tv_nsec = wait_ns % NSEC_PER_SEC,
	};

	ppoll(&pfd, 1, &ts, NULL);
}

/* ---- requester -------------------------------------------------------- */

/* Wire bytes the READ responses for @len bytes will take (pad rounded up). */
static uint64_t read_resp_cost(uint32_t len, uint32_t pmtu)
{
	return (uint64_t)pkts_for(len, pmtu) * (WIRE_OVERHEAD + BTH_LEN + AETH_LEN + ICRC_LEN + 3) +
	       len;
}

static uint64_t msg_va(const struct req_qp *qp, uint64_t msg)
{
	/* A 64 MiB window per QP, reused round robin. */
	return ((uint64_t)qp->lqp << 32) + (msg * qp->msg_bytes) % (64ULL << 20);
}

static uint8_t write_send_opcode(enum qp_kind kind, uint32_t off, uint32_t n)
{
	static const uint8_t ops[2][4] = {
	    {RC_WRITE_FIRST, RC_WRITE_MIDDLE, RC_WRITE_LAST, RC_WRITE_ONLY},
	    {RC_SEND_FIRST, RC_SEND_MIDDLE, RC_SEND_LAST, RC_SEND_ONLY},
	};
	int pos = n == 1 ? 3 : off == 0 ? 0 : off == n - 1 ? 2 : 1;

	return ops[kind == KIND_SEND][pos];
}

/*
 * Build the request packet for @seq into @b.  Every packet can be rebuilt
 * from its seq alone (all messages of a QP have the same size), which is
 * what makes go-back-N resends cheap.  Returns the next seq to send.
 */
static uint64_t build_request(struct req_qp *qp, uint64_t seq, struct tx_batch *b, uint64_t *cost)
{
	uint64_t msg = seq / qp->pkts_per_msg;
	uint32_t off = seq % qp->pkts_per_msg, n = qp->pkts_per_msg;
	uint32_t done = off * cfg.pmtu, left = qp->msg_bytes - done;
	uint32_t len = left < cfg.pmtu ? left : cfg.pmtu;
	uint32_t psn = psn_of(seq, qp->start_psn);
	uint8_t pkt[MAX_PKT], op;
	size_t hl;

	if (qp->kind == KIND_READ) {
		hl = put_bth(pkt, RC_READ_REQUEST, 0, qp->rqp, true, psn);
		hl += put_reth(pkt + hl, msg_va(qp, msg) + done, 0x1000 + qp->rqp, left);
		hl += put_payload_icrc(pkt + hl, 0, 0);
		*cost = read_resp_cost(left, cfg.pmtu);
		memcpy(batch_slot(b, hl, seq), pkt, hl);
		return (msg + 1) * n;
	}
	op = write_send_opcode(qp->kind, off, n);
	hl = put_bth(pkt, op, pad_of(len), qp->rqp, off == n - 1, psn);
	if (op == RC_WRITE_FIRST || op == RC_WRITE_ONLY)
		hl += put_reth(pkt + hl, msg_va(qp, msg), 0x1000 + qp->rqp, qp->msg_bytes);
	hl += put_payload_icrc(pkt + hl, len, pad_of(len));
	*cost = WIRE_OVERHEAD + hl;
	memcpy(batch_slot(b, hl, seq), pkt, hl);
	return seq + 1;
}

static bool can_issue(const struct req_qp *qp, bool draining)
{
	return !draining && qp->msgs_issued < cfg.max_msgs &&
	       qp->snd_max + qp->pkts_per_msg - qp->una <= WINDOW_PSNS;
}

static void req_refill(struct req_qp *qp, uint64_t now)
{
	int64_t burst = BATCH * (WIRE_OVERHEAD + MAX_PKT);

	qp->tokens += (now - qp->refill_ns) * qp->rate_bytes_per_s / NSEC_PER_SEC;
	if (qp->tokens > burst)
		qp->tokens = burst;
	qp->refill_ns = now;
}

/* Account the packets that left; rewind snd_nxt past any that did not. */
static void req_account(struct req_qp *qp, struct tx_batch *b, int sent, const uint64_t *next,
			uint64_t now)
{
	int i;

	for (i = 0; i < sent; i++) {
		flow_account(qp->tx, b->iov[i].iov_len);
		if (b->seq[i] < qp->hi_sent)
			qp->tx->retransmits++;
		if (next[i] > qp->hi_sent)
			qp->hi_sent = next[i];
		/* Every message ends in an AckReq packet. */
		if (next[i] % qp->pkts_per_msg == 0 && next[i] > qp->ackreq_end) {
			qp->ackreq_end = next[i];
			if (!qp->timer_armed) {
				qp->timer_armed = true;
				qp->timer_ns = now;
			}
		}
	}
	if (sent < b->count)
		qp->snd_nxt = b->seq[sent];
}

static void req_tx(struct req_qp *qp, uint64_t now, bool draining)
{
	static struct tx_batch b;
	uint64_t next[BATCH], cost;
	int sent;

	req_refill(qp, now);
	b.count = 0;
	qp->next_cost = 0;
	while (b.count < BATCH) {
		if (qp->snd_nxt == qp->snd_max) {
			if (!can_issue(qp, draining))
				break;
			qp->snd_max += qp->pkts_per_msg;
			qp->msgs_issued++;
		}
		next[b.count] = build_request(qp, qp->snd_nxt, &b, &cost);
		if (qp->tokens < (int64_t)cost) {
			b.count--;
			qp->next_cost = cost;
			break;
		}
		qp->tokens -= cost;
		qp->snd_nxt = next[b.count - 1];
	}
	if (!b.count)
		return;
	sent = send_batch(port_fd(qp->sport), cfg.dst.s_addr, &b, -1);
	req_account(qp, &b, sent, next, now);
}

static void req_progress(struct req_qp *qp, uint64_t new_una, uint64_t now)
{
	if (new_una <= qp->una || new_una > qp->hi_sent)
		return;
	qp->una = new_una;
	if (qp->snd_nxt < qp->una)
		qp->snd_nxt = qp->una;
	qp->timer_armed = qp->una < qp->ackreq_end;
	qp->timer_ns = now;
}

static void req_go_back(struct req_qp *qp, uint64_t seq, uint64_t now)
{
	req_progress(qp, seq, now);
	if (seq != qp->una)
		return;
	qp->snd_nxt = qp->una;
	qp->timer_ns = now;
}

static void req_timer(struct req_qp *qp, uint64_t now)
{
	/* timer_ns may be newer than @now: rx ran after @now was taken. */
	if (!qp->timer_armed || now < qp->timer_ns + RTO_NS)
		return;
	qp->snd_nxt = qp->una;
	qp->timer_ns = now;
}

static void req_on_aeth(struct req_qp *qp, const struct rx_pkt *pkt, int64_t seq, uint64_t now)
{
	uint8_t syn = pkt->buf[BTH_LEN];
	int type = syn >> AETH_TYPE_SHIFT & AETH_TYPE_MASK;

	if (type == AETH_TYPE_NAK) {
		qp->rx->naks++;
		if (syn == AETH_SYN_NAK_PSN_SEQ)
			req_go_back(qp, seq, now);
		return;
	}
	if (type != AETH_TYPE_ACK)
		return;
	qp->rx->acks++;
	/* READ data is acknowledged by its responses, never by an ACK. */
	if (qp->kind != KIND_READ)
		req_progress(qp, seq + 1, now);
}

/* READ responses arrive in PSN order; a gap means one was lost. */
static void req_on_read_resp(struct req_qp *qp, int64_t seq, uint64_t now)
{
	if (seq < (int64_t)qp->una) {
		qp->rx->retransmits++;
		return;
	}
	if (seq == (int64_t)qp->una) {
		req_progress(qp, seq + 1, now);
		return;
	}
	qp->rx->out_of_seq++;
	if (qp->rewound_at != qp->una) {
		qp->rewound_at = qp->una;
		req_go_back(qp, qp->una, now);
	}
}

static struct req_qp *req_find(uint32_t lqp)
{
	int i;

	for (i = 0; i < nr_req_qps; i++)
		if (req_qps[i].lqp == lqp)
			return &req_qps[i];
	return NULL;
}

static void req_handle(struct rx_pkt *pkt)
{
	uint8_t op = pkt->buf[0];
	struct req_qp *qp = req_find(get_be24(pkt->buf + 5));
	uint64_t now = now_ns();
	int64_t seq;

	if (!qp || pkt->src != cfg.dst.s_addr)
		return;
	qp->rx = rx_flow(pkt, qp->lqp);
	qp->rx->kind = kind_names[qp->kind];
	qp->rx->src_qp = qp->rqp;
	seq = seq_of(qp->una, qp->start_psn, get_be24(pkt->buf + 9));
	if (op == ROCE_CNP) {
		qp->rx->cnps++;
		return;
	}
	if (is_read_response(op) && qp->kind == KIND_READ) {
		/* The requester is the notification point for READ data. */
		if (is_ce(pkt->tos))
			maybe_cnp(&qp->last_cnp_ns, qp->sport, cfg.dst.s_addr, qp->rqp, qp->tx);
		req_on_read_resp(qp, seq, now);
	} else if (op == RC_ACK && pkt->len >= BTH_LEN + AETH_LEN + ICRC_LEN) {
		req_on_aeth(qp, pkt, seq, now);
	}
}

/* Done when no QP may start a message and everything sent is acked. */
static bool req_done(bool draining)
{
	int i;

	for (i = 0; i < nr_req_qps; i++)
		if (req_qps[i].una != req_qps[i].snd_max || can_issue(&req_qps[i], draining))
			return false;
	return true;
}

static uint64_t req_next_wait(uint64_t now)
{
	uint64_t wait = MAX_WAIT_NS, w;
	int i;

	for (i = 0; i < nr_req_qps; i++) {
		struct req_qp *qp = &req_qps[i];

		if (qp->next_cost && qp->tokens < (int64_t)qp->next_cost) {
			w = (qp->next_cost - qp->tokens) * NSEC_PER_SEC / qp->rate_bytes_per_s;
			if (w < wait)
				wait = w;
		}
		if (qp->timer_armed && qp->timer_ns + RTO_NS > now &&
		    qp->timer_ns + RTO_NS - now < wait)
			wait = qp->timer_ns + RTO_NS - now;
	}
	return wait;
}

static void req_loop(void)
{
	uint64_t start = now_ns(), now, deadline, drain_end = 0;
	bool draining = false;
	int i;

	deadline = start + (uint64_t)(cfg.duration_s * NSEC_PER_SEC);
	for (i = 0; i < nr_req_qps; i++)
		req_qps[i].refill_ns = start;
	while (!stop) {
		now = now_ns();
		if (!draining && now >= deadline) {
			draining = true;
			drain_end = now + DRAIN_NS;
		}
		if (req_done(draining) || (draining && now >= drain_end))
			break;
		rx_drain(req_handle);
		for (i = 0; i < nr_req_qps; i++) {
			req_timer(&req_qps[i], now);
			req_tx(&req_qps[i], now, draining);
		}
		wait_rx(req_next_wait(now_ns()));
	}
}

/* ---- connection setup (perftest-style TCP exchange) ------------------- */

static int tcp_connect_retry(uint32_t dst, uint16_t port)
{
	struct sockaddr_in sin = sin_of(dst, port);
	int attempt, fd;

	for (attempt = 0; attempt < 50 && !stop; attempt++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			return fd;
		close(fd);
		usleep(100 * 1000);
	}
	return -ECONNREFUSED;
}

/*
 * RC needs each side to know the other's QPN and start PSN; real stacks
 * exchange them out of band (RDMA-CM or perftest's TCP socket).  One
 * line per QP: "QP <req-qpn> <rsp-qpn> <kind> <start-psn> <sport> <pmtu>".
 */
static int cm_client(void)
{
	char msg[CM_MAX], reply[8] = {0};
	int fd, i, off = 0, err = 0;

	for (i = 0; i < nr_req_qps; i++)
		off += snprintf(msg + off, sizeof(msg) - off, "QP %u %u %s %u %u %u\n",
				req_qps[i].lqp, req_qps[i].rqp, kind_names[req_qps[i].kind],
				req_qps[i].start_psn, req_qps[i].sport, cfg.pmtu);
	off += snprintf(msg + off, sizeof(msg) - off, "END\n");
	fd = tcp_connect_retry(cfg.dst.s_addr, cfg.cm_port);
	if (fd < 0)
		return fd;
	if (write(fd, msg, off) != off || read(fd, reply, sizeof(reply) - 1) < 2 ||
	    strncmp(reply, "OK", 2))
		err = -EPROTO;
	close(fd);
	return err;
}

static int parse_kind(const char *s, enum qp_kind *kind)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(s, kind_names[i])) {
			*kind = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_qp_spec(const char *spec)
{
	struct req_qp *qp = &req_qps[nr_req_qps];
	char kind[8];
	double mbps;
	unsigned int bytes;

	if (nr_req_qps == MAX_QPS)
		return -ENOSPC;
	if (sscanf(spec, "%u:%u:%7[a-z]:%lf:%u", &qp->lqp, &qp->rqp, kind, &mbps, &bytes) != 5 ||
	    parse_kind(kind, &qp->kind) || mbps <= 0 || !bytes || qp->lqp > PSN_MASK ||
	    qp->rqp > PSN_MASK)
		return -EINVAL;
	qp->rate_bytes_per_s = mbps * 1e6 / 8;
	qp->msg_bytes = bytes;
	nr_req_qps++;
	return 0;
}

static int req_setup(void)
{
	uint32_t local = local_addr_for(cfg.dst.s_addr);
	int i;

	if (!local)
		return -EHOSTUNREACH;
	for (i = 0; i < nr_req_qps; i++) {
		struct req_qp *qp = &req_qps[i];
		struct flow_key key = {
		    .src = local,
		    .dst = cfg.dst.s_addr,
		    .dport = ROCE_UDP_PORT,
		    .dest_qp = qp->rqp,
		};

		qp->sport =
		    cfg.sport_override >= 0 ? cfg.sport_override : roce_sport(qp->lqp, qp->rqp);
		/*
		 * Real stacks draw each QP's start PSN at random; QPs far
		 * apart in PSN, as there, and the same every run.
		 */
		qp->start_psn = (cfg.start_psn + (uint32_t)i * START_PSN_STEP) & PSN_MASK;
		qp->pkts_per_msg = pkts_for(qp->msg_bytes, cfg.pmtu);
		if (qp->pkts_per_msg > WINDOW_PSNS)
			return -EMSGSIZE;
		qp->tokens = WIRE_OVERHEAD + MAX_PKT;
		qp->rewound_at = UINT64_MAX;
		key.sport = qp->sport;
		qp->tx = flow_get(&sent_flows, &key);
		qp->tx->kind = kind_names[qp->kind];
		qp->tx->src_qp = qp->lqp;
		if (port_fd(qp->sport) < 0)
			return -EADDRINUSE;
	}
	return cm_client();
}

/* ---- responder -------------------------------------------------------- */

static struct rsp_qp *rsp_find(uint32_t peer, uint32_t lqp)
{
	int i;

	for (i = 0; i < nr_rsp_qps; i++)
		if (rsp_qps[i].peer == peer && rsp_qps[i].lqp == lqp)
			return &rsp_qps[i];
	return NULL;
}

static int rsp_add(uint32_t peer, uint32_t local, const char *line)
{
	unsigned int rqp, lqp, psn, sport, pmtu;
	struct rsp_qp *qp;
	struct flow_key key = {.src = local, .dst = peer};
	char kind[8];
	enum qp_kind k;

	if (sscanf(line, "QP %u %u %7s %u %u %u", &rqp, &lqp, kind, &psn, &sport, &pmtu) != 6 ||
	    parse_kind(kind, &k) || pmtu > MAX_PMTU || !pmtu)
		return -EINVAL;
	qp = rsp_find(peer, lqp);
	if (!qp) {
		if (nr_rsp_qps == MAX_QPS)
			return -ENOSPC;
		qp = &rsp_qps[nr_rsp_qps++];
	}
	*qp = (struct rsp_qp){.peer = peer,
			      .lqp = lqp,
			      .rqp = rqp,
			      .start_psn = psn,
			      .pmtu = pmtu,
			      .kind = k,
			      .sport = sport};
	key.sport = sport;
	key.dport = ROCE_UDP_PORT;
	key.dest_qp = rqp;
	qp->tx = flow_get(&sent_flows, &key);
	qp->tx->kind = kind_names[k];
	qp->tx->src_qp = lqp;
	return port_fd(sport) < 0 ? -EADDRINUSE : 0;
}

static void cm_serve_one(int lfd)
{
	struct sockaddr_in peer, local;
	socklen_t plen = sizeof(peer), llen = sizeof(local);
	struct timeval tv = {.tv_sec = 1};
	char msg[CM_MAX], *line, *save;
	int fd, off = 0, n, err = 0;

	fd = accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	getsockname(fd, (struct sockaddr *)&local, &llen);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (off < CM_MAX - 1 && !strstr(msg, "END\n")) {
		n = read(fd, msg + off, CM_MAX - 1 - off);
		if (n <= 0)
			break;
		off += n;
		msg[off] = 0;
	}
	msg[off] = 0;
	for (line = strtok_r(msg, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "QP ", 3))
			err = rsp_add(peer.sin_addr.s_addr, local.sin_addr.s_addr, line);
	if (write(fd, err ? "ERR\n" : "OK\n", err ? 4 : 3) < 0)
		err = -errno;
	if (err)
		fprintf(stderr, "rocegen: bad CM request: %s\n", strerror(-err));
	close(fd);
}

static void rsp_send_aeth(struct rsp_qp *qp, uint8_t syndrome, uint64_t seq)
{
	static struct tx_batch b;
	uint8_t *p;
	size_t len = BTH_LEN + AETH_LEN + ICRC_LEN;

	b.count = 0;
	p = batch_slot(&b, len, seq);
	put_bth(p, RC_ACK, 0, qp->rqp, false, psn_of(seq, qp->start_psn));
	put_aeth(p + BTH_LEN, syndrome, qp->msn);
	memset(p + BTH_LEN + AETH_LEN, 0, ICRC_LEN);
	if (send_batch(port_fd(qp->sport), qp->peer, &b, -1) != 1)
		return;
	flow_account(qp->tx, len);
	if (syndrome == AETH_SYN_ACK)
		qp->tx->acks++;
	else
		qp->tx->naks++;
}

static uint8_t read_resp_opcode(uint32_t i, uint32_t n)
{
	if (n == 1)
		return RC_READ_RESP_ONLY;
	return i == 0 ? RC_READ_RESP_FIRST : i == n - 1 ? RC_READ_RESP_LAST : RC_READ_RESP_MIDDLE;
}

/* Answer a READ request of @len bytes whose first PSN is @seq. */
static void rsp_read(struct rsp_qp *qp, uint64_t seq, uint32_t len, bool dup)
{
	static struct tx_batch b;
	uint32_t n = pkts_for(len, qp->pmtu), i, off, chunk, sent;
	uint8_t op, *p, hdr[BTH_LEN + AETH_LEN];
	size_t hl;

	b.count = 0;
	for (i = 0; i < n; i++) {
		off = i * qp->pmtu;
		chunk = len - off < qp->pmtu ? len - off : qp->pmtu;
		op = read_resp_opcode(i, n);
		hl =
		    put_bth(hdr, op, pad_of(chunk), qp->rqp, false, psn_of(seq + i, qp->start_psn));
		/* Only FIRST, LAST and ONLY carry an AETH (IBTA 9.7.5.1.x). */
		if (op != RC_READ_RESP_MIDDLE)
			hl += put_aeth(hdr + hl, AETH_SYN_ACK, qp->msn);
		p = batch_slot(&b, hl + chunk + pad_of(chunk) + ICRC_LEN, seq + i);
		memcpy(p, hdr, hl);
		put_payload_icrc(p + hl, chunk, pad_of(chunk));
		if (b.count < BATCH && i + 1 < n)
			continue;
		sent = send_batch(port_fd(qp->sport), qp->peer, &b, -1);
		for (; sent; sent--) {
			flow_account(qp->tx, b.iov[sent - 1].iov_len);
			qp->tx->retransmits += dup;
		}
		b.count = 0;
	}
}

static void rsp_request(struct rsp_qp *qp, const struct rx_pkt *pkt, struct flow_stats *rx)
{
	uint8_t op = pkt->buf[0];
	int64_t seq = seq_of(qp->epsn, qp->start_psn, get_be24(pkt->buf + 9));
	bool ackreq = pkt->buf[8] & BTH_ACKREQ;
	uint32_t dma_len = 0;

	if (op == RC_READ_REQUEST && pkt->len >= BTH_LEN + RETH_LEN)
		dma_len = get_be32(pkt->buf + BTH_LEN + 12);
	if (seq > (int64_t)qp->epsn) {
		/* Go-back-N: one NAK per gap, then drop until the resend. */
		rx->out_of_seq++;
		if (!qp->nak_sent)
			rsp_send_aeth(qp, AETH_SYN_NAK_PSN_SEQ, qp->epsn);
		qp->nak_sent = true;
		return;
	}
	if (seq < (int64_t)qp->epsn) {
		rx->retransmits++;
		if (op == RC_READ_REQUEST)
			rsp_read(qp, seq, dma_len, true);
		else
			qp->ack_pending = true;
		return;
	}
	qp->nak_sent = false;
	if (op == RC_READ_REQUEST) {
		qp->msn = (qp->msn + 1) & PSN_MASK;
		rsp_read(qp, seq, dma_len, false);
		qp->epsn += pkts_for(dma_len, qp->pmtu);
		return;
	}
	qp->epsn++;
	if (is_last(op))
		qp->msn = (qp->msn + 1) & PSN_MASK;
	if (ackreq || ++qp->since_ack >= ACK_EVERY)
		qp->ack_pending = true;
}

static void rsp_handle(struct rx_pkt *pkt)
{
	uint32_t dest_qp = get_be24(pkt->buf + 5);
	struct rsp_qp *qp = rsp_find(pkt->src, dest_qp);
	struct flow_stats *rx = rx_flow(pkt, dest_qp);

	if (!qp)
		return;
	rx->kind = kind_names[qp->kind];
	rx->src_qp = qp->rqp;
	if (pkt->buf[0] == ROCE_CNP) {
		rx->cnps++;
		return;
	}
	if (!is_request(pkt->buf[0]))
		return;
	if (is_ce(pkt->tos))
		maybe_cnp(&qp->last_cnp_ns, qp->sport, qp->peer, qp->rqp, qp->tx);
	rsp_request(qp, pkt, rx);
}

/* One ACK per QP per receive burst: coalesces AckReqs. */
static void rsp_flush_acks(void)
{
	int i;

	for (i = 0; i < nr_rsp_qps; i++) {
		struct rsp_qp *qp = &rsp_qps[i];

		if (!qp->ack_pending || !qp->epsn)
			continue;
		rsp_send_aeth(qp, AETH_SYN_ACK, qp->epsn - 1);
		qp->ack_pending = false;
		qp->since_ack = 0;
	}
}

static int listen_socket(uint16_t port)
{
	struct sockaddr_in sin = sin_of(INADDR_ANY, port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 8)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int rsp_loop(void)
{
	struct pollfd pfd[2] = {{.events = POLLIN}, {.events = POLLIN}};
	struct timespec ts = {.tv_nsec = 100 * NSEC_PER_MSEC};

	pfd[0].fd = rx_fd;
	pfd[1].fd = listen_socket(cfg.cm_port);
	if (pfd[1].fd < 0)
		return pfd[1].fd;
	fprintf(stderr, "rocegen: serving on udp %d, cm tcp %u\n", ROCE_UDP_PORT, cfg.cm_port);
	while (!stop) {
		if (ppoll(pfd, 2, &ts, NULL) <= 0)
			continue;
		if (pfd[1].revents & POLLIN)
			cm_serve_one(pfd[1].fd);
		rx_drain(rsp_handle);
		rsp_flush_acks();
	}
	close(pfd[1].fd);
	return 0;
}

/* ---- command line ----------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: rocegen serve [--dscp N] [--ecn ect0|ect1|notect] "
			"[--cnp-dscp N]\n"
			"                     [--cnp-interval-us N] [--no-cnp] [--cm-port N]\n"
			"       rocegen run --dst IP "
			"--qp LQP:RQP:write|send|read:MBPS:BYTES [--qp ...]\n"
			"                   [--duration S] [--messages N] [--mtu N] "
			"[--start-psn N]\n"
			"                   [--dscp N] [--ecn ect0|ect1|notect] "
			"[--cnp-dscp N]\n"
			"                   [--cnp-interval-us N] [--sport-override N] "
			"[--cm-port N]\n"
			"       rocegen sport LQP RQP\n");
	exit(2);
}

static int parse_ecn(const char *s)
{
	if (!strcmp(s, "ect0"))
		return 2;
	if (!strcmp(s, "ect1"))
		return 1;
	if (!strcmp(s, "notect"))
		return 0;
	usage();
	return 0;
}

static void parse_args(int argc, char **argv, bool run)
{
	static const struct option opts[] = {
	    {"dst", required_argument, NULL, 'd'},
	    {"qp", required_argument, NULL, 'q'},
	    {"duration", required_argument, NULL, 't'},
	    {"messages", required_argument, NULL, 'n'},
	    {"mtu", required_argument, NULL, 'm'},
	    {"start-psn", required_argument, NULL, 'p'},
	    {"dscp", required_argument, NULL, 'D'},
	    {"ecn", required_argument, NULL, 'e'},
	    {"cnp-dscp", required_argument, NULL, 'c'},
	    {"cnp-interval-us", required_argument, NULL, 'i'},
	    {"no-cnp", no_argument, NULL, 'N'},
	    {"sport-override", required_argument, NULL, 's'},
	    {"cm-port", required_argument, NULL, 'P'},
	    {0},
	};
	int dscp = 26, ecn = 2, opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!run || inet_pton(AF_INET, optarg, &cfg.dst) != 1)
				usage();
			break;
		case 'q':
			if (!run || parse_qp_spec(optarg))
				usage();
			break;
		case 't':
			cfg.duration_s = atof(optarg);
			break;
		case 'n':
			cfg.max_msgs = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			cfg.pmtu = atoi(optarg);
			break;
		case 'p':
			cfg.start_psn = strtoul(optarg, NULL, 0) & PSN_MASK;
			break;
		case 'D':
			dscp = atoi(optarg) & 0x3f;
			break;
		case 'e':
			ecn = parse_ecn(optarg);
			break;
		case 'c':
			cfg.cnp_tos = (atoi(optarg) & 0x3f) << 2;
			break;
		case 'i':
			cfg.cnp_interval_ns = strtoull(optarg, NULL, 0) * NSEC_PER_USEC;
			break;
		case 'N':
			cfg.no_cnp = true;
			break;
		case 's':
			cfg.sport_override = atoi(optarg) & 0xffff;
			break;
		case 'P':
			cfg.cm_port = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	cfg.tos = dscp << 2 | ecn;
	if (cfg.pmtu < 256 || cfg.pmtu > MAX_PMTU || (cfg.pmtu & (cfg.pmtu - 1)))
		usage();
	if (run && (!cfg.dst.s_addr || !nr_req_qps))
		usage();
	/* Default duration only when neither bound was given. */
	if (run && !cfg.duration_s)
		cfg.duration_s = cfg.max_msgs == UINT64_MAX ? 5 : 3600;
}

static int install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	return sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ? -errno : 0;
}

int main(int argc, char **argv)
{
	bool run;
	int err;

	if (argc < 2)
		usage();
	/* For scripts that must know a QP's path before it sends. */
	if (!strcmp(argv[1], "sport") && argc == 4) {
		printf("%u\n", roce_sport(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0)));
		return 0;
	}
	run = !strcmp(argv[1], "run");
	if (!run && strcmp(argv[1], "serve"))
		usage();
	parse_args(argc - 1, argv + 1, run);
	/* ppoll wakeups drive the pacing; the default 50 us slack is coarse. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	err = install_signals();
	rx_fd = err ? err : rx_socket();
	if (rx_fd < 0) {
		fprintf(stderr, "rocegen: udp %d: %s\n", ROCE_UDP_PORT, strerror(-rx_fd));
		return 1;
	}
	err = run ? req_setup() : 0;
	if (err) {
		fprintf(stderr, "rocegen: setup: %s\n", strerror(-err));
		return 1;
	}
	if (run)
		req_loop();
	else
		err = rsp_loop();
	print_ground_truth(run ? "run" : "serve");
	return err ? 1 : 0;
}
