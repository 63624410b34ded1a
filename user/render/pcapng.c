// SPDX-License-Identifier: GPL-2.0
/* Block layouts from the pcapng specification (draft-ietf-opsawg-pcapng). */
#include <string.h>

#include "render/pcapng.h"

#define BT_SHB		  0x0A0D0D0A
#define BT_IDB		  0x00000001
#define BT_EPB		  0x00000006
#define OPT_ENDOFOPT	  0
#define OPT_COMMENT	  1
#define OPT_IF_NAME	  2
#define OPT_IF_TSRESOL	  9
#define OPT_EPB_FLAGS	  2
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

/* An option's bytes in a block: its code and length, the value padded to 4. */
static size_t opt_size(size_t len)
{
	return 4 + pad4(len);
}

static int put_opt(FILE *out, __u16 code, const void *val, size_t len)
{
	static const __u8 zeros[4];
	__u16 hdr[2] = {code, (__u16)len};

	return put(out, hdr, 4) || put(out, val, len) || put(out, zeros, pad4(len) - len) ? -1 : 0;
}

int pcapng_begin(FILE *out)
{
	/* SHB: byte-order magic, version 1.0, section length unknown (-1). */
	const __u32 shb[] = {BT_SHB, 28, 0x1A2B3C4D, 0x00000001, 0xFFFFFFFF, 0xFFFFFFFF, 28};

	return put(out, shb, sizeof(shb));
}

int pcapng_interface(FILE *out, __u32 snaplen, const char *name)
{
	const __u8 ns = 9; /* if_tsresol: 10^-9 s */
	size_t nlen = strnlen(name, 0xffff);
	__u32 total = 20 + opt_size(nlen) + opt_size(1) + 4;
	int err = 0;

	err |= put32(out, BT_IDB);
	err |= put32(out, total);
	err |= put32(out, LINKTYPE_ETHERNET); /* and 16 reserved bits */
	err |= put32(out, snaplen);
	err |= put_opt(out, OPT_IF_NAME, name, nlen);
	err |= put_opt(out, OPT_IF_TSRESOL, &ns, 1);
	err |= put32(out, OPT_ENDOFOPT);
	err |= put32(out, total);
	return err ? -1 : 0;
}

int pcapng_packet(FILE *out, __u32 iface, __u64 ts_ns, enum pcapng_dir dir, const void *data,
		  __u32 cap_len, __u32 wire_len, const char *comment)
{
	static const __u8 zeros[4];
	size_t clen = comment ? strnlen(comment, 0xffff) : 0;
	size_t opts = (clen ? opt_size(clen) : 0) + (dir ? opt_size(4) : 0);
	__u32 flags = dir, total;
	int err = 0;

	if (opts)
		opts += 4; /* opt_endofopt */
	total = 28 + pad4(cap_len) + opts + 4;
	err |= put32(out, BT_EPB);
	err |= put32(out, total);
	err |= put32(out, iface);
	err |= put32(out, ts_ns >> 32);
	err |= put32(out, ts_ns & 0xFFFFFFFF);
	err |= put32(out, cap_len);
	err |= put32(out, wire_len);
	err |= put(out, data, cap_len);
	err |= put(out, zeros, pad4(cap_len) - cap_len);
	if (clen)
		err |= put_opt(out, OPT_COMMENT, comment, clen);
	if (dir)
		err |= put_opt(out, OPT_EPB_FLAGS, &flags, 4); /* bits 0-1: the direction */
	if (opts)
		err |= put32(out, OPT_ENDOFOPT);
	err |= put32(out, total);
	return err ? -1 : 0;
}
