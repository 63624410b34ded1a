// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/buf.h"
#include "probe/collect.h"
#include "probe/par.h"
#include "fabprobe.skel.h"
#include "util/log.h"
#include "util/prefetch.h"
#include "util/stop.h"
#include "probe/probe.h"
#include "probe/table_read.h"

/*
 * A slot table this large (--flows past 87,381) is read on one CPU while
 * the hash tables are walked on another; smaller, both on this thread.
 */
#define COLLECT_PAR_MIN_SLOTS 65536

static size_t percpu_stride(size_t value_size)
{
	/* The kernel lays per-CPU values out 8-byte aligned. */
	return (value_size + 7) & ~(size_t)7;
}

void totals_sum(__u64 out[FP_CNT_MAX], const void *percpu, int ncpus, size_t stride)
{
	memset(out, 0, sizeof(__u64) * FP_CNT_MAX);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct fp_totals *t = (const void *)((const char *)percpu + cpu * stride);

		for (int i = 0; i < FP_CNT_MAX; i++)
			out[i] += t->cnt[i];
	}
}

void flow_counters_read(struct flow_counters *out, const struct flow_counters *map)
{
	*out = *map;
	/* Every packet counts in exactly one ECN codepoint: the kernel keeps no packets. */
	out->packets = map->ecn[0] + map->ecn[1] + map->ecn[2] + map->ecn[3];
}

void flow_counters_merge(struct flow_counters *into, const struct flow_counters *from)
{
	/* packets to becn: counts, every one a sum. */
	__u64 *sum = &into->packets;
	const __u64 *add = &from->packets;
	size_t n = offsetof(struct flow_counters, first_seen_ns) / sizeof(__u64);

	for (size_t i = 0; i < n; i++)
		sum[i] += add[i];
	for (int i = 0; i < 4; i++)
		into->opcodes[i] |= from->opcodes[i];
	into->dscp_mask |= from->dscp_mask;
	if (from->first_seen_ns &&
	    (!into->first_seen_ns || from->first_seen_ns < into->first_seen_ns))
		into->first_seen_ns = from->first_seen_ns;
	into->samples = into->samples + from->samples > 255 ? 255 : into->samples + from->samples;
	if (from->last_seen_ns <= into->last_seen_ns)
		return;
	/*
	 * The last packet's fields, from the entry that saw it. The PSN state
	 * stays into's, the slot's: the program tracks a slot's flow's PSNs
	 * there, on every CPU (flows.h, slot_account()).
	 */
	into->last_seen_ns = from->last_seen_ns;
	into->vlan = from->vlan;
	into->dscp = from->dscp;
	into->pcp = from->pcp;
	into->vlan_tagged = from->vlan_tagged;
	into->last_opcode = from->last_opcode;
	into->last_nak_code = from->last_nak_code;
}

#define SNAP_NO_RECORD UINT32_MAX
/* fp_flows4's entries whose slot table buckets are asked for at once, ahead of their lookups. */
#define SLOT_AHEAD 16

/* The record of bucket b's slot holding key's flow (id: its tag's fp_slot_id()), or none. */
static __u32 bucket_record(const struct snapshot *s, __u32 b, __u64 id, const struct flow_key *key)
{
	for (size_t i = (size_t)b * FP_SLOT_WAYS; i < ((size_t)b + 1) * FP_SLOT_WAYS; i++) {
		__u32 rec;

		/* The tag first: a slot's record number is another line, read only on a match. */
		if (fp_slot_id(s->slot_tag[i]) != id)
			continue;
		rec = s->slot_rec[i];
		if (rec != SNAP_NO_RECORD && !memcmp(&s->flows[rec].key, key, sizeof(*key)))
			return rec;
	}
	return SNAP_NO_RECORD;
}

/* Where an fp_flows4 entry's flow may sit in the slot table: its identity and two buckets. */
struct slot_probe {
	__u64 id;
	__u32 b, b2;
};

/*
 * The probe of k4, its buckets' tags asked for: one line each, far apart
 * in memory at a million flows, where each would be a wait of its own.
 */
static void slot_probe_of(const struct probe *p, const struct snapshot *s,
			  const struct flow_key4 *k4, struct slot_probe *sp)
{
	const size_t tags = FP_SLOT_WAYS * sizeof(*s->slot_tag);
	__u64 tag = fp_slot_tag(fp_key4_hash(k4), p->slot_tag_mask);

	sp->id = fp_slot_id(tag);
	sp->b = fp_slot_bucket_of(tag, p->slot_buckets);
	sp->b2 = fp_slot_bucket2_of(tag, p->slot_buckets);
	prefetch_lines(&s->slot_tag[(size_t)sp->b * FP_SLOT_WAYS], tags);
	if (sp->b2 != sp->b)
		prefetch_lines(&s->slot_tag[(size_t)sp->b2 * FP_SLOT_WAYS], tags);
}

/*
 * The record of the slot holding the flow of sp in this read, or
 * SNAP_NO_RECORD: in its first bucket or its second. Only a slot that had
 * the flow's tag can hold it: the tags of a bucket are one line, where
 * each record compared is a miss.
 */
static __u32 slot_record(const struct snapshot *s, const struct slot_probe *sp,
			 const struct flow_key *key)
{
	__u32 rec = bucket_record(s, sp->b, sp->id, key);

	return rec == SNAP_NO_RECORD && sp->b2 != sp->b ? bucket_record(s, sp->b2, sp->id, key)
							: rec;
}

/* add summed into *mask and *c, a record's or another sum's. */
static void slot_sum_add(__u64 *mask, struct flow_counters *c, const struct slot_sum *add)
{
	*mask |= add->cnp_dscp_mask;
	flow_counters_merge(c, &add->c);
}

/* Another entry of record rec's flow, as the map holds it: summed into the record; *e gets it. */
static void merge_entry(struct snapshot *s, __u32 rec, const struct flow_counters *map,
			struct slot_sum *e)
{
	e->cnp_dscp_mask = map->cnp_dscp_mask;
	flow_counters_read(&e->c, map);
	slot_sum_add(&s->flows[rec].cnp_dscp_mask, &s->flows[rec].c, e);
	s->merged++;
}

/* Room for n records in s->flows, which collect allocates (and then owns). */
static int grow_flows(struct snapshot *s, size_t n)
{
	int err = buf_grow((void **)&s->flows, &s->cap, n, sizeof(*s->flows));

	if (!err)
		s->own_flows = true;
	return err;
}

static struct flow_record *new_record(struct snapshot *s, const struct flow_counters *c, __u32 rid,
				      const struct flow_key *key)
{
	struct flow_record *r = &s->flows[s->n_flows++];

	r->key = *key;
	s->mirror_unseen &= !key->mirror;
	r->samples = 0;
	r->rate = 0;
	r->rid = rid;
	r->cnp_dscp_mask = c->cnp_dscp_mask; /* before packets take its place */
	flow_counters_read(&r->c, c);
	return r;
}

/*
 * n entries of one table: keys of key_size bytes (flow_key4 or flow_key),
 * widened. p: fp_flows4's, whose flows the slot table may hold too (read
 * first): those are summed into their slot's record.
 */
static int add_flows(const struct probe *p, struct snapshot *s, const void *keys, size_t key_size,
		     const struct flow_counters *values, size_t n)
{
	bool in_slots = p && p->slots && key_size == sizeof(struct flow_key4);
	struct slot_probe sp[SLOT_AHEAD];
	int err = grow_flows(s, s->n_flows + n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i += SLOT_AHEAD) {
		size_t m = n - i < SLOT_AHEAD ? n - i : SLOT_AHEAD;

		for (size_t j = 0; in_slots && j < m; j++)
			slot_probe_of(p, s, (const struct flow_key4 *)keys + i + j, &sp[j]);
		for (size_t j = 0; j < m; j++) {
			const void *k = (const char *)keys + (i + j) * key_size;
			struct flow_key key;
			__u32 rec;

			if (key_size == sizeof(struct flow_key4))
				fp_key_from4(&key, k);
			else
				memcpy(&key, k, sizeof(key));
			rec = in_slots ? slot_record(s, &sp[j], &key) : SNAP_NO_RECORD;
			if (rec == SNAP_NO_RECORD) {
				new_record(s, &values[i + j], SNAP_NO_RID, &key);
				continue;
			}
			/* A slot's flow: its entry noted for carry_entries(). */
			err = buf_grow((void **)&s->entries, &s->cap_entries, s->n_entries + 1,
				       sizeof(*s->entries));
			if (err)
				return err;
			s->entries[s->n_entries].slot = s->flows[rec].rid;
			merge_entry(s, rec, &values[i + j], &s->entries[s->n_entries++].e);
		}
	}
	return 0;
}

/*
 * The slot table, read in place, bucket by bucket: a slot counts once its
 * tag is published, and its key is read after the tag (acquire). A flow in
 * two slots of its bucket is one record: the program's claim word keeps
 * two claims for one flow from both winning where stores are seen in
 * order (x86), and this keeps the sums whole where they might not be.
 */
static int read_slots(const struct probe *p, struct snapshot *s)
{
	size_t n = (size_t)p->slot_buckets * FP_SLOT_WAYS;

	if (!p->slots)
		return 0;
	if (s->slot_rec_n != n) {
		free(s->slot_rec);
		free(s->slot_tag);
		s->slot_rec = malloc(n * sizeof(*s->slot_rec));
		s->slot_tag = malloc(n * sizeof(*s->slot_tag));
		s->slot_rec_n = s->slot_rec && s->slot_tag ? n : 0;
		if (!s->slot_rec_n)
			return -ENOMEM;
	}
	for (__u32 b = 0; b < p->slot_buckets; b++) {
		const struct fp_slot_bucket *bk = &p->slots[b];
		__u32 *rec = &s->slot_rec[(size_t)b * FP_SLOT_WAYS];
		__u64 *tags = &s->slot_tag[(size_t)b * FP_SLOT_WAYS];
		int err = grow_flows(s, s->n_flows + FP_SLOT_WAYS);

		if (err)
			return err;
		for (int i = 0; i < FP_SLOT_WAYS; i++) {
			struct flow_key key;

			tags[i] = __atomic_load_n(&bk->tag[i], __ATOMIC_ACQUIRE);
			rec[i] = SNAP_NO_RECORD;
			if (!(tags[i] & 1))
				continue;
			fp_key_from4(&key, &bk->slot[i].key);
			for (int j = 0; j < i && rec[i] == SNAP_NO_RECORD; j++)
				if (fp_slot_id(tags[j]) == fp_slot_id(tags[i]) &&
				    rec[j] != SNAP_NO_RECORD &&
				    !memcmp(&s->flows[rec[j]].key, &key, sizeof(key)))
					rec[i] = rec[j];
			if (rec[i] == SNAP_NO_RECORD) {
				rec[i] = s->n_flows;
				new_record(s, &bk->slot[i].c, b * FP_SLOT_WAYS + i, &key);
			} else {
				struct slot_sum e;

				merge_entry(s, rec[i], &bk->slot[i].c, &e);
			}
		}
	}
	return 0;
}

/* Slot i's tag (slot i: way i % FP_SLOT_WAYS of bucket i / FP_SLOT_WAYS). */
static __u64 *slot_tag(const struct probe *p, __u32 i)
{
	return &p->slots[i / FP_SLOT_WAYS].tag[i % FP_SLOT_WAYS];
}

/* Slot i itself: its key and counters. */
static struct flow_slot *slot_of(const struct probe *p, __u32 i)
{
	return &p->slots[i / FP_SLOT_WAYS].slot[i % FP_SLOT_WAYS];
}

static int cmp_slot_entry(const void *a, const void *b)
{
	const struct slot_entry *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Does slot c.slot hold, in this read, the flow and the claim it held when
 * c was made? (Not a slot of this table at all: a snapshot read before
 * from another probe's.)
 */
static bool carry_holds(const struct probe *p, const struct snapshot *s, const struct slot_carry *c)
{
	__u64 tag = c->slot < s->slot_rec_n ? s->slot_tag[c->slot] : 0;

	return (tag & 1) && fp_slot_id(tag) == c->id &&
	       slot_of(p, c->slot)->c.first_seen_ns == c->first_seen_ns;
}

/*
 * A slot's flow counted in fp_flows4 too (another CPU owns its slot, or
 * two CPUs' first packets met) is summed from two entries, and the LRU
 * may evict the fp_flows4 one alone: the flow's counts would step back,
 * which the analysis takes for a flow evicted and back, its whole count
 * in one interval. So what such an entry had at the last read it was seen
 * in is summed into the record from then on (gone), for as long as the
 * slot holds the flow from the same claim; what it counted after that
 * read is lost with it, as an eviction counts it. An entry with fewer
 * packets or another first time than the last read's is another one, made
 * again since. Slot order: the carries stay sorted, the entries are sorted.
 */
static int carry_entries(const struct probe *p, struct snapshot *s)
{
	size_t i = 0, k = 0, n = 0;
	struct slot_carry *out;

	if (!s->n_carry && !s->n_entries)
		return 0;
	out = malloc((s->n_carry + s->n_entries) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	qsort(s->entries, s->n_entries, sizeof(*s->entries), cmp_slot_entry);
	while (i < s->n_carry || k < s->n_entries) {
		const struct slot_entry *e = NULL;
		struct slot_carry c;

		if (i < s->n_carry &&
		    (k == s->n_entries || s->carry[i].slot <= s->entries[k].slot)) {
			c = s->carry[i++];
			if (!carry_holds(p, s, &c))
				continue;
			if (k < s->n_entries && s->entries[k].slot == c.slot)
				e = &s->entries[k++];
		} else {
			e = &s->entries[k++];
			memset(&c, 0, sizeof(c));
			c.slot = e->slot;
			c.id = fp_slot_id(s->slot_tag[c.slot]);
			c.first_seen_ns = slot_of(p, c.slot)->c.first_seen_ns;
		}
		if (c.entry.c.packets && (!e || e->e.c.packets < c.entry.c.packets ||
					  e->e.c.first_seen_ns != c.entry.c.first_seen_ns))
			slot_sum_add(&c.gone.cnp_dscp_mask, &c.gone.c, &c.entry);
		if (e)
			c.entry = e->e;
		else
			memset(&c.entry, 0, sizeof(c.entry));
		if (c.gone.c.packets) {
			struct flow_record *r = &s->flows[s->slot_rec[c.slot]];

			slot_sum_add(&r->cnp_dscp_mask, &r->c, &c.gone);
		}
		if (c.gone.c.packets || c.entry.c.packets)
			out[n++] = c;
	}
	free(s->carry);
	s->carry = out;
	s->n_carry = n;
	return 0;
}

/*
 * The buffers the kernel fills, allocated once per snapshot rather than at
 * every read. calloc, not malloc: tools such as valgrind do not know that
 * the kernel writes them.
 */
static int batch_buffers(struct snapshot *s, int ncpus)
{
	if (!s->tables)
		s->tables = calloc(2, sizeof(*s->tables));
	if (!s->totals_values)
		s->totals_values = calloc(ncpus, percpu_stride(sizeof(struct fp_totals)));
	return s->tables && s->totals_values ? 0 : -ENOMEM;
}

/* MEMBARRIER_CMD_GLOBAL (linux/membarrier.h): returns after an RCU grace period. */
#define FP_MEMBARRIER_CMD_GLOBAL 1

struct slot_age {
	__u64 last_seen_ns;
	__u64 tag; /* what it held when retired; 0: not retired here */
	__u32 slot;
};

static int cmp_age(const void *a, const void *b)
{
	const struct slot_age *x = a, *y = b;

	if (x->last_seen_ns != y->last_seen_ns)
		return x->last_seen_ns < y->last_seen_ns ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The two tables evict the least recently seen flows first, together.
 * fp_flows4 does so itself. A slot is freed here, after a read, when
 * fp_flows4 has evicted since the last read (inserts minus entries, less
 * the slots freed here) and has taken new flows (first seen after the
 * newest it held then): as many slots as it took, of those whose flows
 * were last seen before fp_flows4's oldest flow, oldest first. Later new
 * flows of their buckets take them. A slot is retired (its tag, so no new
 * packet counts in it), then every program already past the tag is
 * waited for (a grace period: programs run under RCU), and only then is
 * it emptied and freed. Its flow, in this snapshot, is gone by the next:
 * an eviction, as inserts minus entries counts it. lru_first, lru_n:
 * fp_flows4's records in this read.
 */
static void slots_reclaim(struct probe *p, struct snapshot *s, size_t lru_first, size_t lru_n)
{
	size_t nslots = (size_t)p->slot_buckets * FP_SLOT_WAYS, taken = 0, n = 0;
	__u64 entries = s->n_flows + s->merged + p->reclaim.slots_freed, lru_evicted = 0;
	__u64 oldest = UINT64_MAX, newest = p->reclaim.lru_newest_first;
	struct slot_age *age;

	for (size_t i = lru_first; i < lru_first + lru_n; i++) {
		const struct flow_counters *c = &s->flows[i].c;

		if (c->last_seen_ns < oldest)
			oldest = c->last_seen_ns;
		if (c->first_seen_ns > p->reclaim.lru_newest_first) {
			taken++;
			newest = c->first_seen_ns > newest ? c->first_seen_ns : newest;
		}
	}
	p->reclaim.lru_newest_first = newest;
	if (s->totals[FP_CNT_FLOW_NEW] > entries)
		lru_evicted = s->totals[FP_CNT_FLOW_NEW] - entries;
	if (lru_evicted <= p->reclaim.lru_evicted)
		return;
	p->reclaim.lru_evicted = lru_evicted;
	if (!p->slots || !taken || p->slots_stuck || p->input_ended)
		return;
	age = malloc(nslots * sizeof(*age));
	if (!age)
		return; /* freed at a later read */
	for (size_t i = 0; i < nslots; i++) {
		__u32 rec = s->slot_rec[i];

		if (rec != SNAP_NO_RECORD && s->flows[rec].c.last_seen_ns < oldest)
			age[n++] = (struct slot_age){.last_seen_ns = s->flows[rec].c.last_seen_ns,
						     .slot = (__u32)i};
	}
	if (n > taken) {
		qsort(age, n, sizeof(*age), cmp_age);
		n = taken;
	}
	for (size_t i = 0; i < n; i++) {
		__u64 *tag = slot_tag(p, age[i].slot);
		__u64 was = __atomic_load_n(tag, __ATOMIC_ACQUIRE);

		if ((was & 1) && __atomic_compare_exchange_n(tag, &was, FP_SLOT_RETIRED, false,
							     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			age[i].tag = was;
	}
	if (syscall(SYS_membarrier, FP_MEMBARRIER_CMD_GLOBAL, 0, 0)) {
		/* No grace period to wait for: put the tags back, and free nothing again. */
		fp_err("flow slots: cannot wait for running programs (membarrier: %s): no slot is "
		       "freed, so new flows past the slots take the LRU part of --flows",
		       fp_strerror(-errno));
		p->slots_stuck = true;
		for (size_t i = 0; i < n; i++)
			if (age[i].tag)
				__atomic_store_n(slot_tag(p, age[i].slot), age[i].tag,
						 __ATOMIC_RELEASE);
		free(age);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!age[i].tag)
			continue;
		memset(slot_of(p, age[i].slot), 0, sizeof(struct flow_slot));
		__atomic_store_n(slot_tag(p, age[i].slot), FP_SLOT_FREE, __ATOMIC_RELEASE);
		p->reclaim.slots_freed++;
	}
	free(age);
}

/* The two hash tables' reads, their buffers kept. */
static void tables_prepare(struct probe *p, struct snapshot *s, enum read_mode mode)
{
	const int fd[2] = {bpf_map__fd(p->skel->maps.fp_flows4),
			   bpf_map__fd(p->skel->maps.fp_flows6)};
	const size_t key_size[2] = {sizeof(struct flow_key4), sizeof(struct flow_key)};

	for (int i = 0; i < 2; i++) {
		struct table_read *t = &s->tables[i];

		t->fd = fd[i];
		t->key_size = key_size[i];
		t->mode = mode;
		t->n = 0;
		t->err = 0;
	}
}

struct read_job {
	const struct probe *p;
	struct snapshot *s;
	int slots_err, fed_err;
	size_t slot_flows; /* records the slot table gave */
	size_t fed;	   /* fp_flows4's entries widened as the walk went on */
};

/* Entries of fp_flows4 the walk has given, widened into records. */
static int add_flows4(void *ctx, const void *keys, const struct flow_counters *values, size_t n)
{
	struct read_job *j = ctx;

	return add_flows(j->p, j->s, keys, sizeof(struct flow_key4), values, n);
}

/*
 * Item 0 the hash tables, walked raw; item 1 the slot table into records,
 * then fp_flows4's entries as the walk gives them. On one thread, item 0
 * runs first, so item 1 finds the walk over.
 */
static void read_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct read_job *j = ctx;

	(void)part;
	for (size_t i = lo; i < hi; i++) {
		if (i == 0) {
			for (int t = 0; t < 2; t++)
				table_read(&j->s->tables[t]);
			continue;
		}
		j->slots_err = read_slots(j->p, j->s);
		j->slot_flows = j->s->n_flows;
		if (!j->slots_err)
			j->fed_err = table_feed_take(&j->s->tables[0], &j->fed, add_flows4, j);
	}
}

/*
 * The slot table, the IPv4 table, then the IPv6 one: a table read twice
 * keeps its order. *lru_first, *lru_n: the records fp_flows4 gave.
 */
static int read_flows(struct probe *p, struct snapshot *s, enum read_mode mode, size_t *lru_first,
		      size_t *lru_n)
{
	/* A slot's flow has the slot's number; the tables' flows come after. */
	__u32 n_slots = p->slots ? p->slot_buckets * FP_SLOT_WAYS : 0;
	struct read_job job = {.p = p, .s = s};
	struct table_feed feed;
	struct table_read *t;
	int err;

	s->n_flows = 0;
	s->merged = 0;
	s->n_entries = 0;
	s->n_rids = 0;
	s->mirror_unseen = true;
	err = batch_buffers(s, p->ncpus);
	if (err)
		goto out;
	t = s->tables;
	tables_prepare(p, s, mode);
	/*
	 * The walk is the kernel's time, the slot table's read this
	 * process's: on two CPUs, at once (BENCHMARKS.md, part 24), and
	 * fp_flows4's entries widened on the slots' CPU as the walk gives
	 * them (part 26).
	 */
	table_feed_init(&feed);
	t[0].feed = &feed;
	par_run(n_slots >= COLLECT_PAR_MIN_SLOTS ? par_parts(2, 1) : 1, 2, read_part, &job);
	t[0].feed = NULL;
	table_feed_destroy(&feed);
	err = job.slots_err ?: job.fed_err ?: t[0].err ?: carry_entries(p, s);
	*lru_first = job.slot_flows;
	*lru_n = err ? 0 : s->n_flows - *lru_first;
	if (!err)
		err = t[1].err ?: add_flows(NULL, s, t[1].keys, t[1].key_size, t[1].values, t[1].n);
	if (!err)
		err = table_rids(s, *lru_first, n_slots);
	if (!err)
		s->n_rids = n_slots + s->trid_n;
out:
	if (err)
		fp_err("cannot read the flow table: %s", fp_strerror(err));
	return err;
}

double snapshot_span_s(const struct snapshot *s)
{
	__u64 first = 0, last = 0;

	for (size_t i = 0; i < s->n_flows; i++) {
		const struct flow_counters *c = &s->flows[i].c;

		if (i == 0 || c->first_seen_ns < first)
			first = c->first_seen_ns;
		if (c->last_seen_ns > last)
			last = c->last_seen_ns;
	}
	return last > first ? (last - first) / 1e9 : 0;
}

/*
 * The totals and the flows are not read in one instant, so inserts minus
 * flows present can dip; evictions only grow, so keep the highest.
 */
void snapshot_flow_totals(struct snapshot *s)
{
	__u64 inserted = s->totals[FP_CNT_FLOW_NEW], entries = s->n_flows + s->merged;
	__u64 evicted = inserted > entries ? inserted - entries : 0;

	s->totals[SNAP_CNT_FLOWS] = s->n_flows;
	s->totals[SNAP_CNT_FLOW_CAPACITY] = s->flow_capacity;
	if (evicted > s->totals[SNAP_CNT_EVICTIONS])
		s->totals[SNAP_CNT_EVICTIONS] = evicted;
}

int collect_snapshot(struct probe *p, struct snapshot *s)
{
	size_t tstride = percpu_stride(sizeof(struct fp_totals)), lru_first, lru_n;
	int ncpus = p->ncpus, err;
	__u32 zero = 0;

	s->n_flows = 0;
	s->flow_capacity = p->flow_entries + p->flow6_entries;
	s->flow_capacity6 = p->flow6_entries;
	s->taken_ns = fp_mono_ns();
	s->clock_offset_ns = p->replay ? 0 : (__s64)(fp_real_ns() - s->taken_ns);

	err = batch_buffers(s, ncpus);
	if (err)
		return err;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.fp_totals), &zero, s->totals_values)) {
		err = -errno;
		fp_err("cannot read the counters map: %s", fp_strerror(err));
		return err;
	}
	totals_sum(s->totals, s->totals_values, ncpus, tstride);
	err = read_flows(p, s, READ_AUTO, &lru_first, &lru_n);
	if (!err) {
		snapshot_flow_totals(s);
		slots_reclaim(p, s, lru_first, lru_n);
	}
	return err;
}

int collect_flows_mode(struct probe *p, struct snapshot *s, bool batch)
{
	size_t lru_first, lru_n;

	return read_flows(p, s, batch ? READ_BATCH : READ_ITER, &lru_first, &lru_n);
}

void snapshot_free(struct snapshot *s)
{
	free(s->flows);
	free(s->spare);
	free(s->sort_keys);
	for (int i = 0; s->tables && i < 2; i++) {
		free(s->tables[i].keys);
		free(s->tables[i].values);
	}
	free(s->tables);
	free(s->totals_values);
	free(s->slot_rec);
	free(s->slot_tag);
	free(s->entries);
	free(s->carry);
	free(s->trid);
	kindex_free(&s->trid_index);
	memset(s, 0, sizeof(*s));
}
