#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The userspace test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report fails the run): unit and BPF
# tests, bad input, and replay of every shared capture; then replay on
# several threads with ThreadSanitizer.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
san=build/san
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
pass=0 fail=0

make -s -j"$(nproc)" BUILD=$san SANITIZE=1 ${WERROR:+WERROR=$WERROR} tests-build >/dev/null || {
	echo "sanitizers: build failed"
	exit 1
}
run() {
	local name=$1
	shift
	if "$@" >"$san/$name.log" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
		grep -E -m 20 "ERROR: AddressSanitizer|runtime error|LeakSanitizer|FAIL|ERROR" \
			"$san/$name.log" | sed 's/^/     /'
	fi
}
for t in $san/tests/test_*; do
	run "$(basename "$t")" "$t"
done
run bad-input env FABPROBE=$san/fabprobe bash tests/cli/bad_input.sh
run replay-tshark python3 tests/replay/tshark_check.py $san/fabprobe "$PCAPS"/*.pcap
# The sFlow source: a crafted fabric (replay and listener) and the shared sFlow captures.
run sflow-scenario python3 tests/sflow/scenario.py $san/fabprobe $san/tools
run sflow-captures python3 tests/sflow/captures.py $san/fabprobe $san/tools
# The dashboard through tmux until q: over a capture of 300 flows, every
# view built at each refresh (views share a scratch buffer in elements of
# different sizes: an int a flow was once written into room for a byte a
# flow); and over 7 flows that differ in every counter (mkpcap.py long),
# the flows and QP views sorted by every column both ways, with
# FABPROBE_TEST_SORT, which sorts by key from 2 rows (not 1024) and
# aborts where the order is not the comparison's.
# dashboard many|long KEY...: mkpcap.py's capture of that kind, the keys, q.
SOCK=fp-san-$$
SESSION=san
. tests/integration/tmux.bash
# Each key waits for the frame drawn after it (keys, tmux.bash), so each
# sort is drawn, and checked, before the next.
dashboard() {
	local kind=$1 rc key
	shift
	TMP=$(mktemp -d /tmp/fp-san-top-XXXXXX) FAIL=0
	if [ "$kind" = many ]; then
		python3 tests/ipfix/mkpcap.py many 300 "$TMP/$kind.pcap" || return 1
	else
		python3 tests/ipfix/mkpcap.py "$kind" "$TMP/$kind.pcap" || return 1
	fi
	FABPROBE="env ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS FABPROBE_TEST_SORT=1 \
		$san/fabprobe" start 160 50 --pcap "$TMP/$kind.pcap" --speed 0
	wait_screen "end of capture" 30
	for key; do
		keys "$key"
	done
	keys q
	rc=$(top_rc 30)
	tmx_gone
	cat "$TMP/top.err"
	rm -rf "$TMP"
	echo "top exited ${rc:-without a status}"
	[ "$rc" = 0 ] && [ "$FAIL" -eq 0 ]
}
run top-dashboard dashboard many 4 3 2 1
# shellcheck disable=SC2046 # every column of the flows and QP views, each both ways
run top-dashboard-sort dashboard long \
	1 $(for _ in $(seq 18); do echo s r r; done) 3 $(for _ in $(seq 14); do echo s r r; done)
# The replay workers (probe/runpool.c) under ThreadSanitizer: no data race
# while three threads run the frames of many flows, of captures and sFlow.
tsan=build/tsan
if make -s -j"$(nproc)" BUILD=$tsan SANITIZE=thread ${WERROR:+WERROR=$WERROR} $tsan/fabprobe >/dev/null; then
	export TSAN_OPTIONS=halt_on_error=1:exitcode=66
	run tsan-replay $tsan/fabprobe replay --json --threads 3 "$PCAPS"/nccl_nccl_node0.pcap
	run tsan-replay-path $tsan/fabprobe replay --threads 3 --path a="$PCAPS"/nccl_ring2_node0.pcap \
		--path b="$PCAPS"/nccl_ring2_node1.pcap
	run tsan-replay-sflow $tsan/fabprobe replay --threads 3 --sflow "$PCAPS"/ext/sflow_expanded.pcap
else
	fail=$((fail + 1))
	echo "FAIL ThreadSanitizer build"
fi
echo "sanitizers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
