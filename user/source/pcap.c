// SPDX-License-Identifier: GPL-2.0
/*
 * pcap.c - the recording source. There is no parser here: libpcap hands
 * over frames, only the link-layer framing is adapted to Ethernet, and
 * every frame runs through the probe's XDP program like a frame on a wire.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "probe/collect.h"
#include "probe/runpool.h"
#include "probe/samples.h"
#include "source/pcap.h"
#include "source/shard.h"
#include "util/log.h"
#include "util/stop.h"

/* Ethernet header the adapters prepend to cooked and raw-IP frames. */
#define ETH_HLEN_ 14
/* As fast as it reads: hand control back this often, so front ends show progress. */
#define BUDGET_NS 250000000ULL
/* Drain the sample ring this often while frames run. */
#define SAMPLE_DRAIN_FRAMES 1024

struct pcap_file {
	const char *path;
	pcap_t *pcap;
	char *iobuf; /* capture_open()'s */
	int dlt;
	__u32 point_id; /* flow_key.ifindex of its flows (--path), else 0 */
	struct pcap_pkthdr *hdr;
	const __u8 *data;
	__u64 ts_ns;
	__u64 index;  /* frames read */
	__u64 size;   /* bytes, when a regular file; else 0 */
	bool pending; /* hdr/data hold the next frame */
	bool done;
};

struct pcap_source {
	struct source base;
	struct pcap_opts o;
	struct probe probe;
	struct runpool *pool;
	struct pcap_file files[PCAP_MAX_FILES];
	int n_files;
	struct obs_point points[PCAP_MAX_FILES];
	int n_points;
	__u8 *frame;
	__u64 t0_ns;	/* the earliest frame's timestamp */
	__u64 clock_ns; /* capture time reached, since t0 */
	__u64 last_ns;	/* latest frame's offset */
	__u64 wall0_ns; /* paced: the wall time capture time 0 corresponds to */
	__u64 frames;	/* frames read */
	__u64 skipped;	/* frames the kernel would not run */
	bool have_t0;
	bool ended;
	bool stopped; /* a read was interrupted by a stop: not the capture's end */
	/* BUDGET_NS; FABPROBE_TEST_PCAP_BUDGET (a test hook): none, back every 1024 frames. */
	__u64 budget_ns;
	bool damaged;
	char event[256];
	unsigned int event_seq;
};

#define PCAPS(s) ((struct pcap_source *)(s))

void pcap_opts_init(struct pcap_opts *o)
{
	struct probe_opts defaults = PROBE_OPTS_DEFAULT;

	memset(o, 0, sizeof(*o));
	o->popts = defaults;
	o->popts.replay = true;
	o->popts.hooks = PROBE_HOOK_REPLAY;
	o->speed = 1;
}

/*
 * The compressor a file's first bytes name, NULL for none known. Read in
 * place (pread): a pipe or a FIFO is never taken for compressed.
 */
static const char *compressed_as(int fd)
{
	static const struct {
		const char *name;
		size_t len;
		__u8 magic[6];
	} kinds[] = {
	    {"gzip", 2, {0x1f, 0x8b}},
	    {"zstd", 4, {0x28, 0xb5, 0x2f, 0xfd}},
	    {"xz", 6, {0xfd, '7', 'z', 'X', 'Z', 0}},
	    {"bzip2", 3, {'B', 'Z', 'h'}},
	    {"lz4", 4, {0x04, 0x22, 0x4d, 0x18}},
	};
	__u8 head[6];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (n >= (ssize_t)kinds[i].len && !memcmp(head, kinds[i].magic, kinds[i].len))
			return kinds[i].name;
	return NULL;
}

static ssize_t gz_read(void *gz, char *buf, size_t size)
{
	int n = gzread(gz, buf, size > 1u << 30 ? 1u << 30 : (unsigned int)size), zerr = Z_OK;

	/*
	 * libpcap says a read error with errno: the file's, else bad data ("Bad
	 * message"). A gzip stream cut before its end (its trailer, CRC and
	 * length, among what is missing) reads to 0 with Z_BUF_ERROR: cut
	 * short, not the end of the capture, even where the records it held
	 * end whole.
	 */
	if (n <= 0)
		gzerror(gz, &zerr);
	if (n == 0 && zerr == Z_BUF_ERROR)
		n = -1;
	if (n < 0 && zerr != Z_ERRNO)
		errno = EBADMSG;
	return n;
}

static int gz_close(void *gz)
{
	return gzclose(gz) == Z_OK ? 0 : EOF;
}

/*
 * fp's file, gzip-compressed, as a stream of what it holds, or NULL
 * (errno set). fp is closed either way. Such a stream has no position:
 * the progress line has no percentage for it.
 */
static FILE *gunzip_stream(FILE *fp)
{
	static const cookie_io_functions_t io = {.read = gz_read, .close = gz_close};
	int fd = dup(fileno(fp)), err = errno;
	gzFile gz;
	FILE *out;

	fclose(fp);
	if (fd < 0) {
		errno = err;
		return NULL;
	}
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		errno = ENOMEM; /* its only failure with a valid fd and mode */
		return NULL;
	}
	gzbuffer(gz, 1 << 17); /* zlib reads 8 KiB at a time otherwise */
	out = fopencookie(gz, "rb", io);
	if (!out) {
		err = errno;
		gzclose(gz);
		errno = err;
	}
	return out;
}

pcap_t *capture_open(const char *path, char **iobuf, char *errbuf)
{
	const char *packed;
	FILE *fp;
	pcap_t *p;

	*iobuf = NULL;
	if (!strcmp(path, "-"))
		return pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
							       errbuf);
	fp = fopen(path, "rb");
	if (!fp) {
		/* The callers name the path. */
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	/* Read as tshark reads it: gzip as it is; another compressor named, not "unknown". */
	packed = compressed_as(fileno(fp));
	if (packed && strcmp(packed, "gzip")) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE,
			 "compressed with %s, which fabprobe does not read: decompress it first",
			 packed);
		fclose(fp);
		return NULL;
	}
	if (packed) {
		fp = gunzip_stream(fp);
		if (!fp) {
			snprintf(errbuf, PCAP_ERRBUF_SIZE, "gzip: %s", strerror(errno));
			return NULL;
		}
	}
	*iobuf = malloc(CAPTURE_IOBUF);
	if (*iobuf)
		setvbuf(fp, *iobuf, _IOFBF, CAPTURE_IOBUF);
	p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fclose(fp);
		free(*iobuf);
		*iobuf = NULL;
	}
	return p;
}

void capture_close(pcap_t *p, char *iobuf)
{
	if (p)
		pcap_close(p); /* fcloses the file: then its buffer may go */
	free(iobuf);
}

static int open_file(struct pcap_file *f)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct stat st;

	f->pcap = capture_open(f->path, &f->iobuf, errbuf);
	if (!f->pcap) {
		fp_err("%s: cannot read capture: %s", f->path, errbuf);
		return -EINVAL;
	}
	if (!fstat(fileno(pcap_file(f->pcap)), &st) && S_ISREG(st.st_mode))
		f->size = st.st_size;
	f->dlt = pcap_datalink(f->pcap);
	switch (f->dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
	default:
		fp_err("%s: unsupported link type %s (%d); fabprobe reads Ethernet, Linux cooked "
		       "and raw IP captures",
		       f->path, pcap_datalink_val_to_name(f->dlt) ?: "unknown", f->dlt);
		return -ENOTSUP;
	}
}

/*
 * Present a frame as Ethernet, which is what the XDP program sees on a
 * real interface. Only the link header changes; the IP packet is untouched.
 * Returns the Ethernet frame length, or 0 when there is no frame to run.
 */
size_t replay_to_ethernet(int dlt, const __u8 *in, size_t caplen, __u8 *out, size_t out_len)
{
	size_t hdr = 0;
	__u16 proto = 0;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen > out_len)
			return 0;
		memcpy(out, in, caplen);
		return caplen;
	case DLT_LINUX_SLL: /* 16 bytes, protocol at offset 14 */
		if (caplen < 16)
			return 0;
		hdr = 16;
		proto = (__u16)in[14] << 8 | in[15];
		break;
	case DLT_LINUX_SLL2: /* 20 bytes, protocol at offset 0 */
		if (caplen < 20)
			return 0;
		hdr = 20;
		proto = (__u16)in[0] << 8 | in[1];
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (caplen < 1)
			return 0;
		proto = (in[0] >> 4) == 6 ? 0x86DD : 0x0800;
		break;
	default:
		return 0;
	}
	if (caplen - hdr + ETH_HLEN_ > out_len)
		return 0;
	memset(out, 0, 12);
	out[12] = proto >> 8;
	out[13] = proto & 0xff;
	memcpy(out + ETH_HLEN_, in + hdr, caplen - hdr);
	return caplen - hdr + ETH_HLEN_;
}

void capture_damage(char *buf, size_t len, const char *path, unsigned long long index, pcap_t *p)
{
	const char *why = pcap_geterr(p);

	/* A valid pcapng libpcap cannot read on: say what it is, not "corrupt". */
	if (strstr(why, "different from the type of the first interface"))
		snprintf(buf, len,
			 "%s: after frame %llu an interface of another link type starts, which "
			 "libpcap cannot read in one file: split the capture by interface "
			 "(tshark -r FILE -Y 'frame.interface_id == N' -w PART)",
			 path, index);
	else
		snprintf(buf, len, "%s: capture cut short or corrupt after frame %llu: %s", path,
			 index, why);
}

__u64 capture_ts_ns(const struct pcap_pkthdr *h)
{
	__u64 sec = h->ts.tv_sec < 0 ? (__u32)h->ts.tv_sec : (__u64)h->ts.tv_sec;

	return sec * 1000000000ULL + h->ts.tv_usec;
}

__u64 capture_start_back(__u64 *t0_ns, __u64 ts_ns)
{
	__u64 back = ts_ns < *t0_ns ? *t0_ns - ts_ns : 0;

	*t0_ns -= back;
	return back;
}

static void damaged(struct pcap_source *ps, struct pcap_file *f)
{
	capture_damage(ps->event, sizeof(ps->event), f->path, (unsigned long long)f->index,
		       f->pcap);
	ps->event_seq++;
	ps->damaged = true;
}

/* Read a file's next frame into its pending slot; a damaged file ends there. */
static void next_frame(struct pcap_source *ps, struct pcap_file *f)
{
	int rc = pcap_next_ex(f->pcap, &f->hdr, &f->data);

	f->pending = rc == 1;
	if (rc == 1) {
		f->ts_ns = capture_ts_ns(f->hdr);
		f->index++;
		return;
	}
	f->done = true;
	/* A read a stop interrupted (a FIFO, a slow disk) is no damage: the run was stopped. */
	if (rc == PCAP_ERROR && fp_stopping)
		ps->stopped = true;
	else if (rc == PCAP_ERROR)
		damaged(ps, f);
}

static int read_ahead(struct pcap_source *ps);

static int pcap_start(struct source *s)
{
	struct pcap_source *ps = PCAPS(s);
	int err;

	for (int i = 0; i < ps->o.n_files; i++) {
		struct pcap_file *f = &ps->files[ps->n_files++];

		f->path = ps->o.files[i].path;
		err = open_file(f);
		if (err)
			return err;
		if (ps->o.files[i].name[0]) {
			struct obs_point *pt = &ps->points[ps->n_points++];

			f->point_id = ps->n_points;
			pt->id = f->point_id;
			snprintf(pt->name, sizeof(pt->name), "%s", ps->o.files[i].name);
			pt->uplink = true;
		}
	}
	ps->frame = malloc(PROBE_FRAME_MAX);
	if (!ps->frame) {
		fp_err("out of memory");
		return -ENOMEM;
	}
	/* The pool's first worker loads the program; the probe is the pool's until then. */
	ps->pool = runpool_new_loading(&ps->probe, &ps->o.popts, ps->o.threads);
	if (!ps->pool) {
		err = -errno;
		fp_err("cannot start the replay threads: %s", fp_strerror(err));
		return err;
	}
	for (int i = 0; i < ps->n_files; i++) {
		struct pcap_file *f = &ps->files[i];

		next_frame(ps, f);
		if (f->pending && (!ps->have_t0 || f->ts_ns < ps->t0_ns)) {
			ps->t0_ns = f->ts_ns;
			ps->have_t0 = true;
		}
	}
	/* Reading ahead pays where another CPU runs the verifier meanwhile. */
	err = ps->o.read_ahead && runpool_cpus() > 1 ? read_ahead(ps) : 0;
	/* Said by probe_load() when it fails. */
	err = runpool_wait_loaded(ps->pool) ?: err;
	if (!err)
		s->probe = &ps->probe;
	return err;
}

static struct pcap_file *earliest(struct pcap_source *ps)
{
	struct pcap_file *best = NULL;

	for (int i = 0; i < ps->n_files; i++) {
		struct pcap_file *f = &ps->files[i];

		if (f->pending && (!best || f->ts_ns < best->ts_ns))
			best = f;
	}
	return best;
}

/* A worker's failure, said once with the file and frame it came from. */
static int failed(struct pcap_source *ps, int err)
{
	__u64 tag = 0;

	if (!runpool_failed(ps->pool, &err, &tag))
		return err;
	fp_err("%s: frame %llu: BPF_PROG_TEST_RUN failed: %s", ps->files[tag >> 48].path,
	       (unsigned long long)(tag & ((1ULL << 48) - 1)), fp_strerror(err));
	return err;
}

/*
 * Queue one frame to run. Frames the kernel would not run (no Ethernet
 * header, longer than it lays out) are counted as skipped, never dropped
 * silently.
 */
static int run_frame(struct pcap_source *ps, struct pcap_file *f)
{
	/* Ethernet runs as read (the pool copies it once); the others are re-framed. */
	bool eth = f->dlt == DLT_EN10MB;
	const __u8 *frame = eth ? f->data : ps->frame;
	size_t len =
	    eth ? f->hdr->caplen
		: replay_to_ethernet(f->dlt, f->data, f->hdr->caplen, ps->frame, PROBE_FRAME_MAX);
	__u32 wire = (__u32)(f->hdr->len - f->hdr->caplen + len);
	int err;

	ps->frames++;
	if (len < ETH_HLEN_) {
		ps->skipped++;
		return 0;
	}
	err = shard_submit(ps->pool, frame, (__u32)len, wire, f->ts_ns, f->point_id,
			   (__u64)(f - ps->files) << 48 | f->index);
	return err ? failed(ps, err) : 0;
}

/*
 * A frame's offset in the capture's time. One earlier than the start (a
 * capture whose time steps back) moves the start back to it: the span
 * covers every frame, from the earliest to the latest.
 */
static __u64 offset_of(struct pcap_source *ps, __u64 ts_ns)
{
	__u64 back = capture_start_back(&ps->t0_ns, ts_ns);

	if (back) {
		ps->clock_ns += back;
		ps->last_ns += back;
		if (ps->wall0_ns && ps->o.speed > 0)
			ps->wall0_ns -= (__u64)(back / ps->o.speed);
	}
	return ts_ns - ps->t0_ns;
}

/* Frame f, at capture offset off, is queued: the clock moves on, f reads its next. */
static void frame_queued(struct pcap_source *ps, struct pcap_file *f, __u64 off)
{
	if (off > ps->last_ns)
		ps->last_ns = off;
	if (off > ps->clock_ns)
		ps->clock_ns = off;
	next_frame(ps, f);
}

/*
 * Queue frames, in time order as pcap_advance() takes them, while the
 * pool's first worker loads the program (the verifier: about 50 ms of
 * one CPU that the reader would otherwise wait out), up to the pool's
 * read-ahead. Only for a caller that reads the whole capture at once,
 * and on more than one CPU: on one, the verifier and the reader take
 * turns, and the read-ahead's fresh memory is all it adds.
 */
static int read_ahead(struct pcap_source *ps)
{
	struct pcap_file *f;

	while (!runpool_loaded(ps->pool) && !fp_stopping && (f = earliest(ps))) {
		int err = run_frame(ps, f);

		if (err == -ENOMEM)
			fp_err("out of memory");
		if (err)
			return err;
		frame_queued(ps, f, offset_of(ps, f->ts_ns));
	}
	fp_dbg("replay: %llu frames read while the program loaded", (unsigned long long)ps->frames);
	return 0;
}

/* Every frame queued has run; the maps hold them. */
static int drain(struct pcap_source *ps)
{
	int err = runpool_drain(ps->pool);

	samples_poll(&ps->probe, 0);
	return err ? failed(ps, err) : 0;
}

/* Paced: wait until the wall clock reaches the frame's time; false when told to stop. */
static bool wait_until_due(struct pcap_source *ps, __u64 off_ns)
{
	__u64 due = ps->wall0_ns + (__u64)(off_ns / ps->o.speed), now = fp_mono_ns();

	if (due <= now + 1000000)
		return !fp_stopping;
	samples_poll(&ps->probe, 0);
	return fp_sleep((due - now) / 1e9);
}

/* The next advance anchors the pace again: capture time now is wall time then. */
static void pcap_resume(struct source *s)
{
	PCAPS(s)->wall0_ns = 0;
}

static int pcap_advance(struct source *s, double seconds)
{
	struct pcap_source *ps = PCAPS(s);
	__u64 now_ts = ps->t0_ns + ps->clock_ns;
	/*
	 * In the capture's own time: offsets grow when its start moves back
	 * (offset_of()). Past the end of time, the whole capture: a silent
	 * stretch may be passed in one advance of years (session_silence_s()).
	 */
	__u64 target_ts = seconds * 1e9 >= (double)(UINT64_MAX - now_ts)
			      ? UINT64_MAX
			      : now_ts + (__u64)(seconds * 1e9);
	__u64 budget_end = fp_mono_ns() + ps->budget_ns, n = 0;
	struct pcap_file *f;
	int err;

	if (ps->ended)
		return 1;
	if (ps->o.speed > 0 && !ps->wall0_ns)
		ps->wall0_ns = fp_mono_ns() - (__u64)(ps->clock_ns / ps->o.speed);
	while ((f = earliest(ps))) {
		__u64 off = offset_of(ps, f->ts_ns);

		if (f->ts_ns > target_ts) {
			ps->clock_ns = target_ts - ps->t0_ns;
			if (ps->o.speed > 0)
				wait_until_due(ps, ps->clock_ns);
			return drain(ps);
		}
		if (ps->o.speed > 0 && !wait_until_due(ps, off))
			break;
		err = run_frame(ps, f);
		if (err) {
			runpool_drain(ps->pool);
			return err;
		}
		frame_queued(ps, f, off);
		if (++n % SAMPLE_DRAIN_FRAMES == 0) {
			samples_poll(&ps->probe, 0);
			if (fp_stopping || (ps->o.speed <= 0 && fp_mono_ns() > budget_end))
				return drain(ps);
		}
	}
	err = drain(ps);
	if (err)
		return err;
	if (fp_stopping && (earliest(ps) || ps->stopped))
		return 0;
	ps->ended = true;
	ps->clock_ns = ps->last_ns > ps->clock_ns ? ps->last_ns : ps->clock_ns;
	return 1;
}

static int pcap_collect(struct source *s, struct snapshot *snap)
{
	struct pcap_source *ps = PCAPS(s);
	int err = collect_snapshot(&ps->probe, snap);

	if (err)
		return err;
	/* Flows carry capture timestamps: the snapshot is taken at capture time too. */
	snap->taken_ns = ps->t0_ns + ps->clock_ns;
	snap->clock_offset_ns = 0;
	snap->totals[SNAP_CNT_SKIPPED] = ps->skipped + runpool_refused(ps->pool);
	return 0;
}

/*
 * From the latest frame read to the next, when the next lies ahead of the
 * clock. One before the capture's start (its time steps back) moves the
 * start, and the clock with it: no silence then.
 */
static void silence(const struct pcap_source *ps, struct source_desc *d)
{
	const struct pcap_file *next = NULL;

	for (int i = 0; i < ps->n_files; i++) {
		const struct pcap_file *f = &ps->files[i];

		if (f->pending && (!next || f->ts_ns < next->ts_ns))
			next = f;
	}
	if (!next || next->ts_ns < ps->t0_ns || next->ts_ns - ps->t0_ns <= ps->clock_ns)
		return;
	d->silence_from_s = ps->last_ns / 1e9;
	d->silence_to_s = (next->ts_ns - ps->t0_ns) / 1e9;
}

/*
 * How far the files have been read, of their size, when every one has a
 * size. The stream's position, not the frames' lengths: it counts the
 * file and block headers of either format; a file that grows while it is
 * read counts as its size at open.
 */
static void position(const struct pcap_source *ps, struct source_desc *d)
{
	__u64 read = 0, total = 0;

	for (int i = 0; i < ps->n_files; i++) {
		const struct pcap_file *f = &ps->files[i];
		long at = f->size ? ftell(pcap_file(f->pcap)) : -1;

		if (at < 0)
			return;
		read += (__u64)at < f->size ? (__u64)at : f->size;
		total += f->size;
	}
	d->bytes_read = read;
	d->bytes_total = total;
}

static void pcap_describe(const struct source *s, struct source_desc *d)
{
	const struct pcap_source *ps = (const struct pcap_source *)s;
	const char *end;
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	d->mode = "replay";
	d->points = ps->points;
	d->n_points = ps->n_points;
	d->every_packet = true;
	d->finite = true;
	d->ended = ps->ended;
	d->damaged = ps->damaged;
	d->clock_s = ps->clock_ns / 1e9;
	d->span_s = ps->ended ? d->clock_s : 0;
	d->frames = ps->frames;
	position(ps, d);
	if (ps->o.speed <= 0 && !ps->ended)
		silence(ps, d);
	for (int i = 0; i < ps->o.n_files; i++) {
		const char *name = ps->o.files[i].name;

		n +=
		    snprintf(d->what + n, n < sizeof(d->what) ? sizeof(d->what) - n : 0, "%s%s%s%s",
			     i ? " " : "", name, name[0] ? "=" : "", ps->o.files[i].path);
	}
	/* Read to a cut or corrupt record: not the end of the capture (the event says where). */
	end = !ps->ended ? "" : ps->damaged ? ", cut short" : ", ended";
	if (ps->o.speed > 0)
		snprintf(d->how, sizeof(d->how), "capture at %gx%s", ps->o.speed, end);
	else
		snprintf(d->how, sizeof(d->how), "capture, as fast as it reads%s", end);
	snprintf(d->event, sizeof(d->event), "%s", ps->event);
	d->event_seq = ps->event_seq;
}

static void pcap_destroy(struct source *s)
{
	struct pcap_source *ps = PCAPS(s);

	runpool_free(ps->pool);
	probe_destroy(&ps->probe);
	for (int i = 0; i < ps->n_files; i++)
		capture_close(ps->files[i].pcap, ps->files[i].iobuf);
	free(ps->frame);
	free(ps);
}

static const struct source_ops pcap_ops = {
    .start = pcap_start,
    .advance = pcap_advance,
    .collect = pcap_collect,
    .resume = pcap_resume,
    .describe = pcap_describe,
    .destroy = pcap_destroy,
};

struct source *pcap_source_new(const struct pcap_opts *o)
{
	struct pcap_source *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->base.ops = &pcap_ops;
	ps->o = *o;
	ps->budget_ns = getenv("FABPROBE_TEST_PCAP_BUDGET") ? 0 : BUDGET_NS;
	return &ps->base;
}
