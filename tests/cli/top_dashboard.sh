#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The dashboard's first screen and keys through tmux, on inputs that need
# no lab: NIC counters alone (the recorded mlx5 tree) open on the NIC view,
# whose header counts what the NIC view holds and which scrolls only when
# its rows do not fit; sFlow from the crafted fabric (sflow_scenario, its
# ports at 100 Gb/s) on Paths, where b rescales the bars and LOAD% stays
# the link's utilisation; a filter key that does not exist is refused.
# TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
FABPROBE=${FABPROBE:-build/fabprobe}
TOOLS=${TOOLS:-$(dirname "$FABPROBE")/tools}
NIC_TREE=$(cd "$(dirname "$0")/../fixtures/nic/mlx5" && pwd)
TMP=$(mktemp -d /tmp/fp-top-dash-XXXXXX)
SOCK=fpt-dash-$$
SESSION=dash
sender=
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../integration/tmux.bash"
cleanup() {
	[ -n "$sender" ] && kill "$sender" 2>/dev/null
	tmx_gone
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

echo "--- top --sflow: Paths, b, and LOAD%"
"$TOOLS/sflow_scenario" pcap "$TMP/sc.pcap" "$TMP/sc.json" "$TMP/sc.map" >/dev/null
port=$(python3 -I -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start 160 40 --sflow "127.0.0.1:$port" --sflow-port-map "$TMP/sc.map" --view paths -r 1
check "--view paths" wait_screen "^PATH +GROUP +SPEED +LOAD +LOAD% +RATE" 10
# About 5 s of the fabric's datagrams (76 at 15 a second).
"$TOOLS/sflow_scenario" send 127.0.0.1 "$port" 15 >/dev/null &
sender=$!
check "leaf1-up49 carries its two elephants' load" \
	wait_screen "^leaf1-up49 +leaf1 +100 Gb/s \[#+\.*\] +[0-9.]+% +[0-9.]+ Gb/s" 10
keys p
before=$(screen)
maybe_show "Paths, paused"
keys b
after=$(screen)
maybe_show "Paths, b"
# row_of TEXT NAME: a path's "LOAD% RATE UNIT", after its bar. (PORT OUT, the
# switch's counters, moves while paused: the sFlow source updates it in place.)
row_of() { grep -E "^$2 " <<<"$1" | sed -E 's/^.*\] +//' | awk '{print $1, $2, $3}'; }
check "b: the bars are of the busiest uplink now" matches "$after" "^bars: share of the busiest uplink "
for p in leaf1-up49 leaf1-up50 leaf2-up49 leaf2-up50; do
	check "b: $p's LOAD% and RATE stay ($(row_of "$before" "$p" | awk '{print $1}'))" \
		eq "$(row_of "$after" "$p")" "$(row_of "$before" "$p")"
done
# Ground truth: the scenario's ports run at 100 Gb/s, so LOAD% is RATE over 1e11.
util_ok() { # util_ok ROW: "P% R UNIT": P% of 100 Gb/s is R UNIT, to the 3 digits shown
	python3 -I -c '
import sys
pct, rate, unit = sys.argv[1].split()[:3]
bps = float(rate) * {"b/s": 1, "kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9}[unit]
want = bps / 1e11 * 100
sys.exit(abs(float(pct.rstrip("%")) - want) > 0.01 * want + 0.005)' "$1" || {
		echo "     LOAD% is not RATE of 100 Gb/s: $1"
		return 1
	}
}
check "b: leaf1-up49's LOAD% is its RATE of the link's 100 Gb/s" util_ok "$(row_of "$after" leaf1-up49)"
check "b: the port of no known speed has no LOAD%" \
	matches "$after" "^192\.0\.2\.1:swp10 +- +\? \[#*\.*\] +- "
keys h
check "h: the help says b leaves LOAD% of link speed" \
	wait_screen "Paths: bars against link speed or the busiest uplink \(LOAD% stays of link speed\)" 2
keys x

echo "--- a sampled flow's detail: estimates, and no retransmit count it cannot know"
keys 1
keys Enter
maybe_show "detail of a sampled flow"
check "the detail says the flow is sampled, at what rate" \
	wait_screen "^sampled +[0-9]+ samples at 1 in [0-9]+: packets, bytes, CE, CNP, ACK and NAK are estimates" 2
check "... rtx and PSN gaps are unknown (-), not 0" \
	matches "$(screen)" "^ +CE [0-9]+ +CNP [0-9]+ +rtx - +PSN gaps - "
check "... and no retransmit rate" matches "$(screen)" "^per second +CE .* rtx - +NAK "
check "... nor in the header's rates" matches "$(screen)" "^per s: .* rtx - "
keys Escape

echo "--- the filter"
# new_filter TEXT: the prompt emptied (Ctrl-U) of the filter it starts with, then TEXT.
new_filter() {
	keys /
	keys C-u
	send_keys "${#1}" -l "$1"
	keys Enter
}
new_filter "foo=1"
check "/foo=1: refused, naming the key" wait_screen "filter: 'foo=': no such key \(qp=N, vni=N, path=IF\)" 2
new_filter "qp=abc"
check "/qp=abc: refused, as before" wait_screen "filter: 'qp=abc': want a number" 2
check "q exits 0" eq "$(quit_rc)" 0

echo "--- a mirror copy's detail: where the switch took it"
# QP 1 copied by ERSPAN III session 5 at ingress and at egress: two flows
# whose rows and header ("seen on" the capture) are alike; the detail
# said nothing of the copy.
python3 -I -c '
import struct, sys
sys.path.insert(0, sys.argv[2])
import inject
with open(sys.argv[1], "wb") as w:
    w.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n in range(100):
        f = inject.write_only("10.0.0.1", "10.0.1.1", 50001, 1, n // 2)
        f = inject.erspan3(f, 5, n, "192.0.2.1", "192.0.2.100", n % 2 == 0)
        w.write(struct.pack("<IIII", 1700000000, n * 1000, len(f), len(f)) + f)
' "$TMP/copies.pcap" "$(cd "$(dirname "$0")/../lib" && pwd)"
start 160 40 --pcap "$TMP/copies.pcap" --speed 0 --view flows -r 1
check "two copies of QP 1 on Flows" wait_screen "end of capture" 10
keys Enter
maybe_show "a copy's detail"
check "Enter: the detail names the session, the switch and the point of the copy" \
	wait_screen "mirror copy ERSPAN III session 5 from switch 192\.0\.2\.1, copied at (ingress|egress)" 2
check "q exits 0" eq "$(quit_rc)" 0

finish top-dashboard
