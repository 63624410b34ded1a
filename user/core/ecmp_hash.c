// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ecmp_hash.h"

/* The verification key of Microsoft's RSS documentation ("Verifying the RSS hash"). */
static const __u8 rss_default_key[HASH_TOEPLITZ_KEY_LEN] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static const char *const model_names[HASH_MODEL_MAX] = {
    [HASH_CRC32_LO] = "crc32-lo", [HASH_CRC32_HI] = "crc32-hi", [HASH_CRC16_CCITT] = "crc16-ccitt",
    [HASH_XOR_FOLD] = "xor-fold", [HASH_TOEPLITZ] = "toeplitz",
};

void hash_config_default(struct hash_config *c)
{
	memset(c, 0, sizeof(*c));
	c->model = HASH_CRC32_LO;
	c->fields = HASH_FIELDS_DEFAULT;
	c->n_paths = 4;
	memcpy(c->toeplitz_key, rss_default_key, sizeof(rss_default_key));
}

int hash_model_parse(const char *name, enum hash_model *out)
{
	for (int m = 0; m < HASH_MODEL_MAX; m++) {
		if (!strcmp(name, model_names[m])) {
			*out = m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *hash_model_name(enum hash_model m)
{
	return m < HASH_MODEL_MAX ? model_names[m] : "?";
}

int hash_fields_parse(const char *list, unsigned int *out)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = {
	    {"src-ip", HF_SRC_IP}, {"dst-ip", HF_DST_IP}, {"sport", HF_SPORT},
	    {"dport", HF_DPORT},   {"vni", HF_VNI},	  {"qp", HF_DEST_QP},
	};
	char *copy = strdup(list), *save = NULL;
	unsigned int fields = 0;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			err = -EINVAL;
			break;
		}
		fields |= names[i].bit;
	}
	free(copy);
	if (!err && !fields)
		err = -EINVAL;
	if (!err)
		*out = fields;
	return err;
}

/* CRC-32/ISO-HDLC, reflected, polynomial 0xEDB88320; seed 0 gives the standard CRC. */
__u32 crc32_ieee(__u32 seed, const __u8 *buf, size_t len)
{
	__u32 crc = ~seed;

	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320U & -(crc & 1));
	}
	return ~crc;
}

/* CRC-16/CCITT-FALSE: polynomial 0x1021, not reflected, standard seed 0xFFFF. */
__u16 crc16_ccitt(__u16 seed, const __u8 *buf, size_t len)
{
	__u16 crc = seed;

	for (size_t i = 0; i < len; i++) {
		crc ^= (__u16)buf[i] << 8;
		for (int b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
	}
	return crc;
}

/*
 * Toeplitz hash as RSS defines it: for each set input bit, XOR the 32-bit
 * key window. Inputs longer than the key minus 4 bytes (IPv6 plus VNI/QP)
 * reuse the key cyclically.
 */
__u32 toeplitz(const __u8 *key, size_t key_len, const __u8 *buf, size_t len)
{
	__u32 result = 0, window;
	size_t next = 4;

	if (key_len < 4)
		return 0;
	window = (__u32)key[0] << 24 | (__u32)key[1] << 16 | (__u32)key[2] << 8 | key[3];
	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (buf[i] & (1 << b))
				result ^= window;
			window <<= 1;
			if (key[next % key_len] & (1 << b))
				window |= 1;
		}
		next++;
	}
	return result;
}

static size_t put_be(__u8 *buf, __u32 v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		buf[i] = v >> (8 * (bytes - 1 - i));
	return bytes;
}

size_t hash_input(const struct hash_config *c, const struct flow_key *k, __u8 *buf)
{
	size_t alen = k->flags & FP_FLOW_IPV6 ? 16 : 4, n = 0;

	if (c->fields & HF_SRC_IP) {
		memcpy(buf + n, k->src, alen);
		n += alen;
	}
	if (c->fields & HF_DST_IP) {
		memcpy(buf + n, k->dst, alen);
		n += alen;
	}
	if (c->fields & HF_SPORT)
		n += put_be(buf + n, k->sport, 2);
	if (c->fields & HF_DPORT)
		n += put_be(buf + n, k->dport, 2);
	if (c->fields & HF_VNI)
		n += put_be(buf + n, k->vni, 3);
	if (c->fields & HF_DEST_QP)
		n += put_be(buf + n, k->dest_qp, 3);
	return n;
}

__u16 crc16_start(__u32 seed)
{
	if (seed & 0xFFFF)
		return seed & 0xFFFF;
	return seed ? 0 : 0xFFFF;
}

__u32 hash_flow(const struct hash_config *c, const struct flow_key *k)
{
	__u8 buf[64];
	size_t len = hash_input(c, k, buf);
	__u32 h = c->seed;

	switch (c->model) {
	case HASH_CRC32_LO:
	case HASH_CRC32_HI:
		return crc32_ieee(c->seed, buf, len);
	case HASH_CRC16_CCITT:
		return crc16_ccitt(crc16_start(c->seed), buf, len);
	case HASH_XOR_FOLD:
		for (size_t i = 0; i < len; i++)
			h ^= (__u32)buf[i] << (8 * (i % 4));
		return (h >> 16) ^ (h & 0xFFFF);
	case HASH_TOEPLITZ:
	default:
		return toeplitz(c->toeplitz_key, HASH_TOEPLITZ_KEY_LEN, buf, len);
	}
}

__u32 hash_path(const struct hash_config *c, const struct flow_key *k)
{
	__u32 h = hash_flow(c, k);

	if (!c->n_paths)
		return 0;
	if (c->model == HASH_CRC32_HI)
		h >>= 16;
	return h % c->n_paths;
}
