// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/mirror.h"
#include "util/format.h"
#include "util/kindex.h"
#include "util/log.h"
#include "util/options.h"

#define MIRROR_FLAGS                                                                               \
	(FP_FLOW_MIRROR_KEY | FP_FLOW_MIRROR_IPV6 | FP_FLOW_MIRROR_INGRESS | FP_FLOW_MIRROR_EGRESS)

/* One ID=NAME of --mirror-session. */
static int mirror_name_add(struct mirror_names *m, const char *arg)
{
	char id[16];
	const char *name;
	__u32 v;

	if (opt_split_pair("--mirror-session", "ID=NAME", arg, id, sizeof(id), &name) ||
	    opt_parse_u32("--mirror-session ID", id, 0, UINT32_MAX, &v))
		return -EINVAL;
	if (strlen(name) >= FP_NAME_LEN) {
		fp_err("--mirror-session: the name '%s' is longer than %d characters", name,
		       FP_NAME_LEN - 1);
		return -EINVAL;
	}
	for (int i = 0; i < m->n; i++) {
		if (m->v[i].id == v) {
			fp_err("--mirror-session: session %u is named twice ('%s' and '%s')", v,
			       m->v[i].name, name);
			return -EINVAL;
		}
		/* Two paths of one name: one series, one column, for both. */
		if (!strcmp(m->v[i].name, name)) {
			fp_err("--mirror-session: the name '%s' is given to sessions %u and %u; "
			       "each path needs a name of its own",
			       name, m->v[i].id, v);
			return -EINVAL;
		}
	}
	if (m->n >= MIRROR_MAX_NAMES) {
		fp_err("--mirror-session: at most %d sessions", MIRROR_MAX_NAMES);
		return -EINVAL;
	}
	m->v[m->n].id = v;
	snprintf(m->v[m->n].name, FP_NAME_LEN, "%s", name);
	m->n++;
	return 0;
}

int mirror_names_add(struct mirror_names *m, const char *arg)
{
	char one[FP_NAME_LEN + 16];

	/* ID=NAME[,ID=NAME...], as -i and --uplinks take lists. */
	for (const char *p = arg, *end;; p = end + 1) {
		size_t len;
		int err;

		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len >= sizeof(one)) {
			fp_err("--mirror-session: '%.*s' is too long for ID=NAME", (int)len, p);
			return -EINVAL;
		}
		memcpy(one, p, len);
		one[len] = '\0';
		err = mirror_name_add(m, one);
		if (err || !end)
			return err;
	}
}

__u32 mirror_session_id(const struct flow_key *k)
{
	if (k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III)
		return k->mirror_id & FP_MIRROR_SESSION_MASK;
	return k->mirror_id;
}

bool mirror_index(const struct flow_key *k, __u32 *index)
{
	if (k->mirror != FP_MIRROR_ERSPAN_II)
		return false;
	*index = k->mirror_id >> FP_MIRROR_INDEX_SHIFT;
	return true;
}

const char *mirror_given_name(const struct mirror_names *m, const struct flow_key *k)
{
	/* A session is named once at most (mirror_name_add()). */
	for (int i = 0; mirror_has_session(k) && i < m->n; i++)
		if (m->v[i].id == mirror_session_id(k))
			return m->v[i].name;
	return NULL;
}

__u32 flow_point_id(const struct flow_key *k)
{
	/*
	 * A session is its number or key, its switch, and whether it is ERSPAN
	 * (II, III) or GRE (I, TEB): hashed as three words. Not type II's
	 * Index: the session's ports are one path. Not the type within ERSPAN
	 * or GRE: a type II and a type III session 5 of one switch have one
	 * name, erspan:5, and a name is one path's (one Prometheus series).
	 */
	bool erspan = k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III;
	__u32 words[3] = {mirror_session_id(k), k->mirror_src,
			  (erspan ? 2U : 1U) << 8 | !!(k->flags & FP_FLOW_MIRROR_KEY)};

	if (!k->mirror)
		return k->ifindex;
	return MIRROR_POINT_BIT | (__u32)kindex_hash(words, sizeof(words), 0x6d6972726f72ULL);
}

struct flow_key flow_identity(const struct flow_key *k)
{
	struct flow_key n = *k;

	n.ifindex = 0;
	n.dir = 0;
	n.pad = 0;
	n.mirror = 0;
	n.mirror_id = 0;
	n.mirror_src = 0;
	n.flags &= ~MIRROR_FLAGS;
	return n;
}

bool mirror_type_is_teb(const struct flow_key *k)
{
	return k->mirror == FP_MIRROR_GRE_TEB;
}

const char *mirror_switch(char *buf, size_t len, const struct flow_key *k)
{
	__u8 a[16] = {};

	if (k->flags & FP_FLOW_MIRROR_IPV6) {
		snprintf(buf, len, "ipv6#%08x", k->mirror_src);
		return buf;
	}
	memcpy(a, &k->mirror_src, 4);
	return fmt_addr(buf, len, a, false);
}

const char *mirror_direction(const struct flow_key *k)
{
	if (k->flags & FP_FLOW_MIRROR_INGRESS)
		return "ingress";
	if (k->flags & FP_FLOW_MIRROR_EGRESS)
		return "egress";
	return NULL;
}

const char *mirror_point(char *buf, size_t len, const struct flow_key *k)
{
	const char *dir = mirror_direction(k);
	__u32 index;

	if (dir)
		snprintf(buf, len, "%s", dir);
	else if (mirror_index(k, &index))
		snprintf(buf, len, "index %u", index);
	else
		return NULL;
	return buf;
}

bool mirror_has_session(const struct flow_key *k)
{
	return k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III ||
	       (k->mirror && (k->flags & FP_FLOW_MIRROR_KEY));
}

void mirror_session_name(char *buf, size_t len, const struct flow_key *k,
			 const struct mirror_names *m, bool qualify)
{
	bool erspan = k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III;
	bool has_id = mirror_has_session(k);
	const char *given = mirror_given_name(m, k);
	__u32 id = mirror_session_id(k);
	char sw[48];

	if (given)
		snprintf(buf, len, "%s", given);
	else if (erspan)
		snprintf(buf, len, "erspan:%u", id);
	else if (has_id)
		snprintf(buf, len, "gre:%u", id);
	else
		snprintf(buf, len, "gre");
	if (qualify)
		snprintf(buf + strlen(buf), len - strlen(buf), "@%s",
			 mirror_switch(sw, sizeof(sw), k));
}
