/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sflow_ports.h - the sFlow source's ports and points: every (agent, port)
 * seen, the observation points its sampled flows are counted at, their
 * names and ECMP groups, the ports' own counters, and the scaling of
 * sampled flows into estimates. No BPF and no socket here.
 *
 * A sample's point is its agent and output port. An ifIndex output port
 * is a path (flows on it report "path"), named by the port map
 * (--sflow-port-map: "AGENT IFINDEX NAME [GROUP]"), else by the agent's
 * port name record (0:1005) as AGENT:NAME, else AGENT:IFINDEX; the map's
 * GROUP makes paths one ECMP group, a port it does not group is a path in
 * no group. Samples whose output is the agent itself, dropped, several
 * ports or unknown count at one point per agent and kind (AGENT:internal,
 * AGENT:dropped, AGENT:multiple, AGENT:unknown): not paths, never in a
 * group's balance.
 *
 * Scaling. The BPF program counts each sample once, as one packet of its
 * wire length. Each sample runs with flow_key.ifindex set to a "rate id":
 * its point's id while the point's sampling rate is the first one seen,
 * another id for each (point, rate) pair after. A flow is then one rate
 * only, and at collect time its counts are multiplied by that rate, its
 * key given back the point's id, and flows split by a rate change merged:
 * every sample weighted by its own rate, with no second parser and
 * nothing added to the per-packet path.
 */
#ifndef __FP_SFLOW_PORTS_H
#define __FP_SFLOW_PORTS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "probe/collect.h"
#include "source/sflow_decode.h"
#include "source/source.h"
#include "util/kindex.h"

#define SFLOW_MAX_PORTS	   16384 /* (agent, port) pairs tracked; more are counted untracked */
#define SFLOW_MAX_RATE_IDS 16384 /* extra (point, rate) pairs */
#define SFLOW_RATE_ID_BASE 0x40000000u

/* What an output port is, for a point. */
enum sflow_port_class {
	SPC_IFINDEX,
	SPC_INTERNAL,
	SPC_DROPPED,
	SPC_MULTIPLE,
	SPC_UNKNOWN,
	SPC__COUNT,
};

/* Hashed byte for byte: no holes. */
struct sflow_port_key {
	__u8 family;
	__u8 agent[16];
	__u8 class;
	__u16 pad;
	__u32 ifindex; /* SPC_IFINDEX; 0 for the other classes */
};

struct sflow_port_entry {
	struct sflow_port_key key; /* at offset 0, for kindex */
	char agent_name[FP_NAME_LEN - 16];
	char port_name[FP_NAME_LEN]; /* from a 0:1005 record, or "" */
	bool mapped;		     /* named by the port map */
	int point;		     /* index into points, -1: counters only */
	__u32 last_uptime_ms;	     /* of the last counter sample */
	struct port_counters counters;
};

struct sflow_rate_id {
	__u32 point; /* index into points */
	__u32 rate;
};

struct sflow_ports {
	struct sflow_port_entry *ports; /* SFLOW_MAX_PORTS, allocated once: pointers stay valid */
	size_t n_ports;
	struct kindex index;
	struct obs_point *points; /* points[i].id == i + 1 */
	__u32 *point_rate;	  /* the first sampling rate seen at point i */
	int *point_port;	  /* its port entry */
	size_t n_points;
	struct sflow_rate_id *extra; /* rate ids SFLOW_RATE_ID_BASE + i */
	size_t n_extra;
	struct kindex extra_index;
	__u64 untracked;	   /* samples or counters of ports beyond SFLOW_MAX_PORTS */
	struct kindex merge_index; /* sflow_ports_scale's, reused */
	size_t saturated;	   /* flows the last scale held at 2^64 - 1 */
};

int sflow_ports_init(struct sflow_ports *t);
void sflow_ports_free(struct sflow_ports *t);

/*
 * Read a port map (lines "AGENT IFINDEX NAME [GROUP]", '#' comments, blank
 * lines). Every bad line is reported as "NAME:LINE: why"; -EINVAL if any.
 * Mapped ports are points from the start, so an idle uplink is in its
 * group's balance before it carries anything.
 */
int sflow_ports_read_map(struct sflow_ports *t, FILE *f, const char *name);

/* The rate id a sample at this agent and output port runs with; 0 when out of room. */
__u32 sflow_ports_rate_id(struct sflow_ports *t, const struct sflow_addr *agent,
			  const struct sflow_port *output, __u32 rate);

/* A counter sample's generic interface counters (0:1), at the agent's uptime. */
void sflow_ports_counters(struct sflow_ports *t, const struct sflow_addr *agent, __u32 uptime_ms,
			  const struct sflow_if_counters *c);
/* A port name record (0:1005) for the agent's port ifindex. */
void sflow_ports_port_name(struct sflow_ports *t, const struct sflow_addr *agent, __u32 ifindex,
			   const char *name, size_t len);

/*
 * Turn a snapshot of the probe's flows (keyed by rate id, one count per
 * sample) into estimates keyed by point: counts times the rate, samples
 * and rate kept beside them, flows of one point at several rates merged.
 * PSN gaps and retransmits are zeroed: sampled input cannot know them.
 * Estimates saturate at 2^64 - 1 rather than wrap (a rate near 2^32 gets
 * there in 2^16 samples of 64 KB); t->saturated says how many flows did.
 */
int sflow_ports_scale(struct sflow_ports *t, struct snapshot *s);

#endif /* __FP_SFLOW_PORTS_H */
