// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fabprobe.h"
#include "util/format.h"

/*
 * Dotted quad, as inet_ntop writes it but without its sprintf: a JSON
 * report of a million flows formats two million of them.
 */
static const char *fmt_v4(char *buf, size_t len, const __u8 a[4])
{
	char tmp[16], *p = tmp;

	for (int i = 0; i < 4; i++) {
		unsigned int v = a[i];

		if (v >= 100)
			*p++ = '0' + v / 100;
		if (v >= 10)
			*p++ = '0' + v / 10 % 10;
		*p++ = '0' + v % 10;
		*p++ = i < 3 ? '.' : '\0';
	}
	if ((size_t)(p - tmp) > len)
		return NULL;
	memcpy(buf, tmp, p - tmp);
	return buf;
}

const char *fmt_addr(char *buf, size_t len, const __u8 addr[16], bool v6)
{
	/* glibc's inet_ntop writes RFC 5952 form: lower case, longest zero run. */
	if (!(v6 ? inet_ntop(AF_INET6, addr, buf, len) : fmt_v4(buf, len, addr)))
		snprintf(buf, len, "?");
	return buf;
}

const char *fmt_endpoint(char *buf, size_t len, const __u8 addr[16], bool v6, unsigned int port)
{
	char a[FP_ADDR_STRLEN];

	fmt_addr(a, sizeof(a), addr, v6);
	snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", a, port);
	return buf;
}

const char *fmt_si(char *buf, size_t len, double value, const char *unit)
{
	static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
	double v = fabs(value);
	int i = 0;

	while (v >= 999.95 && i < (int)(sizeof(prefix) / sizeof(prefix[0])) - 1) {
		v /= 1000.0;
		value /= 1000.0;
		i++;
	}
	if (i == 0 && value == floor(value))
		snprintf(buf, len, "%.0f %s", value, unit);
	else
		snprintf(buf, len, "%.*f %s%s",
			 v < 9.995   ? 2
			 : v < 99.95 ? 1
				     : 0,
			 value, prefix[i], unit);
	return buf;
}

const char *fmt_trunc(char *buf, size_t len, const char *text, int width)
{
	int n = strlen(text), head, tail;

	if (n <= width || width < 3) {
		snprintf(buf, len, "%s", text);
		return buf;
	}
	/* Keep the tail longer: the host part of an address tells flows apart. */
	head = (width - 1) / 2;
	tail = width - 1 - head;
	snprintf(buf, len, "%.*s\xe2\x80\xa6%s", head, text, text + n - tail);
	return buf;
}

const char *fmt_si_compact(char *buf, size_t len, double value)
{
	static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
	double v = fabs(value);
	int i = 0;

	while (v >= 999.5 && i < (int)(sizeof(prefix) / sizeof(prefix[0])) - 1) {
		v /= 1000.0;
		value /= 1000.0;
		i++;
	}
	/* Without a prefix a whole count needs no decimals; with one, three digits show. */
	if (i == 0 && (value == floor(value) || v >= 99.95))
		snprintf(buf, len, "%.0f", value);
	else
		snprintf(buf, len, "%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, value, prefix[i]);
	return buf;
}

const char *fmt_pct(char *buf, size_t len, double part, double whole)
{
	double pct;

	if (!(whole > 0)) {
		snprintf(buf, len, "-");
		return buf;
	}
	pct = 100.0 * part / whole;
	if (pct <= 0)
		snprintf(buf, len, "0%%");
	else if (pct < 0.005)
		snprintf(buf, len, "<0.01%%");
	else
		snprintf(buf, len, "%.*f%%", pct < 9.995 ? 2 : pct < 99.95 ? 1 : 0, pct);
	return buf;
}

const char *fmt_duration(char *buf, size_t len, double seconds)
{
	unsigned long long s = seconds > 0 ? (unsigned long long)seconds : 0;

	if (s < 60)
		snprintf(buf, len, "%llus", s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lluh%02llum", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%llud%02lluh", s / 86400, s % 86400 / 3600);
	return buf;
}

int fmt_cols(const char *text)
{
	int n = 0;

	/* Count every byte that is not a UTF-8 continuation byte. */
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		n += (*p & 0xC0) != 0x80;
	return n;
}

size_t fmt_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

int fmt_term_cols(int fd)
{
	struct winsize ws;

	return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
}

const char *fmt_pair_trunc(char *buf, size_t len, const char *a, const char *sep, const char *b,
			   int width)
{
	int la = strlen(a), lb = strlen(b), avail = width - fmt_cols(sep), wa, wb;
	char ta[128], tb[128];

	if (la + lb <= avail) {
		snprintf(buf, len, "%s%s%s", a, sep, b);
		return buf;
	}
	if (avail < 6) {
		char whole[256];

		snprintf(whole, sizeof(whole), "%s%s%s", a, sep, b);
		return fmt_trunc(buf, len, whole, width);
	}
	/* Split evenly, giving what a short name does not need to the other. */
	wa = avail / 2;
	wb = avail - wa;
	if (la < wa) {
		wa = la;
		wb = avail - la;
	} else if (lb < wb) {
		wb = lb;
		wa = avail - lb;
	}
	snprintf(buf, len, "%s%s%s", fmt_trunc(ta, sizeof(ta), a, wa), sep,
		 fmt_trunc(tb, sizeof(tb), b, wb));
	return buf;
}

int fmt_bar(char *buf, size_t len, double fraction, int width)
{
	int fill, i;

	if (!(fraction > 0))
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	if (width < 0)
		width = 0;
	fill = (int)(fraction * width + 0.5);
	/* Any load at all shows: one cell rather than none. */
	if (fill == 0 && fraction > 0 && width > 0)
		fill = 1;
	for (i = 0; i < width && (size_t)i + 1 < len; i++)
		buf[i] = i < fill ? '#' : '.';
	if (len)
		buf[i] = 0;
	return fill;
}

static const char *const op_names[32] = {
    [FP_OP_SEND_FIRST] = "SEND FIRST",
    [FP_OP_SEND_MIDDLE] = "SEND MIDDLE",
    [FP_OP_SEND_LAST] = "SEND LAST",
    [FP_OP_SEND_LAST_IMM] = "SEND LAST IMM",
    [FP_OP_SEND_ONLY] = "SEND ONLY",
    [FP_OP_SEND_ONLY_IMM] = "SEND ONLY IMM",
    [FP_OP_WRITE_FIRST] = "WRITE FIRST",
    [FP_OP_WRITE_MIDDLE] = "WRITE MIDDLE",
    [FP_OP_WRITE_LAST] = "WRITE LAST",
    [FP_OP_WRITE_LAST_IMM] = "WRITE LAST IMM",
    [FP_OP_WRITE_ONLY] = "WRITE ONLY",
    [FP_OP_WRITE_ONLY_IMM] = "WRITE ONLY IMM",
    [FP_OP_READ_REQ] = "READ REQUEST",
    [FP_OP_READ_RESP_FIRST] = "READ RESPONSE FIRST",
    [FP_OP_READ_RESP_MIDDLE] = "READ RESPONSE MIDDLE",
    [FP_OP_READ_RESP_LAST] = "READ RESPONSE LAST",
    [FP_OP_READ_RESP_ONLY] = "READ RESPONSE ONLY",
    [FP_OP_ACK] = "ACK",
    [FP_OP_ATOMIC_ACK] = "ATOMIC ACK",
    [FP_OP_CMP_SWAP] = "CMP SWAP",
    [FP_OP_FETCH_ADD] = "FETCH ADD",
    [FP_OP_SEND_LAST_INV] = "SEND LAST INV",
    [FP_OP_SEND_ONLY_INV] = "SEND ONLY INV",
};

const char *fmt_opcode(char *buf, size_t len, __u8 opcode)
{
	static const char *const transport[8] = {"RC", "UC", "RD", "UD", "CNP", "XRC", "T6", "T7"};
	const char *op = op_names[opcode & FP_OP_MASK];

	if (opcode == FP_OPCODE_CNP)
		snprintf(buf, len, "CNP");
	else if (op)
		snprintf(buf, len, "%s %s", transport[opcode >> 5], op);
	else
		snprintf(buf, len, "0x%02x", opcode);
	return buf;
}

const char *fmt_dir(__u8 dir)
{
	return dir == FP_DIR_EGRESS ? "egress" : "ingress";
}

const char *fmt_count(char *buf, size_t len, unsigned long long n, const char *noun)
{
	snprintf(buf, len, "%llu %s%s", n, noun, n == 1 ? "" : "s");
	return buf;
}

void fmt_markup(FILE *out, const char *text)
{
	for (; *text; text++) {
		switch (*text) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*text, out);
		}
	}
}

const char *fmt_seconds(char *buf, size_t len, double seconds)
{
	/* A capture of a few packets spans milliseconds: "0.0 s" would say nothing. */
	if (seconds < 0.1)
		snprintf(buf, len, "%.1f ms", seconds * 1e3);
	else if (seconds < 10)
		snprintf(buf, len, "%.1f s", seconds);
	else
		fmt_duration(buf, len, seconds);
	return buf;
}

const char *fmt_window(char *buf, size_t len, double seconds, enum fmt_window_kind kind)
{
	static const char *const when[] = {[FMT_WINDOW_LAST] = "the last",
					   [FMT_WINDOW_WHOLE] = "the whole",
					   [FMT_WINDOW_TRAFFIC] = "the"};
	const char *of = kind == FMT_WINDOW_TRAFFIC ? " from the first RoCE packet" : "";
	char d[16];

	snprintf(buf, len, "%s %s%s", when[kind], fmt_seconds(d, sizeof(d), seconds), of);
	return buf;
}
