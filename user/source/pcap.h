/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FP_REPLAY_H
#define __FP_REPLAY_H

#include <stddef.h>
#include <linux/types.h>

/* Re-frame a captured frame of link type dlt as Ethernet; 0 if impossible. */
size_t replay_to_ethernet(int dlt, const __u8 *in, size_t caplen, __u8 *out, size_t out_len);

#endif /* __FP_REPLAY_H */
