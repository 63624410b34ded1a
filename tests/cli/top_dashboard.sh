#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The dashboard's first screen and keys through tmux, on inputs that need
# no lab: NIC counters alone (the recorded mlx5 tree) open on the NIC view,
# whose header counts what the NIC view holds and which scrolls only when
# its rows do not fit.
# TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
FABPROBE=${FABPROBE:-build/fabprobe}
NIC_TREE=$(cd "$(dirname "$0")/../fixtures/nic/mlx5" && pwd)
TMP=$(mktemp -d /tmp/fp-top-dash-XXXXXX)
SOCK=fpt-dash-$$
SESSION=dash
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../integration/tmux.bash"
cleanup() {
	tmx kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$TMP"
}
trap cleanup EXIT

echo "--- top --nic-root alone: the NIC view"
start 160 45 --nic-root "$NIC_TREE" -r 1
check "NIC counters alone: the dashboard opens on the NIC view" \
	wait_screen "^RDMA PORT / NETDEV +CNPTX/s +ECNRX/s" 10
maybe_show "NIC counters alone"
check "... its header counts the tree's ports, netdevs and QPs (2, 2, 8)" \
	wait_screen "^NIC counters: 2 RDMA ports, 2 netdevs, 8 QPs  every 1\.0s" 1
check "... and no frames or flow table, which cannot change" \
	not_matches "$(screen | sed -n 2,3p)" "frames|RoCE|^flows "
check "q exits 0" eq "$(quit_rc)" 0

echo "--- the NIC view scrolls only when its rows do not fit"
start 160 45 --nic-root "$NIC_TREE" -r 1 --view nic
check "45 lines: the NIC view" wait_screen "^RDMA PORT / NETDEV " 10
# 12 rows in 33 lines of 39: j moves the selection, the view stays put.
keys j
keys j
keys j
maybe_show "NIC, j three times"
check "j three times: all fits in 45 lines, the ports' section stays on screen" \
	matches "$(screen | sed -n 5p)" "^RDMA PORT / NETDEV "
check "... its first port too" matches "$(screen | sed -n 6p)" "^mlx5_0/1 ens1f0np0 "
keys G
check "G, the last row: still nothing scrolled" matches "$(screen | sed -n 5p)" "^RDMA PORT / NETDEV "
check "q exits 0" eq "$(quit_rc)" 0

start 120 18 --nic-root "$NIC_TREE" -r 1 --view nic
check "18 lines: the NIC view" wait_screen "^RDMA PORT / NETDEV " 10
keys G
maybe_show "NIC, 18 lines, G"
# Lines 5-16 are the body (12 lines), 17 the legend: the last QP on line 16.
check "18 lines, G: the last QP on the body's last line, none blank under it" \
	matches "$(screen | sed -n 16p)" "^mlx5_1/- +300 "
check "... its section's title above it" wait_screen "^QP DEVICE/PORT " 1
keys g
check "g: back to the top" matches "$(screen | sed -n 5p)" "^RDMA PORT / NETDEV "
check "q exits 0" eq "$(quit_rc)" 0

start 160 45 --nic-root "$NIC_TREE" -r 1 --view flows
check "--view flows with NIC counters alone: Flows, as asked" wait_screen "^FLOW \(src > dst\)" 10
check "q exits 0" eq "$(quit_rc)" 0

finish top-dashboard
