// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_ports.c - ports, points, names, groups, port counters and the
 * scaling of sampled flows (sflow_ports.h says how and why).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source/sflow_ports.h"
#include "util/log.h"

static const char *const class_names[SPC__COUNT] = {
    [SPC_IFINDEX] = "ifindex",	 [SPC_INTERNAL] = "internal", [SPC_DROPPED] = "dropped",
    [SPC_MULTIPLE] = "multiple", [SPC_UNKNOWN] = "unknown",
};

int sflow_ports_init(struct sflow_ports *t)
{
	memset(t, 0, sizeof(*t));
	t->ports = calloc(SFLOW_MAX_PORTS, sizeof(*t->ports));
	t->points = calloc(SFLOW_MAX_PORTS, sizeof(*t->points));
	t->point_rate = calloc(SFLOW_MAX_PORTS, sizeof(*t->point_rate));
	t->point_port = calloc(SFLOW_MAX_PORTS, sizeof(*t->point_port));
	t->extra = calloc(SFLOW_MAX_RATE_IDS, sizeof(*t->extra));
	if (!t->ports || !t->points || !t->point_rate || !t->point_port || !t->extra ||
	    kindex_reset(&t->index, SFLOW_MAX_PORTS) ||
	    kindex_reset(&t->extra_index, SFLOW_MAX_RATE_IDS)) {
		sflow_ports_free(t);
		return -ENOMEM;
	}
	return 0;
}

void sflow_ports_free(struct sflow_ports *t)
{
	free(t->ports);
	free(t->points);
	free(t->point_rate);
	free(t->point_port);
	free(t->extra);
	kindex_free(&t->index);
	kindex_free(&t->extra_index);
	kindex_free(&t->merge_index);
	memset(t, 0, sizeof(*t));
}

static struct sflow_port_key port_key(const struct sflow_addr *agent, enum sflow_port_class class,
				      __u32 ifindex)
{
	struct sflow_port_key k;

	memset(&k, 0, sizeof(k));
	k.family = agent->family;
	memcpy(k.agent, agent->bytes, agent->family == 6 ? 16 : 4);
	k.class = class;
	k.ifindex = class == SPC_IFINDEX ? ifindex : 0;
	return k;
}

/* The point's name: the map's, else AGENT:port name, else AGENT:ifIndex or AGENT:class. */
static void name_point(struct sflow_ports *t, struct sflow_port_entry *e)
{
	struct obs_point *pt;
	int n;

	if (e->point < 0 || e->mapped)
		return;
	pt = &t->points[e->point];
	if (e->key.class != SPC_IFINDEX)
		snprintf(pt->name, sizeof(pt->name), "%s:%s", e->agent_name,
			 class_names[e->key.class]);
	else if (e->port_name[0]) {
		/* Cut to fit: a long IPv6 agent and a long port name may not both. */
		n = snprintf(pt->name, sizeof(pt->name), "%s:", e->agent_name);
		snprintf(pt->name + n, sizeof(pt->name) - n, "%.*s",
			 (int)(sizeof(pt->name) - n - 1), e->port_name);
	} else
		snprintf(pt->name, sizeof(pt->name), "%s:%u", e->agent_name, e->key.ifindex);
}

/*
 * The agent as its points' names begin: an IPv6 agent in brackets, as an
 * address with a port is written (RFC 5952 section 6), since "2001:db8::2:49"
 * would read as the address 2001:db8::2:49, not port 49 of 2001:db8::2.
 */
static void agent_name(char *buf, size_t len, const struct sflow_port_key *k)
{
	char addr[INET6_ADDRSTRLEN];

	if (!inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, k->agent, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	snprintf(buf, len, k->family == 6 ? "[%s]" : "%s", addr);
}

/* The port's entry, made on first sight; NULL when the table is full. */
static struct sflow_port_entry *port_get(struct sflow_ports *t, const struct sflow_port_key *k)
{
	__u32 *slot = kindex_slot(&t->index, k, sizeof(*k), t->ports, sizeof(*t->ports));
	struct sflow_port_entry *e;

	if (*slot)
		return &t->ports[*slot - 1];
	if (t->n_ports >= SFLOW_MAX_PORTS) {
		t->untracked++;
		return NULL;
	}
	e = &t->ports[t->n_ports];
	memset(e, 0, sizeof(*e));
	e->key = *k;
	e->point = -1;
	agent_name(e->agent_name, sizeof(e->agent_name), k);
	*slot = ++t->n_ports;
	return e;
}

/* Make the port a point (a path when it is an ifIndex port). */
static int point_of(struct sflow_ports *t, struct sflow_port_entry *e)
{
	struct obs_point *pt;

	if (e->point >= 0)
		return e->point;
	e->point = t->n_points++;
	pt = &t->points[e->point];
	memset(pt, 0, sizeof(*pt));
	pt->id = e->point + 1;
	pt->uplink = e->key.class == SPC_IFINDEX;
	pt->port_ifindex = e->key.ifindex; /* 0 but for an ifIndex port */
	pt->solo = true;
	pt->counters = e->counters.counter_samples ? &e->counters : NULL;
	pt->speed_bps = e->counters.speed_bps;
	t->point_port[e->point] = e - t->ports;
	name_point(t, e);
	return e->point;
}

static enum sflow_port_class class_of(const struct sflow_port *p)
{
	switch (p->kind) {
	case SFLOW_PORT_IFINDEX:
		return SPC_IFINDEX;
	case SFLOW_PORT_INTERNAL:
		return SPC_INTERNAL;
	case SFLOW_PORT_DROPPED:
		return SPC_DROPPED;
	case SFLOW_PORT_MULTIPLE:
		return SPC_MULTIPLE;
	default:
		return SPC_UNKNOWN;
	}
}

__u32 sflow_ports_rate_id(struct sflow_ports *t, const struct sflow_addr *agent,
			  const struct sflow_port *output, __u32 rate)
{
	enum sflow_port_class class = class_of(output);
	struct sflow_port_key k = port_key(agent, class, output->value);
	struct sflow_port_entry *e = port_get(t, &k);
	struct sflow_rate_id want;
	__u32 *slot;
	int point;

	if (!e)
		return 0;
	point = point_of(t, e);
	if (!t->point_rate[point])
		t->point_rate[point] = rate;
	if (t->point_rate[point] == rate)
		return point + 1;
	want = (struct sflow_rate_id){.point = point, .rate = rate};
	slot = kindex_slot(&t->extra_index, &want, sizeof(want), t->extra, sizeof(*t->extra));
	if (*slot)
		return SFLOW_RATE_ID_BASE + *slot - 1;
	if (t->n_extra >= SFLOW_MAX_RATE_IDS) {
		t->untracked++;
		return 0;
	}
	t->extra[t->n_extra] = want;
	*slot = ++t->n_extra;
	return SFLOW_RATE_ID_BASE + t->n_extra - 1;
}

/* 32-bit counters on the wire wrap: the difference modulo 2^32. */
static double rate32(__u64 now, __u64 then, double dt)
{
	return (__u32)((__u32)now - (__u32)then) / dt;
}

void sflow_ports_counters(struct sflow_ports *t, const struct sflow_addr *agent, __u32 uptime_ms,
			  const struct sflow_if_counters *c)
{
	struct sflow_port_key k = port_key(agent, SPC_IFINDEX, c->if_index);
	struct sflow_port_entry *e = port_get(t, &k);
	struct port_counters *pc;
	double dt;

	if (!e)
		return;
	pc = &e->counters;
	dt = (__u32)(uptime_ms - e->last_uptime_ms) / 1e3;
	/* Rates need an earlier sample of the same run (an agent's reboot resets uptime). */
	if (pc->counter_samples && dt > 0 && uptime_ms > e->last_uptime_ms &&
	    c->out_octets >= pc->out_octets && c->in_octets >= pc->in_octets) {
		pc->have_rate = true;
		pc->in_bps = (c->in_octets - pc->in_octets) * 8.0 / dt;
		pc->out_bps = (c->out_octets - pc->out_octets) * 8.0 / dt;
		pc->out_discards_per_s = rate32(c->out_discards, pc->out_discards, dt);
		pc->out_errors_per_s = rate32(c->out_errors, pc->out_errors, dt);
	} else if (pc->counter_samples) {
		pc->have_rate = false;
	}
	pc->counter_samples++;
	pc->speed_bps = c->if_speed;
	pc->status = c->if_status;
	pc->in_octets = c->in_octets;
	pc->out_octets = c->out_octets;
	pc->in_discards = c->in_discards;
	pc->out_discards = c->out_discards;
	pc->in_errors = c->in_errors;
	pc->out_errors = c->out_errors;
	e->last_uptime_ms = uptime_ms;
	if (e->point >= 0) {
		t->points[e->point].counters = pc;
		t->points[e->point].speed_bps = c->if_speed;
	}
}

void sflow_ports_port_name(struct sflow_ports *t, const struct sflow_addr *agent, __u32 ifindex,
			   const char *name, size_t len)
{
	struct sflow_port_key k = port_key(agent, SPC_IFINDEX, ifindex);
	struct sflow_port_entry *e = port_get(t, &k);
	size_t n = 0;

	if (!e)
		return;
	/* Printable bytes only: it becomes a label and a column on a terminal. */
	for (size_t i = 0; i < len && n + 1 < sizeof(e->port_name); i++)
		if (isgraph((unsigned char)name[i]))
			e->port_name[n++] = name[i];
	e->port_name[n] = 0;
	name_point(t, e);
}

/* One map line's fields; the error says why not. */
static int map_line(struct sflow_ports *t, char *line, const char **why)
{
	char *f[5], *save = NULL;
	struct sflow_addr agent = {};
	struct sflow_port_entry *e;
	struct sflow_port_key k;
	unsigned long ifindex;
	struct obs_point *pt;
	char *end;
	int n = 0;

	for (char *tok = strtok_r(line, " \t\r\n", &save); tok && n < 5;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		f[n++] = tok;
	if (n < 3 || n > 4) {
		*why = n > 4 ? "more than 4 fields (AGENT IFINDEX NAME [GROUP])"
			     : "expected AGENT IFINDEX NAME [GROUP]";
		return -EINVAL;
	}
	if (inet_pton(AF_INET, f[0], agent.bytes) == 1) {
		agent.family = 4;
	} else if (inet_pton(AF_INET6, f[0], agent.bytes) == 1) {
		agent.family = 6;
	} else {
		*why = "AGENT is not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	errno = 0;
	ifindex = strtoul(f[1], &end, 10);
	if (errno || *end || !isdigit((unsigned char)f[1][0]) || ifindex == 0 ||
	    ifindex >= SFLOW_PORT_INTERNAL_VALUE) {
		*why = "IFINDEX is not a number from 1 to 1073741822";
		return -EINVAL;
	}
	if (strlen(f[2]) >= FP_NAME_LEN || (n == 4 && strlen(f[3]) >= FP_NAME_LEN)) {
		*why = "NAME or GROUP longer than 63 bytes";
		return -EINVAL;
	}
	k = port_key(&agent, SPC_IFINDEX, ifindex);
	if (kindex_find(&t->index, &k, sizeof(k), t->ports, sizeof(*t->ports))) {
		*why = "this AGENT IFINDEX is already mapped";
		return -EINVAL;
	}
	/* A name is a path's, a metric's label and an IPFIX interfaceName: one port's. */
	for (size_t i = 0; i < t->n_points; i++)
		if (!strcmp(t->points[i].name, f[2])) {
			*why = "NAME is already another port's";
			return -EINVAL;
		}
	e = port_get(t, &k);
	if (!e) {
		*why = "too many ports";
		return -ENOSPC;
	}
	e->mapped = true;
	pt = &t->points[point_of(t, e)];
	snprintf(pt->name, sizeof(pt->name), "%s", f[2]);
	if (n == 4) {
		snprintf(pt->group, sizeof(pt->group), "%s", f[3]);
		pt->solo = false;
	}
	return 0;
}

int sflow_ports_read_map(struct sflow_ports *t, FILE *f, const char *name)
{
	char line[1024];
	int lineno = 0, bad = 0;

	while (fgets(line, sizeof(line), f)) {
		const char *why = NULL;
		char *p = line, *hash = strchr(line, '#');

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fp_err("%s:%d: line longer than %zu bytes", name, lineno, sizeof(line) - 2);
			bad++;
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
			continue;
		}
		if (hash)
			*hash = 0;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		if (map_line(t, p, &why)) {
			fp_err("%s:%d: %s", name, lineno, why);
			bad++;
		}
	}
	if (ferror(f)) {
		fp_err("%s: cannot read: %s", name, strerror(errno));
		return -EIO;
	}
	return bad ? -EINVAL : 0;
}

/* An estimate held at the most a counter holds, never wrapped to a small one. */
static void mul_sat(__u64 *x, __u64 by)
{
	if (__builtin_mul_overflow(*x, by, x))
		*x = UINT64_MAX;
}

static void add_sat(__u64 *x, __u64 more)
{
	if (__builtin_add_overflow(*x, more, x))
		*x = UINT64_MAX;
}

/* Everything the probe counts per packet, times the rate (PSN logic: unknown, zeroed). */
static void scale_counters(struct flow_counters *c, __u64 rate)
{
	mul_sat(&c->packets, rate);
	mul_sat(&c->bytes, rate);
	for (int i = 0; i < 4; i++) {
		mul_sat(&c->ecn[i], rate);
		mul_sat(&c->inner_ecn[i], rate);
	}
	mul_sat(&c->cnp, rate);
	mul_sat(&c->acks, rate);
	mul_sat(&c->naks, rate);
	mul_sat(&c->rnr_naks, rate);
	mul_sat(&c->fecn, rate);
	mul_sat(&c->becn, rate);
	c->retransmits = 0;
	c->psn_gaps = 0;
}

/* into += from, for two parts of one flow sampled at different rates. */
static void merge_counters(struct flow_record *into, const struct flow_record *from)
{
	struct flow_counters *a = &into->c;
	const struct flow_counters *b = &from->c;
	bool later = b->last_seen_ns > a->last_seen_ns;

	add_sat(&a->packets, b->packets);
	add_sat(&a->bytes, b->bytes);
	for (int i = 0; i < 4; i++) {
		add_sat(&a->ecn[i], b->ecn[i]);
		add_sat(&a->inner_ecn[i], b->inner_ecn[i]);
		a->opcodes[i] |= b->opcodes[i];
	}
	add_sat(&a->cnp, b->cnp);
	add_sat(&a->acks, b->acks);
	add_sat(&a->naks, b->naks);
	add_sat(&a->rnr_naks, b->rnr_naks);
	add_sat(&a->fecn, b->fecn);
	add_sat(&a->becn, b->becn);
	a->dscp_mask |= b->dscp_mask;
	into->cnp_dscp_mask |= from->cnp_dscp_mask;
	if (b->first_seen_ns < a->first_seen_ns)
		a->first_seen_ns = b->first_seen_ns;
	if (later) {
		a->last_seen_ns = b->last_seen_ns;
		a->vlan = b->vlan;
		a->dscp = b->dscp;
		a->pcp = b->pcp;
		a->vlan_tagged = b->vlan_tagged;
		a->last_opcode = b->last_opcode;
		a->last_nak_code = b->last_nak_code;
	}
	into->samples += from->samples;
}

/* Some point changed its rate: one flow may be in several records; they become one. */
static int merge_rates(struct sflow_ports *t, struct snapshot *s)
{
	size_t out = 0;
	int err = kindex_reset(&t->merge_index, s->n_flows);

	if (err)
		return err;
	for (size_t i = 0; i < s->n_flows; i++) {
		__u32 *slot = kindex_slot(&t->merge_index, &s->flows[i].key,
					  sizeof(s->flows[i].key), s->flows, sizeof(*s->flows));

		if (*slot) {
			merge_counters(&s->flows[*slot - 1], &s->flows[i]);
			continue;
		}
		if (out != i)
			s->flows[out] = s->flows[i];
		*slot = ++out;
	}
	s->n_flows = out;
	for (size_t i = 0; i < s->n_flows; i++) {
		struct flow_record *r = &s->flows[i];
		__u64 mean;

		/* The mean rate over the flow's samples, as the estimate used it, rounded. */
		if (!r->samples)
			continue;
		mean = r->c.packets / r->samples +
		       (r->c.packets % r->samples >= r->samples - r->samples / 2);
		r->rate = mean > UINT32_MAX ? UINT32_MAX : (__u32)mean;
	}
	return 0;
}

int sflow_ports_scale(struct sflow_ports *t, struct snapshot *s)
{
	int err = 0;

	for (size_t i = 0; i < s->n_flows; i++) {
		struct flow_record *r = &s->flows[i];
		__u32 id = r->key.ifindex, point, rate;

		if (id >= SFLOW_RATE_ID_BASE && id - SFLOW_RATE_ID_BASE < t->n_extra) {
			point = t->extra[id - SFLOW_RATE_ID_BASE].point;
			rate = t->extra[id - SFLOW_RATE_ID_BASE].rate;
		} else if (id >= 1 && id <= t->n_points) {
			point = id - 1;
			rate = t->point_rate[point];
		} else {
			continue; /* not run by this source: left as it is */
		}
		rate = rate ?: 1;
		r->samples = r->c.packets;
		r->rate = rate;
		scale_counters(&r->c, rate);
		r->key.ifindex = point + 1;
	}
	if (t->n_extra)
		err = merge_rates(t, s);
	t->saturated = 0;
	for (size_t i = 0; i < s->n_flows; i++)
		if (s->flows[i].c.packets == UINT64_MAX || s->flows[i].c.bytes == UINT64_MAX)
			t->saturated++;
	return err;
}
