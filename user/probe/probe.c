// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "util/log.h"
#include "probe/probe.h"

/* The kernel's XDP verdicts (enum xdp_action). */
#define FP_XDP_DROP 1
#define FP_XDP_PASS 2
/* enum bpf_attach_type values newer than libbpf 1.1's headers. */
#define FP_BPF_TCX_INGRESS 46
#define FP_BPF_TCX_EGRESS  47

/* Capability numbers (linux/capability.h): what loading these programs needs. */
#define FP_CAP_NET_ADMIN 12
#define FP_CAP_SYS_ADMIN 21
#define FP_CAP_PERFMON	 38
#define FP_CAP_BPF	 39

/* The effective capability set, from /proc/self/status; 0 if unreadable. */
static __u64 effective_caps(void)
{
	unsigned long long caps = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/*
 * By the capabilities themselves, not the uid: root with its capabilities
 * dropped cannot load either. CAP_SYS_ADMIN stands in for CAP_BPF and
 * CAP_PERFMON, as the kernel lets it; CAP_NET_ADMIN is needed itself (the
 * kernel would attach with CAP_SYS_ADMIN, but the sFlow socket's buffer
 * and other processes' QPs need CAP_NET_ADMIN).
 */
static int check_privileges(void)
{
	__u64 caps = effective_caps(), admin = caps & 1ULL << FP_CAP_SYS_ADMIN;
	char missing[64] = "";

	if (!admin && !(caps & 1ULL << FP_CAP_BPF))
		strcat(missing, " CAP_BPF");
	if (!(caps & 1ULL << FP_CAP_NET_ADMIN))
		strcat(missing, " CAP_NET_ADMIN");
	if (!admin && !(caps & 1ULL << FP_CAP_PERFMON))
		strcat(missing, " CAP_PERFMON");
	if (!missing[0])
		return 0;
	if (geteuid() == 0)
		fp_err("root without the capabilities to load BPF programs (missing:%s): run "
		       "outside the container's or the unit's capability bounds",
		       missing);
	else
		fp_err("must run as root, or with CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, to load "
		       "BPF programs (missing:%s)",
		       missing);
	return -EPERM;
}

__u32 probe_flow6_entries(const struct probe_opts *opts)
{
	if (opts->flow6_entries)
		return opts->flow6_entries;
	return opts->flow_entries / 4 > FP_FLOWS6_MIN ? opts->flow_entries / 4 : FP_FLOWS6_MIN;
}

/* Map the slot table; the bytes past the last bucket are the page's rest. */
static int map_slots(struct probe *p)
{
	size_t len = (size_t)p->slot_buckets * sizeof(struct fp_slot_bucket);
	void *m;

	if (!p->slot_buckets)
		return 0;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(p->skel->maps.fp_slots),
		 0);
	if (m == MAP_FAILED) {
		int err = -errno;

		fp_err("cannot map the flow slot table: %s", fp_strerror(err));
		return err;
	}
	p->slots = m;
	return 0;
}

static int run_batch_buf(int fd, const void *buf, __u32 len, __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = buf, .data_size_in = len, .repeat = 1);

	if (bpf_prog_test_run_opts(fd, &topts))
		return -errno;
	*retval = topts.retval;
	return 0;
}

/*
 * The largest batch the kernel lays out in one piece: XDP's test run puts
 * a page, less its head- and tailroom (3520 bytes on x86-64), in the
 * linear part and, for this program, silently drops the rest. An empty
 * batch that says how long it is finds out: the program refuses one cut
 * short.
 */
static __u32 batch_capacity(const struct probe *p)
{
	static __u8 buf[PROBE_BATCH_BYTES] __attribute__((aligned(8)));
	struct fp_batch_head *h = (void *)buf;
	int fd = bpf_program__fd(p->skel->progs.fp_replay);
	__u32 retval;

	if (fd < 0)
		return 0;
	for (__u32 len = PROBE_BATCH_BYTES; len >= PROBE_BATCH_BYTES / 4; len /= 2) {
		/* No records: all of it is tail, which no frame reads. */
		*h = (struct fp_batch_head){.magic = FP_BATCH_MAGIC, .len = len};
		if (!run_batch_buf(fd, buf, len, &retval) && retval == FP_XDP_PASS)
			return len;
	}
	fp_dbg("replay: the kernel runs no batch of frames; one frame a run");
	return 0;
}

int probe_load(struct probe *p, const struct probe_opts *opts)
{
	__u32 flow6 = probe_flow6_entries(opts);
	__u32 buckets = fp_slot_buckets_for(opts->flow_entries);
	__u32 flow4 = opts->flow_entries - buckets * FP_SLOT_WAYS;
	__u64 tag_mask = opts->slot_tag_mask ? opts->slot_tag_mask : ~0ULL;
	struct fabprobe_bpf *skel;
	int err;

	err = check_privileges();
	if (err)
		return err;
	fp_setup_libbpf_log();

	skel = fabprobe_bpf__open();
	if (!skel) {
		err = -errno;
		fp_err("cannot open the BPF object: %s", fp_strerror(err));
		return err;
	}
	skel->rodata->roce_port = opts->roce_port;
	skel->rodata->vxlan_port = opts->vxlan_port;
	skel->rodata->replay_mode = opts->replay;
	skel->rodata->replay_egress = opts->replay && opts->replay_egress;
	skel->rodata->sample_per_flow = opts->sample_per_flow;
	skel->rodata->sample_max_per_cpu = opts->sample_max_per_cpu;
	skel->rodata->mirror_drop = opts->mirror_drop;
	skel->rodata->slot_buckets = buckets;
	skel->rodata->slot_tag_mask = tag_mask;
	/* Live, a frame's time is the tick's: measured here, or else the precise clock. */
	memset(&p->clock, 0, sizeof(p->clock));
	if (!opts->replay && opts->precise_clock) {
		fp_dbg("clock: --precise-clock: live times read the precise clock");
	} else if (!opts->replay) {
		err = probe_clock_measure(&p->clock);
		if (err)
			fp_dbg("clock: cannot measure the kernel's tick (%s); live times read the "
			       "precise clock",
			       fp_strerror(err));
		skel->rodata->clock_tick_ns = p->clock.tick_ns;
		skel->rodata->clock_base_ns = p->clock.base_ns;
		err = 0;
	}
	if (opts->sample_per_flow)
		err = bpf_map__set_max_entries(skel->maps.fp_samples, FP_SAMPLE_RING_BYTES);
	if (err) {
		fp_err("cannot size the sample ring: %s", fp_strerror(err));
		goto fail;
	}

	err = bpf_map__set_max_entries(skel->maps.fp_flows4, flow4)
		  ?: bpf_map__set_max_entries(skel->maps.fp_flows6, flow6)
		  ?: bpf_map__set_max_entries(skel->maps.fp_slots, buckets ? buckets : 1);
	if (err) {
		fp_err("cannot size the flow tables to %u + %u entries: %s", opts->flow_entries,
		       flow6, fp_strerror(err));
		goto fail;
	}
	/* tcx links need the attach type at load time (BPF_TCX_INGRESS/EGRESS). */
	bpf_program__set_expected_attach_type(skel->progs.fp_tc_ingress, FP_BPF_TCX_INGRESS);
	bpf_program__set_expected_attach_type(skel->progs.fp_tc_egress, FP_BPF_TCX_EGRESS);
	bpf_program__set_autoload(skel->progs.fp_xdp, opts->hooks & PROBE_HOOK_XDP);
	bpf_program__set_autoload(skel->progs.fp_tc_ingress, opts->hooks & PROBE_HOOK_TC_IN);
	bpf_program__set_autoload(skel->progs.fp_tc_egress, opts->hooks & PROBE_HOOK_TC_OUT);
	bpf_program__set_autoload(skel->progs.fp_replay,
				  opts->replay && (opts->hooks & PROBE_HOOK_REPLAY));

	err = fabprobe_bpf__load(skel);
	if (err) {
		fp_err("cannot load the BPF programs: %s (run with -v for the verifier log)",
		       fp_strerror(err));
		goto fail;
	}
	p->skel = skel;
	p->ncpus = libbpf_num_possible_cpus();
	p->flow_entries = opts->flow_entries;
	p->flow6_entries = flow6;
	p->slot_buckets = buckets;
	p->slot_tag_mask = tag_mask;
	p->slots = NULL;
	memset(&p->reclaim, 0, sizeof(p->reclaim));
	p->slots_stuck = false;
	p->replay = opts->replay;
	p->mirror_drop = opts->mirror_drop;
	p->batch_bytes = batch_capacity(p);
	if (p->ncpus < 0) {
		err = p->ncpus;
		fp_err("cannot count the possible CPUs: %s", fp_strerror(err));
		probe_destroy(p);
		return err;
	}
	err = map_slots(p);
	if (err)
		probe_destroy(p);
	return err;
fail:
	fabprobe_bpf__destroy(skel);
	return err;
}

int probe_clear(struct probe *p)
{
	int tables[] = {bpf_map__fd(p->skel->maps.fp_flows4), bpf_map__fd(p->skel->maps.fp_flows6)};
	void *zero = calloc(p->ncpus, (sizeof(struct fp_totals) + 7) & ~(size_t)7);
	struct flow_key key; /* the larger key: either table's fits */
	__u32 idx = 0;
	int err = 0;

	if (!zero)
		return -ENOMEM;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.fp_totals), &idx, zero, 0))
		err = -errno;
	free(zero);
	for (int i = 0; i < 2 && !err; i++)
		while (!err && !bpf_map_get_next_key(tables[i], NULL, &key))
			if (bpf_map_delete_elem(tables[i], &key))
				err = -errno;
	if (p->slots)
		memset(p->slots, 0, (size_t)p->slot_buckets * sizeof(*p->slots));
	memset(&p->reclaim, 0, sizeof(p->reclaim));
	return err;
}

void probe_destroy(struct probe *p)
{
	for (int i = 0; i < p->n_links; i++)
		close(p->links[i].fd);
	p->n_links = 0;
	ring_buffer__free(p->samples_rb);
	p->samples_rb = NULL;
	if (p->slots)
		munmap(p->slots, (size_t)p->slot_buckets * sizeof(*p->slots));
	p->slots = NULL;
	fabprobe_bpf__destroy(p->skel);
	p->skel = NULL;
}

/* A file of the caller's own for the program behind fd. */
static int own_fd(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int own = -1;

	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		own = bpf_prog_get_fd_by_id(info.id);
	/* That takes CAP_SYS_ADMIN; with CAP_BPF alone, a shared file will do. */
	if (own < 0)
		own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return own < 0 ? -errno : own;
}

/* What runs a replayed frame: replay's own entry point when loaded, else fp_xdp. */
static int run_prog_fd(const struct probe *p)
{
	int fd = bpf_program__fd(p->skel->progs.fp_replay);

	return fd >= 0 ? fd : bpf_program__fd(p->skel->progs.fp_xdp);
}

int probe_run_fd(const struct probe *p)
{
	return own_fd(run_prog_fd(p));
}

/* An observer: anything but XDP_PASS is a bug that would drop traffic. */
static int check_verdict(const struct probe *p, __u32 retval)
{
	if (retval != FP_XDP_PASS && !(p->mirror_drop && retval == FP_XDP_DROP))
		return -EPROTO;
	return 0;
}

int probe_run_prepared(const struct probe *p, int fd, const void *buf, __u32 len)
{
	/* The metadata is the first ctx.data bytes of data_in; the frame follows. */
	struct xdp_md ctx = {.data = sizeof(struct fp_replay_meta), .data_end = len};
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = buf, .data_size_in = len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	if (len < sizeof(struct fp_replay_meta) ||
	    len > sizeof(struct fp_replay_meta) + PROBE_FRAME_MAX)
		return -EINVAL;
	if (bpf_prog_test_run_opts(fd, &topts))
		return -errno;
	return check_verdict(p, topts.retval);
}

void probe_batch_place(struct probe_batch *b, __u8 *buf, __u32 cap)
{
	b->buf = buf;
	b->cap = cap;
	b->pos = cap > FP_BATCH_TAIL ? cap - FP_BATCH_TAIL : 0;
	b->frames = 0;
}

__u32 probe_batch_cap(const struct probe *p)
{
	return p->batch_bytes < PROBE_BATCH_BYTES ? p->batch_bytes : PROBE_BATCH_BYTES;
}

void probe_batch_reset(struct probe_batch *b, const struct probe *p)
{
	probe_batch_place(b, b->own, probe_batch_cap(p));
}

bool probe_batch_add(struct probe_batch *b, const void *frame, __u32 caplen,
		     const struct fp_replay_meta *m)
{
	struct fp_batch_rec r = {
	    .ts_ns = m->ts_ns, .path_id = m->path_id, .wire_len = m->wire_len, .cap_len = caplen};
	__u32 rec = caplen + sizeof(r);

	if (caplen < FP_BATCH_MIN_CAP || caplen > FP_BATCH_MAX_CAP ||
	    b->frames == FP_BATCH_MAX_FRAMES || b->pos < sizeof(struct fp_batch_head) + rec)
		return false;
	/* Records fill down from the tail: the frame, then its record. */
	b->pos -= rec;
	memcpy(b->buf + b->pos, frame, caplen);
	memcpy(b->buf + b->pos + caplen, &r, sizeof(r));
	b->frames++;
	return true;
}

__u32 probe_batch_seal(struct probe_batch *b, __u32 *len)
{
	__u32 at = b->pos - sizeof(struct fp_batch_head);

	*len = b->cap - at;
	memcpy(b->buf + at,
	       &(struct fp_batch_head){.magic = FP_BATCH_MAGIC, .frames = b->frames, .len = *len},
	       sizeof(struct fp_batch_head));
	return at;
}

int probe_batch_run_sealed(const struct probe *p, int fd, const void *run, __u32 len)
{
	__u32 retval = 0;
	int err = run_batch_buf(fd, run, len, &retval);

	return err ?: check_verdict(p, retval);
}

int probe_batch_run(const struct probe *p, int fd, struct probe_batch *b)
{
	__u32 at, len;

	if (!b->frames)
		return 0;
	at = probe_batch_seal(b, &len);
	b->pos = b->cap - FP_BATCH_TAIL;
	b->frames = 0;
	return probe_batch_run_sealed(p, fd, b->buf + at, len);
}

int probe_run_frame(const struct probe *p, const void *frame, __u32 caplen, __u32 wire_len,
		    __u64 ts_ns, __u32 path_id)
{
	static __thread __u8 buf[sizeof(struct fp_replay_meta) + PROBE_FRAME_MAX];
	struct fp_replay_meta meta = {.ts_ns = ts_ns, .path_id = path_id, .wire_len = wire_len};

	if (caplen > PROBE_FRAME_MAX)
		return -EINVAL;
	memcpy(buf, &meta, sizeof(meta));
	memcpy(buf + sizeof(meta), frame, caplen);
	return probe_run_prepared(p, run_prog_fd(p), buf, sizeof(meta) + caplen);
}

bool probe_is_ours(const char *prog_name)
{
	return !strcmp(prog_name, "fp_xdp");
}

int probe_iface_up(const char *ifname)
{
	struct ifreq ifr = {};
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	return !!(ifr.ifr_flags & IFF_UP);
}

static int add_link(struct probe *p, int fd, __u32 ifindex, enum probe_hooks hook, bool generic)
{
	if (p->n_links >= PROBE_MAX_LINKS) {
		close(fd);
		fp_err("too many attachments (at most %d)", PROBE_MAX_LINKS);
		return -E2BIG;
	}
	p->links[p->n_links++] =
	    (struct probe_link){.fd = fd, .ifindex = ifindex, .hook = hook, .xdp_generic = generic};
	return 0;
}

__u32 probe_xdp_owner(const char *ifname, char *name, size_t len)
{
	struct bpf_prog_info info = {};
	__u32 ifindex = if_nametoindex(ifname), id = 0, info_len = sizeof(info);
	int fd;

	if (len)
		name[0] = '\0';
	if (!ifindex || bpf_xdp_query_id(ifindex, 0, &id) || !id)
		return 0;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0) {
		if (!bpf_obj_get_info_by_fd(fd, &info, &info_len))
			snprintf(name, len, "%s", info.name);
		close(fd);
	}
	/* Its name takes CAP_SYS_ADMIN to read; the id is known. */
	if (len && !name[0])
		snprintf(name, len, "?");
	return id;
}

static int attach_xdp(struct probe *p, const char *ifname, __u32 ifindex, enum probe_xdp_mode mode)
{
	int prog_fd = bpf_program__fd(p->skel->progs.fp_xdp);
	char other[BPF_OBJ_NAME_LEN];
	__u32 other_id;
	int fd, err;

	/* Another program's XDP attachment is never replaced. */
	other_id = probe_xdp_owner(ifname, other, sizeof(other));
	if (other_id) {
		fp_err("%s already runs the XDP program '%s' (id %u%s); fabprobe will not replace "
		       "it: use --hook tc",
		       ifname, other, other_id,
		       probe_is_ours(other) ? ", another fabprobe" : ", another tool's");
		return -EBUSY;
	}
	if (mode != PROBE_XDP_GENERIC) {
		LIBBPF_OPTS(bpf_link_create_opts, native, .flags = XDP_FLAGS_DRV_MODE);

		fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &native);
		if (fd >= 0)
			return add_link(p, fd, ifindex, PROBE_HOOK_XDP, false);
		err = -errno;
		if (mode == PROBE_XDP_NATIVE) {
			fp_err("%s: cannot attach XDP in native mode: %s (try --xdp-mode generic)",
			       ifname, fp_strerror(err));
			return err;
		}
		fp_dbg("%s: native XDP failed (%s), using generic", ifname, fp_strerror(err));
	}
	{
		LIBBPF_OPTS(bpf_link_create_opts, generic, .flags = XDP_FLAGS_SKB_MODE);

		fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &generic);
	}
	if (fd < 0) {
		err = -errno;
		fp_err("%s: cannot attach XDP: %s", ifname, fp_strerror(err));
		return err;
	}
	return add_link(p, fd, ifindex, PROBE_HOOK_XDP, true);
}

/* tcx (kernel 6.6+): a link, so it goes away with the process. */
static int attach_tcx(struct probe *p, const char *ifname, __u32 ifindex, bool egress)
{
	struct bpf_program *prog =
	    egress ? p->skel->progs.fp_tc_egress : p->skel->progs.fp_tc_ingress;
	int type = egress ? FP_BPF_TCX_EGRESS : FP_BPF_TCX_INGRESS;
	int fd, err;

	fd = bpf_link_create(bpf_program__fd(prog), ifindex, type, NULL);
	if (fd < 0) {
		err = -errno;
		fp_err("%s: cannot attach tc %s (tcx needs kernel 6.6 or newer; else use --hook "
		       "xdp): %s",
		       ifname, egress ? "egress" : "ingress", fp_strerror(err));
		return err;
	}
	return add_link(p, fd, ifindex, egress ? PROBE_HOOK_TC_OUT : PROBE_HOOK_TC_IN, false);
}

void probe_detach(struct probe *p, __u32 ifindex)
{
	int n = 0;

	for (int i = 0; i < p->n_links; i++) {
		if (p->links[i].ifindex == ifindex)
			close(p->links[i].fd);
		else
			p->links[n++] = p->links[i];
	}
	p->n_links = n;
}

int probe_attach(struct probe *p, const char *ifname, unsigned int hooks,
		 enum probe_xdp_mode xdp_mode)
{
	__u32 ifindex = if_nametoindex(ifname);
	int err = 0, before = p->n_links;

	if (!ifindex) {
		fp_err("interface %s does not exist", ifname);
		return -ENODEV;
	}
	/* Up or down: a link that is down takes the hooks, counted from when it comes up. */
	if (hooks & PROBE_HOOK_XDP)
		err = attach_xdp(p, ifname, ifindex, xdp_mode);
	if (!err && (hooks & PROBE_HOOK_TC_IN))
		err = attach_tcx(p, ifname, ifindex, false);
	if (!err && (hooks & PROBE_HOOK_TC_OUT))
		err = attach_tcx(p, ifname, ifindex, true);
	/* All the hooks or none: a half-attached interface is retried whole, never leaked. */
	while (err && p->n_links > before)
		close(p->links[--p->n_links].fd);
	return err;
}
