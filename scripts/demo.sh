#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job on a bundled capture (until the live lab demo lands).
set -euo pipefail
cd "$(dirname "$0")/.."
pcaps=${PCAPS:-../shared/pcaps}
for f in "$pcaps"/rdma_write_bw.pcap "$pcaps"/nccl_nccl_node0.pcap; do
	echo "### fabprobe replay $f"
	build/fabprobe replay "$f"
	echo
done
