// SPDX-License-Identifier: GPL-2.0
/*
 * Hash-model configuration and flow keys from arbitrary bytes: a model
 * name, a field list, a seed and a path count, then a key. The chosen
 * path is always below the path count, and a suggested source port
 * really leads to the path it was asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "core/detect.h"
#include "core/ecmp_hash.h"

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	static const char *const models[] = {"crc32-lo", "crc32-hi", "crc16-ccitt", "xor-fold",
					     "toeplitz"};
	struct hash_config c;
	struct flow_key k = {};
	char fields[64];
	size_t flen;
	__u32 path, want;
	__u16 port;

	if (size < 8 + sizeof(k))
		return 0;
	hash_config_default(&c);
	if (hash_model_parse(models[data[0] % 5], &c.model))
		abort();
	c.seed = (__u32)data[1] << 24 | (__u32)data[2] << 16 | data[3];
	c.n_paths = 1 + data[4] % AN_MAX_PATHS;
	flen = data[5] % sizeof(fields);
	if (size < 8 + sizeof(k) + flen)
		return 0;
	memcpy(&k, data + 8, sizeof(k));
	memcpy(fields, data + 8 + sizeof(k), flen);
	fields[flen] = '\0';
	if (hash_fields_parse(fields, &c.fields))
		c.fields = HASH_FIELDS_DEFAULT;
	path = hash_path(&c, &k);
	if (path >= c.n_paths)
		abort();
	want = data[6] % c.n_paths;
	/* The search is long; only sometimes, and only over real ports. */
	if (data[7] < 16 && (c.fields & HF_SPORT)) {
		port = hash_nearest_sport(&c, &k, want);
		if (port) {
			k.sport = port;
			if (hash_path(&c, &k) != want)
				abort();
		}
	}
	return 0;
}
