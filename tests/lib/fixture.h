/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixture.h - the BPF fixture harness shared by tests/bpf: table-driven
 * frames run with BPF_PROG_TEST_RUN through the probe's own loader
 * (probe_load, probe_run_frame) and collector (collect_snapshot), and the
 * exact map contents they must leave. Probes are cached per configuration
 * and their maps emptied between tests, so every test starts from zero.
 *
 * Also the fixtures' common cast: header sizes and opcodes from the IBTA
 * spec, the hosts, ports and queue pairs the frames use.
 */
#ifndef __FP_TEST_FIXTURE_H
#define __FP_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "frames.h"
#include "probe/collect.h"
#include "probe/probe.h"

/* Header sizes (IBTA Vol 1 9.2-9.3, Annex A17.9.3 for the CNP). */
#define S_BTH	       12
#define S_RETH	       16
#define S_AETH	       4
#define S_DETH	       8
#define S_XRCETH       4
#define S_ATOMICETH    28
#define S_ATOMICACKETH 8
#define S_IMMDT	       4
#define S_IETH	       4
#define S_CNP_RSVD     16
#define S_ICRC	       4

/* RoCE part of a packet, and whole frames around it. */
#define ROCE(ext, payload) (S_BTH + (ext) + (payload) + S_ICRC)
#define L4(roce)	   (FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + (roce))
#define L6(roce)	   (FR_ETH_LEN + FR_IPV6_LEN + FR_UDP_LEN + (roce))
#define VX4(inner)	   (FR_ETH_LEN + FR_IPV4_LEN + FR_UDP_LEN + FR_VXLAN_LEN + (inner))
#define VX6(inner)	   (FR_ETH_LEN + FR_IPV6_LEN + FR_UDP_LEN + FR_VXLAN_LEN + (inner))

/* Opcodes (IBTA Table 38): transport in the top three bits. */
#define RC_SEND_FIRST	     0x00
#define RC_SEND_MIDDLE	     0x01
#define RC_SEND_LAST	     0x02
#define RC_SEND_LAST_IMM     0x03
#define RC_SEND_ONLY	     0x04
#define RC_SEND_ONLY_IMM     0x05
#define RC_WRITE_FIRST	     0x06
#define RC_WRITE_MIDDLE	     0x07
#define RC_WRITE_LAST	     0x08
#define RC_WRITE_LAST_IMM    0x09
#define RC_WRITE_ONLY	     0x0A
#define RC_WRITE_ONLY_IMM    0x0B
#define RC_READ_REQ	     0x0C
#define RC_READ_RESP_FIRST   0x0D
#define RC_READ_RESP_MIDDLE  0x0E
#define RC_READ_RESP_LAST    0x0F
#define RC_READ_RESP_ONLY    0x10
#define RC_ACK		     0x11
#define RC_ATOMIC_ACK	     0x12
#define RC_CMP_SWAP	     0x13
#define RC_FETCH_ADD	     0x14
#define RC_SEND_LAST_INV     0x16
#define RC_SEND_ONLY_INV     0x17
#define UC_SEND_ONLY	     0x24
#define UC_WRITE_ONLY	     0x2A
#define UD_SEND_ONLY	     0x64
#define UD_SEND_ONLY_IMM     0x65
#define CNP		     0x81
#define XRC_SEND_ONLY	     0xA4
#define XRC_WRITE_ONLY	     0xAA
#define XRC_READ_REQ	     0xAC
#define XRC_READ_RESP_FIRST  0xAD
#define XRC_READ_RESP_MIDDLE 0xAE
#define XRC_ACK		     0xB1
#define XRC_ATOMIC_ACK	     0xB2
#define XRC_CMP_SWAP	     0xB3
#define XRC_SEND_ONLY_INV    0xB7

/* AETH syndromes (IBTA 9.7.5.1): ACK, RNR NAK with timer, NAK codes. */
#define SYN_ACK		0x1F
#define SYN_RNR(timer)	(0x20 | (timer))
#define SYN_NAK_PSN	0x60
#define SYN_NAK_INVREQ	0x61
#define SYN_NAK_ACCESS	0x62
#define SYN_NAK_OPER	0x63
#define SYN_NAK_INVRDRQ 0x64

/* The 256-bit opcode bitmap: bit n is opcode n. */
#define OPW(op) ((op) >> 6)
#define OPB(op) (1ULL << ((op)&63))

#define ROCE_PORT  FP_ROCE_PORT_DEFAULT
#define VXLAN_PORT FP_VXLAN_PORT_DEFAULT
#define SPORT	   49152
#define SPORT_B	   49999
#define VX_SPORT   51000
#define QP_A	   0x0A1B2C
#define QP_B	   0x00D00D
#define VNI	   0xABCDEF
#define DSCP	   26
#define A4	   "10.0.0.1"
#define B4	   "10.0.0.2"
#define A6	   "fd00::1"
#define B6	   "fd00::2"
#define VTEP_A4	   "192.168.1.1"
#define VTEP_B4	   "192.168.1.2"
#define VTEP_A6	   "fd01::a"
#define VTEP_B6	   "fd01::b"

#define FX_PATH	      7
#define FX_FLOWS      1024
#define FX_MAX_FRAMES 32
#define FX_MAX_FLOWS  4
#define TS0	      1700000000000000000ULL
#define TS(i)	      (TS0 + (i)*1000ULL)

/* Verdicts: enum xdp_action and TC_ACT_UNSPEC (TCX_NEXT; a macro vmlinux.h lacks). */
#define XDP_ABORTED_   0
#define XDP_DROP_      1
#define XDP_PASS_      2
#define TC_ACT_UNSPEC_ (-1)

/* Which programs a fixture runs through, beyond XDP. */
#define RUN_TC_INGRESS 0x1
#define RUN_TC_EGRESS  0x2
#define RUN_UNMODIFIED 0x4

enum fx_prog {
	PROG_XDP,
	PROG_TC_INGRESS,
	PROG_TC_EGRESS,
	PROG_REPLAY,	     /* replay's entry point, the frames in batches, one thread */
	PROG_REPLAY_THREADS, /* the same on two threads, frames sharded by flow */
};

struct fx {
	struct frame *frames;
	int n;
	const void *arg;
};

/* Expected flow key; flags as in struct flow_key. */
struct exp_key {
	const char *src;
	const char *dst;
	__u16 sport;
	__u16 dport;
	__u32 vni;
	const char *isrc;
	const char *idst;
	__u16 isport;
	__u16 idport;
	__u32 qp;
	__u32 ifindex; /* 0: FX_PATH */
	__u8 flags;
	/* Mirror copies: type, session ID or GRE key, the switch's address. */
	__u8 mirror;
	__u32 mirror_id;
	const char *msrc; /* IPv6 (FP_FLOW_MIRROR_IPV6) is stored as its digest */
};

struct exp_flow {
	struct exp_key k;
	struct flow_counters c;
	__u64 cnp_dscp_mask; /* the record's: the DSCPs of its CNPs */
};

struct fixture {
	const char *name;
	void (*build)(struct fx *fx);
	const void *arg;
	__u16 roce_port;  /* 0: default */
	__u16 vxlan_port; /* 0: default */
	__u64 totals[FP_CNT_MAX];
	int n_flows;
	struct exp_flow flows[FX_MAX_FLOWS];
	unsigned int runs;
	/* Mirror copies among the frames, bit i for frame i: XDP_DROP with mirror_drop. */
	__u32 mirror_frames;
	bool mirror_drop; /* load the probe with mirror_drop (--mirror-port-drop) */
};

/* Expected values: one packet's flow counters, totals of RoCE, other, malformed frames. */
#define C_ONE_AT(op, nbytes, ts)                                                                   \
	.packets = 1, .bytes = (nbytes), .ecn = {[FR_ECT0] = 1}, .opcodes = {[OPW(op)] = OPB(op)}, \
	.dscp_mask = 1ULL << DSCP, .dscp = DSCP, .last_opcode = (op), .first_seen_ns = (ts),       \
	.last_seen_ns = (ts)
#define C_ONE(op, nbytes) C_ONE_AT(op, nbytes, TS(0))

/* One SEND_ONLY, at the first timestamp. */
#define C_SEND(nbytes) C_ONE(RC_SEND_ONLY, nbytes)

/* Totals of n RoCE frames and f new flows. */
#define T_ROCE(n, bytes, f)                                                                        \
	{                                                                                          \
		[FP_CNT_FRAMES] = (n), [FP_CNT_BYTES] = (bytes), [FP_CNT_ROCE] = (n),              \
		[FP_CNT_FLOW_NEW] = (f)                                                            \
	}
#define T_OTHER(n, bytes)                                                                          \
	{                                                                                          \
		[FP_CNT_FRAMES] = (n), [FP_CNT_BYTES] = (bytes), [FP_CNT_OTHER] = (n)              \
	}
#define T_BAD(n, bytes)                                                                            \
	{                                                                                          \
		[FP_CNT_FRAMES] = (n), [FP_CNT_BYTES] = (bytes), [FP_CNT_MALFORMED] = (n)          \
	}

#define SEND64 L4(ROCE(0, 64))
#define ACK4   L4(ROCE(S_AETH, 0))

/* n SEND ONLY requests, one per timestamp from first. */
#define C_SENDS_AT(n, first, last)                                                                 \
	.packets = (n), .bytes = (n)*SEND64, .ecn = {[FR_ECT0] = (n)},                             \
	.opcodes = {OPB(RC_SEND_ONLY)}, .dscp_mask = 1ULL << DSCP, .dscp = DSCP,                   \
	.last_opcode = RC_SEND_ONLY, .first_seen_ns = (first), .last_seen_ns = (last)
#define C_SENDS(n) C_SENDS_AT(n, TS(0), TS((n)-1))

struct bpf_program;

/* State shared by a test and its teardown, so a failed assert still cleans up. */
extern struct probe g_probe;
extern struct snapshot g_snap;
extern struct fx g_fx;

/* The next frame of a fixture, stamped TS(n) on path FX_PATH. */
struct frame *fx_frame(struct fx *fx);
void build(struct fx *fx, void (*builder)(struct fx *), const void *arg);

void key_from(struct flow_key *k, const struct exp_key *e, __u8 dir);
void print_key(const struct flow_key *k);
/* Totals exactly as expected, and frames == roce + other + malformed. */
void check_totals(const struct snapshot *s, const __u64 want[FP_CNT_MAX]);
void check_flows(const struct snapshot *s, const struct fixture *fx, __u8 dir);

/* A probe of fx's configuration (NULL: the defaults) with the hooks given, maps empty. */
void load(struct probe *p, const struct fixture *fx, __u32 flow_entries, unsigned int hooks);
/* The options load_tagged() loads a probe with (fx may be NULL), for a probe of a test's own. */
struct probe_opts fixture_opts(const struct fixture *fx, __u32 flow_entries, unsigned int hooks,
			       __u64 slot_tag_mask);
/* load(), the slot table's tags cut to slot_tag_mask's bits (0: all): forced collisions. */
void load_tagged(struct probe *p, const struct fixture *fx, __u32 flow_entries, unsigned int hooks,
		 __u64 slot_tag_mask);
/* One frame through a tc program; returns the verdict. */
int run_tc(struct bpf_program *prog, const struct frame *f, void *out, __u32 *out_len);
/* One frame through XDP with the replay clock and path; returns the verdict. */
int run_xdp(struct probe *p, const struct frame *f);

void run_fixture(const struct fixture *fx, enum fx_prog prog);
/* fx's frames as replay runs them: fp_replay's batches, on threads threads. */
void run_replay(struct probe *p, const struct fx *fx, int threads);
void test_xdp(void **state);
void test_tc_ingress(void **state);
void test_tc_egress(void **state);
void test_replay(void **state);
void test_replay_threads(void **state);
void test_unmodified(void **state);

/* Register a test named prefix + name; run them all with fx_run_all(). */
void fx_add(const char *prefix, const char *name, void (*fn)(void **), const void *state);
/* Run the registered tests as group name; destroys the cached probes. */
int fx_run_all(const char *name);

#endif /* __FP_TEST_FIXTURE_H */
