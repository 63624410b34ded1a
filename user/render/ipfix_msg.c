// SPDX-License-Identifier: GPL-2.0
/*
 * ipfix_msg.c - IPFIX encoding: one table of elements drives the templates,
 * the data records, the RFC 5610 element descriptions and the XML file a
 * collector loads (docs/ipfix/fabprobe-elements.xml).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabprobe.h"
#include "render/ipfix_msg.h"
#include "util/format.h"

#define FLOW_OFF(field) ((__u16) __builtin_offsetof(struct ipfix_flow, field))

#define STD(i, n, len, t, sem, u, src, field, set, clr, desc)                                      \
	{                                                                                          \
		.id = i, .enterprise = false, .length = len, .type = t, .semantics = sem,          \
		.units = u, .need_set = set, .need_clear = clr, .source = src,                     \
		.offset = FLOW_OFF(field), .name = n, .description = desc                          \
	}
#define ENT(i, n, len, t, sem, u, src, field, set, clr, desc, ...)                                 \
	{                                                                                          \
		.id = i, .enterprise = true, .length = len, .type = t, .semantics = sem,           \
		.units = u, .need_set = set, .need_clear = clr, .source = src,                     \
		.offset = FLOW_OFF(field), .name = n, .description = desc, __VA_ARGS__             \
	}
#define COUNT(i, n, field, set, clr, desc)                                                         \
	ENT(i, n, 8, IPFIX_T_UNSIGNED64, IPFIX_S_DELTA, IPFIX_U_PACKETS, IPFIX_SRC_U64, field,     \
	    set, clr, desc)

/*
 * Fixed-length elements first, the one string last. The standard ones are
 * IANA's (https://www.iana.org/assignments/ipfix); the enterprise ones are
 * fabprobe's, numbered under the exporter's PEN and never renumbered.
 */
const struct ipfix_element ipfix_elements[] = {
    STD(152, "flowStartMilliseconds", 8, IPFIX_T_DATETIME_MS, IPFIX_S_DEFAULT, IPFIX_U_MILLISECONDS,
	IPFIX_SRC_U64, start_ms, 0, 0, "first packet counted in this record"),
    STD(153, "flowEndMilliseconds", 8, IPFIX_T_DATETIME_MS, IPFIX_S_DEFAULT, IPFIX_U_MILLISECONDS,
	IPFIX_SRC_U64, end_ms, 0, 0, "last packet counted in this record"),
    STD(1, "octetDeltaCount", 8, IPFIX_T_UNSIGNED64, IPFIX_S_DELTA, IPFIX_U_OCTETS, IPFIX_SRC_U64,
	octets, 0, 0, "frame bytes on the wire since the previous record"),
    STD(2, "packetDeltaCount", 8, IPFIX_T_UNSIGNED64, IPFIX_S_DELTA, IPFIX_U_PACKETS, IPFIX_SRC_U64,
	packets, 0, 0, "packets since the previous record"),
    STD(8, "sourceIPv4Address", 4, IPFIX_T_IPV4, IPFIX_S_DEFAULT, IPFIX_U_NONE, IPFIX_SRC_ADDR, src,
	0, IPFIX_V_IPV6, "outer source address"),
    STD(12, "destinationIPv4Address", 4, IPFIX_T_IPV4, IPFIX_S_DEFAULT, IPFIX_U_NONE,
	IPFIX_SRC_ADDR, dst, 0, IPFIX_V_IPV6, "outer destination address"),
    STD(27, "sourceIPv6Address", 16, IPFIX_T_IPV6, IPFIX_S_DEFAULT, IPFIX_U_NONE, IPFIX_SRC_ADDR,
	src, IPFIX_V_IPV6, 0, "outer source address"),
    STD(28, "destinationIPv6Address", 16, IPFIX_T_IPV6, IPFIX_S_DEFAULT, IPFIX_U_NONE,
	IPFIX_SRC_ADDR, dst, IPFIX_V_IPV6, 0, "outer destination address"),
    STD(10, "ingressInterface", 4, IPFIX_T_UNSIGNED32, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U32, ingress_ifindex, 0, 0, "ifindex the flow was seen entering, 0 if none"),
    STD(14, "egressInterface", 4, IPFIX_T_UNSIGNED32, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U32, egress_ifindex, 0, 0, "ifindex the flow was seen leaving, 0 if none"),
    STD(351, "layer2SegmentId", 8, IPFIX_T_UNSIGNED64, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_L2SEG, vni, 0, 0, "0x01 << 56 | VXLAN VNI; 0 for bare RoCEv2"),
    STD(7, "sourceTransportPort", 2, IPFIX_T_UNSIGNED16, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U16, sport, 0, 0, "outer UDP source port"),
    STD(11, "destinationTransportPort", 2, IPFIX_T_UNSIGNED16, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U16, dport, 0, 0, "outer UDP destination port"),
    STD(4, "protocolIdentifier", 1, IPFIX_T_UNSIGNED8, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U8, protocol, 0, 0, "17 (UDP)"),
    STD(5, "ipClassOfService", 1, IPFIX_T_UNSIGNED8, IPFIX_S_IDENTIFIER, IPFIX_U_NONE, IPFIX_SRC_U8,
	tos, 0, 0, "DSCP << 2 of the packets counted in this record"),
    STD(61, "flowDirection", 1, IPFIX_T_UNSIGNED8, IPFIX_S_IDENTIFIER, IPFIX_U_NONE, IPFIX_SRC_U8,
	direction, 0, 0, "0 ingress, 1 egress"),
    STD(136, "flowEndReason", 1, IPFIX_T_UNSIGNED8, IPFIX_S_IDENTIFIER, IPFIX_U_NONE, IPFIX_SRC_U8,
	end_reason, 0, 0, "1 idle timeout, 2 active timeout, 3 end, 4 forced end"),
    ENT(1, "roceDestQueuePair", 4, IPFIX_T_UNSIGNED32, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U32, dest_qp, 0, 0, "BTH destination queue pair (24 bits)",
	.range_max = 0xFFFFFF),
    ENT(2, "roceOpcodeClasses", 1, IPFIX_T_UNSIGNED8, IPFIX_S_FLAGS, IPFIX_U_NONE, IPFIX_SRC_U8,
	opcode_classes, 0, 0,
	"BTH operations seen on the flow: 0x01 SEND, 0x02 WRITE, 0x04 READ request, "
	"0x08 READ response, 0x10 atomic, 0x20 acknowledge, 0x40 CNP, 0x80 other"),
    COUNT(3, "roceNotEctPackets", not_ect, 0, 0, "packets sent Not-ECT (outer IP)"),
    COUNT(4, "roceEct0Packets", ect0, 0, 0, "packets marked ECT(0) (outer IP)"),
    COUNT(5, "roceEct1Packets", ect1, 0, 0, "packets marked ECT(1) (outer IP)"),
    COUNT(6, "roceCePackets", ce, 0, 0, "packets marked CE, congestion experienced (outer IP)"),
    COUNT(7, "roceCnpPackets", cnp, 0, 0, "congestion notification packets (BTH opcode 0x81)"),
    COUNT(8, "roceAckPackets", acks, 0, 0, "acknowledge packets with an ACK syndrome"),
    COUNT(9, "roceNakPackets", naks, 0, 0, "acknowledge packets with a NAK syndrome"),
    COUNT(10, "roceRnrNakPackets", rnr_naks, 0, 0,
	  "acknowledge packets with a receiver-not-ready NAK syndrome"),
    COUNT(11, "roceRetransmitPackets", retransmits, 0, IPFIX_V_SAMPLED,
	  "packets resent: requests whose PSN is not ahead of the highest seen, READs "
	  "retried, READ responses sent again"),
    ENT(12, "rocePsnGaps", 8, IPFIX_T_UNSIGNED64, IPFIX_S_DELTA, IPFIX_U_NONE, IPFIX_SRC_U64,
	psn_gaps, 0, IPFIX_V_SAMPLED, "forward PSN jumps between consecutive requests"),
    ENT(13, "fabprobeMirrorSession", 4, IPFIX_T_UNSIGNED32, IPFIX_S_IDENTIFIER, IPFIX_U_NONE,
	IPFIX_SRC_U32, mirror_session, IPFIX_V_MIRROR, 0,
	"mirror (SPAN/ERSPAN) session that delivered the packets"),
    ENT(14, "fabprobeSamplingRate", 4, IPFIX_T_UNSIGNED32, IPFIX_S_QUANTITY, IPFIX_U_NONE,
	IPFIX_SRC_U32, sampling_rate, IPFIX_V_SAMPLED, 0,
	"sFlow sampling rate: one packet in N was sampled"),
    COUNT(15, "fabprobeSampledPackets", samples, IPFIX_V_SAMPLED, 0,
	  "sampled packets this record's counts were estimated from"),
    STD(82, "interfaceName", IPFIX_VARLEN, IPFIX_T_STRING, IPFIX_S_DEFAULT, IPFIX_U_NONE,
	IPFIX_SRC_PATH, path, 0, 0, "observed path: the uplink that carried the flow, or empty"),
};
const size_t ipfix_n_elements = sizeof(ipfix_elements) / sizeof(ipfix_elements[0]);

/* RFC 5610 section 3: the elements of an Information Element Type Record. */
#define IE_ID		 303
#define IE_DATA_TYPE	 339
#define IE_DESCRIPTION	 340
#define IE_NAME		 341
#define IE_SEMANTICS	 344
#define IE_RANGE_BEGIN	 342
#define IE_RANGE_END	 343
#define IE_UNITS	 345
#define IE_PEN		 346
#define TYPES_FIELDS	 9
#define TYPES_SCOPE	 2
#define TYPE_FIXED_BYTES (4 + 2 + 1 + 1 + 2 + 8 + 8)

static void put_u16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_u32(__u8 *p, __u32 v)
{
	put_u16(p, v >> 16);
	put_u16(p + 2, v);
}

static void put_u64(__u8 *p, __u64 v)
{
	put_u32(p, v >> 32);
	put_u32(p + 4, v);
}

__u64 ipfix_element_max(const struct ipfix_element *e)
{
	if (e->range_max)
		return e->range_max;
	switch (e->type) {
	case IPFIX_T_UNSIGNED8:
		return 0xFF;
	case IPFIX_T_UNSIGNED16:
		return 0xFFFF;
	case IPFIX_T_UNSIGNED32:
		return 0xFFFFFFFF;
	}
	return ~0ULL;
}

bool ipfix_element_in(const struct ipfix_element *e, unsigned int variant)
{
	return (variant & e->need_set) == e->need_set && !(variant & e->need_clear);
}

unsigned int ipfix_flow_variant(const struct ipfix_flow *f)
{
	return (f->flags & IPFIX_FLOW_IPV6 ? IPFIX_V_IPV6 : 0) |
	       (f->flags & IPFIX_FLOW_SAMPLED ? IPFIX_V_SAMPLED : 0) |
	       (f->flags & IPFIX_FLOW_MIRROR ? IPFIX_V_MIRROR : 0);
}

size_t ipfix_varlen_size(size_t len)
{
	return len < 255 ? 1 + len : 3 + len;
}

size_t ipfix_put_varlen(__u8 *p, const void *val, size_t len)
{
	size_t hdr = 1;

	if (len < 255) {
		p[0] = len;
	} else {
		p[0] = 255;
		put_u16(p + 1, len);
		hdr = 3;
	}
	if (len)
		memcpy(p + hdr, val, len);
	return hdr + len;
}

/* The longest value whose variable-length encoding fits in room (> 0) bytes. */
static size_t varlen_fit(size_t room)
{
	if (room <= 255)
		return room - 1;
	return room < 258 ? 254 : room - 3;
}

size_t ipfix_utf8_prefix(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	/* Back off continuation bytes (10xxxxxx) so no character is split. */
	while (max > 0 && ((__u8)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

void ipfix_put_msg_header(__u8 *p, __u16 length, __u32 export_s, __u32 sequence, __u32 domain)
{
	put_u16(p, IPFIX_VERSION);
	put_u16(p + 2, length);
	put_u32(p + 4, export_s);
	put_u32(p + 8, sequence);
	put_u32(p + 12, domain);
}

void ipfix_put_set_header(__u8 *p, __u16 set_id, __u16 length)
{
	put_u16(p, set_id);
	put_u16(p + 2, length);
}

/* A Field Specifier (section 3.2): enterprise elements carry the E bit and the PEN. */
static size_t put_field(__u8 *p, __u16 id, bool enterprise, __u16 length, __u32 pen)
{
	put_u16(p, enterprise ? id | IPFIX_ENTERPRISE_BIT : id);
	put_u16(p + 2, length);
	if (!enterprise)
		return 4;
	put_u32(p + 4, pen);
	return 8;
}

static size_t template_size(unsigned int variant)
{
	size_t n = 4;

	for (size_t i = 0; i < ipfix_n_elements; i++)
		if (ipfix_element_in(&ipfix_elements[i], variant))
			n += ipfix_elements[i].enterprise ? 8 : 4;
	return n;
}

int ipfix_template_record(__u8 *p, size_t cap, unsigned int variant, __u32 pen)
{
	size_t off = 4;
	__u16 fields = 0;

	if (variant >= IPFIX_N_VARIANTS)
		return -EINVAL;
	if (template_size(variant) > cap)
		return -ENOSPC;
	for (size_t i = 0; i < ipfix_n_elements; i++) {
		const struct ipfix_element *e = &ipfix_elements[i];

		if (!ipfix_element_in(e, variant))
			continue;
		off += put_field(p + off, e->id, e->enterprise, e->length, pen);
		fields++;
	}
	put_u16(p, IPFIX_TID_BASE + variant);
	put_u16(p + 2, fields);
	return off;
}

size_t ipfix_max_template_record(void)
{
	size_t max = 0;

	for (unsigned int v = 0; v < IPFIX_N_VARIANTS; v++)
		if (template_size(v) > max)
			max = template_size(v);
	return max;
}

int ipfix_types_template_record(__u8 *p, size_t cap)
{
	/*
	 * Section 3.4.2.2: scope fields first; RFC 5610 section 3.9 names the
	 * scope. The range is optional in RFC 5610, but libfixbuf only takes
	 * type records whose template has every element, so it is sent.
	 */
	static const __u16 fields[TYPES_FIELDS][2] = {
	    {IE_PEN, 4},
	    {IE_ID, 2},
	    {IE_DATA_TYPE, 1},
	    {IE_SEMANTICS, 1},
	    {IE_UNITS, 2},
	    {IE_RANGE_BEGIN, 8},
	    {IE_RANGE_END, 8},
	    {IE_NAME, IPFIX_VARLEN},
	    {IE_DESCRIPTION, IPFIX_VARLEN},
	};
	size_t off = 6;

	if (cap < 6 + 4 * TYPES_FIELDS)
		return -ENOSPC;
	put_u16(p, IPFIX_TID_TYPES);
	put_u16(p + 2, TYPES_FIELDS);
	put_u16(p + 4, TYPES_SCOPE);
	for (int i = 0; i < TYPES_FIELDS; i++)
		off += put_field(p + off, fields[i][0], false, fields[i][1], 0);
	return off;
}

int ipfix_type_record(__u8 *p, size_t cap, const struct ipfix_element *e, __u32 pen)
{
	size_t name_len = strlen(e->name), desc_len = strlen(e->description), room, off;

	if (cap < TYPE_FIXED_BYTES + ipfix_varlen_size(name_len) + 1)
		return -ENOSPC;
	room = cap - TYPE_FIXED_BYTES - ipfix_varlen_size(name_len);
	if (ipfix_varlen_size(desc_len) > room)
		desc_len = ipfix_utf8_prefix(e->description, desc_len, varlen_fit(room));
	put_u32(p, pen);
	put_u16(p + 4, e->id);
	p[6] = e->type;
	p[7] = e->semantics;
	put_u16(p + 8, e->units);
	put_u64(p + 10, 0);
	put_u64(p + 18, ipfix_element_max(e));
	off = TYPE_FIXED_BYTES;
	off += ipfix_put_varlen(p + off, e->name, name_len);
	off += ipfix_put_varlen(p + off, e->description, desc_len);
	return off;
}

int ipfix_withdrawal_record(__u8 *p, size_t cap, __u16 template_id)
{
	if (cap < 4)
		return -ENOSPC;
	put_u16(p, template_id);
	put_u16(p + 2, 0);
	return 4;
}

static size_t fixed_size(unsigned int variant)
{
	size_t n = 0;

	for (size_t i = 0; i < ipfix_n_elements; i++)
		if (ipfix_element_in(&ipfix_elements[i], variant) &&
		    ipfix_elements[i].length != IPFIX_VARLEN)
			n += ipfix_elements[i].length;
	return n;
}

size_t ipfix_max_fixed_record(void)
{
	size_t max = 0;

	for (unsigned int v = 0; v < IPFIX_N_VARIANTS; v++)
		if (fixed_size(v) + 1 > max)
			max = fixed_size(v) + 1;
	return max;
}

int ipfix_data_record(__u8 *p, size_t max, const struct ipfix_flow *f, bool *truncated)
{
	unsigned int variant = ipfix_flow_variant(f);
	const char *path = f->path ? f->path : "";
	size_t path_len = strlen(path), fixed = fixed_size(variant), off = 0;
	const __u8 *base = (const __u8 *)f;

	*truncated = false;
	if (fixed + 1 > max)
		return -ENOSPC;
	if (fixed + ipfix_varlen_size(path_len) > max) {
		path_len = ipfix_utf8_prefix(path, path_len, varlen_fit(max - fixed));
		*truncated = true;
	}
	for (size_t i = 0; i < ipfix_n_elements; i++) {
		const struct ipfix_element *e = &ipfix_elements[i];
		const __u8 *field = base + e->offset;
		__u64 v64;
		__u32 v32;
		__u16 v16;

		if (!ipfix_element_in(e, variant))
			continue;
		switch (e->source) {
		case IPFIX_SRC_U8:
			p[off] = *field;
			break;
		case IPFIX_SRC_U16:
			memcpy(&v16, field, 2);
			put_u16(p + off, v16);
			break;
		case IPFIX_SRC_U32:
			memcpy(&v32, field, 4);
			put_u32(p + off, v32);
			break;
		case IPFIX_SRC_U64:
			memcpy(&v64, field, 8);
			put_u64(p + off, v64);
			break;
		case IPFIX_SRC_ADDR:
			memcpy(p + off, field, e->length);
			break;
		case IPFIX_SRC_L2SEG:
			/* IANA layer2SegmentId: the top octet is the overlay type, 0x01 VXLAN. */
			put_u64(p + off, f->flags & IPFIX_FLOW_VXLAN
					     ? (1ULL << 56) | (f->vni & 0xFFFFFF)
					     : 0);
			break;
		case IPFIX_SRC_PATH:
			off += ipfix_put_varlen(p + off, path, path_len);
			continue;
		}
		off += e->length;
	}
	return off;
}

/* The class of one BTH opcode (IBTA 9.2: transport in the top three bits, operation below). */
static __u8 opcode_class(unsigned int op)
{
	unsigned int transport = op & FP_TRANSPORT_MASK;

	if (op == FP_OPCODE_CNP)
		return IPFIX_OPC_CNP;
	/* Past XRC the transports are reserved or the manufacturer's (IBTA 9.2). */
	if (transport == FP_TRANSPORT_CNP || transport > FP_TRANSPORT_XRC)
		return IPFIX_OPC_OTHER;
	/* The low five bits are the operation whatever the transport. */
	switch (op & FP_OP_MASK) {
	case FP_OP_SEND_FIRST ... FP_OP_SEND_ONLY_IMM:
	case FP_OP_SEND_LAST_INV:
	case FP_OP_SEND_ONLY_INV:
		return IPFIX_OPC_SEND;
	case FP_OP_WRITE_FIRST ... FP_OP_WRITE_ONLY_IMM:
		return IPFIX_OPC_WRITE;
	case FP_OP_READ_REQ:
		return IPFIX_OPC_READ_REQ;
	case FP_OP_READ_RESP_FIRST ... FP_OP_READ_RESP_ONLY:
		return IPFIX_OPC_READ_RESP;
	case FP_OP_ACK:
		return IPFIX_OPC_ACK;
	case FP_OP_ATOMIC_ACK:
	case FP_OP_CMP_SWAP:
	case FP_OP_FETCH_ADD:
		return IPFIX_OPC_ATOMIC;
	default:
		return IPFIX_OPC_OTHER;
	}
}

__u8 ipfix_opcode_classes(const __u64 opcodes[4])
{
	__u8 classes = 0;

	/* Only the opcodes seen (a flow has a handful): this runs once per record. */
	for (unsigned int word = 0; word < 4; word++)
		for (__u64 bits = opcodes[word]; bits; bits &= bits - 1)
			classes |= opcode_class(word * 64 + __builtin_ctzll(bits));
	return classes;
}

static const char *type_name(__u8 type)
{
	switch (type) {
	case IPFIX_T_UNSIGNED8:
		return "unsigned8";
	case IPFIX_T_UNSIGNED16:
		return "unsigned16";
	case IPFIX_T_UNSIGNED32:
		return "unsigned32";
	case IPFIX_T_UNSIGNED64:
		return "unsigned64";
	case IPFIX_T_STRING:
		return "string";
	case IPFIX_T_DATETIME_MS:
		return "dateTimeMilliseconds";
	case IPFIX_T_IPV4:
		return "ipv4Address";
	case IPFIX_T_IPV6:
		return "ipv6Address";
	}
	return "octetArray";
}

static const char *semantics_name(__u8 sem)
{
	switch (sem) {
	case IPFIX_S_QUANTITY:
		return "quantity";
	case IPFIX_S_DELTA:
		return "deltaCounter";
	case IPFIX_S_IDENTIFIER:
		return "identifier";
	case IPFIX_S_FLAGS:
		return "flags";
	}
	return NULL;
}

static const char *units_name(__u16 units)
{
	switch (units) {
	case IPFIX_U_OCTETS:
		return "octets";
	case IPFIX_U_PACKETS:
		return "packets";
	case IPFIX_U_MILLISECONDS:
		return "milliseconds";
	}
	return NULL;
}

int ipfix_write_elements_xml(FILE *out, __u32 pen)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<!-- Generated by tests/tools/ipfix_emit --elements-xml; do not edit. -->\n"
		     "<registry id=\"fabprobe_ipfix\"\n"
		     "          xmlns=\"http://www.iana.org/assignments\"\n"
		     "          xmlns:cert=\"http://www.cert.org/ipfix\">\n"
		     "\n"
		     "  <title>fabprobe IPFIX Elements</title>\n"
		     "\n");
	fprintf(out,
		"  <registry id=\"fabprobe-information-elements\">\n"
		"    <title>fabprobe enterprise elements (PEN %u)</title>\n",
		pen);
	for (size_t i = 0; i < ipfix_n_elements; i++) {
		const struct ipfix_element *e = &ipfix_elements[i];
		const char *sem = semantics_name(e->semantics), *units = units_name(e->units);

		if (!e->enterprise)
			continue;
		fprintf(out,
			"\n    <record>\n"
			"      <name>%s</name>\n"
			"      <dataType>%s</dataType>\n",
			e->name, type_name(e->type));
		if (sem)
			fprintf(out, "      <dataTypeSemantics>%s</dataTypeSemantics>\n", sem);
		if (units)
			fprintf(out, "      <units>%s</units>\n", units);
		fprintf(out,
			"      <cert:enterpriseId>%u</cert:enterpriseId>\n"
			"      <elementId>%u</elementId>\n"
			"      <status>current</status>\n"
			"      <description>\n"
			"        <paragraph>",
			pen, e->id);
		fmt_markup(out, e->description);
		fprintf(out, "</paragraph>\n"
			     "      </description>\n"
			     "    </record>\n");
	}
	fprintf(out, "  </registry>\n</registry>\n");
	return ferror(out) ? -EIO : 0;
}
