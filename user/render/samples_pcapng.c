// SPDX-License-Identifier: GPL-2.0
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

long samples_write_pcapng(FILE *out, const struct sample_store *st, const struct analysis *a,
			  __s64 clock_offset_ns)
{
	char types[256], comment[320];
	long written = 0;

	if (pcapng_begin(out, FP_SAMPLE_SNAP))
		return -1;
	for (size_t i = 0; i < st->n; i++) {
		const struct sample *s = &st->s[i];

		alert_types_of(a, &s->key, types, sizeof(types));
		if (!types[0])
			continue;
		snprintf(comment, sizeof(comment), "fabprobe: flow raised %s", types);
		if (pcapng_packet(out, s->ts_ns + clock_offset_ns, st->bytes + s->off, s->cap_len,
				  s->wire_len, comment))
			return -1;
		written++;
	}
	return written;
}
