// SPDX-License-Identifier: GPL-2.0
/*
 * ipfix.c - the IPFIX exporting process: a bounded queue of encoded
 * records, messages packed up to a size that is never exceeded, templates
 * sent when the transport needs them, and sockets that never block.
 *
 * Records are encoded when added (ipfix_msg.c), so the queue holds bytes
 * ready to copy and a flow's struct can be reused at once. ipfix_tick packs
 * them into messages, one set per run of records of one template, and
 * sends at most budget_msgs messages; a message the socket refuses for now
 * (EAGAIN, a partial TCP write) stays pending and goes first next time.
 * Over UDP a token bucket paces the bytes (rate_bytes_per_s, at most
 * burst_bytes at once): a datagram has no flow control, and one the
 * collector's receive buffer has no room for is dropped by its kernel,
 * unseen here. TCP and files have their own back pressure.
 *
 * Templates (RFC 7011 section 8): over UDP, at start and again every
 * template_refresh_ms (and template_refresh_msgs messages); over TCP, at
 * each connection, withdrawn on a clean close; into a file, once. The
 * RFC 5610 descriptions of the enterprise elements go once per session,
 * before the templates.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "render/ipfix.h"
#include "render/ipfix_config.h"
#include "render/ipfix_msg.h"
#include "util/log.h"
#include "util/recq.h"

/* A TCP connect still in progress after this long is abandoned and retried. */
#define CONNECT_TIMEOUT_MS 10000

enum conn_state {
	CONN_DOWN,
	CONN_CONNECTING,
	CONN_UP,
};

struct ipfix_exporter {
	struct ipfix_config cfg;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	int fd;
	bool stream;	      /* TCP or file: templates once per session */
	bool udp_unconnected; /* connect() failed (no route yet): tried again at each send */
	enum conn_state state;
	__u64 next_connect_ms;
	__u64 connect_started_ms;
	__u32 backoff_ms;
	struct recq q;	   /* encoded records, tagged with their template ID */
	size_t max_record; /* the most one record may take: a message with one set */
	__u8 *scratch;	   /* one record */
	__u8 *out;	   /* the message being sent */
	size_t out_len, out_off;
	__u32 out_records;   /* flow records in it, lost if it fails */
	__u32 sent_records;  /* UDP: in the last datagram sent, until udp_refused() */
	__u32 out_templates; /* template records in it */
	bool out_control;    /* templates or element descriptions, not flow records */
	int ctl_next;	     /* next control item to send, -1 when none is due */
	int ctl_total;
	bool templates_ever;
	__u64 templates_ms;	    /* when the last control phase started */
	__u32 msgs_since_templates; /* data messages since */
	__u32 sequence;
	/* UDP pacing: bytes that may go now, refilled at rate_bytes_per_s since pace_ms. */
	__s64 pace_tokens;
	__s64 pace_depth; /* the most they reach: burst_bytes, or one largest message */
	__u64 pace_ms;
	const struct ipfix_element *enterprise[64];
	int n_enterprise;
	struct ipfix_stats st;
};

__u64 ipfix_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- building messages ---- */

/* A message under construction: sets are opened and closed as records come. */
struct msg {
	__u8 *buf;
	size_t len, max;
	size_t set_at; /* offset of the open set's header, 0 when none */
	__u16 set_id;
};

static void msg_begin(struct msg *m, __u8 *buf, size_t max)
{
	*m = (struct msg){.buf = buf, .len = IPFIX_MSG_HDR_LEN, .max = max};
}

static void msg_close_set(struct msg *m)
{
	if (m->set_at)
		ipfix_put_set_header(m->buf + m->set_at, m->set_id, m->len - m->set_at);
	m->set_at = 0;
}

/*
 * Append one record to set set_id, opening the set if needed. Sets are not
 * padded (RFC 7011 section 3.3.1 makes padding optional). False when the
 * record does not fit in what is left.
 */
static bool msg_add(struct msg *m, __u16 set_id, const __u8 *rec, size_t len)
{
	bool new_set = !m->set_at || m->set_id != set_id;

	if (m->len + (new_set ? IPFIX_SET_HDR_LEN : 0) + len > m->max)
		return false;
	if (new_set) {
		msg_close_set(m);
		m->set_at = m->len;
		m->set_id = set_id;
		m->len += IPFIX_SET_HDR_LEN;
	}
	memcpy(m->buf + m->len, rec, len);
	m->len += len;
	return true;
}

/*
 * Close the message. The header carries the data records sent before it
 * (RFC 7011 section 3.1); templates do not count, RFC 5610 type records
 * and flow records do.
 */
static void msg_finish(struct ipfix_exporter *x, struct msg *m, __u64 now_ms, __u32 data_records)
{
	msg_close_set(m);
	ipfix_put_msg_header(m->buf, m->len, now_ms / 1000, x->sequence, x->cfg.domain_id);
	x->sequence += data_records;
	x->out_len = m->len;
	x->out_off = 0;
}

/*
 * Control items, in order: the RFC 5610 options template, one type record
 * per enterprise element, then the data templates. The descriptions come
 * first so that a collector that learns elements from them (ipfixDump
 * --rfc5610) knows each one before it reads a template that uses it.
 */
static int n_type_items(const struct ipfix_exporter *x)
{
	return x->cfg.no_type_records ? 0 : 1 + x->n_enterprise;
}

static int ctl_encode(struct ipfix_exporter *x, int item, __u16 *set_id)
{
	size_t cap = x->max_record;
	int n_types = n_type_items(x);

	if (item == 0 && n_types) {
		*set_id = IPFIX_SET_OPTIONS_TEMPLATE;
		return ipfix_types_template_record(x->scratch, cap);
	}
	if (item < n_types) {
		*set_id = IPFIX_TID_TYPES;
		return ipfix_type_record(x->scratch, cap, x->enterprise[item - 1], x->cfg.pen);
	}
	*set_id = IPFIX_SET_TEMPLATE;
	return ipfix_template_record(x->scratch, cap, item - n_types, x->cfg.pen);
}

static void build_control(struct ipfix_exporter *x, __u64 now_ms)
{
	__u32 type_records = 0, templates = 0;
	struct msg m;

	msg_begin(&m, x->out, x->cfg.max_msg_bytes);
	while (x->ctl_next < x->ctl_total) {
		__u16 set_id;
		int len = ctl_encode(x, x->ctl_next, &set_id);

		if (len < 0 || !msg_add(&m, set_id, x->scratch, len))
			break;
		if (set_id == IPFIX_TID_TYPES)
			type_records++;
		else
			templates++;
		x->ctl_next++;
	}
	if (x->ctl_next == x->ctl_total)
		x->ctl_next = -1;
	msg_finish(x, &m, now_ms, type_records);
	x->out_records = 0;
	x->out_templates = templates;
	x->out_control = true;
}

static void build_data(struct ipfix_exporter *x, __u64 now_ms)
{
	__u32 records = 0;
	struct msg m;

	msg_begin(&m, x->out, x->cfg.max_msg_bytes);
	while (x->q.records) {
		__u16 tid, len;
		const __u8 *rec = recq_peek(&x->q, &tid, &len);

		if (!msg_add(&m, tid, rec, len))
			break;
		recq_pop(&x->q);
		records++;
	}
	msg_finish(x, &m, now_ms, records);
	x->out_records = records;
	x->out_templates = 0;
	x->out_control = false;
}

/*
 * RFC 7011 section 8.1: a Template Withdrawal (Field Count 0) for each
 * data template. The RFC 5610 options template is left to end with the
 * session: tshark up to 4.0 reads an Options Template Withdrawal as a
 * malformed options template, and it describes no flows.
 */
static void build_withdrawal(struct ipfix_exporter *x, __u64 now_ms)
{
	__u8 rec[4];
	struct msg m;

	msg_begin(&m, x->out, x->cfg.max_msg_bytes);
	for (int i = 0; i < IPFIX_N_VARIANTS; i++) {
		ipfix_withdrawal_record(rec, sizeof(rec), IPFIX_TID_BASE + i);
		msg_add(&m, IPFIX_SET_TEMPLATE, rec, sizeof(rec));
	}
	msg_finish(x, &m, now_ms, 0);
	x->out_records = 0;
	x->out_templates = IPFIX_N_VARIANTS;
	x->out_control = true;
}

/*
 * Start a control phase. The element descriptions go once per session (the
 * start of UDP export, each TCP connection); UDP refreshes resend only the
 * templates. Descriptions are data records and advance the sequence number,
 * which collectors that skip records of an options template they do not use
 * (nfcapd) report as sequence errors if they come again mid-stream.
 */
static void start_templates(struct ipfix_exporter *x, __u64 now_ms)
{
	x->ctl_next = x->templates_ever ? n_type_items(x) : 0;
	x->templates_ever = true;
	x->templates_ms = now_ms;
	x->msgs_since_templates = 0;
}

/* ---- transport ---- */

static bool transient(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS || err == EINTR;
}

static void session_up(struct ipfix_exporter *x, __u64 now_ms)
{
	x->state = CONN_UP;
	x->backoff_ms = x->cfg.backoff_min_ms;
	if (x->cfg.transport == IPFIX_TCP)
		x->st.connects++;
	/* A new TCP connection is a new stream: its sequence starts again. */
	if (x->stream) {
		x->sequence = 0;
		x->templates_ever = false;
		start_templates(x, now_ms);
	}
}

/*
 * A TCP session ended or could not start: retry after the backoff. A
 * failed send has counted its error already (count_error false).
 */
static void session_down(struct ipfix_exporter *x, __u64 now_ms, bool count_error)
{
	if (x->fd >= 0 && !x->cfg.sink)
		close(x->fd);
	x->fd = -1;
	x->state = CONN_DOWN;
	if (count_error)
		x->st.send_errors++;
	if (x->out_len) {
		x->st.records_lost += x->out_records;
		x->out_len = 0;
	}
	x->ctl_next = -1;
	x->next_connect_ms = now_ms + x->backoff_ms;
	x->backoff_ms =
	    x->backoff_ms * 2 > x->cfg.backoff_max_ms ? x->cfg.backoff_max_ms : x->backoff_ms * 2;
}

static void tcp_connect(struct ipfix_exporter *x, __u64 now_ms)
{
	x->fd = socket(x->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		session_down(x, now_ms, true);
		return;
	}
	x->connect_started_ms = now_ms;
	if (connect(x->fd, (struct sockaddr *)&x->addr, x->addr_len) == 0)
		session_up(x, now_ms);
	else if (errno == EINPROGRESS)
		x->state = CONN_CONNECTING;
	else
		session_down(x, now_ms, true);
}

/* Bring a TCP session up, or notice it went down; never waits. */
static void tcp_maintain(struct ipfix_exporter *x, __u64 now_ms)
{
	struct pollfd pfd = {.fd = x->fd};
	int err = 0;

	if (x->cfg.sink) {
		if (x->state == CONN_DOWN && now_ms >= x->next_connect_ms)
			session_up(x, now_ms);
		return;
	}
	switch (x->state) {
	case CONN_DOWN:
		if (now_ms >= x->next_connect_ms ||
		    now_ms + x->cfg.backoff_max_ms < x->next_connect_ms)
			tcp_connect(x, now_ms);
		break;
	case CONN_CONNECTING:
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, 0) > 0) {
			socklen_t len = sizeof(err);

			if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
				session_down(x, now_ms, true);
			else
				session_up(x, now_ms);
		} else if (now_ms - x->connect_started_ms > CONNECT_TIMEOUT_MS) {
			session_down(x, now_ms, true);
		}
		break;
	case CONN_UP:
		/* A collector never writes: readable means closed or reset. */
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) > 0) {
			char junk[256];
			ssize_t n = recv(x->fd, junk, sizeof(junk), MSG_DONTWAIT);

			if (n == 0 || (n < 0 && !transient(errno)) ||
			    (pfd.revents & (POLLERR | POLLHUP)))
				session_down(x, now_ms, true);
		}
		break;
	}
}

/*
 * UDP: an ICMP error came back for a datagram sent (port unreachable:
 * nothing listens there), which the kernel says at the next send
 * (ECONNREFUSED: that send was not made) or in SO_ERROR (check). It is
 * taken to be the last datagram sent, as it is when the collector's host
 * answers at once (loopback, a LAN); over a longer path more went out
 * meanwhile and one error stands for several: a lower bound. Its records
 * were not delivered.
 */
static void udp_refused(struct ipfix_exporter *x, bool check)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (check && (x->fd < 0 || x->udp_unconnected ||
		      getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len) || !err))
		return;
	x->st.send_errors += check;
	x->st.records_lost += x->sent_records;
	x->st.records_refused += x->sent_records;
	x->sent_records = 0;
}

/* Hand bytes to the transport: how many it took, or -errno. */
static ssize_t transport_send(struct ipfix_exporter *x, const __u8 *p, size_t len)
{
	ssize_t n;

	if (x->cfg.sink) {
		int err = x->cfg.sink(x->cfg.sink_ctx, p, len);

		return err ? err : (ssize_t)len;
	}
	if (x->cfg.transport == IPFIX_FILE) {
		n = write(x->fd, p, len);
	} else {
		if (x->udp_unconnected) {
			if (connect(x->fd, (struct sockaddr *)&x->addr, x->addr_len))
				return -errno;
			x->udp_unconnected = false;
		}
		/* MSG_NOSIGNAL: a collector that resets the connection is an error, not SIGPIPE. */
		n = send(x->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	return n < 0 ? -errno : n;
}

/* Send the pending message: 0 when sent, -EAGAIN to try again, else -errno. */
static int flush_out(struct ipfix_exporter *x, __u64 now_ms)
{
	ssize_t n = transport_send(x, x->out + x->out_off, x->out_len - x->out_off);

	if (n < 0) {
		if (transient(-n)) {
			x->st.would_block++;
			return -EAGAIN;
		}
		x->st.send_errors++;
		x->st.records_lost += x->out_records;
		x->out_len = 0;
		/* Not this datagram's error: it did not go out, and an earlier one was refused. */
		if (n == -ECONNREFUSED)
			udp_refused(x, false);
		if (x->cfg.transport == IPFIX_TCP)
			session_down(x, now_ms, false);
		return n;
	}
	x->out_off += n;
	/* Only a stream takes part of a message; a datagram goes whole or not at all. */
	if (x->out_off < x->out_len)
		return -EAGAIN;
	x->st.messages_sent++;
	x->st.bytes_sent += x->out_len;
	x->st.records_sent += x->out_records;
	x->st.templates_sent += x->out_templates;
	if (x->cfg.transport == IPFIX_UDP && !x->cfg.sink)
		x->sent_records = x->out_records;
	if (!x->out_control)
		x->msgs_since_templates++;
	x->out_len = 0;
	return 0;
}

static bool templates_due(const struct ipfix_exporter *x, __u64 now_ms)
{
	if (!x->templates_ever)
		return true;
	if (x->stream || x->ctl_next >= 0)
		return false;
	/* A clock stepped back counts as due: better one refresh early than none. */
	if (now_ms < x->templates_ms || now_ms - x->templates_ms >= x->cfg.template_refresh_ms)
		return true;
	return x->cfg.template_refresh_msgs &&
	       x->msgs_since_templates >= x->cfg.template_refresh_msgs;
}

static bool paced(const struct ipfix_exporter *x)
{
	return x->cfg.transport == IPFIX_UDP && x->cfg.rate_bytes_per_s;
}

/* The bytes the time since the previous call allows, up to the bucket's depth. */
static void pace_refill(struct ipfix_exporter *x, __u64 now_ms)
{
	/* A clock stepped back restarts the count from now, adding nothing. */
	if (now_ms > x->pace_ms) {
		__u64 ms = now_ms - x->pace_ms;

		/* Bounded, so that the product cannot wrap: 1000 s fill any bucket. */
		x->pace_tokens +=
		    (__s64)((ms < 1000000 ? ms : 1000000) * x->cfg.rate_bytes_per_s / 1000);
	}
	if (x->pace_tokens > x->pace_depth)
		x->pace_tokens = x->pace_depth;
	x->pace_ms = now_ms;
}

int ipfix_tick(struct ipfix_exporter *x, __u64 now_ms)
{
	int sent = 0;

	if (x->cfg.transport == IPFIX_TCP)
		tcp_maintain(x, now_ms);
	if (x->state != CONN_UP)
		return 0;
	/* The last datagram refused while the exporter waited: said before the next one. */
	if (x->sent_records)
		udp_refused(x, true);
	if (paced(x))
		pace_refill(x, now_ms);
	while (sent < (int)x->cfg.budget_msgs) {
		size_t len;
		int err;

		if (!x->out_len) {
			if (!x->stream && templates_due(x, now_ms))
				start_templates(x, now_ms);
			if (x->ctl_next >= 0)
				build_control(x, now_ms);
			else if (x->q.records)
				build_data(x, now_ms);
			else
				break;
		}
		/* Built, it waits whole for the tokens: the next message is the same. */
		len = x->out_len;
		if (paced(x) && x->pace_tokens < (__s64)len)
			break;
		err = flush_out(x, now_ms);
		/* A datagram the kernel took, or lost with an error, spent its bytes. */
		if (paced(x) && err != -EAGAIN)
			x->pace_tokens -= (__s64)len;
		/* An error ends the tick: a dead collector costs one try per call. */
		if (err)
			break;
		sent++;
	}
	x->st.queue_records = x->q.records;
	x->st.queue_bytes = x->q.bytes;
	return sent;
}

int ipfix_add(struct ipfix_exporter *x, const struct ipfix_flow *f)
{
	bool truncated;
	int len = ipfix_data_record(x->scratch, x->max_record, f, &truncated);

	if (len < 0 || recq_push(&x->q, IPFIX_TID_BASE + ipfix_flow_variant(f), x->scratch, len)) {
		x->st.records_dropped++;
		return -ENOBUFS;
	}
	if (truncated)
		x->st.strings_truncated++;
	x->st.queue_records = x->q.records;
	x->st.queue_bytes = x->q.bytes;
	return 0;
}

/*
 * A record is stored whole (recq.h): at the end of the buffer up to one
 * record's worth can go unused, so twice the largest record of free space
 * guarantees the next push fits wherever the queue stands.
 */
bool ipfix_room(const struct ipfix_exporter *x)
{
	return x->q.bytes + 2 * (RECQ_HDR + x->max_record) <= x->q.cap;
}

bool ipfix_idle(const struct ipfix_exporter *x)
{
	return !x->q.records && !x->out_len && x->ctl_next < 0;
}

void ipfix_get_stats(const struct ipfix_exporter *x, struct ipfix_stats *s)
{
	*s = x->st;
	s->queue_records = x->q.records;
	s->queue_bytes = x->q.bytes;
	s->sequence = x->sequence;
	s->connected = x->state == CONN_UP;
}

int ipfix_open(struct ipfix_exporter **out, const struct ipfix_config *cfg)
{
	struct ipfix_exporter *x;
	int err;

	*out = NULL;
	err = ipfix_check_config(cfg);
	if (err)
		return err;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->cfg = *cfg;
	x->fd = -1;
	x->ctl_next = -1;
	x->stream = cfg->transport != IPFIX_UDP;
	x->backoff_ms = cfg->backoff_min_ms;
	/* The bucket starts full; it always holds a whole largest message. */
	x->pace_depth =
	    cfg->burst_bytes > cfg->max_msg_bytes ? cfg->burst_bytes : cfg->max_msg_bytes;
	x->pace_tokens = x->pace_depth;
	x->max_record = cfg->max_msg_bytes - IPFIX_MSG_HDR_LEN - IPFIX_SET_HDR_LEN;
	for (size_t i = 0; i < ipfix_n_elements; i++)
		if (ipfix_elements[i].enterprise &&
		    x->n_enterprise < (int)(sizeof(x->enterprise) / sizeof(x->enterprise[0])))
			x->enterprise[x->n_enterprise++] = &ipfix_elements[i];
	x->ctl_total = IPFIX_N_VARIANTS + (cfg->no_type_records ? 0 : 1 + x->n_enterprise);
	recq_init(&x->q, cfg->queue_bytes);
	x->scratch = malloc(x->max_record);
	x->out = malloc(cfg->max_msg_bytes);
	if (!x->q.buf || !x->scratch || !x->out) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (cfg->sink) {
		if (cfg->transport != IPFIX_TCP)
			x->state = CONN_UP;
	} else if (cfg->transport == IPFIX_FILE) {
		x->fd = cfg->fd;
		x->state = CONN_UP;
	} else {
		err = ipfix_resolve(cfg, &x->addr, &x->addr_len);
		if (err)
			goto cleanup;
		if (cfg->transport == IPFIX_UDP) {
			/*
			 * A connected UDP socket: the kernel reports ICMP errors
			 * (port unreachable) on the next send, so a missing
			 * collector shows in send_errors.
			 */
			x->fd =
			    socket(x->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (x->fd < 0) {
				err = -errno;
				fp_err("ipfix: UDP socket to %s: %s", cfg->collector,
				       fp_strerror(err));
				goto cleanup;
			}
			/*
			 * No route to it yet is not fatal: as a collector that is
			 * down, it costs counters until a send gets through.
			 */
			if (connect(x->fd, (struct sockaddr *)&x->addr, x->addr_len)) {
				fp_err("ipfix: UDP to %s: %s; records are counted as lost until "
				       "it can be reached",
				       cfg->collector, strerror(errno));
				x->udp_unconnected = true;
			}
			x->state = CONN_UP;
		}
	}
	if (x->state == CONN_UP && x->stream)
		session_up(x, ipfix_now_ms());
	*out = x;
	return 0;
cleanup:
	if (x->fd >= 0 && cfg->transport != IPFIX_FILE)
		close(x->fd);
	recq_free(&x->q);
	free(x->scratch);
	free(x->out);
	free(x);
	return err;
}

/* Wait a little for the socket to take more, at most ms. */
static void close_wait(struct ipfix_exporter *x, int ms)
{
	struct pollfd pfd = {.fd = x->fd, .events = POLLOUT};

	if (ms <= 0)
		return;
	if (!x->cfg.sink && x->fd >= 0 && x->cfg.transport == IPFIX_TCP && x->state != CONN_DOWN)
		poll(&pfd, 1, ms > 10 ? 10 : ms);
	else
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
}

int ipfix_close(struct ipfix_exporter *x, int timeout_ms, struct ipfix_stats *final)
{
	__u64 deadline = ipfix_now_ms() + (timeout_ms > 0 ? timeout_ms : 0), now;
	int left;

	if (!x)
		return 0;
	for (now = ipfix_now_ms(); !ipfix_idle(x) && now < deadline; now = ipfix_now_ms()) {
		ipfix_tick(x, now);
		if (!ipfix_idle(x))
			close_wait(x, deadline - now);
	}
	/* RFC 7011 section 8.1 on a stream; section 8.4 forbids it over UDP. */
	if (x->cfg.transport == IPFIX_TCP && x->state == CONN_UP && !x->out_len) {
		build_withdrawal(x, now);
		while (flush_out(x, now) == -EAGAIN && now < deadline) {
			close_wait(x, deadline - now);
			now = ipfix_now_ms();
		}
	}
	if (x->sent_records) /* its answer, if one came in the time the close took */
		udp_refused(x, true);
	left = x->q.records + x->out_records * !!x->out_len;
	x->st.records_dropped += left;
	if (final) {
		ipfix_get_stats(x, final);
		final->queue_records = final->queue_bytes = 0;
	}
	if (x->fd >= 0 && !x->cfg.sink && x->cfg.transport != IPFIX_FILE)
		close(x->fd);
	recq_free(&x->q);
	free(x->scratch);
	free(x->out);
	free(x);
	return left;
}
