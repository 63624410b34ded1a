/* SPDX-License-Identifier: GPL-2.0 */
/* format.h - text for humans and machines: addresses, units, opcodes. */
#ifndef __FP_FORMAT_H
#define __FP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define FP_ADDR_STRLEN 46 /* INET6_ADDRSTRLEN */

/* Dotted quad for IPv4, RFC 5952 text for IPv6. */
const char *fmt_addr(char *buf, size_t len, const __u8 addr[16], bool v6);
/* An address and port: "10.0.0.1:4791", "[fd00::1]:4791" (RFC 5952 section 6). */
#define FP_ENDPOINT_STRLEN (FP_ADDR_STRLEN + 8)
const char *fmt_endpoint(char *buf, size_t len, const __u8 addr[16], bool v6, unsigned int port);

/* A value with an SI prefix and unit, e.g. "1.25 Gb/s", "640 B", "12.0 kpps". */
const char *fmt_si(char *buf, size_t len, double value, const char *unit);

/* Shorten text to width columns with "…" in the middle (long IPv6 addresses). */
const char *fmt_trunc(char *buf, size_t len, const char *text, int width);

/* Up to 5 columns, no unit: "0", "850", "0.50", "12.3k", "1.25M" (for narrow table cells). */
const char *fmt_si_compact(char *buf, size_t len, double value);

/* part as a percentage of whole: "0%", "<0.01%", "0.25%", "12.5%", "100%"; "-" if whole is 0. */
const char *fmt_pct(char *buf, size_t len, double part, double whole);

/* A duration, two units at most: "42s", "3m07s", "5h02m", "2d03h". */
const char *fmt_duration(char *buf, size_t len, double seconds);

/* Columns UTF-8 text takes on a terminal (one per code point: "…" is one). */
int fmt_cols(const char *text);

/*
 * The length of the valid UTF-8 sequence of two or more bytes at s, 0 if
 * there is none: no overlong form, no surrogate, nothing past U+10FFFF
 * (RFC 3629). The string's terminating 0 is no continuation byte, so a
 * sequence cut at the end is 0.
 */
size_t fmt_utf8_len(const char *s);

/* The width of the terminal fd is on, in columns; 80 when it cannot tell. */
int fmt_term_cols(int fd);

/*
 * "A > B" in at most width columns, shortening the longer name first with
 * fmt_trunc (two long IPv6 addresses each keep their tails).
 */
const char *fmt_pair_trunc(char *buf, size_t len, const char *a, const char *sep, const char *b,
			   int width);

/* A load bar of width cells, '#' for fraction (clamped to 0..1), '.' for the rest; returns #. */
int fmt_bar(char *buf, size_t len, double fraction, int width);

/* IBTA name of a BTH opcode ("RC WRITE FIRST", "CNP"). */
const char *fmt_opcode(char *buf, size_t len, __u8 opcode);

/* A length of time: "16.2 ms", "0.2 s", then as fmt_duration() ("56s", "3m07s"). */
const char *fmt_seconds(char *buf, size_t len, double seconds);

/*
 * The window figures cover: "the last 5.0 s", "the whole 3m07s" (a run so
 * far), "the 10s from the first RoCE packet" (a whole run whose RoCE spans
 * less: to its last, or the second at least the rates take).
 */
enum fmt_window_kind { FMT_WINDOW_LAST, FMT_WINDOW_WHOLE, FMT_WINDOW_TRAFFIC };
const char *fmt_window(char *buf, size_t len, double seconds, enum fmt_window_kind kind);

/* A count and its noun, singular or plural: "1 frame", "3 frames". */
const char *fmt_count(char *buf, size_t len, unsigned long long n, const char *noun);

/* Text for HTML or XML: <, >, & and " as entities. */
void fmt_markup(FILE *out, const char *text);

/* Interface direction. */
const char *fmt_dir(__u8 dir);

#endif /* __FP_FORMAT_H */
