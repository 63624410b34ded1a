/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - the loader: open the skeleton, set the load-time options, load,
 * attach, destroy. Everything else reads the maps through collect.h.
 */
#ifndef __FP_PROBE_H
#define __FP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "probe/clock.h"

struct fabprobe_bpf;
struct ring_buffer;

/* Which hooks to attach on an interface (--hook). */
enum probe_hooks {
	PROBE_HOOK_XDP = 1,    /* XDP, ingress */
	PROBE_HOOK_TC_IN = 2,  /* tcx ingress */
	PROBE_HOOK_TC_OUT = 4, /* tcx egress */
	PROBE_HOOK_REPLAY = 8, /* replay's entry point (fp_replay): frames alone and in batches */
};

struct probe_opts {
	__u16 roce_port;
	__u16 vxlan_port;
	__u32 flow_entries;	  /* IPv4 flow table size (fp_flows4), entries */
	__u32 flow6_entries;	  /* fp_flows6's; 0: probe_flow6_entries() picks */
	unsigned int hooks;	  /* programs to load (probe_hooks); the verifier skips the rest */
	__u8 sample_per_flow;	  /* packets sampled per new flow; 0 = off */
	__u32 sample_max_per_cpu; /* and per CPU in all */
	bool replay;		  /* take clock and path from replay_frame() */
	bool replay_egress;	  /* and count each frame as leaving its path (sFlow) */
	bool mirror_drop;	  /* --mirror-port-drop: XDP drops mirror copies after counting */
	bool precise_clock;	  /* --precise-clock: live, bpf_ktime_get_ns(), not the tick */
	__u64 slot_tag_mask;	  /* tests only: bits of a flow's slot tag kept; 0: all */
};

#define PROBE_OPTS_DEFAULT                                                                         \
	{                                                                                          \
		.roce_port = FP_ROCE_PORT_DEFAULT, .vxlan_port = FP_VXLAN_PORT_DEFAULT,            \
		.flow_entries = FP_FLOWS_DEFAULT,                                                  \
		.hooks = PROBE_HOOK_XDP | PROBE_HOOK_TC_IN | PROBE_HOOK_TC_OUT,                    \
	}

enum probe_xdp_mode {
	PROBE_XDP_AUTO, /* native where the driver has it, else generic */
	PROBE_XDP_NATIVE,
	PROBE_XDP_GENERIC,
};

#define PROBE_MAX_LINKS 192

/*
 * Attachments are BPF links held by this process: XDP links and tcx links
 * vanish when it exits, even on SIGKILL, so nothing is ever left behind.
 */
struct probe_link {
	int fd;
	__u32 ifindex;
	enum probe_hooks hook;
	bool xdp_generic;
};

struct probe {
	struct fabprobe_bpf *skel;
	int ncpus;
	__u32 flow_entries;  /* --flows: IPv4 flows, in the slot table and fp_flows4 */
	__u32 flow6_entries; /* fp_flows6's max_entries */
	/* The slot table (fabprobe.h), mapped: slot_buckets of them, none when 0. */
	struct fp_slot_bucket *slots;
	__u32 slot_buckets;
	__u64 slot_tag_mask;
	/* collect.c, freeing slots, as of the last read: */
	struct {
		__u64 lru_newest_first; /* fp_flows4's newest first_seen_ns */
		__u64 lru_evicted;	/* the evictions not of a slot freed */
		__u64 slots_freed;	/* slots freed so far */
	} reclaim;
	bool slots_stuck; /* no slot can be freed: no grace period to wait for (membarrier) */
	/*
	 * No frame will run after the next read (session_last_refresh(): a
	 * recording read to its end, or a front end's last refresh). No new flow
	 * can come, so a read frees no slot for one, and the flows the slots
	 * hold stay. Once set, it stays.
	 */
	bool input_ended;
	bool replay;
	bool mirror_drop;	  /* XDP returns XDP_DROP for mirror copies */
	__u32 batch_bytes;	  /* replay's batches (probe_batch_*); 0: one frame a run */
	struct probe_clock clock; /* live: the tick the programs' clock counts; replay: zero */
	struct probe_link links[PROBE_MAX_LINKS];
	int n_links;
	struct ring_buffer *samples_rb; /* probe/samples.h, when sampling */
};

/* Open, configure and load; errors are reported on stderr. */
int probe_load(struct probe *p, const struct probe_opts *opts);
/* Every counter to zero and every flow out, as at load (tests, fuzzing). 0 or -errno. */
int probe_clear(struct probe *p);
/* The IPv6 table's size: --flows6, else a quarter of --flows, at least FP_FLOWS6_MIN. */
__u32 probe_flow6_entries(const struct probe_opts *opts);
void probe_destroy(struct probe *p);

/*
 * Attach the hooks to one interface, up or down. Refuses an interface that
 * is missing, or already runs another XDP program (never takes one over).
 */
int probe_attach(struct probe *p, const char *ifname, unsigned int hooks,
		 enum probe_xdp_mode xdp_mode);
/* Close the links to ifindex: its device left (deleted, moved, renamed). */
void probe_detach(struct probe *p, __u32 ifindex);

/*
 * The XDP program already attached to an interface: its id (0: none) and
 * its name into name. Another fabprobe's is called "fp_xdp" (probe_is_ours).
 */
__u32 probe_xdp_owner(const char *ifname, char *name, size_t len);
bool probe_is_ours(const char *prog_name);

/* 1 if the interface is up, 0 if down, negative errno if it cannot be asked. */
int probe_iface_up(const char *ifname);

/* The longest frame replay runs (the kernel lays out no longer one). */
#define PROBE_FRAME_MAX 65536

/*
 * Run one captured frame through the XDP program (BPF_PROG_TEST_RUN).
 * caplen bytes are present; wire_len is the frame's length on the wire.
 * The clock, path and length travel with the frame as XDP metadata, so
 * threads may run frames at once (the kernel runs each on the caller's
 * CPU with preemption off, as the per-CPU maps need). Returns 0, or a
 * negative errno: -EINVAL when the kernel refused the frame (longer than
 * PROBE_FRAME_MAX, say), -EPROTO when the program did not pass it
 * (dropping is allowed only with mirror_drop).
 */
int probe_run_frame(const struct probe *p, const void *frame, __u32 caplen, __u32 wire_len,
		    __u64 ts_ns, __u32 path_id);

/*
 * For replay threads (probe/runpool.c). probe_run_fd: a file of the thread's
 * own for the program probe_run_frame() runs, fp_replay when loaded, else
 * fp_xdp (close it): threads that share one file bounce its
 * reference count between CPUs on every BPF_PROG_TEST_RUN (without
 * CAP_SYS_ADMIN, a duplicate of the shared one). probe_run_prepared:
 * probe_run_frame() of buf, a struct fp_replay_meta and the frame after it,
 * len bytes in all, through fd.
 */
int probe_run_fd(const struct probe *p);
int probe_run_prepared(const struct probe *p, int fd, const void *buf, __u32 len);

/*
 * Replay in batches: many frames in one BPF_PROG_TEST_RUN of fp_replay
 * (PROBE_HOOK_REPLAY; fabprobe.h: struct fp_batch_head), each counted
 * exactly as probe_run_frame() counts it alone. At load, fp_replay finds
 * the largest batch the kernel lays out in one piece (p->batch_bytes, at
 * most PROBE_BATCH_BYTES; 0 when it lays out none or fp_replay is not
 * loaded, and then every frame runs alone).
 */
#define PROBE_BATCH_BYTES 3072

struct probe_batch {
	__u32 cap; /* bytes this batch may use: the probe's batch_bytes */
	__u32 pos; /* the records start here; they fill buf from cap down */
	__u32 frames;
	__u8 *buf; /* cap bytes: own, or the caller's (probe_batch_place()) */
	__u8 own[PROBE_BATCH_BYTES] __attribute__((aligned(8)));
};

/* The bytes of a batch for p: its batch_bytes, at most PROBE_BATCH_BYTES; 0: none. */
__u32 probe_batch_cap(const struct probe *p);
/* An empty batch for p in b's own bytes (none at all when p->batch_bytes is 0). */
void probe_batch_reset(struct probe_batch *b, const struct probe *p);
/*
 * An empty batch in the caller's cap bytes at buf (at most
 * probe_batch_cap()): replay's reader packs frames straight into the
 * memory it hands its workers (probe/runpool.c).
 */
void probe_batch_place(struct probe_batch *b, __u8 *buf, __u32 cap);
/*
 * Add a frame after those already in b. false when it does not fit: the
 * caller runs b and tries again; a frame that fails in an empty batch
 * (shorter than an Ethernet header, or too long) runs alone.
 */
bool probe_batch_add(struct probe_batch *b, const void *frame, __u32 caplen,
		     const struct fp_replay_meta *m);
/*
 * Close b (it holds frames) for running elsewhere: write its head, and
 * return where in b->buf its run starts; *len bytes from there are all
 * it takes (probe_batch_run_sealed()).
 */
__u32 probe_batch_seal(struct probe_batch *b, __u32 *len);
/*
 * Run b's frames through fd (probe_run_fd()) and empty it; or run a
 * sealed batch's len bytes. 0, or a negative errno: -EPROTO when the
 * program refused the batch or did not pass a frame (as
 * probe_run_frame()).
 */
int probe_batch_run(const struct probe *p, int fd, struct probe_batch *b);
int probe_batch_run_sealed(const struct probe *p, int fd, const void *run, __u32 len);

#endif /* __FP_PROBE_H */
