/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mirror.h - mirror sessions as observation points. A RoCE packet copied
 * by a switch (ERSPAN I/II/III, GRE TEB) is counted per flow under the
 * session it came in; the session is the path, the way an uplink is on a
 * host: named by --mirror-session ID=NAME, else erspan:ID, gre:KEY or gre,
 * with the switch's address when several switches use one number.
 */
#ifndef __FP_MIRROR_H
#define __FP_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "source/source.h"

#define MIRROR_MAX_NAMES 64
/* Point ids of mirror sessions have this bit set; an ifindex never does. */
#define MIRROR_POINT_BIT 0x80000000U

struct mirror_names {
	struct {
		__u32 id; /* ERSPAN session ID, or GRE key */
		char name[FP_NAME_LEN];
	} v[MIRROR_MAX_NAMES];
	int n;
};

/* --mirror-session "ID=NAME[,ID=NAME...]" (repeatable): one line and -EINVAL if bad. */
int mirror_names_add(struct mirror_names *m, const char *arg);

/*
 * Where a flow was observed: the interface's ifindex for a frame on the
 * wire; for a mirror copy a stable id of its session (type, session ID or
 * GRE key, switch), with MIRROR_POINT_BIT set.
 */
__u32 flow_point_id(const struct flow_key *k);

/* The queue-pair direction wherever it was seen: interface, direction and mirror cleared. */
struct flow_key flow_identity(const struct flow_key *k);

/* A mirror copy that names its session: ERSPAN II and III, and GRE with a key. */
bool mirror_has_session(const struct flow_key *k);
/* Its session ID (ERSPAN II and III) or GRE key: mirror_id without type II's Index. */
__u32 mirror_session_id(const struct flow_key *k);
/* Whether it has an ERSPAN II Index (*index set), the port and direction it was copied at. */
bool mirror_index(const struct flow_key *k, __u32 *index);
/* Its session's --mirror-session name, or NULL. */
const char *mirror_given_name(const struct mirror_names *m, const struct flow_key *k);
/* "erspan:101", "gre:7", "gre", or its --mirror-session name; "@switch" when qualify. */
void mirror_session_name(char *buf, size_t len, const struct flow_key *k,
			 const struct mirror_names *m, bool qualify);
/* 1, 2, 3 for ERSPAN types; "teb" is the JSON's word for GRE TEB (mirror_type_teb). */
bool mirror_type_is_teb(const struct flow_key *k);
/* The switch that sent the copy: "10.9.0.1", or "ipv6#1a2b3c4d" (a digest). */
const char *mirror_switch(char *buf, size_t len, const struct flow_key *k);
/* "ingress", "egress" (ERSPAN III's D bit), or NULL when the copy does not say. */
const char *mirror_direction(const struct flow_key *k);
/*
 * Where in its session a copy was taken, which tells apart the flows of
 * one session that copied a packet twice: "ingress" or "egress" (type
 * III), "index 3" (type II's Index), or NULL when the copy does not say.
 */
const char *mirror_point(char *buf, size_t len, const struct flow_key *k);

#endif /* __FP_MIRROR_H */
