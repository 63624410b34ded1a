// SPDX-License-Identifier: GPL-2.0
/* report_mirror.c - what the reports say of mirror copies (docs/mirror.md, "Userspace"). */
#include <stdio.h>

#include "render/report_mirror.h"
#include "util/json.h"

/*
 * The mirror session a copied flow came in: its type (1-3 for ERSPAN, "teb"),
 * session number or GRE key, switch and direction; null on the wire.
 */
void report_json_mirror(struct json *j, const struct flow_key *k)
{
	const char *dir = mirror_direction(k);
	bool erspan = k->mirror == FP_MIRROR_ERSPAN_II || k->mirror == FP_MIRROR_ERSPAN_III;
	char sw[48];
	__u32 index;

	json_key(j, "mirror");
	if (!k->mirror) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "type");
	if (mirror_type_is_teb(k))
		json_str(j, "teb");
	else
		json_u64(j, k->mirror);
	json_key(j, "session");
	if (erspan)
		json_u64(j, mirror_session_id(k));
	else
		json_null(j);
	json_key(j, "index");
	if (mirror_index(k, &index))
		json_u64(j, index);
	else
		json_null(j);
	json_key(j, "key");
	if (!erspan && (k->flags & FP_FLOW_MIRROR_KEY))
		json_u64(j, k->mirror_id);
	else
		json_null(j);
	json_kv_str(j, "switch", mirror_switch(sw, sizeof(sw), k));
	json_key(j, "direction");
	if (dir)
		json_str(j, dir);
	else
		json_null(j);
	json_obj_end(j);
}

const char *report_copied_at(char *buf, size_t len, const struct flow_key *k)
{
	char at[32];

	/* One session's copies at two points are two rows: say which is which. */
	if (!mirror_point(at, sizeof(at), k))
		return "";
	snprintf(buf, len, " [copied at %s]", at);
	return buf;
}

void report_copies_note(FILE *out, const struct analysis *a)
{
	/* A session's counts are of what it delivered: copies. */
	for (int i = 0; i < a->n_paths; i++)
		if ((a->paths[i].ifindex & MIRROR_POINT_BIT) && a->paths[i].flows) {
			fprintf(out,
				"mirror sessions count copies: a packet a session copies at two "
				"points (ingress and egress, two ports) is two flows and counts "
				"twice\n");
			return;
		}
}
