/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - snapshots of the probe's maps: global counters and every
 * flow, per-CPU values summed. Front ends read snapshots, never maps.
 */
#ifndef __FP_COLLECT_H
#define __FP_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>

#include "fabprobe.h"
#include "util/kindex.h"

struct probe;

/*
 * Totals userspace keeps beside the probe's global counters (enum
 * fp_counter): collect fills the flow-table ones, sources their own.
 * Each is described once in core/counters.c.
 */
enum snap_counter {
	SNAP_CNT_FLOWS = FP_CNT_MAX, /* flows in the table now */
	SNAP_CNT_FLOW_CAPACITY,	     /* the tables' max_entries, IPv4 + IPv6 */
	SNAP_CNT_EVICTIONS,	     /* inserts minus flows present, never going back */
	SNAP_CNT_SKIPPED,	     /* frames of a recording the kernel would not run */
	/* sFlow source (source/sflow.c) */
	SNAP_CNT_SFLOW_DATAGRAMS,	  /* datagrams decoded */
	SNAP_CNT_SFLOW_SAMPLES,		  /* samples in them, every kind */
	SNAP_CNT_SFLOW_LOST,		  /* datagrams missing from agents' sequence numbers */
	SNAP_CNT_SFLOW_SEQ_RESETS,	  /* sequence restarts and jumps: not loss */
	SNAP_CNT_SFLOW_MALFORMED,	  /* datagrams rejected by the decoder */
	SNAP_CNT_SFLOW_MALFORMED_SAMPLES, /* flow samples refused: rate 0, impossible length */
	SNAP_CNT_SFLOW_SOCKET_DROPS,	  /* datagrams the kernel dropped at the socket */
	SNAP_CNT_SFLOW_OTHER_PROTO,	  /* of SKIPPED: headers of another header protocol */
	SNAP_CNT_SFLOW_UNTRACKED,	  /* of SKIPPED: headers of ports past those tracked */
	SNAP_CNT_MAX,
};

struct flow_record {
	struct flow_key key;
	struct flow_counters c; /* summed over CPUs */
	/*
	 * Sampled input (sFlow): c holds estimates (each sample times its
	 * sampling rate); samples is how many packets were really seen, rate
	 * the sampling rate (the mean when it changed). 0: every packet seen.
	 */
	__u64 samples;
	__u32 rate;
	/* The DSCPs of the flow's CNPs (c.dscp_mask: of its other packets); see fp_flows' value. */
	__u64 cnp_dscp_mask;
	/*
	 * Where the flow sits in the table, as collect read it: its slot, or
	 * past the slots a number collect keeps for it while it stays in a
	 * hash table (struct table_rid). A flow keeps it from read to read
	 * while it stays where it is, so the analysis finds its previous
	 * refresh there, whatever the order by bytes. Unique and below
	 * snapshot.n_rids; unset (0) when n_rids is.
	 */
	__u32 rid;
};

/* A hash table's flow's rid past the slots: the key that held it at the last read it was given. */
struct table_rid {
	struct flow_key key; /* at offset 0, for struct kindex */
	__u32 read;	     /* snapshot.reads when it was last given */
};

struct table_read;

/* Counters as flow_counters_read() gives them, and the CNPs' DSCPs (flow_record's). */
struct slot_sum {
	__u64 cnp_dscp_mask;
	struct flow_counters c;
};

/* An fp_flows4 entry of a slot's flow, as this read found it. */
struct slot_entry {
	__u32 slot;
	struct slot_sum e;
};

/*
 * A slot's flow's fp_flows4 entry at the last read, and the entries of it
 * evicted since the slot was claimed, summed: the flow's counts never step
 * back while its slot holds it (collect.c, carry_entries()).
 */
struct slot_carry {
	__u32 slot;
	__u64 id;	       /* the slot's tag's fp_slot_id() */
	__u64 first_seen_ns;   /* the slot's own: its claim's */
	struct slot_sum entry; /* packets 0: none */
	struct slot_sum gone;
};

struct snapshot {
	__u64 totals[SNAP_CNT_MAX];
	struct flow_record *flows;
	size_t n_flows;
	size_t cap;
	/* Every record's rid is below this; 0: the records carry none (made by hand). */
	__u32 n_rids;
	/*
	 * The records' other buffer: snapshot_sort_by_bytes() gathers into it,
	 * then swaps the two when collect allocated flows (own_flows), else
	 * copies the order back into the caller's array.
	 */
	struct flow_record *spare;
	size_t spare_cap;
	bool own_flows;
	void *sort_keys; /* the sort's keys, two per record */
	size_t sort_keys_cap;
	__u32 flow_capacity;   /* the flow tables' max_entries, IPv4 and IPv6 */
	__u32 flow_capacity6;  /* of which the IPv6 table's (fp_flows6) */
	__u64 taken_ns;	       /* when taken, in the flows' *_seen_ns clock */
	__s64 clock_offset_ns; /* add to a flow's *_seen_ns for UNIX time */
	/*
	 * Table entries summed into another entry of the same flow: two CPUs
	 * that raced a new flow's first packets count it in two places.
	 */
	size_t merged;
	/*
	 * Collect read no flow of mirror copies: the analysis has no mirror
	 * sessions to look for among a million records. Made by hand: false,
	 * and it looks.
	 */
	bool mirror_unseen;
	/*
	 * Each slot's record in the last read (collect.c), and the tag it had
	 * then; slot_rec_n of each.
	 */
	__u32 *slot_rec;
	__u64 *slot_tag;
	size_t slot_rec_n;
	/*
	 * The hash tables' rids (table_rids.c): by rid past the
	 * slots, the key it was given to; an index of them by key, which
	 * keeps entries of keys gone since (found by no key: each lookup
	 * compares the key at the rid) until it is made again.
	 */
	struct table_rid *trid;
	size_t trid_n, trid_cap;
	struct kindex trid_index;
	size_t trid_index_n; /* entries, those left behind included */
	bool trid_index_ok;
	__u32 reads;
	/*
	 * Buffers the kernel fills, kept between reads: the hash tables'
	 * entries (collect.c, fp_flows4's and fp_flows6's) and the totals
	 * (their size grows with CPUs).
	 */
	struct table_read *tables;
	void *totals_values;
	/*
	 * Slots' flows with an fp_flows4 entry too (collect.c, carry_entries()):
	 * this read's entries, then what each slot's entries have summed, by
	 * slot, kept from read to read.
	 */
	struct slot_entry *entries;
	size_t n_entries, cap_entries;
	struct slot_carry *carry;
	size_t n_carry;
};

/* Read every map into s (its buffers are reused between calls). */
int collect_snapshot(struct probe *p, struct snapshot *s);
/*
 * Read only the flow table into s, one way: bpf_map_lookup_batch (batch) or
 * key by key, with no fallback. For bench/, which times the two, and the
 * tests, which check one against the other.
 */
int collect_flows_mode(struct probe *p, struct snapshot *s, bool batch);
void snapshot_free(struct snapshot *s);

/* Set the flow-table totals from n_flows and the probe's inserts (collect does it). */
void snapshot_flow_totals(struct snapshot *s);

/* Flow-table evictions so far: inserts minus the flows still present. */
static inline __u64 snapshot_evictions(const struct snapshot *s)
{
	return s->totals[SNAP_CNT_EVICTIONS];
}

/* Every DSCP a flow's packets used, CNPs' and others'. */
static inline __u64 flow_dscps(const struct flow_record *r)
{
	return r->c.dscp_mask | r->cnp_dscp_mask;
}

/*
 * A flow's counters as the map holds them, into a record: packets are the
 * sum of the ECN codepoints (the one value every CPU shares; see core.h).
 */
void flow_counters_read(struct flow_counters *out, const struct flow_counters *map);
void totals_sum(__u64 out[FP_CNT_MAX], const void *percpu, int ncpus, size_t stride);

/*
 * Sum from, another entry of into's flow, into into (both as
 * flow_counters_read gives them). into is the flow's slot's (or a sum of
 * entries): its PSN state stays.
 */
void flow_counters_merge(struct flow_counters *into, const struct flow_counters *from);

/* A hash table's record before table_rids() gives it its rid. */
#define SNAP_NO_RID UINT32_MAX

/*
 * The hash tables' records, from first on, their rids past the slots
 * (base): each flow the one it had at the last read, found by key, and the
 * flows new to the tables the rids no flow holds now, lowest first, then
 * new ones. A table's walk is no order to keep them by: a flow that comes
 * or goes moves every flow after it.
 */
int table_rids(struct snapshot *s, size_t first, __u32 base);

/* The flows' own time span, their first packet to their last, in s; 0 with none. */
double snapshot_span_s(const struct snapshot *s);

/* Sort flows by bytes, largest first. */
void snapshot_sort_by_bytes(struct snapshot *s);

struct radix_ent;
/*
 * The order snapshot_sort_by_bytes() would put the flows in, the records
 * left where they are: entry k's idx is the place of the k-th flow (held
 * in s's scratch until the next sort or order). NULL: out of memory.
 */
const struct radix_ent *snapshot_order_by_bytes(struct snapshot *s);

/*
 * Record x (at place i) comes before record y (at place j) in byte order:
 * more bytes, ties by key (snapshot_sort_by_bytes()'s order), then by place.
 */
static inline bool flow_record_before(const struct flow_record *x, size_t i,
				      const struct flow_record *y, size_t j)
{
	int c;

	if (x->c.bytes != y->c.bytes)
		return x->c.bytes > y->c.bytes;
	c = memcmp(&x->key, &y->key, sizeof(x->key));
	return c ? c < 0 : i < j;
}

#endif /* __FP_COLLECT_H */
