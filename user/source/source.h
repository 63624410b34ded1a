/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source.h - where a session's data comes from. A live probe on
 * interfaces, a capture file, sFlow datagrams: each is one struct source
 * behind the same operations (start, advance, collect, describe, stop),
 * the way a driver fills struct net_device_ops or libpcap hides a savefile
 * and a device behind one pcap_t. A front end holds a session, never a
 * source of a given kind; adding an input adds one file here.
 */
#ifndef __FP_SOURCE_H
#define __FP_SOURCE_H

#include <stdbool.h>
#include <linux/types.h>

#include "fabprobe.h"

#define FP_NAME_LEN	  64
#define SOURCE_MAX_POINTS 64

struct nic_opts;
struct nic_state;
struct probe;
struct snapshot;
struct source;

/*
 * A switch port's own counters (sFlow counter samples): its real load,
 * discards and errors beside what sampled packets estimate. Rates are over
 * the last two counter samples, by the agent's uptime.
 */
struct port_counters {
	__u64 counter_samples; /* counter samples seen for the port */
	__u64 speed_bps;       /* ifSpeed */
	__u32 status;	       /* ifAdminStatus bit 0, ifOperStatus bit 1 */
	__u64 in_octets, out_octets;
	__u64 in_discards, out_discards, in_errors,
	    out_errors; /* cumulative (32-bit on the wire) */
	bool have_rate; /* two samples seen */
	double in_bps, out_bps;
	double out_discards_per_s, out_errors_per_s;
};

/*
 * Where flows are observed: an interface, one capture of an uplink, an
 * sFlow agent's output port. Flows carry the point's id in flow_key.ifindex.
 */
struct obs_point {
	__u32 id;
	char name[FP_NAME_LEN];
	bool uplink;	    /* a path: flows on it report "path" */
	bool interface;	    /* an interface of this host: flows report "interface" */
	__u32 port_ifindex; /* an sFlow point's output port: the switch's ifIndex, else 0 */
	double speed_bps;   /* link speed, 0 when unknown */
	/*
	 * The ECMP group of a path: paths with the same group are balanced
	 * and collide together. "" is the source's one unnamed group (live
	 * --uplinks, replay --path); solo: a path in no group (an sFlow port
	 * the port map does not group).
	 */
	char group[FP_NAME_LEN];
	bool solo;
	const struct port_counters *counters; /* the port's own counters, or NULL */
};

/* What a source tells the session and the front ends about itself. */
struct source_desc {
	const char *mode; /* the JSON report's "mode": "live" or "replay" */
	char what[256];	  /* what is watched: "eth2* eth3*" (* uplink), or the capture files */
	char how[64];	  /* how: "xdp ingress + tc egress", "capture at 1x" */
	const struct obs_point *points;
	int n_points;
	bool every_packet; /* sees every packet: PSN gaps and retransmits apply */
	bool finite;	   /* a recording: it ends */
	bool ended;	   /* ... and all of it has been read */
	/*
	 * A recording cut short or corrupt, or a live source left with no
	 * interface (event says which): the input is not whole (exit 3).
	 */
	bool damaged;
	double clock_s;		/* the source's time since it started, seconds */
	double span_s;		/* a recording's time span when known, else 0 */
	__u64 frames;		/* frames (or datagrams) a recording has read so far */
	char event[512];	/* the latest thing an operator should know, or "" */
	unsigned int event_seq; /* changes with each new event */
	/*
	 * How far into its files a recording has read, of their size (a
	 * progress line's percent). bytes_total is 0 when a size is not
	 * known: a FIFO, a pipe, sFlow.
	 */
	__u64 bytes_read, bytes_total;
	/*
	 * A recording read as fast as it runs: the stretch of its time with
	 * no frame ahead of the clock, from the latest frame read to the next
	 * one, so that a front end can pass it in one advance rather than one
	 * refresh at a time (session_silence_s()). Both 0 when there is none: no
	 * frame left, a frame due now, or a source that keeps a pace.
	 */
	double silence_from_s, silence_to_s;
	/*
	 * The NIC counters read beside this source (source/nic.h), as of the
	 * last refresh, or NULL: the session sets it after describe(), so
	 * renderers given only a description (metrics) see them too.
	 */
	const struct nic_state *nic;
};

struct source_ops {
	/* Make the input ready (load, attach, open); errors reported, negative errno. */
	int (*start)(struct source *s);
	/*
	 * Let seconds of the source's own time pass: a live probe waits (and
	 * drains its sample ring), a recording runs the frames that fall into
	 * them, at its pace. Returns early when told to stop. 0, or 1 once a
	 * finite source has ended, or a negative errno.
	 */
	int (*advance)(struct source *s, double seconds);
	/* What the input has produced so far, into snap (buffers reused). */
	int (*collect)(struct source *s, struct snapshot *snap);
	/*
	 * The caller stopped advancing for a while (the dashboard paused): a
	 * recording played at a pace takes it up again from where it stands,
	 * not from the wall clock. NULL: nothing to do.
	 */
	void (*resume)(struct source *s);
	void (*describe)(const struct source *s, struct source_desc *d);
	/* Undo start and free the source. */
	void (*destroy)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	struct probe *probe; /* the BPF probe the input runs through, after start */
	/*
	 * NIC counters the session reads beside this input (--nic,
	 * --nic-root), or NULL. Set by whoever builds the source; must outlive
	 * session_start(), which copies it.
	 */
	const struct nic_opts *nic;
};

/* The point with this id, or NULL. */
const struct obs_point *source_point(const struct source_desc *d, __u32 id);
/*
 * A name for a point id no point has: "capture" for a recording's frames
 * not given a path name (id 0), else NULL.
 */
const char *source_unnamed_point(const struct source_desc *d, __u32 id);
/* A point's name, the unnamed one's, else "ifindexID" written into buf. */
const char *source_point_name(const struct source_desc *d, __u32 id, char *buf, size_t len);

/* "; * uplink" where what marks the uplinks with '*' (live, --uplinks), else "". */
const char *source_uplink_note(const struct source_desc *d);

/*
 * How far a recording's read has come, elapsed_s into it, for a progress
 * line redrawn in place, in at most width columns (its name shortened to
 * fit: a line that wraps is not redrawn, but repeated):
 * "a.pcap: 42% of 692 MB, 834112 frames in 3s (310k/s), about 4s left";
 * without a size, from the frames on. Where even the name's first 8
 * columns do not fit beside it all, the time left goes, then the pace.
 */
const char *source_progress(const struct source_desc *d, double elapsed_s, int width, char *buf,
			    size_t len);

#endif /* __FP_SOURCE_H */
