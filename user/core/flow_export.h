/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow_export.h - per-flow delta bookkeeping for flow records (IPFIX):
 * what each flow did since its previous record, and when a record is due.
 *
 * Every refresh hands the new snapshot to flow_export_observe. Each flow
 * key keeps a baseline, the cumulative counters of the last snapshot that
 * had it, and the counts seen since its last record (pending). A flow the
 * table evicted and took back between two snapshots is a new incarnation
 * (its first_seen_ns changed, or its packets went down): its counters start
 * from zero again and are added to what was pending, never subtracted.
 *
 * A record is due (an expiry, as in a flow meter's cache, RFC 5470
 * section 5.1) when the flow has been silent for idle_ns or has left the
 * table (flowEndReason 1, idle timeout), when its pending record has been
 * open for active_ns (2, active timeout), or when the export stops (4,
 * forced end: flow_export_force). flow_export_emit hands due records to a
 * callback; one it refuses (-ENOBUFS: no room now) keeps its counts
 * pending, so they go out in a later record: late, never lost or counted
 * twice. Nothing here knows the wire format.
 *
 * A record is of one traffic class. The reverse direction of a queue pair
 * is one flow carrying ACKs in the data class and CNPs in the CNP class:
 * when a flow's pending counts hold CNPs in another class than its other
 * packets, it is due as two records, its other packets' then its CNPs'
 * (flow_delta_by_class(), core/counters.h), and every record count here
 * (due, taken, dropped) counts both.
 */
#ifndef __FP_FLOW_EXPORT_H
#define __FP_FLOW_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "probe/collect.h"
#include "util/kindex.h"

/* flowEndReason (IANA element 136) of a record. */
enum flow_end {
	FLOW_END_IDLE = 1,   /* silent for idle_ns, or left the flow table */
	FLOW_END_ACTIVE = 2, /* open for active_ns */
	FLOW_END_FORCED = 4, /* the export stopped, or the recording ended */
};

/* The counts a record carries as deltas (outer IP ECN, as in docs/json.md "ecn"). */
enum flow_export_count {
	FX_PACKETS,
	FX_BYTES,
	FX_NOT_ECT,
	FX_ECT0,
	FX_ECT1,
	FX_CE,
	FX_CNP,
	FX_ACKS,
	FX_NAKS,
	FX_RNR_NAKS,
	FX_RETRANSMITS,
	FX_PSN_GAPS,
	/*
	 * Sampled input (sFlow): the packets really seen (flow_record.samples),
	 * of which the counts above are estimates; 0 for every-packet input.
	 */
	FX_SAMPLES,
	FX_COUNT_MAX,
};

struct flow_export_counts {
	__u64 v[FX_COUNT_MAX];
};

/* One record, as handed to the emitter; valid during the call only. */
struct flow_export_record {
	const struct flow_key *key;
	/*
	 * The flow's cumulative counters as of the last snapshot that had it:
	 * its attributes (opcodes, and what later sources attach to a flow, a
	 * sampling rate or a mirror session) are read from here.
	 */
	const struct flow_counters *last;
	/*
	 * Since the flow's previous record, of this record's class: all of
	 * them, or, when the flow's CNPs rode in a class of their own, its
	 * other packets' (with its ACKs, NAKs, retransmits and PSN gaps) or
	 * its CNPs' (flow_delta_by_class()).
	 */
	struct flow_export_counts delta;
	__u64 start_ns; /* first packet counted here (flows' clock), the flow's */
	__u64 end_ns;	/* last packet counted here, the flow's */
	enum flow_end reason;
	__u8 dscp; /* the class of the packets counted here (flow_class_dscp()) */
};

/*
 * Hand one record on: 0 when taken, or a negative errno (-ENOBUFS: no room
 * now) to keep it for a later call.
 */
typedef int (*flow_export_emit_fn)(void *ctx, const struct flow_export_record *r);

/* Records are counted by class: a flow due with its CNPs apart counts two. */
struct flow_export_stats {
	__u64 flows;	       /* flow keys with a baseline now */
	__u64 due;	       /* records due and not yet taken */
	__u64 records;	       /* records taken by the emitter */
	__u64 refused;	       /* times the emitter had no room (the counts went out later) */
	__u64 incarnations;    /* flows evicted and back between two snapshots */
	__u64 left_table;      /* flows that left the flow table */
	__u64 dropped;	       /* due records given up: too many flows waiting (max_waiting) */
	__u64 dropped_packets; /* ... and the packets they carried */
};

struct fx_flow;

struct flow_export {
	__u64 active_ns; /* a pending record is due after this long open */
	__u64 idle_ns;	 /* ... or after this long without a packet */
	/* Flows that left the table and still wait for their record, at most. */
	size_t max_waiting;
	struct fx_flow *flows;
	size_t n_flows, cap_flows;
	size_t n_done;	     /* of them, recorded and gone: dropped at the next observe */
	struct kindex index; /* over flows[], by key */
	bool index_ok;	     /* it holds flows[] where they are (compact moved none) */
	size_t cursor;	     /* where emit resumes: no flow waits behind later ones */
	__u64 observes;
	struct flow_export_stats st;
};

/*
 * Active and idle timeouts in ns. max_waiting bounds the flows kept after
 * they left the table while their records wait for room (0: 2^20).
 */
void flow_export_init(struct flow_export *fx, __u64 active_ns, __u64 idle_ns, size_t max_waiting);
/*
 * Take a new snapshot (its taken_ns is now, in the flows' clock): update
 * every flow's pending counts and decide which records are due. 0 or
 * -ENOMEM (then the snapshot was not taken: the next one catches up).
 */
int flow_export_observe(struct flow_export *fx, const struct snapshot *s);
/* Every flow with pending counts is due now, as a forced end (if not due already). */
void flow_export_force(struct flow_export *fx);
/*
 * Hand due records to emit, resuming where the previous call stopped,
 * until none is due or emit refuses one. Returns the records taken. A
 * flow's two records go one after the other; the second refused, the
 * flow keeps its CNPs' counts pending for a later record.
 */
size_t flow_export_emit(struct flow_export *fx, flow_export_emit_fn emit, void *ctx);
/* Records due and not yet taken. */
static inline size_t flow_export_due(const struct flow_export *fx)
{
	return fx->st.due;
}
/*
 * The sampling behind a record of sampled input: its samples, and the mean
 * rate over it (its packets / samples, rounded), which is the sampling
 * rate itself when that did not change within the record. Packets counted
 * without samples (every-packet input) were each seen: rate 1. Never a
 * rate of 0 beside packets.
 */
void flow_export_sampling(const struct flow_export_record *r, __u32 *rate, __u64 *samples);
void flow_export_get_stats(const struct flow_export *fx, struct flow_export_stats *st);
void flow_export_free(struct flow_export *fx);

#endif /* __FP_FLOW_EXPORT_H */
