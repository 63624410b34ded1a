// SPDX-License-Identifier: GPL-2.0
/*
 * nic_record.c - the NIC state written back as a recorded tree, in the
 * layout nic.h describes and the formats the tools print: one value per
 * sysfs file, `ethtool -S` text, and the JSON of `rdma -j res show qp`
 * (keys and their order as iproute2's rdma/res-qp.c writes them).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include "util/json.h"
#include "source/nic_priv.h"

static int put_text(nic_put_fn put, void *ctx, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int put_text(nic_put_fn put, void *ctx, const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	return put(ctx, path, buf, n);
}

static int put_counters(nic_put_fn put, void *ctx, const char *dir, const struct nic_counters *c)
{
	char path[PATH_MAX];
	int err = 0;

	for (size_t i = 0; !err && i < c->n; i++) {
		err = nic_path(path, sizeof(path), "%s/%s", dir, c->v[i].driver_name);
		if (!err)
			err = put_text(put, ctx, path, "%llu\n", (unsigned long long)c->v[i].value);
	}
	return err;
}

/* GID 0 carries the netdev, GID 1 the RoCEv2 address when there is one. */
static int put_port(nic_put_fn put, void *ctx, const struct nic_port *p)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int err;

	if (p->port)
		err =
		    nic_path(dir, sizeof(dir), "class/infiniband/%s/ports/%u", p->device, p->port);
	else
		err = nic_path(dir, sizeof(dir), "class/infiniband/%s", p->device);
	if (!err && nic_path(path, sizeof(path), "%s/hw_counters", dir))
		err = -ENAMETOOLONG;
	if (!err)
		err = put_counters(put, ctx, path, &p->hw);
	if (err || !p->port)
		return err;
	if (nic_path(path, sizeof(path), "%s/counters", dir))
		return -ENAMETOOLONG;
	err = put_counters(put, ctx, path, &p->pma);
	if (!err && p->link_layer[0] && !nic_path(path, sizeof(path), "%s/link_layer", dir))
		err = put_text(put, ctx, path, "%s\n", p->link_layer);
	if (!err && p->netdev[0] && !nic_path(path, sizeof(path), "%s/gid_attrs/ndevs/0", dir))
		err = put_text(put, ctx, path, "%s\n", p->netdev);
	if (!err && p->has_gid_addr) {
		struct in6_addr a = {0};
		char text[INET6_ADDRSTRLEN];

		if (p->gid_v6) {
			memcpy(a.s6_addr, p->gid_addr, 16);
		} else {
			a.s6_addr[10] = a.s6_addr[11] =
			    0xff; /* IPv4-mapped, as the GID table has it */
			memcpy(a.s6_addr + 12, p->gid_addr, 4);
		}
		inet_ntop(AF_INET6, &a, text, sizeof(text));
		if (!nic_path(path, sizeof(path), "%s/gids/1", dir))
			err = put_text(put, ctx, path, "%s\n", text);
		if (!err && !nic_path(path, sizeof(path), "%s/gid_attrs/types/1", dir))
			err = put_text(put, ctx, path, "RoCE v2\n");
		if (!err && !nic_path(path, sizeof(path), "%s/gid_attrs/ndevs/1", dir))
			err = put_text(put, ctx, path, "%s\n", p->netdev[0] ? p->netdev : "?");
	}
	return err;
}

/* Hand over what an open_memstream() collected (its size is known only after fclose). */
static int put_stream(nic_put_fn put, void *ctx, const char *path, FILE *f, char **buf, size_t *len)
{
	int err = fclose(f) ? -ENOMEM : put(ctx, path, *buf, *len);

	free(*buf);
	return err;
}

static int put_ethtool(nic_put_fn put, void *ctx, const struct nic_netdev *nd)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (nd->error[0] && !nd->ethtool.n)
		return 0; /* nothing was read: leave the file out, as the host had none */
	if (nic_path(path, sizeof(path), "ethtool/%s", nd->name))
		return -ENAMETOOLONG;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "NIC statistics:\n");
	for (size_t i = 0; i < nd->ethtool.n; i++)
		fprintf(f, "     %s: %llu\n", nd->ethtool.v[i].driver_name,
			(unsigned long long)nd->ethtool.v[i].value);
	return put_stream(put, ctx, path, f, &buf, &len);
}

static int put_qps(nic_put_fn put, void *ctx, const struct nic_state *s)
{
	char *buf = NULL;
	size_t len = 0;
	struct json j;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	json_init(&j, f);
	json_arr_begin(&j);
	for (size_t i = 0; i < s->n_qps; i++) {
		const struct nic_qp *q = &s->qps[i];

		json_obj_begin(&j);
		json_kv_u64(&j, "ifindex", q->dev_index);
		json_kv_str(&j, "ifname", q->device);
		if (q->port)
			json_kv_u64(&j, "port", q->port);
		json_kv_u64(&j, "lqpn", q->lqpn);
		if (q->has_rqpn)
			json_kv_u64(&j, "rqpn", q->rqpn);
		json_kv_str(&j, "type", nic_qp_type_name(q->type));
		json_kv_str(&j, "state", nic_qp_state_name(q->state));
		if (q->has_rq_psn)
			json_kv_u64(&j, "rq-psn", q->rq_psn);
		json_kv_u64(&j, "sq-psn", q->sq_psn);
		if (q->has_pdn)
			json_kv_u64(&j, "pdn", q->pdn);
		if (q->has_pid)
			json_kv_u64(&j, "pid", q->pid);
		if (q->comm[0])
			json_kv_str(&j, "comm", q->comm);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	return put_stream(put, ctx, "rdma-res-qp.json", f, &buf, &len);
}

int nic_record(const struct nic_state *s, nic_put_fn put, void *ctx)
{
	int err = 0;

	for (size_t i = 0; !err && i < s->n_ports; i++)
		err = put_port(put, ctx, &s->ports[i]);
	for (size_t i = 0; !err && i < s->n_netdevs; i++)
		err = put_ethtool(put, ctx, &s->netdevs[i]);
	/* Without RDMA there is no QP table; with it, an empty one is recorded. */
	if (!err && (s->n_ports || s->n_qps))
		err = put_qps(put, ctx, s);
	return err;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

static int put_file(void *ctx, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err;

	if (strstr(rel, ".."))
		return -EINVAL;
	err = nic_path(path, sizeof(path), "%s/%s", (const char *)ctx, rel);
	if (!err)
		err = mkdirs(path);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int nic_record_dir(const struct nic_state *s, const char *dir)
{
	return nic_record(s, put_file, (void *)dir);
}
