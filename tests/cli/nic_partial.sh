#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A recorded NIC tree with parts missing or garbled (tests/fixtures/nic/mlx5,
# copied and broken here): fabprobe nic still reports the rest, exit 0,
# never a crash, and the one line it writes on stderr at the first read
# says what is missing. It counted the ports and netdevs only, so with
# --json an empty QP table or a netdev without statistics went unsaid.
set -u
. "$(dirname "$0")/../lib/cli.sh"
TREE=$(dirname "$0")/../fixtures/nic/mlx5

# run NAME: fabprobe nic --json over $tmp/NAME, its status in $rc.
run() {
	"$FABPROBE" nic --nic-root "$tmp/$1" --json -r 0.1 >"$tmp/$1.json" 2>"$tmp/$1.err"
	rc=$?
}

# A process may name itself with a terminal escape (prctl PR_SET_NAME):
# the report names it with '?' for each control byte, never the raw ESC.
cp -r "$TREE" "$tmp/esc"
sed -i 's/"comm":"python3"/"comm":"py\\u001b[2Jthon"/' "$tmp/esc/rdma-res-qp.json"
"$FABPROBE" nic --nic-root "$tmp/esc" -r 0.1 >"$tmp/esc.txt" 2>&1
check "a QP owner named with a terminal escape: no ESC byte in the report, '?' in its place" \
	sh -c "! grep -q \$(printf '\\033') '$tmp/esc.txt' && grep -q 'py?\\[2Jthon\\[41337\\]' '$tmp/esc.txt'"

cp -r "$TREE" "$tmp/noqp"
rm "$tmp/noqp/rdma-res-qp.json"
run noqp
check "no QP table: exit 0, the counters reported" \
	sh -c "[ $rc -eq 0 ] && grep -q '\"np_cnp_sent\":5120' '$tmp/noqp.json'"
check "no QP table: one stderr line, which says so" \
	sh -c "[ \$(wc -l <'$tmp/noqp.err') -eq 1 ] &&
	       grep -q '^fabprobe: reading NIC counters: 2 RDMA ports, 2 netdevs; no QP table (cannot read .*rdma-res-qp.json: No such file or directory)\$' '$tmp/noqp.err'"

cp -r "$TREE" "$tmp/cutqp"
head -c 300 "$TREE/rdma-res-qp.json" >"$tmp/cutqp/rdma-res-qp.json"
run cutqp
check "a QP table cut short: exit 0, one stderr line naming the file and the fault" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <'$tmp/cutqp.err') -eq 1 ] &&
	       grep -q 'no QP table (.*rdma-res-qp.json: not what .rdma -j res show qp. prints: ' '$tmp/cutqp.err'"

cp -r "$TREE" "$tmp/noeth"
printf 'garbage\n\001\377\n' >"$tmp/noeth/ethtool/ens1f0np0"
run noeth
check "ethtool text garbled: exit 0, one stderr line naming the netdev" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <'$tmp/noeth.err') -eq 1 ] &&
	       grep -q '; no statistics of 1 netdev (ens1f0np0: .*ethtool/ens1f0np0 has no \"NAME: VALUE\" lines)\$' '$tmp/noeth.err'"
check "... and the other netdev's PFC still reported" \
	python3 -I -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not [p for p in d["pfc"] if p["netdev"] == "ens1f1np1" and p["priority"] == 3 and p["rx_pause"] == 1500])' "$tmp/noeth.json"

# An ethtool value that is no number, or more than 64 bits, is left out
# and said, as a counter file that holds no number is.
cp -r "$TREE" "$tmp/badeth"
sed -i 's/^\(     rx_prio5_pause:\).*/\1 notanumber/; s/^\(     tx_prio5_pause:\).*/\1 18446744073709551616/' \
	"$tmp/badeth/ethtool/ens1f0np0"
"$FABPROBE" nic --nic-root "$tmp/badeth" -r 0.1 >"$tmp/badeth.txt" 2>"$tmp/badeth.err"
rc=$?
check "bad ethtool values: exit 0, the stderr line counts them" \
	sh -c "[ $rc -eq 0 ] && grep -qx 'fabprobe: reading NIC counters: 2 RDMA ports, 2 netdevs; 2 ethtool lines not a name and a 64-bit number, left out' '$tmp/badeth.err'"
check "... and the NETDEV line says them" \
	sh -c "grep -qx 'NETDEV ens1f0np0: 125 ethtool statistics, 2 unreadable, 0 moved (PFC above; --json lists all)' '$tmp/badeth.txt' &&
	       grep -qx 'NETDEV ens1f1np1: 127 ethtool statistics, 0 moved (PFC above; --json lists all)' '$tmp/badeth.txt'"

# A NIC-only bundle whose every port went away mid-run: its findings line
# does not claim that nothing was observed (it said "none, as nothing was
# observed" while naming the ports it had read), nor does report.html.
cp -r "$TREE" "$tmp/gone"
(sleep 0.5 && rm -rf "$tmp/gone") &
"$FABPROBE" capture --nic-root "$tmp/gone" -d 1.5 -o "$tmp/gone.tar.gz" 2>"$tmp/gone.err"
wait
mkdir "$tmp/gone.b" && tar -xzf "$tmp/gone.tar.gz" -C "$tmp/gone.b"
check "every port gone: summary.txt's findings say the ports read went away, not that nothing was observed" \
	sh -c "grep -q '^FINDINGS: none, as the RDMA ports read went away: no RDMA devices found (RDMA ports gone since an earlier read: mlx5_0/1 (ens1f0np0), mlx5_1/1 (ens1f1np1))' '$tmp/gone.b/summary.txt' &&
	       ! grep -q 'nothing was observed' '$tmp/gone.b/summary.txt' &&
	       ! grep -q 'RoCE offloaded to the NIC' '$tmp/gone.b/summary.txt'"
check "... and report.html's" \
	sh -c "grep -q 'None, as the RDMA ports read went away</b>' '$tmp/gone.b/report.html' &&
	       ! grep -q 'nothing was observed' '$tmp/gone.b/report.html'"

run_whole() { "$FABPROBE" nic --nic-root "$TREE" -r 0.1 >/dev/null 2>"$tmp/whole.err"; }
run_whole
check "a whole tree: the line as it was" \
	grep -qx 'fabprobe: reading NIC counters: 2 RDMA ports, 2 netdevs' "$tmp/whole.err"

finish nic-partial
