/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * flows.h - where a packet's flow is counted: its slot in the slot table
 * (either of its two buckets, claimed under the first one's claim word),
 * else its fp_flows4 or fp_flows6 entry, inserted when new. Part of the
 * core (core.h includes it after count_packet(), whose counting it calls,
 * and after the load-time settings it reads: slot_buckets, slot_tag_mask,
 * sample_per_flow).
 */
#ifndef __FP_FLOWS_H
#define __FP_FLOWS_H

/*
 * A flow the table does not hold yet. Its first value is counted on the
 * stack and inserted with this packet already in it, so the new entry
 * needs no lookup after the insert (a third hash of the key). The stack,
 * not a per-CPU scratch: a test run (replay) keeps its CPU but can be
 * preempted on a preemptible kernel, and another worker's insert on that
 * CPU would write over a shared scratch. Where another CPU inserted the
 * same flow first (EEXIST), or the insert fails, the packet counts in
 * whatever entry the table has. Sampling needs the entry itself (its
 * samples count), so it takes the second way only.
 */
static __always_inline struct flow_counters *insert_flow(void *map, const void *key,
							 struct fp_pkt *p, struct fp_totals *t,
							 __u64 now, struct psn_track *pt)
{
	struct flow_counters *fs, first;
	bool mine;

	if (!sample_per_flow) {
		__builtin_memset(&first, 0, sizeof(first));
		first.first_seen_ns = now;
		count_packet(p, &first, pt, now, false);
		if (!bpf_map_update_elem(map, key, &first, BPF_NOEXIST)) {
			t->cnt[FP_CNT_FLOW_NEW]++;
			return NULL;
		}
	}
	/* Another CPU may insert the same key first: EEXIST is fine. */
	mine = !bpf_map_update_elem(map, key, &zero_counters, BPF_NOEXIST);
	fs = bpf_map_lookup_elem(map, key);
	if (!fs) {
		t->cnt[FP_CNT_FLOW_INSERT_FAIL]++;
		return NULL;
	}
	if (mine) {
		t->cnt[FP_CNT_FLOW_NEW]++;
		fs->first_seen_ns = now;
	}
	count_packet(p, fs, pt, now, true);
	return fs;
}

/*
 * Count the packet in its flow's entry of map (fp_flows4 or fp_flows6, a
 * constant at each inlined call, so the verifier inlines the lookups).
 * pt: the flow's PSN state where the entry does not keep it (the slot of
 * the flow that another CPU owns), else NULL. Returns the entry for
 * sampling; NULL when sampling is off and the flow was new, or when the
 * table could not take it.
 */
static __always_inline struct flow_counters *flow_account(void *map, const void *key,
							  struct fp_pkt *p, struct fp_totals *t,
							  __u64 now, struct psn_track *pt)
{
	struct flow_counters *fs = bpf_map_lookup_elem(map, key);

	if (!fs)
		return insert_flow(map, key, p, t, now, pt);
	count_packet(p, fs, pt, now, true);
	return fs;
}

static __always_inline bool key4_equal(const struct flow_key4 *a, const struct flow_key4 *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) |
		 (x[5] ^ y[5]));
}

/*
 * Bucket bk's slot holding k4's flow (id: its tag's fp_slot_id()), or
 * NULL; *owner gets the slot's owner bits. The tag is looked for in every
 * way, past free ones (userspace frees slots), and a tag found with
 * another key (two keys, one hash) is passed over: two flows never share
 * counters. *vacant gets the first free way (left as it is if none),
 * *busy whether a claim is under way in the bucket.
 */
static __always_inline struct flow_counters *slot_find(struct fp_slot_bucket *bk,
						       const struct flow_key4 *k4, __u64 id,
						       int *vacant, bool *busy, __u64 *owner)
{
	int i;

#ifdef __clang__
#pragma unroll
#endif
	for (i = 0; i < FP_SLOT_WAYS; i++) {
		__u64 have = *(volatile __u64 *)&bk->tag[i];

		if (fp_slot_id(have) == id) {
			asm volatile("" ::: "memory");
			if (key4_equal(&bk->slot[i].key, k4)) {
				*owner = have & FP_SLOT_OWNER_MASK;
				return &bk->slot[i].c;
			}
		} else if (have == FP_SLOT_FREE && *vacant < 0) {
			*vacant = i;
		} else if (have == FP_SLOT_BUSY) {
			*busy = true;
		}
	}
	return NULL;
}

/*
 * A slot for a new flow (id: its tag's fp_slot_id()), whose first bucket
 * is bk1 (bk2 its second, NULL when they are one): its own if another CPU
 * published one meanwhile, else the first free one of bk1, then of bk2,
 * claimed with owner bits me, or NULL (the flow takes fp_flows4). *owner
 * gets the slot's owner bits. The scans start after reading bk1's claim
 * word, and a claim is made only from scans that saw none under way in
 * either bucket: the slot is marked busy (only one CPU can take it from
 * free), then the claim word taken from the value read (else the slot is
 * given back), then the key and first time written and the tag (with its
 * owner) published last. On the CPUs BPF
 * runs on here (x86, where stores are seen in order and the locked
 * compare-and-swap orders all), a program that reads the tag reads the key
 * after it; and of two claims for one flow, the later one's scans either
 * began before the earlier one took the word (its swap fails) or saw the
 * earlier one's slot, busy or published.
 */
static __always_inline struct flow_counters *
slot_claim(struct fp_slot_bucket *bk1, struct fp_slot_bucket *bk2, const struct flow_key4 *k4,
	   __u64 id, __u64 me, struct fp_totals *t, __u64 now, __u64 *owner)
{
	__u64 seen = *(volatile __u64 *)&bk1->claims;
	struct fp_slot_bucket *bk = bk1;
	struct flow_counters *fs;
	int i = -1, i2 = -1;
	bool busy = false;
	struct flow_slot *s;

	asm volatile("" ::: "memory");
	fs = slot_find(bk1, k4, id, &i, &busy, owner);
	if (!fs && bk2)
		fs = slot_find(bk2, k4, id, &i2, &busy, owner);
	if (fs || busy)
		return fs;
	if (i < 0) {
		i = i2;
		bk = bk2;
	}
	if (i < 0 || !bk)
		return NULL;
	i &= FP_SLOT_WAYS - 1;
	if (__sync_val_compare_and_swap(&bk->tag[i], FP_SLOT_FREE, FP_SLOT_BUSY) != FP_SLOT_FREE)
		return NULL;
	if (__sync_val_compare_and_swap(&bk1->claims, seen, seen + 1) != seen) {
		*(volatile __u64 *)&bk->tag[i] = FP_SLOT_FREE;
		return NULL;
	}
	s = &bk->slot[i];
	__builtin_memcpy(&s->key, k4, sizeof(*k4));
	s->c.first_seen_ns = now;
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&bk->tag[i] = id | me;
	t->cnt[FP_CNT_FLOW_NEW]++;
	*owner = me;
	return &s->c;
}

/*
 * An IPv4 flow: its slot in either of its buckets if it has one, else its
 * fp_flows4 entry, else a slot claimed for it, else a new fp_flows4 entry
 * (without a slot table, slot_buckets 0, the verifier prunes all but
 * fp_flows4). A slot another CPU owns is not this packet's to add to: it
 * counts in the flow's fp_flows4 entry, while its PSNs are tracked in the
 * slot still (plain stores, as every CPU's are in a shared entry), so that
 * a flow whose packets move between CPUs has one PSN tracker. A flow
 * counted in fp_flows4 and in a slot (another CPU owns the slot, or
 * claimed it while this one counted in fp_flows4) is summed by userspace
 * (collect.c). The second bucket is scanned only when the first does not
 * hold the flow: most flows' packets touch one line of tags.
 */
static __always_inline struct flow_counters *
slot_account(const struct flow_key4 *k4, struct fp_pkt *p, struct fp_totals *t, __u64 now)
{
	__u64 tag = fp_slot_tag(fp_key4_hash(k4), slot_tag_mask), id = fp_slot_id(tag);
	__u32 b = fp_slot_bucket_of(tag, slot_buckets), b2;
	struct fp_slot_bucket *bk, *bk2 = NULL;
	struct flow_counters *fs = NULL;
	__u64 owner = 0, me = 0;
	bool busy = false;
	int vacant = -1;

	bk = slot_buckets ? bpf_map_lookup_elem(&fp_slots, &b) : NULL;
	if (!bk)
		return flow_account(&fp_flows4, k4, p, t, now, NULL);
	fs = slot_find(bk, k4, id, &vacant, &busy, &owner);
	if (!fs) {
		b2 = fp_slot_bucket2_of(tag, slot_buckets);
		if (b2 != b)
			bk2 = bpf_map_lookup_elem(&fp_slots, &b2);
		if (bk2)
			fs = slot_find(bk2, k4, id, &vacant, &busy, &owner);
	}
	if (!replay_mode)
		me = fp_slot_owner_of(bpf_get_smp_processor_id());
	if (!fs) {
		fs = bpf_map_lookup_elem(&fp_flows4, k4);
		/* No free slot seen: none looked for again (a full table's inserts). */
		if (!fs && vacant >= 0 && !busy)
			fs = slot_claim(bk, bk2, k4, id, me, t, now, &owner);
		if (!fs)
			return insert_flow(&fp_flows4, k4, p, t, now, NULL);
	}
	/*
	 * Its counts in the entry, its PSNs tracked in the slot, and its
	 * samples counted there too: a flow's first few packets, however many
	 * CPUs they reach.
	 */
	if (owner && owner != me) {
		flow_account(&fp_flows4, k4, p, t, now, &fs->psn);
		return fs;
	}
	/* Plain adds in this CPU's own slot; atomic ones in a shared entry. */
	count_packet(p, fs, NULL, now, !owner);
	return fs;
}

/*
 * An IPv4 flow's key is compacted in place (each field copied down, none
 * onto bytes it has yet to read): the stack has no room for a copy beside
 * a new flow's first value. key.flags, past the compacted bytes, stays.
 */
static __always_inline struct flow_counters *account_flow(struct fp_pkt *p, struct fp_totals *t,
							  __u64 now)
{
	if (p->key.flags & FP_FLOW_ANY_IPV6)
		return flow_account(&fp_flows6, &p->key, p, t, now, NULL);
	fp_key4_from(&p->key4, &p->key);
	return slot_account(&p->key4, p, t, now);
}

#endif /* __FP_FLOWS_H */
