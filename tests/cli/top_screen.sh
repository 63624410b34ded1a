#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The dashboard as an operator meets it, through tmux, on the shared
# captures (no lab): the smallest terminal it draws (40x10) shows no number
# cut short (the header's "rtx 1.4" of 1.41k, a table's "515 M" of
# 515 Mb/s); TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
NCCL=$PCAPS/nccl_nccl_node0.pcap
TMP=$(mktemp -d /tmp/fp-top-screen-XXXXXX)
SOCK=fpt-screen-$$
SESSION=screen
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../integration/tmux.bash"
cleanup() {
	tmx_gone
	rm -rf "$TMP"
}
trap cleanup EXIT

# whole_rates LINE: "per s:" then whole NAME VALUE items, none cut at the edge.
whole_rates() {
	matches "$1" "^per s:( +(frames|RoCE|VXLAN|CE|CNP|rtx|malformed) (-|[0-9.]+[kMGT]?))+ *\$"
}

echo "--- 40x10: the header's rates"
start 40 10 --pcap "$NCCL" --speed 0
check "40x10: the capture read" wait_screen "end of capture" 10
maybe_show "40x10, Flows"
check "40x10: every rate on the header's second line is whole" whole_rates "$(screen | sed -n 2p)"
keys 4
maybe_show "40x10, VNIs"
check "40x10 VNIs: RATE is shown, whole (quieter columns go first)" \
	matches "$(screen | sed -n 5,6p)" "^ +- .*[0-9.]+ [kMG]?b/s( |\$)"
keys 5
check "40 columns: the Alerts tab is named on screen when it is the view (it was past the edge)" \
	wait_line 4 " 5 Alerts\\([0-9]+\\) "
keys 6
check "... and the NIC tab, the sixth" wait_line 4 " 6 NIC( |$)"
keys 4
type_filter 172.30
keys p
maybe_show "40x10, filtered and paused"
check "40x10: the third line says PAUSED and the filter (at 40 columns they were off screen)" \
	wait_line 3 "(^| )filter: 172\.30  PAUSED"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- a capture without RoCE, read to its end"
start 100 20 --pcap "$PCAPS/ext/various_gre.pcap" --speed 0
check "the capture read" wait_screen "end of capture" 10
check "Flows says there are none, not none yet: the capture has ended" \
	wait_screen "^ no RoCE flows *\$" 5
keys 3
check "... QPs too" wait_screen "^ no RoCE queue pairs *\$" 5
check "q exits 0" eq "$(quit_rc)" 0

echo "--- s: the sort goes round the columns shown, not OWNER (--nic only) nor RTX/s of sFlow"
start 160 30 --pcap "$NCCL" --speed 0
check "the capture read" wait_screen "end of capture" 10
# sort_now: the sort the tab line names.
sort_now() { screen | sed -n 4p | grep -oE 'sort [A-Z].*' | sed 's/ *$//'; }
# Each s waits for the sort it makes (a fixed sleep read the screen before
# the redraw, and s doing nothing at all passed: "sort RATE;" 17 times).
sorts= was=$(sort_now)
for _ in $(seq 17); do
	tmx send-keys -t "$SESSION" s
	for _ in $(seq 50); do
		now=$(sort_now)
		[ "$now" != "$was" ] && break
		sleep 0.1
	done
	sorts="$sorts$now;" was=$now
done
check "s round Flows: no sort by OWNER, a column not shown without --nic" \
	not_matches "$sorts" "sort OWNER"
check "... and back to RATE, the first" matches "$sorts" "sort RATE;"
check "... each s a sort of its own, through at least 8 columns" \
	ge "$(tr ';' '\n' <<<"$sorts" | sort -u | grep -c .)" 8
check "q exits 0" eq "$(quit_rc)" 0

echo "--- 10 lines: Paths shows its uplinks before its summary lines"
start 60 10 --pcap "up1=$NCCL" --pcap "up2=$PCAPS/nccl_nccl_node1.pcap" --speed 0 --view paths
check "60x10 Paths: the capture read" wait_screen "end of capture" 10
maybe_show "60x10, Paths"
check "60x10 Paths: up1's row is on screen (the summary lines took every line)" \
	matches "$(screen | sed -n 6p)" "^up1 +(\? +)?\["
check "60x10 Paths: a capture's legend names no sFlow (its estimates, its PORT OUT column)" \
	not_matches "$(screen)" "sFlow"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- PPS written alike in Flows and VNIs"
start 160 14 --pcap "$NCCL" --speed 0
check "the capture read" wait_screen "end of capture" 10
keys 4
check "VNIs: PPS as Flows writes it (a number, the title its unit; it said '77.2 kpps' beside '23.1k')" \
	wait_line 6 "b/s +[0-9.]+[kMG]? +[0-9]"
check "... and no 'pps' in the cell" not_matches "$(screen | sed -n 6p)" "pps"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- a wide terminal: the load bar grows to its 60 cells"
start 160 14 --pcap "up1=$NCCL" --pcap "up2=$PCAPS/nccl_nccl_node1.pcap" --speed 0 --view paths
check "160 columns Paths: the capture read" wait_screen "end of capture" 10
# Both uplinks carry the same: each bar full, as wide as LOAD is (it stayed 20).
check "160 columns: the busiest uplink's bar is 58 cells inside its brackets" \
	matches "$(screen | sed -n 6p)" "^up1 .*\\[#{58}\\]"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- -d counts the capture's time, as --plain's does (docs/top.md)"
# At 0.2x, 1 s of the capture takes 5 s: -d 1 ended after 1 s of wall time.
start 120 30 --pcap "$NCCL" --speed 0.2 -d 1
sleep 2.5
check "--speed 0.2 -d 1: still running after 2.5 s of wall time" eq "$(cat "$TMP/top.rc" 2>/dev/null)" ""
check "... and ends by itself at 1 s of the capture, exit 0" eq "$(top_rc 10)" 0

echo "--- Alerts: j moves the selection, not the list, while all fit"
start 120 40 --pcap "$NCCL" --speed 0 --view alerts
check "the capture's three alerts" wait_screen "^WARNING +roce_stopped" 10
keys j
maybe_show "Alerts, j"
check "j: the selection is the second alert" wait_selected "^WARNING +roce_stopped"
check "... and the first is still on screen (it scrolled off)" \
	matches "$(screen | sed -n 5p)" "^CRITICAL +wrong_traffic_class"
keys G
check "G: so is every other" eq "$(screen | grep -cE '^(CRITICAL|WARNING|INFO) ')" 3
check "q exits 0" eq "$(quit_rc)" 0

echo "--- Alerts: k after G moves the selection up, not the list"
# 14 lines hold two of the three 3-line entries: G shows the last two.
start 120 14 --pcap "$NCCL" --speed 0 --view alerts
check "the capture's alerts" wait_screen "^WARNING +roce_stopped" 10
keys G
check "G: the list scrolled to its last two entries" \
	wait_line 5 "^WARNING +roce_stopped"
check "... the last selected" wait_selected "^WARNING +not_ect_roce"
keys k
maybe_show "Alerts, 14 lines, G k"
check "k: the selection moves up to the second alert" wait_selected "^WARNING +roce_stopped"
check "... and the list stays (it jumped back to the first entry)" \
	matches "$(screen | sed -n 5p)" "^WARNING +roce_stopped"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- terminals"
# TERM=dumb has no cursor addressing: the screen was drawn as one line, "0 rows".
FABPROBE="env TERM=dumb $FABPROBE" start 100 30 --pcap "$NCCL" --speed 0
check "TERM=dumb: refused, exit 1" eq "$(top_rc 10)" 1
check "... saying so, and what to use instead" \
	grep -q "cannot drive terminal 'dumb'.*--plain" "$TMP/top.err"
[ -s "$TMP/top.rc" ] || keys q
FABPROBE="env TERM=vt100 $FABPROBE" start 100 30 --pcap "$NCCL" --speed 0
check "TERM=vt100 (no colours): the dashboard" wait_screen "^FLOW \(src > dst\)" 10
check "q exits 0" eq "$(quit_rc)" 0

echo "--- the NIC view on a narrow terminal: no number cut at the edge"
# Its lines do not depend on the width: each narrow line is the wide one's
# start, ending where a cell ends ("48." of 48.2k, "TX PAUS" were shown).
NIC_TREE=$(cd "$(dirname "$0")/../fixtures/nic/mlx5" && pwd)
start 200 40 --nic-root "$NIC_TREE" -r 1 --view nic
check "200 columns: the NIC view" wait_screen "^RDMA PORT / NETDEV " 10
sleep 1.5
wide=$(screen)
check "q exits 0" eq "$(quit_rc)" 0
for cols in 40 53 61 77; do
	start "$cols" 40 --nic-root "$NIC_TREE" -r 1 --view nic
	wait_screen "^RDMA PORT / NETDEV" 10 >/dev/null
	sleep 1.5
	narrow=$(screen)
	check "$cols columns: every NIC line is the wide line's start, cut where a cell ends" \
		python3 -I -c '
import sys
wide, narrow = sys.argv[1].split("\n"), sys.argv[2].split("\n")
bad = []
for w, n in zip(wide[4:], narrow[4:]):
    n = n.rstrip()
    # The legend and the key bar are prose, cut as text is.
    if not n or n.startswith(("/s:", "q quit")):
        continue
    if not w.startswith(n) or w[len(n):len(n) + 1] not in ("", " "):
        bad.append((n, w[:len(n) + 8]))
for b in bad:
    print("     cut: %r of %r" % b)
sys.exit(1 if bad else 0)' "$wide" "$narrow"
	quit_rc >/dev/null
done

echo "--- the table's order: every view as over a snapshot sorted by bytes"
# The dashboard's refreshes leave the flows in the table's order (no sort
# of every record by bytes); its views take byte order from ui.rank. Every
# view, and the Flows and QPs views under three more sort columns, must
# show what they show over a snapshot sorted by bytes (the test hook
# FABPROBE_TEST_TOP_SORTED). The capture is made of ties: 240 flows, 120
# queue pairs each way, in three sizes, so the rows' order is mostly the
# tie-break's, and the table's order is not the byte order (a Flows view
# that takes its rows in the table's order fails here). FABPROBE_TEST_SORT
# sorts from 2 rows by key and checks each row against the next. The two
# directions of a queue pair differ in size, so QPs rows of equal DATA
# differ in ACK/CNP: the busier first (the tie-break order_rows() keeps).
python3 -I - "$TMP/ties.pcap" "$(cd "$(dirname "$0")/../lib" && pwd)" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[2])
import inject

frames = []
for q in range(120):
    src, dst = "10.1.0.%d" % (1 + q % 6), "10.2.0.%d" % (1 + q % 4)
    for psn in range(1 + q % 3):
        frames.append(inject.write_only(src, dst, 49152 + q, 0x100 + q, psn))
    for psn in range(1 + q // 3 % 3):
        frames.append(inject.write_only(dst, src, 49152 + q, 0x200 + q, psn))
# Flows seen at two points (ERSPAN sessions 1 and 2), each copy the same
# size, CE at the second switch: the record that stands for the flow is the
# first of the two by byte order (refresh.c: better_rep()).
for q in range(12):
    src, dst = "10.3.0.%d" % (1 + q), "10.4.0.%d" % (1 + q % 3)
    for psn in range(2):
        for session, ecn in ((1, 2), (2, 3)):
            frames.append(inject.erspan2(inject.write_only(src, dst, 50000 + q, 0x300 + q, psn, ecn=ecn),
                                         session, 2 * psn + session, "192.0.2.1", "192.0.2.9"))
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, n, len(f), len(f)) + f)
PY

# grab NAME: views 1 to 5 below the header (its clock and CPU left out),
# then Flows and QPs each under the next three sort columns.
grab() {
	local v _
	for v in 1 2 3 4 5; do
		keys "$v"
		echo "== view $v"
		screen | tail -n +4
	done
	for v in 1 3; do
		keys "$v"
		for _ in 1 2 3; do
			keys s
			echo "== view $v, the next sort"
			screen | tail -n +4
		done
	done
}

# run NAME ENV...: the dashboard over the capture to its end, its screens in $TMP/NAME.txt.
run() {
	local name=$1
	shift
	FABPROBE="env FABPROBE_TEST_SORT=1 $* $FABPROBE" start 200 60 --pcap "$TMP/ties.pcap" --speed 0
	check "$name: the capture read" wait_screen "end of capture" 10
	grab >"$TMP/$name.txt"
	check "$name: q exits 0" eq "$(quit_rc)" 0
}

run unordered
run sorted FABPROBE_TEST_TOP_SORTED=1
check "the screens hold flows' rows (not two empty views alike)" \
	test "$(grep -c '^10\.[12]\.0\.[0-9] > 10\.[12]\.0\.[0-9] ' "$TMP/unordered.txt")" -ge 200
check "every view, every sort: the same rows in the same order" \
	diff "$TMP/sorted.txt" "$TMP/unordered.txt"
check "QPs by DATA: rows of equal DATA busiest first (ACK/CNP not rising), and some tie" python3 -c '
import re, sys
text = open(sys.argv[1]).read().split("== view 3\n")[1].split("== view")[0]
unit = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
rows = []
for line in text.splitlines():
    rates = re.findall(r"([0-9.]+) ([kMG]?)b/s", line)
    if len(rates) >= 2:
        rows.append(tuple(float(v) * unit[u] for v, u in rates[:2]))
ties = [(a, b) for a, b in zip(rows, rows[1:]) if a[0] == b[0]]
bad = [(a, b) for a, b in ties if b[1] > a[1]]
for a, b in bad:
    print("     ACK/CNP rises within DATA %g: %g then %g" % (a[0], a[1], b[1]))
sys.exit(1 if bad or len(rows) < 20 or not any(a[1] != b[1] for a, b in ties) else 0)' "$TMP/unordered.txt"
echo "--- the NIC view's Enter: the destination QP of a local QP's first flow in byte order"
# A local QP's flows are its outgoing one (to the remote QP) and its
# incoming one (to the local QP); Enter filters Flows by the destination QP
# of the first of them in byte order (view_nic.c: qp_flows()), whatever
# order the table holds them in. The recorded tree with ten more connected
# QPs, each with a flow either way of one size (a tie), on the port whose
# address the flows use; each QP's filter must be the one it is over a
# snapshot sorted by bytes.
cp -r "$NIC_TREE" "$TMP/tree"
python3 -I - "$TMP/tree/rdma-res-qp.json" <<'PY'
import json, sys
qps = json.load(open(sys.argv[1]))
for k in range(10):
    qps.append({"ifindex": 0, "ifname": "mlx5_0", "port": 1, "lqpn": 600 + k, "rqpn": 700 + k,
                "type": "RC", "state": "RTS", "rq-psn": 1, "sq-psn": 1, "pdn": 3, "pid": 42000,
                "comm": "ties"})
json.dump(qps, open(sys.argv[1], "w"))
PY
"$FABPROBE" nic --nic-root "$TMP/tree" --json >"$TMP/tree.json" 2>/dev/null
python3 -I - "$TMP/tree.json" "$TMP/nic.pcap" "$(cd "$(dirname "$0")/../lib" && pwd)" <<'PY'
import json, struct, sys
sys.path.insert(0, sys.argv[3])
import inject

local, far = "10.0.1.2", "10.0.9.1"  # mlx5_0's address in the tree; the far end
frames = []
for q in json.load(open(sys.argv[1]))["qps"]:
    if q["predicted_sport"]:
        for psn in range(2):
            frames.append(inject.write_only(local, far, q["predicted_sport"], q["rqpn"], psn))
            frames.append(inject.write_only(far, local, q["predicted_sport"], q["lqpn"], psn))
with open(sys.argv[2], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, n, len(f), len(f)) + f)
PY

# enter_qps NAME ENV...: Enter on each QP row with flows, its filter in $TMP/NAME.qps.
enter_qps() {
	local name=$1 q
	shift
	FABPROBE="env $* $FABPROBE" start 200 60 --pcap "$TMP/nic.pcap" --nic-root "$TMP/tree" \
		--speed 0 --view nic
	check "$name: the capture read" wait_screen "end of capture" 10
	# The rows: two ports, two PFC lines, then the QPs, in the tree's
	# order; those with flows are 17, 4660 (rows 6, 7), and the ten added
	# (rows 12 to 21). Back on the view, the selection starts at the top.
	for row in 6 7 $(seq 12 21); do
		keys 6 g $(printf 'j %.0s' $(seq "$row"))
		q=$(selected | awk '{print $2}')
		keys Enter
		echo "$q $(screen | sed -n 3p | grep -oE 'filter: qp=[0-9]+')"
	done >"$TMP/$name.qps"
	check "$name: q exits 0" eq "$(quit_rc)" 0
}

enter_qps unordered
enter_qps sorted FABPROBE_TEST_TOP_SORTED=1
check "Enter on twelve QPs: each a filter by a QP" \
	eq "$(grep -cE '^[0-9]+ filter: qp=[0-9]+$' "$TMP/unordered.qps")" 12
check "... each the QP it is over a snapshot sorted by bytes" \
	diff "$TMP/sorted.qps" "$TMP/unordered.qps"

finish top-screen
