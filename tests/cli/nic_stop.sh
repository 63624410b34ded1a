#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `fabprobe nic` stopped before its interval ends (Ctrl-C, SIGTERM), as
# `top --once` is: the report of the time it ran, one stderr line saying
# so, exit status 0 (docs/fabprobe.8, EXIT STATUS). Over the recorded mlx5
# tree, whose totals are known (tests/fixtures/nic).
set -u
. "$(dirname "$0")/../lib/cli.sh"
TREE=$(dirname "$0")/../fixtures/nic/mlx5

# stopped SIGNAL AFTER ARGS...: nic -r 10 ARGS, sent SIGNAL AFTER seconds
# after it has read the tree; its status in $rc, the milliseconds it ran in $took_ms.
stopped() {
	local sig=$1 after=$2 pid start i
	shift 2
	rm -f "$tmp/out" "$tmp/err"
	start=$(date +%s%N)
	"$FABPROBE" nic --nic-root "$TREE" -r 10 "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for i in $(seq 100); do
		grep -q "reading NIC counters" "$tmp/err" 2>/dev/null && break
		sleep 0.05
	done
	sleep "$after"
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
	took_ms=$((($(date +%s%N) - start) / 1000000))
}

stopped INT 1
check "Ctrl-C 1 s into -r 10: exit 0" eq "$rc" 0
check "... at once, not after the interval (${took_ms} ms)" test "$took_ms" -lt 5000
check "... the report, over the time it ran" \
	grep -qE "^fabprobe nic: NIC tree .*mlx5 \(recorded, re-read every refresh\), over the last (0\.9|1\.[0-9]) s; lossless priority 3$" "$tmp/out"
check "... with the tree's counters: np_cnp_sent 5120" grep -qE "^  np_cnp_sent +5120 " "$tmp/out"
check "... and one line on stderr besides the start's" eq "$(grep -vc 'reading NIC counters' "$tmp/err")" 1
check "... which says it was stopped" eq "$(grep -v 'reading NIC counters' "$tmp/err" |
	grep -cxE 'nic: stopped before the end of the interval: the rates cover its first (0\.9|1\.[0-9]) s of 10\.0')" 1

stopped TERM 0.5 --json
check "SIGTERM, --json: exit 0" eq "$rc" 0
check "... the NIC document, its interval the time it ran" python3 -I -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (0.3 < d["nic"]["interval_s"] < 2 and len(d["nics"]) == 2))' "$tmp/out"

finish nic-stop
