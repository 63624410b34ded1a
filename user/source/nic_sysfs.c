// SPDX-License-Identifier: GPL-2.0
/*
 * nic_sysfs.c - RDMA devices and ports from sysfs (or a recorded tree of
 * the same shape): counters, the netdev behind each port, and the port's
 * RoCEv2 address. Layout: drivers/infiniband/core/sysfs.c. Each port has
 * hw_counters/ (driver counters, plus "lifespan", the caching period in
 * ms, which is no counter), counters/ (the IB PMA set), and per GID table
 * entry gids/I, gid_attrs/ndevs/I (the netdev) and gid_attrs/types/I
 * ("IB/RoCE v1" or "RoCE v2"); unused entries fail to read.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "source/nic_priv.h"

#define MAX_DEVICES 256
#define MAX_PORTS   64
#define MAX_GIDS    1024

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);

	return x < y ? -1 : x > y;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The entries of a directory (no dot files), sorted; numeric ones only if asked. */
static int list_dir(const char *path, bool numeric, size_t max, struct names *out)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (numeric && !is_number(de->d_name)))
			continue;
		if (out->n >= max)
			break;
		if (buf_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)) ||
		    !(out->v[out->n] = strdup(de->d_name)))
			err = -ENOMEM;
		else
			out->n++;
	}
	closedir(d);
	if (err)
		names_free(out);
	else if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), numeric ? by_number : by_string);
	return err;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Every readable counter file of a directory; a missing directory is no error. */
static int read_counters(const char *dir, enum nic_domain dom, struct nic_counters *out)
{
	struct names files;
	int err;

	if (list_dir(dir, false, NIC_MAX_COUNTERS, &files))
		return 0;
	err = 0;
	for (size_t i = 0; !err && i < files.n; i++) {
		char path[PATH_MAX], line[64];
		__u64 v;

		if (!strcmp(files.v[i], "lifespan"))
			continue;
		if (nic_path(path, sizeof(path), "%s/%s", dir, files.v[i]) ||
		    nic_read_line(path, line, sizeof(line)) || nic_parse_u64(line, &v)) {
			/* A directory is no counter: only a file that fails is said. */
			if (!is_dir(path))
				out->unreadable++; /* said, not dropped unseen */
			continue;
		}
		err = nic_counters_add(out, dom, files.v[i], v);
	}
	names_free(&files);
	if (err == -E2BIG)
		err = 0;
	nic_counters_finish(out);
	return err;
}

/* The netdev among several of one device that is this port (dev_port is 0-based). */
static void pick_netdev(const char *dev_dir, const char *net_dir, struct nic_port *p)
{
	char path[PATH_MAX], line[32];
	struct names nets;

	if (nic_path(path, sizeof(path), "%s/device/net", dev_dir) ||
	    list_dir(path, false, 64, &nets))
		return;
	for (size_t i = 0; i < nets.n && nets.n > 1; i++) {
		__u64 dev_port;

		if (nic_path(path, sizeof(path), "%s/%s/dev_port", net_dir, nets.v[i]) ||
		    nic_read_line(path, line, sizeof(line)) || nic_parse_u64(line, &dev_port) ||
		    dev_port + 1 != p->port)
			continue;
		snprintf(p->netdev, sizeof(p->netdev), "%s", nets.v[i]);
		break;
	}
	if (!p->netdev[0] && nets.n)
		snprintf(p->netdev, sizeof(p->netdev), "%s", nets.v[0]);
	names_free(&nets);
}

static void add_gid(struct nic_port *p, const char *text, int *distinct)
{
	struct in6_addr a;
	bool v6;
	__u8 addr[16] = {0};

	if (inet_pton(AF_INET6, text, &a) != 1 || IN6_IS_ADDR_UNSPECIFIED(&a) ||
	    IN6_IS_ADDR_LINKLOCAL(&a))
		return;
	v6 = !IN6_IS_ADDR_V4MAPPED(&a);
	memcpy(addr, v6 ? a.s6_addr : a.s6_addr + 12, v6 ? 16 : 4);
	if (*distinct && p->gid_v6 == v6 && !memcmp(p->gid_addr, addr, sizeof(addr)))
		return;
	if (!*distinct) {
		memcpy(p->gid_addr, addr, sizeof(addr));
		p->gid_v6 = v6;
	}
	(*distinct)++;
}

/*
 * The port's netdev: the netdev of its first GID table entry that has one
 * (the kernel fills them from the netdev, and only RoCE ports have them),
 * else the device's only netdev. Its RoCEv2 address: the routable RoCE v2
 * GIDs, when there is exactly one (IPv4 GIDs are IPv4-mapped IPv6).
 */
static void port_identity(const char *dev_dir, const char *port_dir, const char *net_dir,
			  struct nic_port *p)
{
	char path[PATH_MAX], line[64];
	struct names gids;
	int distinct = 0;

	if (!nic_path(path, sizeof(path), "%s/gid_attrs/ndevs", port_dir) &&
	    !list_dir(path, true, MAX_GIDS, &gids)) {
		for (size_t i = 0; i < gids.n; i++) {
			char ndev[NIC_IFNAME_LEN + 16];

			if (nic_path(path, sizeof(path), "%s/gid_attrs/ndevs/%s", port_dir,
				     gids.v[i]) ||
			    nic_read_line(path, ndev, sizeof(ndev)) || !ndev[0])
				continue;
			if (!p->netdev[0] && strlen(ndev) < sizeof(p->netdev))
				snprintf(p->netdev, sizeof(p->netdev), "%s", ndev);
			if (nic_path(path, sizeof(path), "%s/gid_attrs/types/%s", port_dir,
				     gids.v[i]) ||
			    nic_read_line(path, line, sizeof(line)) || strcmp(line, "RoCE v2"))
				continue;
			if (!nic_path(path, sizeof(path), "%s/gids/%s", port_dir, gids.v[i]) &&
			    !nic_read_line(path, line, sizeof(line)))
				add_gid(p, line, &distinct);
		}
		names_free(&gids);
	}
	p->has_gid_addr = distinct == 1;
	if (!p->has_gid_addr)
		memset(p->gid_addr, 0, sizeof(p->gid_addr));
	if (!p->netdev[0])
		pick_netdev(dev_dir, net_dir, p);
}

static struct nic_port *port_new(struct nic_port **ports, size_t *n, size_t *cap,
				 const char *device, __u32 port)
{
	struct nic_port *p;

	if (buf_grow((void **)ports, cap, *n + 1, sizeof(**ports)))
		return NULL;
	p = &(*ports)[(*n)++];
	memset(p, 0, sizeof(*p));
	snprintf(p->device, sizeof(p->device), "%s", device);
	p->port = port;
	return p;
}

/* The name of the driver bound to the device under an RDMA device, or "". */
static void device_driver(const char *dev_dir, char *out, size_t size)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t len;

	out[0] = '\0';
	if (nic_path(path, sizeof(path), "%s/device/driver", dev_dir))
		return;
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return;
	link[len] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) < size) /* a longer name is no driver of ours */
		memcpy(out, base, strlen(base) + 1);
}

static int read_device(const char *ib_dir, const char *net_dir, const char *device,
		       struct nic_port **ports, size_t *n, size_t *cap)
{
	char driver[sizeof(((struct nic_port *)0)->driver)];
	char dev_dir[PATH_MAX], path[PATH_MAX], port_dir[PATH_MAX];
	struct names port_names;
	struct nic_port *p;
	int err = 0;

	if (nic_path(dev_dir, sizeof(dev_dir), "%s/%s", ib_dir, device))
		return 0;
	device_driver(dev_dir, driver, sizeof(driver));
	/* Drivers with one port may keep the counters on the device (port 0). */
	if (!nic_path(path, sizeof(path), "%s/hw_counters", dev_dir) && is_dir(path)) {
		p = port_new(ports, n, cap, device, 0);
		if (!p)
			return -ENOMEM;
		snprintf(p->driver, sizeof(p->driver), "%s", driver);
		err = read_counters(path, NIC_DOM_RDMA, &p->hw);
	}
	if (err || nic_path(path, sizeof(path), "%s/ports", dev_dir) ||
	    list_dir(path, true, MAX_PORTS, &port_names))
		return err;
	for (size_t i = 0; !err && i < port_names.n; i++) {
		__u64 num;

		if (nic_parse_u64(port_names.v[i], &num) || !num || num > UINT32_MAX ||
		    nic_path(port_dir, sizeof(port_dir), "%s/ports/%s", dev_dir, port_names.v[i]))
			continue;
		p = port_new(ports, n, cap, device, num);
		if (!p) {
			err = -ENOMEM;
			break;
		}
		snprintf(p->driver, sizeof(p->driver), "%s", driver);
		if (!nic_path(path, sizeof(path), "%s/link_layer", port_dir))
			nic_read_line(path, p->link_layer, sizeof(p->link_layer));
		port_identity(dev_dir, port_dir, net_dir, p);
		if (!nic_path(path, sizeof(path), "%s/hw_counters", port_dir))
			err = read_counters(path, NIC_DOM_RDMA, &p->hw);
		if (!err && !nic_path(path, sizeof(path), "%s/counters", port_dir))
			err = read_counters(path, NIC_DOM_PMA, &p->pma);
	}
	names_free(&port_names);
	return err;
}

int nic_sysfs_read(const char *ib_dir, const char *net_dir, struct nic_port **ports,
		   size_t *n_ports, size_t *cap_ports, int *n_devices)
{
	struct names devices;
	int err = 0;

	*n_devices = 0;
	if (list_dir(ib_dir, false, MAX_DEVICES, &devices))
		return 0; /* no class/infiniband: no RDMA devices */
	for (size_t i = 0; !err && i < devices.n; i++) {
		char dev_dir[PATH_MAX];

		if (nic_path(dev_dir, sizeof(dev_dir), "%s/%s", ib_dir, devices.v[i]) ||
		    !is_dir(dev_dir))
			continue;
		(*n_devices)++;
		err = read_device(ib_dir, net_dir, devices.v[i], ports, n_ports, cap_ports);
	}
	names_free(&devices);
	return err;
}
