/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hash.h - models of the ECMP hash a switch tier may use, to predict which
 * path a flow takes and which source port would move it.
 */
#ifndef __FP_HASH_H
#define __FP_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"

enum hash_model {
	HASH_CRC32_LO, /* CRC-32 (IEEE), path from the low bits */
	HASH_CRC32_HI, /* CRC-32 (IEEE), path from the high 16 bits */
	HASH_CRC16_CCITT,
	HASH_XOR_FOLD,
	HASH_TOEPLITZ,
	HASH_MODEL_MAX,
};

/* Header fields fed to the hash, in this order (--hash-fields). */
enum hash_field {
	HF_SRC_IP = 1 << 0,
	HF_DST_IP = 1 << 1,
	HF_SPORT = 1 << 2,
	HF_DPORT = 1 << 3,
	HF_VNI = 1 << 4,
	HF_DEST_QP = 1 << 5,
};

#define HASH_FIELDS_DEFAULT   (HF_SRC_IP | HF_DST_IP | HF_SPORT | HF_DPORT)
#define HASH_TOEPLITZ_KEY_LEN 40

struct hash_config {
	enum hash_model model;
	unsigned int fields;
	__u32 seed;    /* CRC initial value / XOR-fold start */
	__u32 n_paths; /* next tier's path count */
	__u8 toeplitz_key[HASH_TOEPLITZ_KEY_LEN];
};

void hash_config_default(struct hash_config *c);
/* "crc32-lo", "toeplitz", ...; -EINVAL on an unknown name. */
int hash_model_parse(const char *name, enum hash_model *out);
const char *hash_model_name(enum hash_model m);
/* "src-ip,dst-ip,sport,dport,vni,qp" */
int hash_fields_parse(const char *list, unsigned int *out);

__u32 crc32_ieee(__u32 seed, const __u8 *buf, size_t len);
__u16 crc16_ccitt(__u16 seed, const __u8 *buf, size_t len);
/*
 * --hash-seed's CRC-16 start: its low 16 bits; 0 for the standard 0xFFFF,
 * and 0x10000 (any seed above 16 bits whose low 16 are 0) for a start of 0.
 */
__u16 crc16_start(__u32 seed);
__u32 toeplitz(const __u8 *key, size_t key_len, const __u8 *buf, size_t len);

/* The bytes a switch would hash for this flow key (outer headers). */
size_t hash_input(const struct hash_config *c, const struct flow_key *k, __u8 *buf);
/* The raw hash of a key, and the path index it selects. */
__u32 hash_flow(const struct hash_config *c, const struct flow_key *k);
__u32 hash_path(const struct hash_config *c, const struct flow_key *k);

#endif /* __FP_HASH_H */
