// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabprobe.h"
#include "format.h"

const char *fmt_addr(char *buf, size_t len, const __u8 addr[16], bool v6)
{
	/* glibc's inet_ntop writes RFC 5952 form: lower case, longest zero run. */
	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, addr, buf, len))
		snprintf(buf, len, "?");
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
