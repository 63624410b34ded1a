/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - the options every watching command (top, capture, export) shares:
 * what to watch (interfaces, or a recording), the probe's table and ports,
 * and the analysis' thresholds and traffic-class plan. One parser, one
 * help text, one set of exit codes.
 */
#ifndef __FP_CLI_H
#define __FP_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "core/analysis.h"
#include "core/session.h"
#include "source/live.h"
#include "source/nic.h"
#include "source/pcap.h"
#include "source/sflow.h"

/* Exit codes of every command; docs/fabprobe.8 (EXIT STATUS) lists them. */
enum fp_exit {
	FP_EXIT_OK = 0,
	FP_EXIT_FAIL = 1,    /* could not do it: load, attach, read, write, serve */
	FP_EXIT_USAGE = 2,   /* a bad option, value or argument */
	FP_EXIT_DAMAGED = 3, /* done, but a capture was cut short or corrupt */
};

/* Long-only options (values >= 256); short ones are letters. */
enum {
	OPT_ELEPHANT_RATE = 256,
	OPT_DATA_DSCP,
	OPT_CNP_DSCP,
	OPT_DATA_PCP,
	OPT_CNP_PCP,
	OPT_HASH_MODEL,
	OPT_HASH_FIELDS,
	OPT_HASH_SEED,
	OPT_HASH_PATHS,
	OPT_PCAP,
	OPT_SPEED,
	OPT_MIRROR_SESSION,
	OPT_MIRROR_PORT_DROP,
	OPT_FLOWS6,
	OPT_PRECISE_CLOCK,
	OPT_CMD_FIRST = 384, /* a command's own long options start here */
};

/* sFlow input (source/sflow.h): its own block of option values. */
enum {
	OPT_SFLOW = 320,
	OPT_SFLOW_PORT_MAP,
	OPT_SFLOW_RCVBUF,
	OPT_SFLOW_PORT, /* replay: the capture's sFlow port */
};
#define OPT_SFLOW_LONG_OPTS                                                                        \
	{"sflow", required_argument, NULL, OPT_SFLOW},                                             \
	    {"sflow-port-map", required_argument, NULL, OPT_SFLOW_PORT_MAP},                       \
	{                                                                                          \
		"sflow-rcvbuf", required_argument, NULL, OPT_SFLOW_RCVBUF                          \
	}
#define OPT_SFLOW_HELP                                                                             \
	"      --sflow [ADDR:]PORT  listen for sFlow v5 from the fabric's switches instead\n"      \
	"                           (default address 127.0.0.1; 0.0.0.0 or [::] for all);\n"       \
	"                           sampled headers run through the same BPF parser,\n"            \
	"                           counts are estimates scaled by each sample's rate\n"           \
	"      --sflow-port-map FILE  name and group switch ports: lines\n"                        \
	"                           \"AGENT IFINDEX NAME [GROUP]\" (same GROUP: one ECMP group)\n" \
	"      --sflow-rcvbuf BYTES the listener's socket receive buffer: 4K to 512M (default\n"   \
	"                           32M; K, M, G are powers of 1024)\n"

#define OPT_PROBE_LONG_OPTS                                                                        \
	{"flows", required_argument, NULL, 'F'}, {"flows6", required_argument, NULL, OPT_FLOWS6},  \
	    {"roce-port", required_argument, NULL, 'R'},                                           \
	{                                                                                          \
		"vxlan-port", required_argument, NULL, 'X'                                         \
	}
#define OPT_PROBE_HELP                                                                             \
	"      --flows N          IPv4 flows the flow table holds (default 65536, at most\n"       \
	"                         16M; k and M are 1024 and 1048576 entries: 1M = 1048576,\n"      \
	"                         256k = 262144); each costs about 300 bytes of kernel memory,\n"  \
	"                         100 more for its share of --flows6's default, and 160 in\n"      \
	"                         fabprobe: 1048576 take about 550 MB and a second to set up;\n"   \
	"                         a flow present takes 0.9 to 1.3 KB more in fabprobe (its\n"      \
	"                         records and analysis): 1048576 present, 1.3 to 1.7 GB\n"         \
	"      --flows6 N         table of flows with an IPv6 address (k, M as for --flows;\n"     \
	"                         default a quarter of --flows, at least 1024; about 390\n"        \
	"                         bytes each)\n"                                                   \
	"      --roce-port PORT   RoCEv2 UDP port (default 4791)\n"                                \
	"      --vxlan-port PORT  VXLAN UDP port (default 4789)\n"

#define OPT_ANALYSIS_LONG_OPTS                                                                     \
	{"elephant-rate", required_argument, NULL, OPT_ELEPHANT_RATE},                             \
	    {"data-dscp", required_argument, NULL, OPT_DATA_DSCP},                                 \
	    {"cnp-dscp", required_argument, NULL, OPT_CNP_DSCP},                                   \
	    {"data-pcp", required_argument, NULL, OPT_DATA_PCP},                                   \
	    {"cnp-pcp", required_argument, NULL, OPT_CNP_PCP},                                     \
	    {"hash-model", required_argument, NULL, OPT_HASH_MODEL},                               \
	    {"hash-fields", required_argument, NULL, OPT_HASH_FIELDS},                             \
	    {"hash-seed", required_argument, NULL, OPT_HASH_SEED},                                 \
	    {"hash-paths", required_argument, NULL, OPT_HASH_PATHS},                               \
	{                                                                                          \
		"mirror-session", required_argument, NULL, OPT_MIRROR_SESSION                      \
	}
#define OPT_ANALYSIS_HELP                                                                          \
	"Analysis:\n"                                                                              \
	"      --elephant-rate RATE  bits/s that make a flow an elephant, e.g. 10G, 500M\n"        \
	"                            (default: 10%% of the uplink's speed, else of the\n"          \
	"                            peak of all flows' rate together, at least 1 Mb/s)\n"         \
	"      --data-dscp N         DSCP of the lossless class for RoCE data (default 26)\n"      \
	"      --cnp-dscp N          DSCP for CNPs (default 48)\n"                                 \
	"      --data-pcp N          802.1p priority for RoCE data (default: not checked)\n"       \
	"      --cnp-pcp N           802.1p priority for CNPs (default: not checked)\n"            \
	"      --hash-model M        predict the next tier's ECMP choice: crc32-lo, crc32-hi,\n"   \
	"                            crc16-ccitt, xor-fold, toeplitz (default: off)\n"             \
	"      --hash-fields LIST    src-ip,dst-ip,sport,dport,vni,qp (default the 4-tuple)\n"     \
	"      --hash-seed N         the CRC's or XOR fold's start, decimal or 0x hex (default\n"  \
	"                            0; CRC-16 takes its low 16 bits, 0 standing for its\n"        \
	"                            standard 0xFFFF and 0x10000 for 0; Toeplitz has its\n"        \
	"                            key, no seed)\n"                                              \
	"      --hash-paths N        next tier's path count (default 4)\n"                         \
	"      --mirror-session ID=NAME  name a switch mirror session (ERSPAN session ID, or\n"    \
	"                            GRE key): its copies are the path NAME (repeatable,\n"        \
	"                            or ID=NAME,ID=NAME; default erspan:ID, gre:KEY or gre)\n"

#define OPT_THREADS_HELP                                                                           \
	"  -T, --threads N          with --pcap: run frames on N worker threads, each flow's\n"    \
	"                           frames in order on one (default: one per CPU, as nproc\n"      \
	"                           counts; the thread that reads the capture shares one)\n"

/* What to watch: the live interfaces, or recordings. */
#define OPT_SOURCE_LONG_OPTS                                                                       \
	{"interfaces", required_argument, NULL, 'i'}, {"uplinks", required_argument, NULL, 'U'},   \
	    {"hook", required_argument, NULL, 'H'}, {"xdp-mode", required_argument, NULL, 'M'},    \
	    {"pcap", required_argument, NULL, OPT_PCAP},                                           \
	    {"speed", required_argument, NULL, OPT_SPEED},                                         \
	    {"threads", required_argument, NULL, 'T'},                                             \
	    {"mirror-port-drop", no_argument, NULL, OPT_MIRROR_PORT_DROP},                         \
	    {"precise-clock", no_argument, NULL, OPT_PRECISE_CLOCK}, OPT_SFLOW_LONG_OPTS,          \
	    OPT_PROBE_LONG_OPTS, OPT_NIC_LONG_OPTS
#define OPT_SOURCE_HELP                                                                            \
	"Input: this host's interfaces (live), a recording, or sFlow:\n"                           \
	"  -i, --interfaces IF,...  interfaces to attach to\n"                                     \
	"      --uplinks IF,...     the ECMP group (a host's rails, a router's spine ports);\n"    \
	"                           flows seen on them report their \"path\"; attached\n"          \
	"                           too, whether -i names them or not\n"                           \
	"      --hook xdp|tc|both   xdp: XDP ingress; tc: tcx ingress and egress;\n"               \
	"                           both (default): XDP ingress and tcx egress\n"                  \
	"      --xdp-mode native|generic  XDP mode (default: native, else generic)\n"              \
	"      --mirror-port-drop   the interfaces only receive switch mirror copies: drop\n"      \
	"                           them in XDP after counting, so the host's stack does not\n"    \
	"                           spend CPU on them (the one mode that drops; off by default)\n" \
	"      --precise-clock      time packets with the clock source (about 30 ns a packet\n"    \
	"                           more) instead of the kernel tick (4 ms at HZ=250)\n"           \
	"      --pcap [NAME=]FILE   read a pcap/pcapng capture instead of interfaces; with\n"      \
	"                           NAME=, the capture of uplink NAME (repeat for each\n"          \
	"                           uplink of one ECMP group; merged in time order; more\n"        \
	"                           than one: each named)\n"                                       \
	"      --speed X            with --pcap: play at X times the recorded pace, or 0 for\n"    \
	"                           as fast as frames run\n" OPT_THREADS_HELP OPT_SFLOW_HELP       \
	    OPT_PROBE_HELP OPT_NIC_HELP

struct cli_source {
	const char *cmd;
	struct live_opts live;
	struct pcap_opts pcap;
	struct sflow_opts sflow; /* --sflow given when sflow.listen is set */
	struct probe_opts popts; /* --flows, ports: copied into the chosen source */
	bool live_given;	 /* an interface option was given */
	const char *live_only;	 /* the last option for interfaces alone (--hook...) given */
	double default_speed;
	bool speed_given;
	bool threads_given;
	/* NIC counters beside the flows (the block below) */
	bool nic_given;
	struct nic_opts nic; /* what the session reads: src->nic points here */
	const char *nic_netdevs[2 * LIVE_MAX_IFACES];
};

void cli_source_init(struct cli_source *cs, const char *cmd, double default_speed);

/* One of OPT_PROBE_LONG_OPTS into po: 1 handled, 0 not ours, -EINVAL bad value. */
int opt_parse_probe(struct probe_opts *po, int opt, const char *arg);
/* One of OPT_ANALYSIS_LONG_OPTS: 1 handled, 0 not ours, -EINVAL bad value. */
int opt_parse_analysis(struct analysis_opts *ao, int opt, const char *arg);

/* One of OPT_SFLOW_LONG_OPTS (and replay's --sflow-port): 1 handled, 0 not ours, -EINVAL. */
int opt_parse_sflow(struct sflow_opts *so, int opt, const char *arg);

/* --threads N into *threads: 1 handled, -EINVAL bad value. */
int opt_parse_threads(const char *arg, int *threads);
/* After the options: probe options that cannot go together (one line, -EINVAL). */
int cli_check_probe(const struct probe_opts *po);

/* One of OPT_SOURCE_LONG_OPTS: 1 handled, 0 not ours, -EINVAL bad value. */
int cli_parse_source(struct cli_source *cs, int opt, const char *arg);
/*
 * A capture for po: "FILE", or "NAME=FILE" for one uplink's (a FILE with
 * '=' in it still works), NAME=FILE only when named; opt names the option
 * in errors. A NAME given twice is refused.
 */
int cli_add_capture(struct pcap_opts *po, const char *opt, const char *arg, bool named);
/*
 * After a path's name is given: a --mirror-session NAME that a capture
 * (given by capture_opt, --path or --pcap) or an uplink (--uplinks; lo
 * may be NULL) also has is refused, one line and -EINVAL.
 */
int cli_check_path_names(const struct pcap_opts *po, const char *capture_opt,
			 const struct live_opts *lo, const struct mirror_names *m);

/*
 * The default: branch of a watching command's getopt loop: the source,
 * probe and analysis options, else one line naming the bad option.
 * Returns 0 when handled, FP_EXIT_USAGE otherwise.
 */
int cli_parse_common(struct cli_source *cs, struct analysis_opts *ao, int opt, const char *arg,
		     char **argv);

/*
 * After the options: check that one input was named, and build its
 * source (not started). samples: the probe samples packets (capture).
 * NULL with one line on stderr; *exit_code says why (usage or failure).
 */
struct source *cli_source_new(struct cli_source *cs, bool samples, int *exit_code);

/*
 * ---- NIC counters beside the flows (issue 16) ----------------------------
 * --nic reads this host's RDMA NICs (hw_counters, ethtool statistics with
 * PFC per priority, the QP table): all of them, or with -i/--uplinks only
 * those on the named interfaces, whose ethtool statistics are read too.
 * --nic-root DIR reads a recorded tree (source/nic.h) instead, re-read every
 * refresh. Given alone, they are the whole input (source/nic_source.h).
 * The session does the rest (core/session_nic.h); every watching command
 * takes them through OPT_SOURCE_LONG_OPTS.
 */
enum {
	OPT_NIC = OPT_CMD_FIRST - 32,
	OPT_NIC_ROOT,
};

#define OPT_NIC_LONG_OPTS                                                                          \
	{"nic", no_argument, NULL, OPT_NIC},                                                       \
	{                                                                                          \
		"nic-root", required_argument, NULL, OPT_NIC_ROOT                                  \
	}
#define OPT_NIC_HELP                                                                               \
	"NIC counters beside the flows (alone: the whole input):\n"                                \
	"      --nic                this host's RDMA NICs (those on -i/--uplinks if one has\n"     \
	"                           one, else all): hw_counters, ethtool and PFC per\n"            \
	"                           priority, the QP table\n"                                      \
	"      --nic-root DIR       a recorded NIC tree instead (docs/nic.md), re-read at\n"       \
	"                           every refresh; a bundle's nic/ directory is one\n"

/*
 * Why an input has no paths, and how its own options name some: "no
 * uplinks given (--uplinks)" live, --pcap NAME=FILE for a capture, ...
 */
const char *cli_no_paths(const struct cli_source *cs);

/*
 * --nic or --nic-root where there is no RDMA device, known at the start
 * (as `fabprobe nic` knows it) rather than after the run: the whole
 * input, one line and -ENODEV (nothing for cmd to do); beside interfaces,
 * a capture or sFlow, one line ("capturing eth2 without RDMA counters"
 * and note) and 0: the run goes on without them.
 */
int cli_nic_check(const struct session *ss, const struct cli_source *cs, const char *cmd,
		  const char *doing, const char *note);

/*
 * Everything written to stdout reached it: 0, else one line (a closed
 * pipe, a full disk) and -EIO. The probe stops rather than runs on unread.
 */
int cli_flush_stdout(const char *cmd);

/*
 * On a terminal, how far cmd's read of a recording has come since
 * start_ns: one stderr line, redrawn; done ends it.
 */
void cli_read_progress(const char *cmd, const struct session *ss, __u64 start_ns, bool done);

/* --nic, --nic-root: 1 handled, 0 not ours, -EINVAL bad value. */
int cli_parse_nic(struct cli_source *cs, int opt, const char *arg);

#endif /* __FP_CLI_H */
