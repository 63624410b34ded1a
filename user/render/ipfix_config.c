// SPDX-License-Identifier: GPL-2.0
/*
 * ipfix_config.c - the exporter's configuration: its defaults, the checks
 * ipfix_open() makes of it, and the collector's address, resolved once.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/ipfix_config.h"
#include "render/ipfix_msg.h"
#include "util/log.h"
#include "util/recq.h"

void ipfix_config_init(struct ipfix_config *cfg)
{
	*cfg = (struct ipfix_config){
	    .transport = IPFIX_UDP,
	    .fd = -1,
	    .pen = IPFIX_PEN_DEFAULT,
	    .max_msg_bytes = IPFIX_MAX_MSG_DEFAULT,
	    .template_refresh_ms = IPFIX_REFRESH_MS_DEFAULT,
	    .budget_msgs = IPFIX_BUDGET_MSGS_DEFAULT,
	    .rate_bytes_per_s = IPFIX_RATE_BYTES_DEFAULT,
	    .burst_bytes = IPFIX_BURST_BYTES_DEFAULT,
	    .queue_bytes = IPFIX_QUEUE_BYTES_DEFAULT,
	    .backoff_min_ms = IPFIX_BACKOFF_MIN_MS_DEFAULT,
	    .backoff_max_ms = IPFIX_BACKOFF_MAX_MS_DEFAULT,
	};
}

/* "HOST:PORT", "[IPv6]:PORT", or a host alone (port 4739). */
int ipfix_resolve(const struct ipfix_config *cfg, struct sockaddr_storage *addr, socklen_t *len)
{
	const char *collector = cfg->collector;
	struct addrinfo hints = {
	    .ai_socktype = cfg->transport == IPFIX_TCP ? SOCK_STREAM : SOCK_DGRAM,
	    .ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res = NULL;
	char host[256], port[8];
	const char *colon;
	int err;

	snprintf(port, sizeof(port), "%u", IPFIX_PORT_DEFAULT);
	if (collector[0] == '[') {
		const char *end = strchr(collector, ']');

		if (!end || (end[1] && end[1] != ':') || end - collector - 1 >= (int)sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(end - collector - 1), collector + 1);
		if (end[1] == ':')
			snprintf(port, sizeof(port), "%s", end + 2);
	} else if ((colon = strchr(collector, ':')) && !strchr(colon + 1, ':')) {
		if (colon - collector >= (int)sizeof(host) || strlen(colon + 1) >= sizeof(port))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - collector), collector);
		snprintf(port, sizeof(port), "%s", colon + 1);
	} else {
		if (strlen(collector) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%s", collector);
	}
	if (!host[0] || !port[0] || strspn(port, "0123456789") != strlen(port) || atoi(port) < 1 ||
	    atoi(port) > 65535)
		goto bad;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		fp_err("ipfix collector '%s': %s", collector, gai_strerror(err));
		return -EINVAL;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
bad:
	fp_err("ipfix collector '%s' is not HOST:PORT or [IPv6]:PORT", collector);
	return -EINVAL;
}

int ipfix_check_config(const struct ipfix_config *c)
{
	size_t need = IPFIX_MSG_HDR_LEN + IPFIX_SET_HDR_LEN + ipfix_max_template_record();

	if (need < IPFIX_MSG_HDR_LEN + IPFIX_SET_HDR_LEN + ipfix_max_fixed_record())
		need = IPFIX_MSG_HDR_LEN + IPFIX_SET_HDR_LEN + ipfix_max_fixed_record();
	if (need < IPFIX_MAX_MSG_MIN)
		need = IPFIX_MAX_MSG_MIN;
	if (c->max_msg_bytes < need || c->max_msg_bytes > IPFIX_MAX_MSG_MAX) {
		fp_err("ipfix: a message size of %u is not from %zu to %u bytes", c->max_msg_bytes,
		       need, IPFIX_MAX_MSG_MAX);
		return -EINVAL;
	}
	if (c->queue_bytes < c->max_msg_bytes + RECQ_HDR) {
		fp_err("ipfix: a queue of %u bytes cannot hold one message", c->queue_bytes);
		return -EINVAL;
	}
	if (!c->budget_msgs || !c->template_refresh_ms || !c->backoff_min_ms ||
	    c->backoff_max_ms < c->backoff_min_ms) {
		fp_err("ipfix: budget, template refresh and TCP backoff must be positive");
		return -EINVAL;
	}
	if (!c->sink && c->transport == IPFIX_FILE && c->fd < 0) {
		fp_err("ipfix: file export needs an open file");
		return -EINVAL;
	}
	if (!c->sink && c->transport != IPFIX_FILE && (!c->collector || !c->collector[0])) {
		fp_err("ipfix: no collector given");
		return -EINVAL;
	}
	return 0;
}
