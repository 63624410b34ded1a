/* SPDX-License-Identifier: GPL-2.0 */
/* pcapng.h - a minimal pcapng writer: one Ethernet interface, packets with comments. */
#ifndef __FP_PCAPNG_H
#define __FP_PCAPNG_H

#include <stdio.h>
#include <linux/types.h>

/* Section header and one Ethernet interface description (snaplen bytes). */
int pcapng_begin(FILE *out, __u32 snaplen);
/* One Enhanced Packet Block; ts in ns since the epoch; comment may be NULL. */
int pcapng_packet(FILE *out, __u64 ts_ns, const void *data, __u32 cap_len, __u32 wire_len,
		  const char *comment);

#endif /* __FP_PCAPNG_H */
