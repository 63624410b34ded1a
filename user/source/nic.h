/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic.h - what a host's RDMA NIC counts, read every refresh into one state
 * that renderers and the NIC alerts read (they never read the system):
 * the RDMA hardware counters of every device port, the ethtool statistics
 * of their netdevs (and of any other netdev asked for, with or without
 * RDMA), PFC per priority, and the queue pairs of the RDMA resource
 * tracker. Counters carry their value, the change since the previous
 * refresh (32-bit wraps and resets handled) and the rate per second.
 *
 * The input is the live system (sysfs, the ethtool ioctl, RDMA netlink) or
 * a recorded tree with the same layout, re-read every refresh:
 *
 *   ROOT/class/infiniband/DEV/ports/N/hw_counters/NAME   driver counters
 *   ROOT/class/infiniband/DEV/ports/N/counters/NAME      IB PMA counters
 *   ROOT/class/infiniband/DEV/hw_counters/NAME           device-wide (port 0)
 *   ROOT/class/infiniband/DEV/ports/N/link_layer         "Ethernet"
 *   ROOT/class/infiniband/DEV/ports/N/gid_attrs/ndevs/I  netdev of GID I
 *   ROOT/class/infiniband/DEV/ports/N/gid_attrs/types/I  "RoCE v2"
 *   ROOT/class/infiniband/DEV/ports/N/gids/I             GID I (IPv6 form)
 *   ROOT/class/infiniband/DEV/device/net/NETDEV/         netdev, fallback
 *   ROOT/class/net/NETDEV/dev_port                       picks among several
 *   ROOT/ethtool/NETDEV        the text `ethtool -S NETDEV` prints
 *   ROOT/rdma-res-qp.json      the text `rdma -j res show qp` prints
 *
 * Live, ROOT is /sys for the first two groups, ethtool statistics come from
 * the SIOCETHTOOL ioctl and queue pairs from RDMA netlink.
 */
#ifndef __FP_NIC_H
#define __FP_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define NIC_NAME_LEN   64 /* counter names; ethtool's are at most 32 */
#define NIC_DEV_LEN    64 /* IB_DEVICE_NAME_MAX */
#define NIC_IFNAME_LEN 16 /* IFNAMSIZ */
#define NIC_COMM_LEN   64
#define NIC_MSG_LEN    160
#define NIC_PRIOS      8

/* The one line a caller prints when the host has no RDMA device. */
#define NIC_NO_RDMA "no RDMA devices found"

enum nic_counter_flags {
	NIC_CNT_NEW = 1 << 0,	  /* first seen in this refresh: no delta yet */
	NIC_CNT_WRAPPED = 1 << 1, /* went down from below 2^32: a 32-bit counter wrapped */
	NIC_CNT_RESET = 1 << 2,	  /* went down otherwise: cleared, delta counts from 0 */
};

struct nic_counter {
	char name[NIC_NAME_LEN];	/* canonical (mlx5) name, see nic_canonical_name() */
	char driver_name[NIC_NAME_LEN]; /* as the driver spells it, trimmed */
	__u64 value;
	__u64 delta;  /* since the previous refresh */
	double per_s; /* delta over the interval; 0 on the first refresh */
	unsigned int flags;
};

/* A set of counters, sorted by canonical name (unique). */
struct nic_counters {
	struct nic_counter *v;
	size_t n, cap;
	size_t unreadable; /* counter files that could not be read or hold no number */
};

/* One port of an RDMA device (port 0: the device-wide hw_counters). */
struct nic_port {
	char device[NIC_DEV_LEN];
	__u32 port;
	char netdev[NIC_IFNAME_LEN]; /* "" when the tree does not say */
	char link_layer[16];
	char driver[32]; /* DEV/device/driver's name ("mlx5_core", "bnxt_re"), "" when not linked */
	__u8 gid_addr[16]; /* the port's RoCEv2 address, when it has exactly one */
	bool has_gid_addr, gid_v6;
	struct nic_counters hw;	 /* hw_counters/: CNPs, sequence errors, timeouts, ... */
	struct nic_counters pma; /* counters/: port_xmit_data, symbol_error, ... */
};

/* Per-priority PFC counters, found in a netdev's ethtool statistics. */
enum nic_pfc_field {
	NIC_PFC_RX_PAUSE,	/* pause frames received for the priority */
	NIC_PFC_TX_PAUSE,	/* pause frames sent */
	NIC_PFC_RX_PAUSE_US,	/* time paused by the peer, microseconds */
	NIC_PFC_TX_PAUSE_US,	/* time this NIC paused the peer, microseconds */
	NIC_PFC_RX_TRANSITIONS, /* XOFF/XON transitions received */
	NIC_PFC_TX_TRANSITIONS,
	NIC_PFC_BUF_DISCARD,  /* received, dropped: no buffer for the priority */
	NIC_PFC_CONG_DISCARD, /* received, dropped by congestion control (WRED) */
	NIC_PFC_MARKED,	      /* received with ECN CE set by this NIC's buffer */
	NIC_PFC_FIELD_MAX,
};

/* The table renderers walk: one row per PFC field. */
struct nic_pfc_desc {
	const char *pattern;  /* canonical ethtool name, %u for the priority */
	const char *json_key; /* docs/json.md pfc[] key */
	const char *metric;   /* Prometheus name, label priority */
	const char *title;    /* column title */
	const char *help;
};
extern const struct nic_pfc_desc nic_pfc_fields[NIC_PFC_FIELD_MAX];

/* RDMA counters with a known meaning: the ones the alerts and views use. */
struct nic_counter_desc {
	const char *name; /* canonical */
	const char *metric;
	const char *title;
	const char *help;
};
extern const struct nic_counter_desc nic_known_rdma[];
extern const size_t nic_n_known_rdma;

struct nic_netdev {
	char name[NIC_IFNAME_LEN];
	struct nic_counters ethtool;
	int pfc[NIC_PRIOS][NIC_PFC_FIELD_MAX]; /* index into ethtool.v, -1: none */
	int storm_warning, storm_error;	       /* tx_pause_storm_*_events, -1: none */
	char error[NIC_MSG_LEN];	       /* why statistics are missing, "" if read */
};

/* ib_qp_type and ib_qp_state, as the resource dump carries them. */
enum nic_qp_type {
	NIC_QPT_SMI,
	NIC_QPT_GSI,
	NIC_QPT_RC,
	NIC_QPT_UC,
	NIC_QPT_UD,
	NIC_QPT_RAW_IPV6,
	NIC_QPT_RAW_ETHERTYPE,
	NIC_QPT_RAW_PACKET = 8,
	NIC_QPT_XRC_INI,
	NIC_QPT_XRC_TGT,
};

struct nic_qp {
	char device[NIC_DEV_LEN];
	__u32 dev_index; /* the RDMA device's index ("ifindex" in rdma -j) */
	__u32 port;	 /* 0: not bound to a port yet */
	char netdev[NIC_IFNAME_LEN];
	__u32 lqpn, rqpn, sq_psn, rq_psn, pid, pdn;
	__u8 type, state;
	bool has_rqpn, has_rq_psn, has_pid, has_pdn, kernel;
	char comm[NIC_COMM_LEN]; /* task name, or the kernel module that owns it */
	__u16 predicted_sport;	 /* 0: not predicted (not RC/UC, no remote QP) */
	int predicted_path;	 /* -1: unknown, see roce_qp_path() */
};

struct nic_opts {
	const char *root;	    /* NULL or "": the live system */
	const char *const *netdevs; /* more netdevs to read statistics of */
	int n_netdevs;
	/*
	 * Only these netdevs: RDMA ports on other netdevs (and their QPs) are
	 * left out, and a recorded tree's other ethtool files are not read.
	 */
	bool only_named;
	/*
	 * Beside packets (-i, --uplinks of top, capture, export): when none of
	 * the named netdevs has an RDMA port (a mirror port, a veth), every
	 * RDMA port is read after all, the host's NICs beside its mirror feed.
	 */
	bool all_if_none_named;
};

/* An RDMA port read at some refresh: one missing later is gone, and said. */
struct nic_seen_port {
	char device[NIC_DEV_LEN];
	__u32 port;
	char netdev[NIC_IFNAME_LEN];
};

struct nic_state {
	char *root; /* NULL when live */
	char **extra_netdevs;
	int n_extra_netdevs;
	bool only_named;	/* nic_opts.only_named */
	bool all_if_none_named; /* nic_opts.all_if_none_named */

	struct nic_port *ports; /* sorted by device, port */
	size_t n_ports, cap_ports;
	struct nic_netdev *netdevs; /* sorted by name */
	size_t n_netdevs, cap_netdevs;
	struct nic_qp *qps; /* as dumped: by device, then QP number */
	size_t n_qps, cap_qps;
	/*
	 * Every RDMA port read since the start: those missing now (a driver
	 * reload, a function reset, an unplug) are named in info until back.
	 */
	struct nic_seen_port *seen;
	size_t n_seen, cap_seen;

	/* NIC_NO_RDMA when there is no RDMA device, the ports gone since read, else "" */
	char info[NIC_MSG_LEN];
	char qp_error[NIC_MSG_LEN]; /* why the QP table is empty, "" when it was read */
	__u64 taken_ns;		    /* CLOCK_MONOTONIC of the last refresh */
	double interval_s;	    /* between the last two refreshes; 0 after the first */
	unsigned int refreshes;
};

int nic_init(struct nic_state *s, const struct nic_opts *o);
/*
 * Re-read everything. now_ns is CLOCK_MONOTONIC (0: read it here); rates
 * are over the time since the previous refresh. A device, port or netdev
 * that cannot be read is left out (with nic_netdev.error for a named
 * netdev); only allocation failures return an error (-ENOMEM).
 */
int nic_refresh(struct nic_state *s, __u64 now_ns);
void nic_free(struct nic_state *s);

const struct nic_counter *nic_counter_get(const struct nic_counters *c, const char *name);
/* It moved in the last interval: a change, or a reset (one to 0 has no delta). */
bool nic_counter_moved(const struct nic_counter *c);
const struct nic_port *nic_port_get(const struct nic_state *s, const char *device, __u32 port);
const struct nic_netdev *nic_netdev_get(const struct nic_state *s, const char *name);
/* A PFC counter of a netdev's priority, NULL when the driver has none. */
const struct nic_counter *nic_pfc(const struct nic_netdev *nd, int prio, enum nic_pfc_field f);

/*
 * The share of an interval of interval_s that a pause-duration counter's
 * delta (microseconds) says its priority was paused: at most 1, as two
 * reads a little apart, or a counter that jumps, can say more.
 */
static inline double nic_paused_share(const struct nic_counter *us, double interval_s)
{
	double s = us && interval_s > 0 ? us->delta / (interval_s * 1e6) : 0;

	return s < 1 ? s : 1;
}

const char *nic_qp_type_name(__u8 type);   /* "RC", as rdma res show prints it */
const char *nic_qp_state_name(__u8 state); /* "RTS" */

/*
 * Record the state of the last refresh as a tree in the layout above, one
 * put(ctx, relative path, bytes, length) per file, so that reading it back
 * (opts.root) gives the same ports, counters (by their driver names), PFC
 * and QP table: what a capture bundle stores. Values only: rates need two
 * refreshes, so a recorded tree read back twice shows none. 0, or the first
 * error put() returned.
 */
typedef int (*nic_put_fn)(void *ctx, const char *path, const void *data, size_t len);
int nic_record(const struct nic_state *s, nic_put_fn put, void *ctx);
/* The same into files under dir (created as needed). */
int nic_record_dir(const struct nic_state *s, const char *dir);

/*
 * The change of a counter from prev to cur, with the rule for counters that
 * go down: a value below 2^32 that goes down is a 32-bit counter wrapping
 * if the wrapped change is less than 2^31 (no counter runs through half its
 * range in one refresh), so delta = 2^32 - prev + cur and NIC_CNT_WRAPPED;
 * any other decrease is a reset (driver reload, counters cleared), so the
 * change is cur, counted from zero, and NIC_CNT_RESET.
 */
__u64 nic_counter_delta(__u64 prev, __u64 cur, unsigned int *flags);

enum nic_domain {
	NIC_DOM_RDMA,	 /* hw_counters of an RDMA port */
	NIC_DOM_PMA,	 /* counters/ of an RDMA port: IB names, no aliases */
	NIC_DOM_ETHTOOL, /* ethtool statistics of a netdev */
};
/*
 * The canonical (mlx5) name of a driver's counter: trimmed, and mapped
 * through the alias table (bnxt_re, bnxt_en, ice). Writes into out.
 */
const char *nic_canonical_name(enum nic_domain d, const char *driver_name, char *out, size_t size);

/*
 * Parsers of the recorded and live formats, for the tests. They append to
 * s->qps; nic_qp_parse_nlmsg takes one RDMA_NLDEV_CMD_RES_QP_GET reply.
 */
struct nlmsghdr;
int nic_qp_parse_nlmsg(struct nic_state *s, const struct nlmsghdr *nlh);
int nic_qp_parse_json(struct nic_state *s, const char *text, size_t len, char *why, size_t why_len);
/* `ethtool -S` text into counters (canonical names, sorted); -EINVAL if none. */
int nic_ethtool_parse_text(struct nic_counters *out, const char *text, size_t len);
void nic_counters_free(struct nic_counters *c);

#endif /* __FP_NIC_H */
