#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The dashboard's NIC view in tmux, over a copy of the recorded mlx5 tree
# (tests/fixtures/nic) whose counters the test moves between refreshes:
# the ports' totals and rates, PFC per priority with the share paused, the
# QP table with predicted ports and owners, a PFC storm raised in Alerts
# and cleared once the counter stops. Then a capture built here beside the
# tree: Flows and QPs name each flow's process, the NIC view counts the
# flows of each QP, and Enter on a QP shows its flows. Ground truth is
# what the test writes and the kernel's port formula.
# TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d /tmp/fp-top-nic-XXXXXX)
SOCK=fpt-nic-$$
SESSION=nic
. "$(dirname "$0")/tmux.bash"
. "$(dirname "$0")/nic.bash"
trap 'tmx_gone; rm -rf "$TMP"' EXIT
T=$TMP/mlx5

port_row() { screen | grep -E "^mlx5_0/1 ens1f0np0 "; }
total_row() { screen | grep -A1 -E "^mlx5_0/1 ens1f0np0 " | tail -1; }

echo "--- top --nic-root --view nic: counters moved between refreshes"
nic_tree mlx5 "$T"
start 160 45 --nic-root "$T" --view nic -r 2
check "--view nic opens on the NIC view" wait_screen "^RDMA PORT / NETDEV +CNPTX/s +ECNRX/s" 10
check "the tabs end in 6 NIC" wait_screen "^ 1 Flows .* 5 Alerts +6 NIC" 1
check "a port row per device port, its netdev beside it" wait_screen "^mlx5_1/1 ens1f1np1 " 1
check "under it, the totals: np_cnp_sent 5120, np_ecn_marked 48211" \
	matches "$(total_row)" "^  total +5\.12k +48\.2k +3\.07k "
check "PFC: the lossless priority 3 of each netdev, marked" wait_screen "^ens1f1np1 +3\* " 1
check "the QP table: the kernel's port for 17 x 34, and its owner" \
	wait_screen "^mlx5_0/1 +17 +34 RC +RTS +49730 +- +- +ib_write_bw\[41001\]$" 1
check "a QP in INIT has no port yet" wait_screen "^mlx5_0/1 +4661 +0 RC +INIT +- " 1
check "a kernel QP has no pid" wait_screen "^mlx5_0/1 +1 +- GSI .* ib_core$" 1
maybe_show "NIC view, quiet"
nic_next
hw_add "$NEXT" mlx5_0 np_cnp_sent 5000
eth_add "$NEXT" ens1f0np0 rx_prio3_pause_duration 1900000
eth_add "$NEXT" ens1f0np0 rx_prio3_pause 400
nic_swap
check "the refresh after the change: np_cnp_sent's total 10.1k" \
	wait_screen "^  total +10\.1k +48\.2k " 6
maybe_show "NIC view, counters moved"
check "... and its rate, 5000 over the ~2 s interval" \
	matches "$(port_row)" "^mlx5_0/1 ens1f0np0 +2\.[3-6][0-9]k +0 +0 +0 "
check "PFC: priority 3 paused most of the interval, 200 pause frames a second" \
	wait_screen "^ens1f0np0 +3\* +(19[0-9]|20[0-9]|2[0-1][0-9]) +0 +(8[5-9]|9[0-9]|100)(\.[0-9])?% +0% " 1
keys 5
check "Alerts: the PFC storm, critical and active" \
	wait_screen "^CRITICAL +pfc_storm +x1 .*active" 3
check "... its message names the netdev and the priority" \
	wait_screen "ens1f0np0 priority 3 was paused" 1
check "the next refresh, nothing moved: cleared" wait_screen "^CRITICAL +pfc_storm +x1 .*cleared" 6
keys 6
check "... and the rate is 0 again" wait_screen "^mlx5_0/1 ens1f0np0 +0 +0 " 3
check "q exits 0" eq "$(quit_rc)" 0

echo "--- top --pcap with --nic-root: each flow's process"
python3 "$(dirname "$0")/nic_pcap.py" "$TMP/f.pcap" "10.0.1.2,10.0.9.9,49730,34,20,17" \
	"10.0.7.7,10.0.9.9,50000,99,5" >/dev/null
start 200 40 --pcap "$TMP/f.pcap" --speed 0 --nic-root "$T"
check "the capture is read" wait_screen "end of capture at" 20
sleep 0.5
maybe_show "Flows with owners"
check "Flows: an OWNER column" wait_screen "^FLOW \(src > dst\) .* OWNER" 1
check "Flows: the data of QP 17 is ib_write_bw's" \
	wait_screen "^10\.0\.1\.2 > 10\.0\.9\.9 .* ib_write_bw\[41001\] *$" 1
check "Flows: so are its ACKs, to QP 17" wait_screen "^10\.0\.9\.9 > 10\.0\.1\.2 .* 17 .* ib_write_bw\[41001\] *$" 1
check "Flows: a flow of no local QP has none" wait_screen "^10\.0\.7\.7 > 10\.0\.9\.9 .* - *$" 1
keys 3
check "QPs: the pair's owner" wait_screen "^QUEUE PAIR .* OWNER" 2
check "QPs: 10.0.1.2 > 10.0.9.9 is ib_write_bw's" wait_screen "^10\.0\.1\.2 > 10\.0\.9\.9 .* ib_write_bw\[41001\] *$" 1
keys 6
check "NIC: QP 17 has its two flows" wait_screen "^mlx5_0/1 +17 +34 RC +RTS +49730 +- +2 +ib_write_bw" 2
# Rows: two ports, two PFC rows, then the QPs in the dump's order: 0, 1, 17.
keys j j j j j j Enter
check "Enter on QP 17: Flows, filtered to its queue pair" wait_screen "^FLOW \(src > dst\)" 2
check "... one flow: the data QP 17 sends" \
	eq "$(screen | grep -cE '^10\.0\.[0-9.]+ > 10\.0\.[0-9.]+ ')" 1
check "q exits 0" eq "$(quit_rc)" 0

echo "--- without --nic nothing changes"
start 200 40 --pcap "$TMP/f.pcap" --speed 0
check "the capture is read" wait_screen "end of capture at" 20
sleep 0.5
check "Flows: no OWNER column" not_matches "$(screen | grep '^FLOW')" "OWNER"
keys 6
check "NIC: says how to get counters" wait_screen "no NIC counters: start top with --nic" 2
check "q exits 0" eq "$(quit_rc)" 0

finish top-nic
