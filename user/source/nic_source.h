/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic_source.h - the NIC-only source: no probe and no flows, only time
 * passing, for a session whose whole input is the NIC counters it reads
 * beside its source (source.nic: `fabprobe nic`, `top --nic` without -i).
 * On a GPU host whose RoCE is offloaded that is all there is to read.
 */
#ifndef __FP_NIC_SOURCE_H
#define __FP_NIC_SOURCE_H

#include "source/nic.h"
#include "source/source.h"

/*
 * A source that waits in advance() and collects empty snapshots; o is
 * what the session reads (o->root named in the description) and must
 * outlive it. NULL when out of memory.
 */
struct source *nic_source_new(const struct nic_opts *o);

#endif /* __FP_NIC_SOURCE_H */
