/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipfix_msg.h - IPFIX encoding into buffers (RFC 7011 sections 3 and 7):
 * the element table, template records, data records, RFC 5610 element
 * descriptions and the message header. No I/O; ipfix.c sends.
 */
#ifndef __FP_IPFIX_MSG_H
#define __FP_IPFIX_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "render/ipfix.h"

#define IPFIX_VERSION		   10
#define IPFIX_MSG_HDR_LEN	   16
#define IPFIX_SET_HDR_LEN	   4
#define IPFIX_SET_TEMPLATE	   2
#define IPFIX_SET_OPTIONS_TEMPLATE 3
#define IPFIX_VARLEN		   65535 /* field length of a variable-length element */
#define IPFIX_ENTERPRISE_BIT	   0x8000

/*
 * Template variants: which optional elements a record carries. A record's
 * template ID is IPFIX_TID_BASE + its variant bits. The RFC 5610 options
 * template follows the data templates.
 */
#define IPFIX_V_IPV6	  0x01
#define IPFIX_V_SAMPLED	  0x02
#define IPFIX_V_MIRROR	  0x04
#define IPFIX_N_VARIANTS  8
#define IPFIX_TID_BASE	  256
#define IPFIX_TID_TYPES	  (IPFIX_TID_BASE + IPFIX_N_VARIANTS)
#define IPFIX_N_TEMPLATES (IPFIX_N_VARIANTS + 1)

/* informationElementDataType values (RFC 7012 section 3.1, IANA). */
enum ipfix_type {
	IPFIX_T_UNSIGNED8 = 1,
	IPFIX_T_UNSIGNED16 = 2,
	IPFIX_T_UNSIGNED32 = 3,
	IPFIX_T_UNSIGNED64 = 4,
	IPFIX_T_STRING = 13,
	IPFIX_T_DATETIME_MS = 15,
	IPFIX_T_IPV4 = 18,
	IPFIX_T_IPV6 = 19,
};

/* informationElementSemantics (RFC 5610 section 3.6). */
enum ipfix_semantics {
	IPFIX_S_DEFAULT = 0,
	IPFIX_S_QUANTITY = 1,
	IPFIX_S_DELTA = 3,
	IPFIX_S_IDENTIFIER = 4,
	IPFIX_S_FLAGS = 5,
};

/* informationElementUnits (IANA "IPFIX Information Element Units"). */
enum ipfix_units {
	IPFIX_U_NONE = 0,
	IPFIX_U_OCTETS = 2,
	IPFIX_U_PACKETS = 3,
	IPFIX_U_MILLISECONDS = 6,
};

/* Where an element's value comes from in struct ipfix_flow. */
enum ipfix_source {
	IPFIX_SRC_U8,
	IPFIX_SRC_U16,
	IPFIX_SRC_U32,
	IPFIX_SRC_U64,
	IPFIX_SRC_ADDR,	 /* length bytes from the field */
	IPFIX_SRC_L2SEG, /* layer2SegmentId from vni and IPFIX_FLOW_VXLAN */
	IPFIX_SRC_PATH,	 /* the path string, variable length */
};

struct ipfix_element {
	__u16 id;
	bool enterprise; /* id is under the exporter's PEN */
	__u16 length;	 /* on the wire; IPFIX_VARLEN for strings */
	__u8 type;	 /* enum ipfix_type */
	__u8 semantics;	 /* enum ipfix_semantics */
	__u16 units;	 /* enum ipfix_units */
	__u8 need_set;	 /* in variant v iff (v & need_set) == need_set */
	__u8 need_clear; /* ... and (v & need_clear) == 0 */
	__u8 source;	 /* enum ipfix_source */
	__u16 offset;	 /* in struct ipfix_flow */
	__u64 range_max; /* the largest value that means something; 0: the type's */
	const char *name;
	const char *description;
};

/* Every element fabprobe sends, in template order. */
extern const struct ipfix_element ipfix_elements[];
extern const size_t ipfix_n_elements;

bool ipfix_element_in(const struct ipfix_element *e, unsigned int variant);
/* informationElementRangeEnd of e (RFC 5610); the range begins at 0. */
__u64 ipfix_element_max(const struct ipfix_element *e);
unsigned int ipfix_flow_variant(const struct ipfix_flow *f);

/* Bytes a variable-length value of len bytes takes: 1 + len below 255, else 3 + len. */
size_t ipfix_varlen_size(size_t len);
/* Write it (RFC 7011 section 7); p has room for ipfix_varlen_size(len). Returns that size. */
size_t ipfix_put_varlen(__u8 *p, const void *val, size_t len);
/* The longest prefix of s, at most max bytes, that ends on a UTF-8 character boundary. */
size_t ipfix_utf8_prefix(const char *s, size_t len, size_t max);

/* Write a Message Header (RFC 7011 section 3.1). */
void ipfix_put_msg_header(__u8 *p, __u16 length, __u32 export_s, __u32 sequence, __u32 domain);
void ipfix_put_set_header(__u8 *p, __u16 set_id, __u16 length);

/*
 * One Template Record (section 3.4.1) of a variant, enterprise elements
 * under pen. Returns its length, or -ENOSPC when cap is too small.
 */
int ipfix_template_record(__u8 *p, size_t cap, unsigned int variant, __u32 pen);
/* The RFC 5610 Options Template Record (for set ID 3). */
int ipfix_types_template_record(__u8 *p, size_t cap);
/*
 * One RFC 5610 Information Element Type Record describing enterprise
 * element e, at most cap bytes (the description is cut to fit).
 */
int ipfix_type_record(__u8 *p, size_t cap, const struct ipfix_element *e, __u32 pen);
/* A Template Withdrawal Record (section 8.1): the ID with Field Count 0. */
int ipfix_withdrawal_record(__u8 *p, size_t cap, __u16 template_id);

/*
 * One Data Record of f with the template of its variant, at most max
 * bytes: a longer path is cut at a character boundary (*truncated set).
 * Returns the length, or -ENOSPC when even an empty path does not fit.
 */
int ipfix_data_record(__u8 *p, size_t max, const struct ipfix_flow *f, bool *truncated);

/* The longest record of any variant with an empty path, and the longest template. */
size_t ipfix_max_fixed_record(void);
size_t ipfix_max_template_record(void);

#endif /* __FP_IPFIX_MSG_H */
