// SPDX-License-Identifier: GPL-2.0
/*
 * sflow.c - the sFlow source (sflow.h). Datagrams come from a UDP socket
 * (recvmmsg, a sized receive buffer, the kernel's drops from SO_RXQ_OVFL)
 * or from a capture (udp_payload); both go through one decode path. There
 * is no RoCE parser here: a sampled header is only given an Ethernet
 * header when it lacks one (pcap.c's adapter) and run through the probe.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "probe/collect.h"
#include "probe/runpool.h"
#include "probe/samples.h"
#include "source/pcap.h"
#include "source/shard.h"
#include "source/sflow.h"
#include "source/sflow_decode.h"
#include "source/sflow_ports.h"
#include "source/sflow_seq.h"
#include "source/udp_payload.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

#define RX_BATCH    64
#define RX_BUF	    65536 /* a UDP payload's most: nothing is cut */
#define SEQ_STREAMS 4096  /* (agent, sub-agent) pairs whose loss is tracked */
#define ETH_HLEN_   14
#define BUDGET_NS   250000000ULL
#define POLL_MAX_MS 100
#define DRAIN_EVERY 1024 /* samples between drains of the probe's sample ring */
/*
 * No frame is longer than the largest IP packet (IPv6: a 40-byte header and
 * a 16-bit payload length; IPv4's total length is 16 bits) in Ethernet with
 * two VLAN tags and its FCS (sFlow v5's frame_length counts the FCS). The
 * largest jumbo frames switches take are about 9-16 KB.
 */
#define FRAME_LENGTH_MAX (40 + 65535 + 14 + 2 * 4 + 4)
#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

struct sflow_src {
	struct source base;
	struct sflow_opts o;
	struct probe probe;
	struct runpool *pool;
	struct sflow_ports ports;
	struct sflow_seq_track seq;
	struct sflow_stats stats;
	struct sflow_visitor visitor;
	__u8 *frame;
	__u64 now_ns; /* the datagram being decoded: arrival or capture time */
	__u64 headers_run, skipped, socket_drops;
	/* Of skipped, those neither too short nor too long: said apart (replay's line). */
	__u64 skipped_protocol, skipped_untracked;
	__u64 malformed_samples;
	bool said_saturated;
	int err; /* the first error a callback met */
	/* listener */
	int fd;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	__u8 *rx;
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iov[RX_BATCH];
	char ctrl[RX_BATCH][CMSG_SPACE(sizeof(__u32))];
	__u64 started_ns;
	/* capture */
	pcap_t *pcap;
	char *iobuf; /* capture_open()'s */
	int dlt;
	__u64 t0_ns, clock_ns, frames;
	/* UDP datagrams to other ports, and how many went to each (allocated at the first). */
	__u64 udp_other;
	__u32 *other_ports;
	bool have_t0, ended, damaged;
	/*
	 * The notes since the last refresh, joined (a refresh shows one
	 * event): event_body's, and how many more did not fit.
	 */
	char event[512];
	char event_body[440];
	unsigned int event_seq, event_more;
	bool event_fresh; /* the next note starts the next refresh's event */
};

#define SFS(s) ((struct sflow_src *)(s))

void sflow_opts_init(struct sflow_opts *o)
{
	struct probe_opts defaults = PROBE_OPTS_DEFAULT;

	memset(o, 0, sizeof(*o));
	o->popts = defaults;
	o->popts.replay = true; /* time, wire length and point come from each sample */
	/* The point is the sample's output port: its flows leave the switch by it. */
	o->popts.replay_egress = true;
	o->popts.hooks = PROBE_HOOK_REPLAY;
	o->capture_port = SFLOW_DEFAULT_PORT;
	o->rcvbuf_bytes = SFLOW_RCVBUF_DEFAULT;
}

int sflow_parse_listen(const char *opt, const char *arg, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char host[64] = SFLOW_DEFAULT_BIND;
	const char *port = arg, *colon = strrchr(arg, ':');
	struct stat st;
	__u16 p;

	memset(ss, 0, sizeof(*ss));
	/*
	 * A capture of datagrams, given where top, capture and export listen.
	 * A bare number is a port, whatever file of that name is here.
	 */
	if (arg[strspn(arg, "0123456789")] && stat(arg, &st) == 0 && S_ISREG(st.st_mode)) {
		fp_err("%s: '%s' is a file: here --sflow listens on [ADDR:]PORT; fabprobe replay "
		       "--sflow FILE reads a capture of sFlow datagrams",
		       opt, arg);
		return -EINVAL;
	}
	/* An address without its port, or IPv6 without brackets: say which. */
	if ((arg[0] == '[' && !strstr(arg, "]:")) ||
	    (!colon && inet_pton(AF_INET, arg, &v4->sin_addr) == 1)) {
		fp_err("%s: '%s' needs a port: [ADDR:]PORT (IPv6: [ADDR]:PORT)", opt, arg);
		return -EINVAL;
	}
	if (arg[0] != '[' && colon && strchr(arg, ':') != colon) {
		fp_err("%s: '%s': an IPv6 address goes in brackets, [ADDR]:PORT", opt, arg);
		return -EINVAL;
	}
	if (colon) {
		const char *h = arg;
		size_t n = colon - arg;

		if (arg[0] == '[' && n >= 2 && arg[n - 1] == ']') {
			h++;
			n -= 2;
		}
		if (!n || n >= sizeof(host)) {
			fp_err("%s: '%s' is not [ADDR:]PORT", opt, arg);
			return -EINVAL;
		}
		memcpy(host, h, n);
		host[n] = 0;
		port = colon + 1;
	}
	if (opt_parse_port(opt, port, &p))
		return -EINVAL;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		*len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		*len = sizeof(*v6);
	} else {
		fp_err("%s: '%s' is not an IPv4 or IPv6 address", opt, host);
		return -EINVAL;
	}
	return 0;
}

static void note(struct sflow_src *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct sflow_src *fs, const char *fmt, ...)
{
	size_t used = fs->event_fresh ? 0 : strlen(fs->event_body);
	char text[sizeof(fs->event_body)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (fs->event_fresh || !fs->event_seq) {
		fs->event_fresh = false;
		fs->event_more = 0;
		snprintf(fs->event_body, sizeof(fs->event_body), "%s", text);
	} else if (used + 2 + strlen(text) < sizeof(fs->event_body)) {
		/* One "sFlow: " at the front of the line is enough. */
		bool again = !strncmp(text, "sFlow: ", 7);

		snprintf(fs->event_body + used, sizeof(fs->event_body) - used, "; %s",
			 text + (again ? 7 : 0));
	} else {
		fs->event_more++;
	}
	if (fs->event_more)
		snprintf(fs->event, sizeof(fs->event),
			 "%s (and %u more: the sflow_* totals count them)", fs->event_body,
			 fs->event_more);
	else
		snprintf(fs->event, sizeof(fs->event), "%s", fs->event_body);
	fs->event_seq++;
}

/* --- decoding: the visitor's callbacks --- */

static const char *agent_str(const struct sflow_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->bytes, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

/* Said at the 1st, 2nd, 4th, 8th...: a corrupted stream does not flood the events. */
static bool say_nth(__u64 n)
{
	return n && !(n & (n - 1));
}

static void on_datagram(void *ctx, const struct sflow_datagram *d)
{
	struct sflow_src *fs = ctx;
	const struct sflow_seq_stream *st;
	__u64 resets = fs->seq.restarts + fs->seq.jumps;
	__u32 last = 0, lost;
	char agent[INET6_ADDRSTRLEN];

	st = sflow_seq_find(&fs->seq, &d->agent, d->sub_agent_id);
	if (st)
		last = st->last;
	lost = sflow_seq_update(&fs->seq, &d->agent, d->sub_agent_id, d->sequence);
	if (fs->seq.restarts + fs->seq.jumps == resets || !say_nth(resets + 1))
		return;
	agent_str(&d->agent, agent, sizeof(agent));
	/* A restart at a small sequence: the datagrams since the restart are lost. */
	if (lost)
		note(fs,
		     "sFlow: agent %s sub-agent %u: sequence %u after %u, a restart; its %u "
		     "datagrams before %u lost (sflow_sequence_resets: %llu)",
		     agent, d->sub_agent_id, d->sequence, last, lost, d->sequence,
		     (unsigned long long)(resets + 1));
	else
		note(fs,
		     "sFlow: agent %s sub-agent %u: sequence %u after %u, a restart or a reset, "
		     "not loss (sflow_sequence_resets: %llu)",
		     agent, d->sub_agent_id, d->sequence, last, (unsigned long long)(resets + 1));
}

/* sFlow v5 samples 1 in sampling_rate packets: 0 samples nothing. */
static bool sample_is_malformed(struct sflow_src *fs, const struct sflow_flow_sample *s,
				const struct sflow_sampled_header *h)
{
	char agent[INET6_ADDRSTRLEN];

	if (s->sampling_rate && h->frame_length <= FRAME_LENGTH_MAX)
		return false;
	if (say_nth(++fs->malformed_samples))
		note(fs,
		     "sFlow: agent %s: a flow sample of sampling rate %u, frame length %u refused "
		     "(sflow_malformed_samples: %llu)",
		     agent_str(&s->datagram->agent, agent, sizeof(agent)), s->sampling_rate,
		     h->frame_length, (unsigned long long)fs->malformed_samples);
	return true;
}

static void on_sampled_header(void *ctx, const struct sflow_flow_sample *s,
			      const struct sflow_sampled_header *h)
{
	struct sflow_src *fs = ctx;
	int dlt = h->protocol == SFLOW_HEADER_ETHERNET ? DLT_EN10MB
		  : h->protocol == SFLOW_HEADER_IPV4   ? DLT_IPV4
		  : h->protocol == SFLOW_HEADER_IPV6   ? DLT_IPV6
						       : -1;
	__u32 orig = h->frame_length > h->stripped ? h->frame_length - h->stripped : 0;
	size_t len;
	__u32 id, wire;
	int err;

	if (sample_is_malformed(fs, s, h))
		return;
	len = dlt < 0 ? 0
		      : replay_to_ethernet(dlt, h->header, h->header_length, fs->frame,
					   PROBE_FRAME_MAX);
	id = sflow_ports_rate_id(&fs->ports, &s->datagram->agent, &s->output, s->sampling_rate);
	if (len < ETH_HLEN_ || !id || fs->err) {
		fs->skipped++;
		if (dlt < 0)
			fs->skipped_protocol++;
		else if (!id)
			fs->skipped_untracked++;
		return;
	}
	/* On the wire it was orig bytes, the header plus what the agent did not copy. */
	wire = orig > h->header_length ? orig - h->header_length + (__u32)len : (__u32)len;
	err = shard_submit(fs->pool, fs->frame, (__u32)len, wire, fs->now_ns, id, fs->headers_run);
	if (err) {
		fp_err("sFlow: BPF_PROG_TEST_RUN failed: %s", fp_strerror(err));
		fs->err = err;
		return;
	}
	if (++fs->headers_run % DRAIN_EVERY == 0)
		samples_poll(&fs->probe, 0);
}

static void on_if_counters(void *ctx, const struct sflow_counter_sample *s,
			   const struct sflow_if_counters *c)
{
	struct sflow_src *fs = ctx;

	sflow_ports_counters(&fs->ports, &s->datagram->agent, s->datagram->uptime_ms, c);
}

static void on_port_name(void *ctx, const struct sflow_counter_sample *s,
			 const struct sflow_port_name *n)
{
	struct sflow_src *fs = ctx;

	/* A counter sample's data source is the port (class 0: ifIndex). */
	if (s->source.type == 0)
		sflow_ports_port_name(&fs->ports, &s->datagram->agent, s->source.index, n->name,
				      n->length);
}

static void decode(struct sflow_src *fs, const void *data, size_t len, __u64 ts_ns)
{
	fs->now_ns = ts_ns;
	sflow_decode(data, len, &fs->visitor, fs, &fs->stats);
}

/* --- the listener --- */

static int open_socket(struct sflow_src *fs)
{
	int one = 1, got = 0, want = (int)fs->o.rcvbuf_bytes;
	socklen_t gl = sizeof(got);
	char where[80];

	snprintf(where, sizeof(where), "%s", fs->o.listen);
	fs->fd = socket(fs->addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fs->fd < 0) {
		fp_err("sFlow: cannot open a UDP socket: %s", strerror(errno));
		return -errno;
	}
	/* FORCE passes net.core.rmem_max (CAP_NET_ADMIN, which loading BPF needs anyway). */
	if (setsockopt(fs->fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)))
		setsockopt(fs->fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	getsockopt(fs->fd, SOL_SOCKET, SO_RCVBUF, &got, &gl);
	/* The kernel reports twice what it grants (bookkeeping overhead included). */
	if (got / 2 < want)
		note(fs,
		     "sFlow: receive buffer capped at %d bytes (asked %d): raise "
		     "net.core.rmem_max, or datagrams may be dropped at bursts",
		     got / 2, want);
	if (setsockopt(fs->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)))
		fp_dbg("sFlow: SO_RXQ_OVFL not available: %s", strerror(errno));
	if (bind(fs->fd, (struct sockaddr *)&fs->addr, fs->addr_len)) {
		int err = -errno;

		fp_err("sFlow: cannot listen on %s: %s", where, strerror(errno));
		return err;
	}
	fs->rx = malloc((size_t)RX_BATCH * RX_BUF);
	if (!fs->rx)
		return -ENOMEM;
	for (int i = 0; i < RX_BATCH; i++) {
		fs->iov[i] =
		    (struct iovec){.iov_base = fs->rx + (size_t)i * RX_BUF, .iov_len = RX_BUF};
		fs->msgs[i].msg_hdr.msg_iov = &fs->iov[i];
		fs->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	fs->started_ns = fp_mono_ns();
	return 0;
}

/* The socket's drop count the kernel attached (SO_RXQ_OVFL: cumulative). */
static void note_drops(struct sflow_src *fs, struct msghdr *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		__u32 drops;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL)
			continue;
		memcpy(&drops, CMSG_DATA(c), sizeof(drops));
		if (drops > fs->socket_drops)
			fs->socket_drops = drops;
	}
}

/* Read what is queued, a batch at a time; the number of datagrams, or -errno. */
static int drain_socket(struct sflow_src *fs)
{
	int total = 0;

	for (;;) {
		__u64 now;
		int n;

		for (int i = 0; i < RX_BATCH; i++) {
			fs->msgs[i].msg_hdr.msg_control = fs->ctrl[i];
			fs->msgs[i].msg_hdr.msg_controllen = sizeof(fs->ctrl[i]);
			fs->msgs[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(fs->fd, fs->msgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? total
											 : -errno;
		now = fp_mono_ns();
		for (int i = 0; i < n && !fs->err; i++) {
			note_drops(fs, &fs->msgs[i].msg_hdr);
			decode(fs, fs->iov[i].iov_base, fs->msgs[i].msg_len, now);
		}
		total += n;
		if (fs->err)
			return fs->err;
		if (n < RX_BATCH || fp_stopping)
			return total;
	}
}

static int advance_socket(struct sflow_src *fs, double seconds)
{
	__u64 until = fp_mono_ns() + (__u64)(seconds * 1e9);

	for (;;) {
		struct pollfd p = {.fd = fs->fd, .events = POLLIN};
		int err = drain_socket(fs), ms;
		__u64 now = fp_mono_ns();

		if (err < 0) {
			fp_err("sFlow: receive failed: %s", strerror(-err));
			return err;
		}
		samples_poll(&fs->probe, 0);
		if (fp_stopping || now >= until)
			return 0;
		ms = (until - now) / 1000000 + 1;
		poll(&p, 1, ms < POLL_MAX_MS ? ms : POLL_MAX_MS);
	}
}

/* --- the capture --- */

static int open_capture(struct sflow_src *fs)
{
	char errbuf[PCAP_ERRBUF_SIZE];

	fs->pcap = capture_open(fs->o.capture, &fs->iobuf, errbuf);
	if (!fs->pcap) {
		fp_err("%s: cannot read capture: %s", fs->o.capture, errbuf);
		return -EINVAL;
	}
	fs->dlt = pcap_datalink(fs->pcap);
	return 0;
}

/* Read datagrams to the sFlow port up to target ns of capture time; 1 at the end. */
static int advance_capture(struct sflow_src *fs, double seconds)
{
	/* In the capture's own time: offsets grow when its start moves back. */
	__u64 target_ts = isinf(seconds) || seconds > 1e9
			      ? UINT64_MAX
			      : fs->t0_ns + fs->clock_ns + (__u64)(seconds * 1e9);
	__u64 budget_end = fp_mono_ns() + BUDGET_NS;
	struct pcap_pkthdr *hdr;
	const __u8 *data;
	int rc;

	if (fs->ended)
		return 1;
	while ((rc = pcap_next_ex(fs->pcap, &hdr, &data)) == 1) {
		__u64 ts = capture_ts_ns(hdr), off;
		struct udp_datagram u;

		if (!fs->have_t0) {
			fs->t0_ns = ts;
			fs->have_t0 = true;
		}
		fs->clock_ns += capture_start_back(&fs->t0_ns, ts);
		off = ts - fs->t0_ns;
		if (off > fs->clock_ns)
			fs->clock_ns = off;
		fs->frames++;
		if (udp_payload(fs->dlt, data, hdr->caplen, &u) != UDP_PAYLOAD_OK) {
		} else if (u.dport == fs->o.capture_port) {
			decode(fs, u.payload, u.len, ts);
		} else {
			fs->udp_other++;
			if (!fs->other_ports)
				fs->other_ports = calloc(65536, sizeof(*fs->other_ports));
			if (fs->other_ports)
				fs->other_ports[u.dport]++;
		}
		if (fs->err)
			return fs->err;
		if (fs->t0_ns + fs->clock_ns > target_ts || fp_stopping ||
		    (fs->frames % DRAIN_EVERY == 0 && fp_mono_ns() > budget_end)) {
			samples_poll(&fs->probe, 0);
			return 0;
		}
	}
	samples_poll(&fs->probe, 0);
	if (rc == PCAP_ERROR) {
		char why[sizeof(fs->event)];

		capture_damage(why, sizeof(why), fs->o.capture, (unsigned long long)fs->frames,
			       fs->pcap);
		note(fs, "%s", why);
		fs->damaged = true;
	} else if (!fs->stats.datagrams && !fs->stats.malformed) {
		unsigned int most = 0;

		/* An empty report alone would read as a quiet fabric. */
		for (unsigned int p = 1; fs->other_ports && p < 65536; p++)
			if (fs->other_ports[p] > fs->other_ports[most])
				most = p;
		if (fs->udp_other)
			note(fs,
			     "%s: no datagram to UDP port %u in %llu frames (%llu UDP to other "
			     "ports, most to %u): --sflow-port names the agents' port",
			     fs->o.capture, fs->o.capture_port, (unsigned long long)fs->frames,
			     (unsigned long long)fs->udp_other, most);
		else
			note(fs, "%s: no UDP datagram in %llu frames: no sFlow to read",
			     fs->o.capture, (unsigned long long)fs->frames);
	}
	fs->ended = true;
	return 1;
}

/* --- the source operations --- */

static int read_port_map(struct sflow_ports *t, const char *path)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f) {
		err = -errno;
		fp_err("--sflow-port-map: cannot read %s: %s", path, strerror(errno));
		return err;
	}
	err = sflow_ports_read_map(t, f, path);
	fclose(f);
	return err;
}

int sflow_check_port_map(const char *path)
{
	struct sflow_ports t;
	int err = sflow_ports_init(&t);

	if (err) {
		fp_err("out of memory");
		return err;
	}
	err = read_port_map(&t, path);
	sflow_ports_free(&t);
	return err;
}

static int sflow_start(struct source *s)
{
	struct sflow_src *fs = SFS(s);
	int err;

	if (sflow_ports_init(&fs->ports) || sflow_seq_init(&fs->seq, SEQ_STREAMS) ||
	    !(fs->frame = malloc(PROBE_FRAME_MAX))) {
		fp_err("out of memory");
		return -ENOMEM;
	}
	if (fs->o.port_map) {
		err = read_port_map(&fs->ports, fs->o.port_map);
		if (err)
			return err;
	}
	/* Listen before loading BPF: what arrives meanwhile waits in the socket's buffer. */
	if (fs->o.capture)
		err = open_capture(fs);
	else
		err = sflow_parse_listen("--sflow", fs->o.listen, &fs->addr, &fs->addr_len)
			  ?: open_socket(fs);
	if (err)
		return err;
	err = probe_load(&fs->probe, &fs->o.popts);
	if (err)
		return err;
	s->probe = &fs->probe;
	fs->pool = runpool_new(&fs->probe, fs->o.threads);
	if (!fs->pool) {
		err = -errno;
		fp_err("cannot start the sFlow threads: %s", fp_strerror(err));
		return err;
	}
	return 0;
}

static int sflow_advance(struct source *s, double seconds)
{
	struct sflow_src *fs = SFS(s);

	return fs->o.capture ? advance_capture(fs, seconds) : advance_socket(fs, seconds);
}

static int sflow_collect(struct source *s, struct snapshot *snap)
{
	struct sflow_src *fs = SFS(s);
	__u64 *t = snap->totals;
	int err = runpool_drain(fs->pool);

	if (err && !fs->err) {
		fp_err("sFlow: BPF_PROG_TEST_RUN failed: %s", fp_strerror(err));
		fs->err = err;
	}
	if (!err)
		err = collect_snapshot(&fs->probe, snap);
	if (!err)
		err = sflow_ports_scale(&fs->ports, snap);
	if (err)
		return err;
	if (fs->ports.saturated && !fs->said_saturated) {
		fs->said_saturated = true;
		note(fs,
		     "sFlow: %zu flows' estimates reached 2^64 - 1 and are held there (sampling "
		     "rates near 2^32?)",
		     fs->ports.saturated);
	}
	if (fs->o.capture) {
		snap->taken_ns = fs->t0_ns + fs->clock_ns;
		snap->clock_offset_ns = 0;
	} else {
		/* Samples carry CLOCK_MONOTONIC arrival times, as live flows do. */
		snap->clock_offset_ns = (__s64)(fp_real_ns() - snap->taken_ns);
	}
	t[SNAP_CNT_SKIPPED] = fs->skipped + runpool_refused(fs->pool);
	t[SNAP_CNT_SFLOW_DATAGRAMS] = fs->stats.datagrams;
	t[SNAP_CNT_SFLOW_SAMPLES] = fs->stats.flow_samples + fs->stats.flow_samples_expanded +
				    fs->stats.counter_samples + fs->stats.counter_samples_expanded +
				    fs->stats.other_samples;
	t[SNAP_CNT_SFLOW_LOST] = fs->seq.lost;
	t[SNAP_CNT_SFLOW_SEQ_RESETS] = fs->seq.restarts + fs->seq.jumps;
	t[SNAP_CNT_SFLOW_MALFORMED] = fs->stats.malformed;
	t[SNAP_CNT_SFLOW_MALFORMED_SAMPLES] = fs->malformed_samples;
	t[SNAP_CNT_SFLOW_SOCKET_DROPS] = fs->socket_drops;
	t[SNAP_CNT_SFLOW_OTHER_PROTO] = fs->skipped_protocol;
	t[SNAP_CNT_SFLOW_UNTRACKED] = fs->skipped_untracked;
	/* This refresh's describe() shows the notes so far; the next note starts afresh. */
	fs->event_fresh = true;
	return 0;
}

static void sflow_describe(const struct source *s, struct source_desc *d)
{
	const struct sflow_src *fs = (const struct sflow_src *)s;
	size_t agents = 0;

	memset(d, 0, sizeof(*d));
	d->mode = fs->o.capture ? "replay" : "live";
	d->points = fs->ports.points;
	d->n_points = fs->ports.n_points;
	d->every_packet = false;
	d->finite = fs->o.capture != NULL;
	d->ended = fs->ended;
	d->damaged = fs->damaged;
	d->frames = fs->o.capture ? fs->frames : fs->stats.datagrams + fs->stats.malformed;
	agents = fs->seq.streams;
	if (fs->o.capture) {
		d->clock_s = fs->clock_ns / 1e9;
		d->span_s = fs->ended ? d->clock_s : 0;
		snprintf(d->what, sizeof(d->what), "sFlow in %s (UDP port %u)", fs->o.capture,
			 fs->o.capture_port);
		snprintf(d->how, sizeof(d->how), "sFlow capture, %zu agent%s%s", agents,
			 agents == 1 ? "" : "s", fs->ended ? ", ended" : "");
	} else {
		d->clock_s = fs->started_ns ? (fp_mono_ns() - fs->started_ns) / 1e9 : 0;
		snprintf(d->what, sizeof(d->what), "sFlow on %s", fs->o.listen);
		snprintf(d->how, sizeof(d->how), "sFlow listener, %zu agent%s", agents,
			 agents == 1 ? "" : "s");
	}
	snprintf(d->event, sizeof(d->event), "%s", fs->event);
	d->event_seq = fs->event_seq;
}

static void sflow_destroy(struct source *s)
{
	struct sflow_src *fs = SFS(s);

	runpool_free(fs->pool);
	probe_destroy(&fs->probe);
	if (fs->fd >= 0)
		close(fs->fd);
	capture_close(fs->pcap, fs->iobuf);
	free(fs->other_ports);
	sflow_ports_free(&fs->ports);
	sflow_seq_free(&fs->seq);
	free(fs->frame);
	free(fs->rx);
	free(fs);
}

static const struct source_ops sflow_ops = {
    .start = sflow_start,
    .advance = sflow_advance,
    .collect = sflow_collect,
    .describe = sflow_describe,
    .destroy = sflow_destroy,
};

struct source *sflow_source_new(const struct sflow_opts *o)
{
	struct sflow_src *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	fs->base.ops = &sflow_ops;
	fs->o = *o;
	fs->fd = -1;
	fs->visitor = (struct sflow_visitor){
	    .datagram = on_datagram,
	    .sampled_header = on_sampled_header,
	    .if_counters = on_if_counters,
	    .port_name = on_port_name,
	};
	return &fs->base;
}
