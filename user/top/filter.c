// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - the dashboard's filter: "10.77.1" (an address substring, outer
 * or inner), qp=N, vni=N, path=IF; every term must match. Any other KEY=
 * is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top/ui.h"
#include "util/format.h"

int parse_filter(const char *text, struct filter *f, char *err, size_t err_len)
{
	char copy[FILTER_LEN], *save = NULL;

	memset(f, 0, sizeof(*f));
	snprintf(copy, sizeof(copy), "%s", text);
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct filter_term *t;
		char *end;

		if (f->n >= FILTER_TERMS) {
			snprintf(err, err_len, "at most %d filter terms", FILTER_TERMS);
			return -EINVAL;
		}
		t = &f->term[f->n++];
		if (!strncmp(tok, "qp=", 3) || !strncmp(tok, "vni=", 4)) {
			const char *num = strchr(tok, '=') + 1;
			unsigned long v;

			errno = 0;
			v = strtoul(num, &end, 0);
			if (!*num || *end || errno || v > 0xFFFFFF) {
				snprintf(err, err_len, "'%s': want a number up to 16777215", tok);
				return -EINVAL;
			}
			t->kind = tok[0] == 'q' ? FT_QP : FT_VNI;
			t->num = v;
		} else if (!strncmp(tok, "path=", 5)) {
			t->kind = FT_PATH;
			snprintf(t->text, sizeof(t->text), "%s", tok + 5);
		} else if (strchr(tok, '=')) {
			/* No address has one: a key misspelt, which a substring would hide. */
			snprintf(err, err_len, "'%.*s': no such key (qp=N, vni=N, path=IF)",
				 (int)(strchr(tok, '=') - tok + 1), tok);
			return -EINVAL;
		} else {
			t->kind = FT_TEXT;
			snprintf(t->text, sizeof(t->text), "%s", tok);
		}
	}
	return 0;
}

static bool addr_has(const __u8 *addr, bool v6, const char *text)
{
	char buf[FP_ADDR_STRLEN];

	return strstr(fmt_addr(buf, sizeof(buf), addr, v6), text);
}

static bool term_matches(const struct ui *u, const struct filter_term *t, int i)
{
	const struct flow_view *v = &u->an->flows[i];
	const struct flow_key *k = &v->r->key;
	bool v6 = k->flags & FP_FLOW_IPV6, iv6 = k->flags & FP_FLOW_INNER_IPV6;

	switch (t->kind) {
	case FT_QP:
		return k->dest_qp == t->num;
	case FT_VNI:
		return (k->flags & FP_FLOW_VXLAN) && k->vni == t->num;
	case FT_PATH:
		return !strcmp(path_name(u->an, v->path), t->text);
	case FT_TEXT:
		if (addr_has(k->src, v6, t->text) || addr_has(k->dst, v6, t->text))
			return true;
		return (k->flags & FP_FLOW_VXLAN) && (addr_has(k->inner_src, iv6, t->text) ||
						      addr_has(k->inner_dst, iv6, t->text));
	}
	return false;
}

bool flow_matches(const struct ui *u, int flow)
{
	for (int t = 0; t < u->filter.n; t++)
		if (!term_matches(u, &u->filter.term[t], flow))
			return false;
	return true;
}

void apply_filter(struct ui *u, const char *text)
{
	struct filter f;
	char err[128];

	if (parse_filter(text, &f, err, sizeof(err))) {
		snprintf(u->status, sizeof(u->status), "filter: %s", err);
		return;
	}
	u->filter = f;
	snprintf(u->filter_text, sizeof(u->filter_text), "%s", text);
	for (int v = 0; v < n_views; v++)
		u->vs[v].sel = u->vs[v].top = 0;
	u->have_sel_key = false;
	u->dirty = true;
}

/* Enter on a path or a VNI: the Flows view, filtered to it. */
void filter_to_flows(struct ui *u, const char *text)
{
	apply_filter(u, text);
	set_view(u, view_index(view_flows.name));
}
