// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC source's parsers from arbitrary bytes; the first byte picks one:
 * the JSON of `rdma -j res show qp`, the text of `ethtool -S`, or an RDMA
 * netlink QP dump message. A refused input adds nothing; an accepted one
 * gives well-formed QPs and sorted, unique counter names.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "source/nic.h"

static void check_qps(const struct nic_state *s, size_t before, int err)
{
	if (err && s->n_qps != before)
		abort(); /* all or nothing */
	for (size_t i = 0; i < s->n_qps; i++)
		if (!s->qps[i].device[0] || strnlen(s->qps[i].comm, NIC_COMM_LEN) == NIC_COMM_LEN)
			abort();
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	struct nic_state s;
	char why[NIC_MSG_LEN];

	if (size < 1)
		return 0;
	memset(&s, 0, sizeof(s));
	switch (data[0] % 3) {
	case 0:
		check_qps(
		    &s, 0,
		    nic_qp_parse_json(&s, (const char *)data + 1, size - 1, why, sizeof(why)));
		break;
	case 1: {
		struct nic_counters c = {0};

		if (!nic_ethtool_parse_text(&c, (const char *)data + 1, size - 1))
			for (size_t i = 1; i < c.n; i++)
				if (strcmp(c.v[i - 1].name, c.v[i].name) >= 0)
					abort();
		nic_counters_free(&c);
		break;
	}
	default: {
		/* a header the kernel would have checked, then the fuzzer's attributes */
		size_t len = NLMSG_HDRLEN + size - 1;
		struct nlmsghdr *nlh;

		if (len > 65535)
			return 0;
		nlh = calloc(1, NLMSG_ALIGN(len));
		if (!nlh)
			return 0;
		nlh->nlmsg_len = len;
		memcpy((char *)nlh + NLMSG_HDRLEN, data + 1, size - 1);
		check_qps(&s, 0, nic_qp_parse_nlmsg(&s, nlh));
		free(nlh);
	}
	}
	free(s.qps);
	return 0;
}
