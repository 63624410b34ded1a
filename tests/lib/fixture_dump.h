/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixture_dump.h - fixture frames for tools that check the probe from
 * outside: every frame to a pcap, with what the probe made of each one
 * alone, for tshark to dissect the same bytes; and the totals a capture
 * leaves, for comparing real captures with tshark.
 */
#ifndef __FP_TEST_FIXTURE_DUMP_H
#define __FP_TEST_FIXTURE_DUMP_H

#include <stddef.h>

#include "frames.h"

/*
 * Write dir/name.pcap (Ethernet) and dir/name.tsv: one line a frame, in
 * order, with its label, the class, the counters that frame moved and the
 * flow it made, each frame run alone through XDP. Returns the number of
 * failed checks (cmocka's), 0 when all went well.
 */
int fx_dump_frames(const char *dir, const char *name, const struct frame *frames,
		   const char *const *labels, size_t n);

/*
 * Replay each capture through XDP into empty maps and print its totals as
 * one line "TOTALS {json}" on stdout. Returns 0 when every capture ran.
 */
int fx_replay_totals(int n_files, char **files);

#endif /* __FP_TEST_FIXTURE_DUMP_H */
