// SPDX-License-Identifier: GPL-2.0
/*
 * nic.c - the NIC state across refreshes: counter sets and their deltas,
 * the netdevs to read, PFC per priority, and the refresh that re-reads
 * sysfs, ethtool and the QP table (nic_sysfs.c, nic_ethtool.c, nic_qp.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/stop.h"
#include "source/nic_priv.h"

#define TWO_32 (1ULL << 32)

__u64 nic_counter_delta(__u64 prev, __u64 cur, unsigned int *flags)
{
	__u64 wrapped;

	if (cur >= prev)
		return cur - prev;
	/*
	 * Down. Counters that are 32 bits wide in hardware or in the driver
	 * (older PMA counters, some ethtool statistics) wrap at 2^32; a
	 * 64-bit counter never does in practice, so going down from at or
	 * above 2^32 is a reset. Below 2^32 a reset looks like a wrap, except
	 * that a genuine wrap within one refresh moves the counter by less
	 * than half its range. Down to exactly 0 is a reset: counters
	 * cleared, and nothing counted since (a wrap lands on 0 once in 2^32).
	 */
	if (prev < TWO_32 && cur) {
		wrapped = TWO_32 - prev + cur;
		if (wrapped < TWO_32 / 2) {
			*flags |= NIC_CNT_WRAPPED;
			return wrapped;
		}
	}
	*flags |= NIC_CNT_RESET;
	return cur;
}

int nic_counters_add(struct nic_counters *c, enum nic_domain d, const char *driver_name,
		     __u64 value)
{
	struct nic_counter *k;

	if (c->n >= NIC_MAX_COUNTERS)
		return -E2BIG;
	if (buf_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	k = &c->v[c->n];
	memset(k, 0, sizeof(*k));
	snprintf(k->driver_name, sizeof(k->driver_name), "%s", driver_name);
	nic_trim(k->driver_name);
	if (!k->driver_name[0])
		return 0;
	nic_canonical_name(d, k->driver_name, k->name, sizeof(k->name));
	k->value = value;
	k->flags = NIC_CNT_NEW;
	c->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct nic_counter *)a)->name, ((const struct nic_counter *)b)->name);
}

/* By name, then driver name: which of two aliases of one counter stays is fixed. */
static int by_name_then_driver(const void *a, const void *b)
{
	const struct nic_counter *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->driver_name, y->driver_name);
}

void nic_counters_finish(struct nic_counters *c)
{
	size_t out = 0;

	if (c->n < 2)
		return;
	qsort(c->v, c->n, sizeof(*c->v), by_name_then_driver);
	for (size_t i = 0; i < c->n; i++) {
		if (out && !strcmp(c->v[out - 1].name, c->v[i].name))
			continue;
		c->v[out++] = c->v[i];
	}
	c->n = out;
}

void nic_counters_merge(struct nic_counters *fresh, const struct nic_counters *old,
			double interval_s)
{
	size_t j = 0;

	for (size_t i = 0; i < fresh->n; i++) {
		struct nic_counter *k = &fresh->v[i];
		int cmp = 1;

		/* Both sets are sorted by name: one walk pairs them. */
		while (old && j < old->n && (cmp = strcmp(old->v[j].name, k->name)) < 0)
			j++;
		k->flags = NIC_CNT_NEW;
		k->delta = 0;
		k->per_s = 0;
		if (!old || j >= old->n || cmp)
			continue;
		k->flags = 0;
		k->delta = nic_counter_delta(old->v[j].value, k->value, &k->flags);
		k->per_s = interval_s > 0 ? k->delta / interval_s : 0;
	}
}

void nic_counters_free(struct nic_counters *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

const struct nic_counter *nic_counter_get(const struct nic_counters *c, const char *name)
{
	struct nic_counter key;

	if (!c->n)
		return NULL;
	snprintf(key.name, sizeof(key.name), "%s", name);
	return bsearch(&key, c->v, c->n, sizeof(*c->v), by_name);
}

bool nic_counter_moved(const struct nic_counter *c)
{
	return c->delta || (c->flags & NIC_CNT_RESET);
}

char *nic_trim(char *s)
{
	size_t start = 0, end = strlen(s);

	while (start < end && isspace((unsigned char)s[start]))
		start++;
	while (end > start && isspace((unsigned char)s[end - 1]))
		end--;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
	return s;
}

int nic_parse_u64(const char *s, __u64 *out)
{
	__u64 v = 0;
	size_t i = 0;

	while (isspace((unsigned char)s[i]))
		i++;
	if (!isdigit((unsigned char)s[i]))
		return -EINVAL;
	for (; isdigit((unsigned char)s[i]); i++) {
		unsigned int digit = s[i] - '0';

		if (v > (~0ULL - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	while (isspace((unsigned char)s[i]))
		i++;
	if (s[i])
		return -EINVAL;
	*out = v;
	return 0;
}

int nic_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int nic_read_file(const char *path, char **buf, size_t *len, size_t max)
{
	size_t cap = 4096, n = 0;
	char *b = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (!b || n + 1 >= cap) {
			char *nb;

			if (b)
				cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
		if (n > max) {
			err = -EFBIG;
			break;
		}
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int nic_read_line(const char *path, char *buf, size_t size)
{
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs attributes are one page at most, and read in one call. */
	r = read(fd, buf, size - 1);
	close(fd);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	nic_trim(buf);
	return 0;
}

int nic_init(struct nic_state *s, const struct nic_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->only_named = o && o->only_named;
	s->all_if_none_named = o && o->all_if_none_named;
	if (o && o->root && o->root[0]) {
		s->root = strdup(o->root);
		if (!s->root)
			return -ENOMEM;
	}
	if (o && o->n_netdevs > 0) {
		s->extra_netdevs = calloc(o->n_netdevs, sizeof(*s->extra_netdevs));
		if (!s->extra_netdevs)
			goto nomem;
		for (int i = 0; i < o->n_netdevs; i++) {
			s->extra_netdevs[i] = strdup(o->netdevs[i]);
			if (!s->extra_netdevs[i])
				goto nomem;
			s->n_extra_netdevs++;
		}
	}
	return 0;
nomem:
	nic_free(s);
	return -ENOMEM;
}

void nic_ports_free(struct nic_port *ports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		nic_counters_free(&ports[i].hw);
		nic_counters_free(&ports[i].pma);
	}
	free(ports);
}

static void netdevs_free(struct nic_netdev *nd, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nic_counters_free(&nd[i].ethtool);
	free(nd);
}

void nic_free(struct nic_state *s)
{
	nic_ports_free(s->ports, s->n_ports);
	netdevs_free(s->netdevs, s->n_netdevs);
	free(s->qps);
	free(s->seen);
	for (int i = 0; i < s->n_extra_netdevs; i++)
		free(s->extra_netdevs[i]);
	free(s->extra_netdevs);
	free(s->root);
	memset(s, 0, sizeof(*s));
}

const struct nic_port *nic_port_get(const struct nic_state *s, const char *device, __u32 port)
{
	for (size_t i = 0; i < s->n_ports; i++)
		if (s->ports[i].port == port && !strcmp(s->ports[i].device, device))
			return &s->ports[i];
	return NULL;
}

const struct nic_netdev *nic_netdev_get(const struct nic_state *s, const char *name)
{
	for (size_t i = 0; i < s->n_netdevs; i++)
		if (!strcmp(s->netdevs[i].name, name))
			return &s->netdevs[i];
	return NULL;
}

const struct nic_counter *nic_pfc(const struct nic_netdev *nd, int prio, enum nic_pfc_field f)
{
	int i;

	if (prio < 0 || prio >= NIC_PRIOS || f >= NIC_PFC_FIELD_MAX)
		return NULL;
	i = nd->pfc[prio][f];
	return i >= 0 && (size_t)i < nd->ethtool.n ? &nd->ethtool.v[i] : NULL;
}

/* Where each PFC field of each priority sits in the netdev's statistics. */
static void index_pfc(struct nic_netdev *nd)
{
	const struct nic_counter *c;
	char name[NIC_NAME_LEN];

	for (int p = 0; p < NIC_PRIOS; p++) {
		for (int f = 0; f < NIC_PFC_FIELD_MAX; f++) {
			nic_fill_prio(name, sizeof(name), nic_pfc_fields[f].pattern, p);
			c = nic_counter_get(&nd->ethtool, name);
			nd->pfc[p][f] = c ? (int)(c - nd->ethtool.v) : -1;
		}
	}
	c = nic_counter_get(&nd->ethtool, "tx_pause_storm_warning_events");
	nd->storm_warning = c ? (int)(c - nd->ethtool.v) : -1;
	c = nic_counter_get(&nd->ethtool, "tx_pause_storm_error_events");
	nd->storm_error = c ? (int)(c - nd->ethtool.v) : -1;
}

static int name_add(char ***names, size_t *n, size_t *cap, const char *name)
{
	if (!name[0])
		return 0;
	for (size_t k = 0; k < *n; k++)
		if (!strcmp((*names)[k], name))
			return 0;
	if (buf_grow((void **)names, cap, *n + 1, sizeof(**names)))
		return -ENOMEM;
	(*names)[*n] = strdup(name);
	if (!(*names)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The netdevs to read: of the RDMA ports, asked for, and (recorded) every file. */
static int netdev_names(const struct nic_state *s, char ***names, size_t *n)
{
	size_t cap = 0;
	int err = 0;

	*names = NULL;
	*n = 0;
	for (size_t i = 0; !err && i < s->n_ports; i++)
		err = name_add(names, n, &cap, s->ports[i].netdev);
	for (int i = 0; !err && i < s->n_extra_netdevs; i++)
		err = name_add(names, n, &cap, s->extra_netdevs[i]);
	if (!err && s->root && !s->only_named) {
		char path[PATH_MAX];
		struct dirent *de;
		DIR *d = NULL;

		if (!nic_path(path, sizeof(path), "%s/ethtool", s->root))
			d = opendir(path);
		while (!err && d && (de = readdir(d)))
			if (de->d_name[0] != '.' && strlen(de->d_name) < NIC_IFNAME_LEN)
				err = name_add(names, n, &cap, de->d_name);
		if (d)
			closedir(d);
	}
	return err;
}

static int by_netdev_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int refresh_netdevs(struct nic_state *s, double interval_s)
{
	struct nic_netdev *fresh = NULL;
	char **names;
	size_t n, cap = 0;
	int err;

	err = netdev_names(s, &names, &n);
	if (!err && n) {
		qsort(names, n, sizeof(*names), by_netdev_name);
		if (buf_grow((void **)&fresh, &cap, n, sizeof(*fresh)))
			err = -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		struct nic_netdev *nd = &fresh[i];
		const struct nic_netdev *old = nic_netdev_get(s, names[i]);

		memset(nd, 0, sizeof(*nd));
		snprintf(nd->name, sizeof(nd->name), "%s", names[i]);
		if (s->root)
			err = nic_ethtool_read_file(s->root, nd->name, &nd->ethtool, nd->error,
						    sizeof(nd->error));
		else
			err = nic_ethtool_read_live(nd->name, &nd->ethtool, nd->error,
						    sizeof(nd->error));
		if (err != -ENOMEM)
			err = 0;
		nic_counters_merge(&nd->ethtool, old ? &old->ethtool : NULL, interval_s);
		index_pfc(nd);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (err) {
		netdevs_free(fresh, n);
		return err;
	}
	netdevs_free(s->netdevs, s->n_netdevs);
	s->netdevs = fresh;
	s->n_netdevs = n;
	s->cap_netdevs = cap;
	return 0;
}

static bool named(const struct nic_state *s, const char *netdev)
{
	for (int i = 0; i < s->n_extra_netdevs; i++)
		if (!strcmp(s->extra_netdevs[i], netdev))
			return true;
	return false;
}

/* With only_named, the ports on other netdevs go (before their deltas are taken). */
static void keep_named_ports(const struct nic_state *s, struct nic_port *ports, size_t *n)
{
	size_t out = 0;
	bool any = false;

	for (size_t i = 0; i < *n && !any; i++)
		any = named(s, ports[i].netdev);
	if (!any && s->all_if_none_named)
		return;

	for (size_t i = 0; i < *n; i++) {
		if (!named(s, ports[i].netdev)) {
			nic_counters_free(&ports[i].hw);
			nic_counters_free(&ports[i].pma);
			continue;
		}
		if (out != i)
			ports[out] = ports[i];
		out++;
	}
	*n = out;
}

static bool port_in(const struct nic_port *ports, size_t n, const char *device, __u32 port)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i].port == port && !strcmp(ports[i].device, device))
			return true;
	return false;
}

/* Remember every port read, with its netdev as last read. */
static int note_seen(struct nic_state *s, const struct nic_port *ports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct nic_seen_port *p = NULL;

		for (size_t k = 0; k < s->n_seen && !p; k++)
			if (s->seen[k].port == ports[i].port &&
			    !strcmp(s->seen[k].device, ports[i].device))
				p = &s->seen[k];
		if (!p) {
			if (buf_grow((void **)&s->seen, &s->cap_seen, s->n_seen + 1,
				     sizeof(*s->seen)))
				return -ENOMEM;
			p = &s->seen[s->n_seen++];
			memset(p, 0, sizeof(*p));
			snprintf(p->device, sizeof(p->device), "%s", ports[i].device);
			p->port = ports[i].port;
		}
		if (ports[i].netdev[0])
			snprintf(p->netdev, sizeof(p->netdev), "%s", ports[i].netdev);
	}
	return 0;
}

/* "mlx5_1/1 (ens1f1np1), ..." of the ports read before and not now; how many. */
static size_t gone_ports(const struct nic_state *s, const struct nic_port *ports, size_t n,
			 char *out, size_t size)
{
	size_t k = 0, len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < s->n_seen; i++) {
		const struct nic_seen_port *p = &s->seen[i];

		if (port_in(ports, n, p->device, p->port))
			continue;
		if (len < size)
			len += snprintf(out + len, size - len, "%s%s/%u%s%s%s", k ? ", " : "",
					p->device, p->port, p->netdev[0] ? " (" : "", p->netdev,
					p->netdev[0] ? ")" : "");
		k++;
	}
	return k;
}

static int refresh_ports(struct nic_state *s, double interval_s)
{
	char gone[NIC_MSG_LEN];
	size_t n_gone;
	char ib_dir[PATH_MAX], net_dir[PATH_MAX];
	const char *root = s->root ? s->root : "/sys";
	struct nic_port *fresh = NULL;
	size_t n = 0, cap = 0;
	int err, devices = 0;

	err = nic_path(ib_dir, sizeof(ib_dir), "%s/class/infiniband", root);
	if (!err)
		err = nic_path(net_dir, sizeof(net_dir), "%s/class/net", root);
	if (!err)
		err = nic_sysfs_read(ib_dir, net_dir, &fresh, &n, &cap, &devices);
	if (err) {
		nic_ports_free(fresh, n);
		return err;
	}
	if (s->only_named)
		keep_named_ports(s, fresh, &n);
	for (size_t i = 0; i < n; i++) {
		const struct nic_port *old = nic_port_get(s, fresh[i].device, fresh[i].port);

		nic_counters_merge(&fresh[i].hw, old ? &old->hw : NULL, interval_s);
		nic_counters_merge(&fresh[i].pma, old ? &old->pma : NULL, interval_s);
	}
	n_gone = gone_ports(s, fresh, n, gone, sizeof(gone));
	err = note_seen(s, fresh, n);
	if (err) {
		nic_ports_free(fresh, n);
		return err;
	}
	nic_ports_free(s->ports, s->n_ports);
	s->ports = fresh;
	s->n_ports = n;
	s->cap_ports = cap;
	if (devices && !n && s->only_named) /* devices, on none of the netdevs named */
		snprintf(s->info, sizeof(s->info),
			 "no RDMA port on the netdevs named (%d RDMA device%s on others)%s%s",
			 devices, devices == 1 ? "" : "s",
			 n_gone ? "; gone since an earlier read: " : "", n_gone ? gone : "");
	else if (n_gone)
		/* Not the "no RDMA devices" of a host that never had one: they were read. */
		snprintf(s->info, sizeof(s->info),
			 "%s%sRDMA port%s gone since an earlier read: %s%s", n ? "" : NIC_NO_RDMA,
			 n ? "" : " (", n_gone == 1 ? "" : "s", gone, n ? "" : ")");
	else
		snprintf(s->info, sizeof(s->info), "%s", n ? "" : NIC_NO_RDMA);
	return 0;
}

/* With only_named, the QPs of devices that have no port left. */
static void keep_named_qps(struct nic_state *s)
{
	size_t out = 0;

	for (size_t i = 0; i < s->n_qps; i++) {
		bool kept = false;

		for (size_t p = 0; p < s->n_ports && !kept; p++)
			kept = !strcmp(s->ports[p].device, s->qps[i].device);
		if (kept)
			s->qps[out++] = s->qps[i];
	}
	s->n_qps = out;
}

static int refresh_qps(struct nic_state *s)
{
	char path[PATH_MAX];
	int err;

	s->n_qps = 0;
	s->qp_error[0] = '\0';
	if (s->root) {
		err = nic_path(path, sizeof(path), "%s/rdma-res-qp.json", s->root);
		if (!err && access(path, F_OK) && !s->n_ports)
			return 0; /* a tree without RDMA has no QP table to miss */
		if (!err)
			err = nic_qp_read_file(s, path, s->qp_error, sizeof(s->qp_error));
	} else {
		if (!s->n_ports)
			return 0; /* the info line already says why */
		err = nic_qp_read_live(s, s->qp_error, sizeof(s->qp_error));
	}
	if (err)
		s->n_qps = 0;
	if (err == -ENOMEM)
		return err;
	if (s->only_named)
		keep_named_qps(s);
	for (size_t i = 0; i < s->n_qps; i++) {
		struct nic_qp *q = &s->qps[i];
		const struct nic_port *p = nic_port_get(s, q->device, q->port);

		if (p)
			snprintf(q->netdev, sizeof(q->netdev), "%s", p->netdev);
		q->predicted_sport = 0;
		q->predicted_path = -1;
	}
	return 0;
}

int nic_refresh(struct nic_state *s, __u64 now_ns)
{
	double interval_s = 0;
	int err;

	if (!now_ns)
		now_ns = fp_mono_ns();
	if (s->refreshes && now_ns > s->taken_ns)
		interval_s = (now_ns - s->taken_ns) / 1e9;
	err = refresh_ports(s, interval_s);
	if (!err)
		err = refresh_netdevs(s, interval_s);
	if (!err)
		err = refresh_qps(s);
	if (err)
		return err;
	s->taken_ns = now_ns;
	s->interval_s = interval_s;
	s->refreshes++;
	return 0;
}
