// SPDX-License-Identifier: GPL-2.0
/* Block layouts from the pcapng specification (draft-ietf-opsawg-pcapng). */
#include <string.h>

#include "render/pcapng.h"

#define BT_SHB		  0x0A0D0D0A
#define BT_IDB		  0x00000001
#define BT_EPB		  0x00000006
#define OPT_COMMENT	  1
#define LINKTYPE_ETHERNET 1

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static int put(FILE *out, const void *p, size_t n)
{
	return fwrite(p, 1, n, out) == n ? 0 : -1;
}

static int put32(FILE *out, __u32 v)
{
	return put(out, &v, 4);
}

int pcapng_begin(FILE *out, __u32 snaplen)
{
	/* SHB: byte-order magic, version 1.0, section length unknown (-1). */
	const __u32 shb[] = {BT_SHB, 28, 0x1A2B3C4D, 0x00000001, 0xFFFFFFFF, 0xFFFFFFFF, 28};
	/* IDB: Ethernet; timestamps in the default microsecond resolution. */
	const __u32 idb[] = {BT_IDB, 20, LINKTYPE_ETHERNET, snaplen, 20};

	return put(out, shb, sizeof(shb)) || put(out, idb, sizeof(idb)) ? -1 : 0;
}

int pcapng_packet(FILE *out, __u64 ts_ns, const void *data, __u32 cap_len, __u32 wire_len,
		  const char *comment)
{
	static const __u8 zeros[4];
	size_t clen = comment ? strlen(comment) : 0;
	size_t opts = clen ? 4 + pad4(clen) + 4 : 0; /* the comment, then opt_endofopt */
	__u32 total = 28 + pad4(cap_len) + opts + 4;
	__u64 ts_us = ts_ns / 1000;
	int err = 0;

	err |= put32(out, BT_EPB);
	err |= put32(out, total);
	err |= put32(out, 0); /* interface 0 */
	err |= put32(out, ts_us >> 32);
	err |= put32(out, ts_us & 0xFFFFFFFF);
	err |= put32(out, cap_len);
	err |= put32(out, wire_len);
	err |= put(out, data, cap_len);
	err |= put(out, zeros, pad4(cap_len) - cap_len);
	if (clen) {
		__u16 hdr[2] = {OPT_COMMENT, clen};

		err |= put(out, hdr, 4);
		err |= put(out, comment, clen);
		err |= put(out, zeros, pad4(clen) - clen);
		err |= put32(out, 0);
	}
	err |= put32(out, total);
	return err ? -1 : 0;
}
