// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "render/pcapng.h"
#include "render/samples_pcapng.h"

/* The alert types naming this flow, "elephant_collision,retransmits", or "" if none. */
static void alert_types_of(const struct analysis *a, const struct flow_key *k, char *buf,
			   size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->n_alerts; i++) {
		const struct alert *al = &a->alerts[i];

		for (int f = 0; f < al->n_flows; f++) {
			if (memcmp(&al->flows[f], k, sizeof(*k)))
				continue;
			used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "," : "", alert_type_name(al->type));
			break;
		}
	}
}

/*
 * The flow whose alerts a sample is evidence of: its own, else the flow it
 * answers (its reverse: the CNPs of cnp_without_ce, the NAKs behind
 * retransmits); NULL when neither raised any.
 */
static const struct flow_key *evidence_of(const struct analysis *a, const struct flow_key *k)
{
	char types[256];
	int i;

	alert_types_of(a, k, types, sizeof(types));
	if (types[0])
		return k;
	i = analysis_find(a, k);
	if (i < 0 || a->flows[i].reverse < 0)
		return NULL;
	k = &a->flows[a->flows[i].reverse].r->key;
	alert_types_of(a, k, types, sizeof(types));
	return types[0] ? k : NULL;
}

/* A sample to write: its interface block, and the flow whose alerts it shows. */
struct placed {
	__u32 iface;
	const struct flow_key *evidence; /* NULL: its flow raised nothing, not written */
};

/*
 * Each sample's evidence and interface: its observation point's, numbered
 * in the order first met, the points in ids[*n_ids]. -1 when out of memory.
 */
static int place_samples(const struct sample_store *st, const struct analysis *a, struct placed *pl,
			 __u32 **ids, size_t *n_ids)
{
	size_t cap = 0;

	*ids = NULL;
	*n_ids = 0;
	for (size_t i = 0; i < st->n; i++) {
		__u32 id = st->s[i].key.ifindex;
		size_t k = 0;

		pl[i].evidence = evidence_of(a, &st->s[i].key);
		if (!pl[i].evidence)
			continue;
		while (k < *n_ids && (*ids)[k] != id)
			k++;
		if (k == *n_ids) {
			if (*n_ids == cap) {
				__u32 *more =
				    realloc(*ids, (cap = cap ? 2 * cap : 8) * sizeof(**ids));

				if (!more)
					return -1;
				*ids = more;
			}
			(*ids)[(*n_ids)++] = id;
		}
		pl[i].iface = k;
	}
	return 0;
}

/* A live interface of this host knows a packet's direction; a recording or a copy does not. */
static enum pcapng_dir sample_dir(const struct source_desc *src, const struct flow_key *k)
{
	const struct obs_point *pt = source_point(src, k->ifindex);

	if (!pt || !pt->interface || src->finite)
		return PCAPNG_DIR_UNKNOWN;
	return k->dir == FP_DIR_EGRESS ? PCAPNG_DIR_OUT : PCAPNG_DIR_IN;
}

long samples_write_pcapng(FILE *out, const struct sample_store *st, const struct analysis *a,
			  const struct source_desc *src, __s64 clock_offset_ns)
{
	char types[256], comment[320], name[32];
	struct placed *pl = malloc((st->n ? st->n : 1) * sizeof(*pl));
	__u32 *ids = NULL;
	long written = -1;
	size_t n_ids;

	if (!pl || place_samples(st, a, pl, &ids, &n_ids) || pcapng_begin(out))
		goto out;
	/* Every point a sample was taken at, by its name: tshark's frame.interface_name. */
	if (!n_ids && pcapng_interface(out, FP_SAMPLE_SNAP, "none sampled"))
		goto out; /* libpcap refuses a section without one */
	for (size_t k = 0; k < n_ids; k++)
		if (pcapng_interface(out, FP_SAMPLE_SNAP,
				     source_point_name(src, ids[k], name, sizeof(name))))
			goto out;
	written = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct sample *s = &st->s[i];

		if (!pl[i].evidence)
			continue;
		alert_types_of(a, pl[i].evidence, types, sizeof(types));
		snprintf(comment, sizeof(comment), "fabprobe: %s raised %s",
			 pl[i].evidence == &s->key ? "flow" : "the flow this one answers", types);
		if (pcapng_packet(out, pl[i].iface, s->ts_ns + clock_offset_ns,
				  sample_dir(src, &s->key), st->bytes + s->off, s->cap_len,
				  s->wire_len, comment)) {
			written = -1;
			break;
		}
		written++;
	}
out:
	free(pl);
	free(ids);
	return written;
}
