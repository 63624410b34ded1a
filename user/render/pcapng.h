/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcapng.h - a minimal pcapng writer: Ethernet interfaces with names,
 * nanosecond timestamps, packets with their direction and a comment.
 */
#ifndef __FP_PCAPNG_H
#define __FP_PCAPNG_H

#include <stdio.h>
#include <linux/types.h>

/* The section header. */
int pcapng_begin(FILE *out);
/*
 * An Ethernet interface (snaplen bytes) named name, timestamps in ns; the
 * first is interface 0, the next 1, and so on.
 */
int pcapng_interface(FILE *out, __u32 snaplen, const char *name);

enum pcapng_dir {
	PCAPNG_DIR_UNKNOWN = 0,
	PCAPNG_DIR_IN = 1,
	PCAPNG_DIR_OUT = 2,
};

/*
 * One Enhanced Packet Block on interface iface; ts in ns since the epoch;
 * comment may be NULL.
 */
int pcapng_packet(FILE *out, __u32 iface, __u64 ts_ns, enum pcapng_dir dir, const void *data,
		  __u32 cap_len, __u32 wire_len, const char *comment);

#endif /* __FP_PCAPNG_H */
