/* SPDX-License-Identifier: GPL-2.0 */
/* ipfix_config.h - what ipfix_open() checks and resolves (ipfix_config.c), for ipfix.c. */
#ifndef __FP_IPFIX_CONFIG_H
#define __FP_IPFIX_CONFIG_H

#include <sys/socket.h>

#include "render/ipfix.h"

/* 0, or -EINVAL with one line on stderr. */
int ipfix_check_config(const struct ipfix_config *c);
/* cfg->collector ("HOST:PORT", "[IPv6]:PORT", a host alone: 4739) into addr; -EINVAL, one line. */
int ipfix_resolve(const struct ipfix_config *cfg, struct sockaddr_storage *addr, socklen_t *len);

#endif /* __FP_IPFIX_CONFIG_H */
