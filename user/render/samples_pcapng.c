// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
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
 * What a sample is evidence of: its flow's alerts, else those of the flow
 * it answers (its reverse: the CNPs of cnp_without_ce, the NAKs behind
 * retransmits). *reverse says which. "" if neither raised any.
 */
static void sample_alerts(const struct analysis *a, const struct flow_key *k, char *buf, size_t len,
			  bool *reverse)
{
	int i;

	*reverse = false;
	alert_types_of(a, k, buf, len);
	if (buf[0])
		return;
	i = analysis_find(a, k);
	if (i < 0 || a->flows[i].reverse < 0)
		return;
	alert_types_of(a, &a->flows[a->flows[i].reverse].r->key, buf, len);
	*reverse = buf[0] != '\0';
}

#define NO_IFACE UINT32_MAX

/*
 * Each written sample's interface: its observation point's, numbered in
 * the order first met (NO_IFACE: its flow raised nothing), the points in
 * ids[*n_ids]. Returns -1 when out of memory.
 */
static int sample_ifaces(const struct sample_store *st, const struct analysis *a, __u32 *iface,
			 __u32 **ids, size_t *n_ids)
{
	char types[256];
	size_t cap = 0;
	bool rev;

	*ids = NULL;
	*n_ids = 0;
	for (size_t i = 0; i < st->n; i++) {
		__u32 id = st->s[i].key.ifindex;
		size_t k = 0;

		iface[i] = NO_IFACE;
		sample_alerts(a, &st->s[i].key, types, sizeof(types), &rev);
		if (!types[0])
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
		iface[i] = k;
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
	bool rev;
	__u32 *iface = malloc((st->n ? st->n : 1) * sizeof(*iface)), *ids = NULL;
	long written = -1;
	size_t n_ids;

	if (!iface || sample_ifaces(st, a, iface, &ids, &n_ids) || pcapng_begin(out))
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

		if (iface[i] == NO_IFACE)
			continue;
		sample_alerts(a, &s->key, types, sizeof(types), &rev);
		snprintf(comment, sizeof(comment), "fabprobe: %s raised %s",
			 rev ? "the flow this one answers" : "flow", types);
		if (pcapng_packet(out, iface[i], s->ts_ns + clock_offset_ns,
				  sample_dir(src, &s->key), st->bytes + s->off, s->cap_len,
				  s->wire_len, comment)) {
			written = -1;
			break;
		}
		written++;
	}
out:
	free(iface);
	free(ids);
	return written;
}
