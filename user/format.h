/* SPDX-License-Identifier: GPL-2.0 */
/* format.h - text for humans and machines: addresses, units, opcodes. */
#ifndef __FP_FORMAT_H
#define __FP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define FP_ADDR_STRLEN 46 /* INET6_ADDRSTRLEN */

/* Dotted quad for IPv4, RFC 5952 text for IPv6. */
const char *fmt_addr(char *buf, size_t len, const __u8 addr[16], bool v6);

/* A value with an SI prefix and unit, e.g. "1.25 Gb/s", "640 B", "12.0 kpps". */
const char *fmt_si(char *buf, size_t len, double value, const char *unit);

/* Shorten text to width columns with "…" in the middle (long IPv6 addresses). */
const char *fmt_trunc(char *buf, size_t len, const char *text, int width);

/* IBTA name of a BTH opcode ("RC WRITE FIRST", "CNP"). */
const char *fmt_opcode(char *buf, size_t len, __u8 opcode);

/* Interface direction. */
const char *fmt_dir(__u8 dir);

#endif /* __FP_FORMAT_H */
