/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic_priv.h - what the files of the NIC source share: counter sets, small
 * file reads, and the readers of each input (sysfs, ethtool, QPs).
 */
#ifndef __FP_NIC_PRIV_H
#define __FP_NIC_PRIV_H

#include <stdio.h>

#include "source/nic.h"

#define NIC_MAX_COUNTERS 65536 /* per set: mlx5 with many channels has thousands */
#define NIC_MAX_QPS	 (1 << 20)
#define NIC_MAX_FILE	 (64 << 20) /* a recorded file larger than this is refused */

/* Append a counter (canonical name derived here); -ENOMEM, -E2BIG. */
int nic_counters_add(struct nic_counters *c, enum nic_domain d, const char *driver_name,
		     __u64 value);
/* Sort by canonical name and drop repeated names (the first one stays). */
void nic_counters_finish(struct nic_counters *c);
/* Fill fresh's deltas and rates from old (same names), over interval_s. */
void nic_counters_merge(struct nic_counters *fresh, const struct nic_counters *old,
			double interval_s);

/*
 * Match name against a pattern with at most one %u standing for a priority
 * (one digit 0-7): the priority, 0 for a pattern without %u, -1 if no match.
 */
int nic_match_prio(const char *name, const char *pattern);
/* The pattern with its %u replaced by prio. */
const char *nic_fill_prio(char *out, size_t size, const char *pattern, int prio);

/* A whole file, NUL-terminated, at most max bytes: 0 or -errno (-EFBIG). */
int nic_read_file(const char *path, char **buf, size_t *len, size_t max);
/* The first line of a small file, whitespace trimmed: 0 or -errno. */
int nic_read_line(const char *path, char *buf, size_t size);
/* A decimal u64 and nothing else (whitespace trimmed): 0 or -EINVAL/-ERANGE. */
int nic_parse_u64(const char *s, __u64 *out);
/* Trim leading and trailing whitespace in place. */
char *nic_trim(char *s);
/* snprintf into buf, which is too small only for absurd paths: -ENAMETOOLONG. */
int nic_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * RDMA devices under ib_dir (ROOT/class/infiniband): their ports with
 * netdev, link layer, RoCEv2 address and counters (finished). net_dir is
 * ROOT/class/net. *n_devices says how many devices were found.
 */
int nic_sysfs_read(const char *ib_dir, const char *net_dir, struct nic_port **ports,
		   size_t *n_ports, size_t *cap_ports, int *n_devices);
void nic_ports_free(struct nic_port *ports, size_t n);

/* A netdev's statistics through SIOCETHTOOL, or from ROOT/ethtool/NETDEV; err says why not. */
int nic_ethtool_read_live(const char *ifname, struct nic_counters *out, char *err, size_t err_len);
int nic_ethtool_read_file(const char *root, const char *ifname, struct nic_counters *out, char *err,
			  size_t err_len);

/* The QP table: RDMA netlink, or ROOT/rdma-res-qp.json. err says why not. */
int nic_qp_read_live(struct nic_state *s, char *err, size_t err_len);
int nic_qp_read_file(struct nic_state *s, const char *path, char *err, size_t err_len);

#endif /* __FP_NIC_PRIV_H */
