// SPDX-License-Identifier: GPL-2.0
/*
 * nic_qp.c - the queue pairs of the RDMA resource tracker, what
 * `rdma res show qp` prints: live from RDMA netlink (libmnl, as iproute2's
 * rdma tool does), recorded from the JSON `rdma -j res show qp` writes.
 *
 * Netlink (drivers/infiniband/core/nldev.c): a QP dump needs a device
 * index, so devices are dumped first (RDMA_NLDEV_CMD_GET). Each reply of
 * RDMA_NLDEV_CMD_RES_QP_GET carries DEV_INDEX, DEV_NAME and a RES_QP table
 * of RES_QP_ENTRY nests: PORT_INDEX once bound, RES_LQPN, RES_PDN (user
 * QPs), RES_PID or RES_KERN_NAME, RES_RQPN and RES_RQ_PSN (RC and UC),
 * RES_SQ_PSN, RES_PATH_MIG_STATE, RES_TYPE and RES_STATE (u8), and driver
 * attributes.
 *
 * JSON (iproute2 rdma/res-qp.c since the json_print rewrite): one array of
 * objects, {"ifindex","ifname","port","lqpn","rqpn","type","state",
 * "rq-psn","sq-psn","path-mig-state","pdn","pid","comm"}, optional keys
 * left out, kernel QPs with "comm" and no "pid", driver keys with -d.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "util/buf.h"
#include "util/json_parse.h"
#include "source/nic_priv.h"

#define MAX_DEVICES 256
#define RECV_BUF    (32 * 1024)

static struct nic_qp *qp_new(struct nic_state *s)
{
	struct nic_qp *q;

	if (s->n_qps >= NIC_MAX_QPS ||
	    buf_grow((void **)&s->qps, &s->cap_qps, s->n_qps + 1, sizeof(*s->qps)))
		return NULL;
	q = &s->qps[s->n_qps];
	memset(q, 0, sizeof(*q));
	q->predicted_path = -1;
	return q;
}

/* The MNL type each attribute must have; others are not looked at. */
static int attr_kind(__u16 type)
{
	switch (type) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
	case RDMA_NLDEV_ATTR_PORT_INDEX:
	case RDMA_NLDEV_ATTR_RES_LQPN:
	case RDMA_NLDEV_ATTR_RES_RQPN:
	case RDMA_NLDEV_ATTR_RES_RQ_PSN:
	case RDMA_NLDEV_ATTR_RES_SQ_PSN:
	case RDMA_NLDEV_ATTR_RES_PID:
	case RDMA_NLDEV_ATTR_RES_PDN:
		return MNL_TYPE_U32;
	case RDMA_NLDEV_ATTR_RES_TYPE:
	case RDMA_NLDEV_ATTR_RES_STATE:
	case RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE:
		return MNL_TYPE_U8;
	case RDMA_NLDEV_ATTR_DEV_NAME:
	case RDMA_NLDEV_ATTR_RES_KERN_NAME:
		return MNL_TYPE_NUL_STRING;
	case RDMA_NLDEV_ATTR_RES_QP:
	case RDMA_NLDEV_ATTR_RES_QP_ENTRY:
		return MNL_TYPE_NESTED;
	default:
		return -1;
	}
}

static int attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	__u16 type = mnl_attr_get_type(attr);
	int kind;

	if (type >= RDMA_NLDEV_ATTR_MAX)
		return MNL_CB_OK; /* newer than this build: ignored */
	kind = attr_kind(type);
	if (kind < 0)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, kind) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

/*
 * A process or module name as text: a control byte is '?'. Any process can
 * name itself (prctl PR_SET_NAME) with a terminal escape, which the text
 * reports and summary.txt would otherwise pass to the operator's terminal.
 */
static void comm_clean(char *comm)
{
	for (char *c = comm; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static void task_comm(__u32 pid, char *comm, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (nic_read_line(path, comm, size))
		comm[0] = '\0';
	comm_clean(comm);
}

static int qp_from_entry(struct nic_state *s, const struct nlattr *entry, const char *device,
			 __u32 dev_index)
{
	const struct nlattr *line[RDMA_NLDEV_ATTR_MAX] = {NULL};
	struct nic_qp *q;

	if (mnl_attr_parse_nested(entry, attr_cb, line) < 0)
		return -EINVAL;
	if (!line[RDMA_NLDEV_ATTR_RES_LQPN] || !line[RDMA_NLDEV_ATTR_RES_TYPE] ||
	    !line[RDMA_NLDEV_ATTR_RES_STATE])
		return -EINVAL;
	q = qp_new(s);
	if (!q)
		return -ENOMEM;
	snprintf(q->device, sizeof(q->device), "%s", device);
	q->dev_index = dev_index;
	q->lqpn = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_LQPN]);
	q->type = mnl_attr_get_u8(line[RDMA_NLDEV_ATTR_RES_TYPE]);
	q->state = mnl_attr_get_u8(line[RDMA_NLDEV_ATTR_RES_STATE]);
	if (line[RDMA_NLDEV_ATTR_PORT_INDEX])
		q->port = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (line[RDMA_NLDEV_ATTR_RES_SQ_PSN])
		q->sq_psn = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_SQ_PSN]);
	if (line[RDMA_NLDEV_ATTR_RES_PDN]) {
		q->pdn = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_PDN]);
		q->has_pdn = true;
	}
	if (line[RDMA_NLDEV_ATTR_RES_RQPN]) {
		q->rqpn = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_RQPN]);
		q->has_rqpn = true;
	}
	if (line[RDMA_NLDEV_ATTR_RES_RQ_PSN]) {
		q->rq_psn = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_RQ_PSN]);
		q->has_rq_psn = true;
	}
	if (line[RDMA_NLDEV_ATTR_RES_PID]) {
		q->pid = mnl_attr_get_u32(line[RDMA_NLDEV_ATTR_RES_PID]);
		q->has_pid = true;
	}
	if (line[RDMA_NLDEV_ATTR_RES_KERN_NAME]) {
		snprintf(q->comm, sizeof(q->comm), "%s",
			 mnl_attr_get_str(line[RDMA_NLDEV_ATTR_RES_KERN_NAME]));
		comm_clean(q->comm);
		q->kernel = true;
	}
	s->n_qps++;
	return 0;
}

int nic_qp_parse_nlmsg(struct nic_state *s, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {NULL};
	const struct nlattr *entry;
	size_t first = s->n_qps;
	const char *device;
	int err = 0;

	if (mnl_attr_parse(nlh, 0, attr_cb, tb) < 0)
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_RES_QP])
		return -EINVAL;
	device = mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (!device[0])
		return -EINVAL;
	mnl_attr_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_RES_QP])
	{
		if (mnl_attr_get_type(entry) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
			continue;
		err = qp_from_entry(s, entry, device,
				    mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
		if (err)
			break;
	}
	if (err)
		s->n_qps = first; /* a message is taken whole or not at all */
	return err;
}

struct dump {
	struct nic_state *s;
	__u32 devices[MAX_DEVICES];
	int n_devices, err;
};

static int device_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {NULL};
	struct dump *d = data;

	if (mnl_attr_parse(nlh, 0, attr_cb, tb) < 0 || !tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return MNL_CB_ERROR;
	if (d->n_devices < MAX_DEVICES)
		d->devices[d->n_devices++] = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	return MNL_CB_OK;
}

static int qp_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump *d = data;

	d->err = nic_qp_parse_nlmsg(d->s, nlh);
	return d->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int nl_dump(struct mnl_socket *nl, __u16 cmd, const __u32 *dev_index, mnl_cb_t cb,
		   struct dump *d)
{
	char *buf = malloc(RECV_BUF);
	struct nlmsghdr *nlh;
	__u32 seq = time(NULL), portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret = MNL_CB_OK;

	if (!buf)
		return -ENOMEM;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (dev_index)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, *dev_index);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		free(buf);
		return -errno;
	}
	errno = 0;
	while (ret > MNL_CB_STOP) {
		n = mnl_socket_recvfrom(nl, buf, RECV_BUF);
		if (n <= 0) {
			ret = MNL_CB_ERROR;
			break;
		}
		ret = mnl_cb_run(buf, n, seq, portid, cb, d);
	}
	free(buf);
	if (d->err)
		return d->err;
	/* mnl_cb_run sets errno from an NLMSG_ERROR reply. */
	return ret == MNL_CB_ERROR ? (errno ? -errno : -EIO) : 0;
}

int nic_qp_read_live(struct nic_state *s, char *err_msg, size_t err_len)
{
	struct dump *d = calloc(1, sizeof(*d));
	struct mnl_socket *nl;
	int err = 0;

	if (!d)
		return -ENOMEM;
	d->s = s;
	nl = mnl_socket_open(NETLINK_RDMA);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		snprintf(err_msg, err_len, "RDMA netlink: %s", strerror(-err));
		goto out;
	}
	err = nl_dump(nl, RDMA_NLDEV_CMD_GET, NULL, device_cb, d);
	for (int i = 0; !err && i < d->n_devices; i++) {
		size_t before = s->n_qps;

		err = nl_dump(nl, RDMA_NLDEV_CMD_RES_QP_GET, &d->devices[i], qp_cb, d);
		for (size_t k = before; !err && k < s->n_qps; k++)
			if (s->qps[k].has_pid)
				task_comm(s->qps[k].pid, s->qps[k].comm, sizeof(s->qps[k].comm));
	}
	if (err && err != -ENOMEM)
		snprintf(err_msg, err_len, "RDMA netlink QP dump: %s", strerror(-err));
out:
	if (nl)
		mnl_socket_close(nl);
	free(d);
	return err;
}

static int type_from_name(const struct jp_doc *doc, int v, __u8 *out, const char *(*name)(__u8))
{
	for (unsigned int t = 0; t < 16; t++) {
		if (jp_str_eq(doc, v, name(t)) && strcmp(name(t), "UNKNOWN")) {
			*out = t;
			return 0;
		}
	}
	return -EINVAL;
}

static int get_u32(const struct jp_doc *doc, int obj, const char *key, __u32 *out, bool *has)
{
	int v = jp_get(doc, obj, key);
	__u64 x;
	int err;

	if (v < 0)
		return has ? 0 : -ENOENT;
	err = jp_u64(doc, v, &x);
	if (!err && x > UINT32_MAX)
		err = -ERANGE;
	if (err)
		return err;
	*out = x;
	if (has)
		*has = true;
	return 0;
}

static int qp_from_json(struct nic_state *s, const struct jp_doc *doc, int obj, const char **why)
{
	struct nic_qp *q;
	int v, err;

	if (doc->tok[obj].type != JP_OBJECT) {
		*why = "an entry is not an object";
		return -EINVAL;
	}
	q = qp_new(s);
	if (!q)
		return -ENOMEM;
	*why = "\"ifname\" missing or not a device name";
	v = jp_get(doc, obj, "ifname");
	if (v < 0 || jp_str(doc, v, q->device, sizeof(q->device)) <= 0)
		return -EINVAL;
	*why = "\"lqpn\" missing or not a 32-bit number";
	if (get_u32(doc, obj, "lqpn", &q->lqpn, NULL))
		return -EINVAL;
	*why = "a number key is not a 32-bit number";
	if (get_u32(doc, obj, "ifindex", &q->dev_index, &(bool){false}) ||
	    get_u32(doc, obj, "port", &q->port, &(bool){false}) ||
	    get_u32(doc, obj, "rqpn", &q->rqpn, &q->has_rqpn) ||
	    get_u32(doc, obj, "rq-psn", &q->rq_psn, &q->has_rq_psn) ||
	    get_u32(doc, obj, "sq-psn", &q->sq_psn, &(bool){false}) ||
	    get_u32(doc, obj, "pdn", &q->pdn, &q->has_pdn) ||
	    get_u32(doc, obj, "pid", &q->pid, &q->has_pid))
		return -EINVAL;
	*why = "\"type\" missing or unknown";
	v = jp_get(doc, obj, "type");
	if (v < 0 || type_from_name(doc, v, &q->type, nic_qp_type_name))
		return -EINVAL;
	*why = "\"state\" missing or unknown";
	v = jp_get(doc, obj, "state");
	if (v < 0 || type_from_name(doc, v, &q->state, nic_qp_state_name))
		return -EINVAL;
	*why = "\"comm\" is not a string";
	v = jp_get(doc, obj, "comm");
	if (v >= 0) {
		err = jp_str(doc, v, q->comm, sizeof(q->comm));
		if (err == -EINVAL)
			return err;
		comm_clean(q->comm);
	}
	/* Kernel QPs have a module name and no pid (rdma prints "[name]" in text only). */
	q->kernel = !q->has_pid && q->comm[0];
	s->n_qps++;
	return 0;
}

int nic_qp_parse_json(struct nic_state *s, const char *text, size_t len, char *why, size_t why_len)
{
	size_t first = s->n_qps, max_tokens = len / 2 + 16;
	const char *problem = NULL;
	struct jp_doc doc;
	int err, i, entry = 0;

	/* Bounded: a token takes two bytes of text at least (a value and a separator). */
	if (max_tokens > (4 << 20))
		max_tokens = 4 << 20;
	err = jp_parse(&doc, text, len, max_tokens);
	if (err) {
		snprintf(why, why_len, "%s at byte %zu", doc.err ? doc.err : strerror(-err),
			 doc.err_offset);
		return err;
	}
	if (doc.tok[0].type != JP_ARRAY) {
		snprintf(why, why_len, "the top level is not an array");
		jp_free(&doc);
		return -EINVAL;
	}
	for (i = jp_first(&doc, 0); i >= 0; i = jp_next(&doc, 0, i), entry++) {
		err = qp_from_json(s, &doc, i, &problem);
		if (err)
			break;
	}
	jp_free(&doc);
	if (err) {
		s->n_qps = first;
		snprintf(why, why_len, "entry %d: %s", entry, problem ? problem : strerror(-err));
	}
	return err;
}

int nic_qp_read_file(struct nic_state *s, const char *path, char *err_msg, size_t err_len)
{
	char why[NIC_MSG_LEN];
	size_t len;
	char *text;
	int err;

	err = nic_read_file(path, &text, &len, NIC_MAX_FILE);
	if (err) {
		snprintf(err_msg, err_len, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	err = nic_qp_parse_json(s, text, len, why, sizeof(why));
	free(text);
	if (err)
		snprintf(err_msg, err_len, "%s: not what `rdma -j res show qp` prints: %s", path,
			 why);
	return err;
}
