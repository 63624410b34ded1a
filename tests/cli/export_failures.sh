#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# export when its refreshes fail. FABPROBE_TEST_ANALYSIS_FAIL=N (a test
# hook, core/session.c) fails every analysis after the Nth as out of
# memory, the only way an analysis fails: no input makes one fail.
# - Refreshes failing one after the other: a scrape sees
#   fabprobe_refresh_errors_total rise while they fail. It was drawn in the
#   page a good refresh renders, so it stayed at 0 until the next success.
# - A recording's final (whole) analysis failing: /healthz turns 503 and
#   says why, as the page's fabprobe_input_ended 0 makes FabprobeStale fire.
#   /healthz stayed 200 while the page never said the input had ended.
set -u
. "$(dirname "$0")/../lib/cli.sh"
TREE=$(dirname "$0")/../fixtures/nic/mlx5

free_port() {
	python3 -I -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
metric() { # metric PORT NAME: one sample's value
	curl -s -m 5 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'
}
# wait_up PORT: until /metrics answers (10 s at most)
wait_up() {
	for i in $(seq 100); do
		curl -sf -m 5 "http://127.0.0.1:$1/metrics" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# ---- refreshes that keep failing: the counter rises scrape after scrape ----
port=$(free_port)
FABPROBE_TEST_ANALYSIS_FAIL=1 "$FABPROBE" export --nic-root "$TREE" --listen "127.0.0.1:$port" \
	-r 0.1 >/dev/null 2>"$tmp/fail.err" &
pid=$!
wait_up "$port"
sleep 0.5
e1=$(metric "$port" fabprobe_refresh_errors_total)
r1=$(metric "$port" fabprobe_refreshes_total)
sleep 0.5
e2=$(metric "$port" fabprobe_refresh_errors_total)
r2=$(metric "$port" fabprobe_refreshes_total)
health=$(curl -s -m 5 "http://127.0.0.1:$port/healthz")
kill -INT "$pid"
wait "$pid"
check "refreshes failing: one good refresh, then none ($r1, $r2)" \
	test "$r1" = 1 -a "$r2" = 1
check "refreshes failing: fabprobe_refresh_errors_total rises while they fail ($e1 -> $e2)" \
	test "${e1:-0}" -gt 0 -a "${e2:-0}" -gt "${e1:-0}"
check "refreshes failing: /healthz says stale, and why ($health)" \
	grep -q '^stale: last good refresh .* ago; the last refresh failed: Cannot allocate memory$' \
	<<<"$health"
check "refreshes failing: each is said on stderr" \
	grep -q 'analysis failed: Cannot allocate memory' "$tmp/fail.err"

# ---- a recording whose final analysis fails ----
# pingpong_rc.pcap is 4.5 ms long: read at --speed 0, its first refresh is its last.
port=$(free_port)
FABPROBE_TEST_ANALYSIS_FAIL=1 "$FABPROBE" export --pcap "$PCAPS/pingpong_rc.pcap" --speed 0 \
	--listen "127.0.0.1:$port" -r 0.2 >/dev/null 2>"$tmp/final.err" &
pid=$!
wait_up "$port"
sleep 1.5
code=$(curl -s -m 5 -o "$tmp/final.health" -w '%{http_code}' "http://127.0.0.1:$port/healthz")
curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$tmp/final.prom"
kill -INT "$pid"
wait "$pid"
check "final analysis failed: the page does not say the input ended (fabprobe_input_ended 0)" \
	grep -qx 'fabprobe_input_ended 0' "$tmp/final.prom"
check "final analysis failed: the page counts it (fabprobe_refresh_errors_total > 0)" \
	awk '$1 == "fabprobe_refresh_errors_total" && $2 > 0 {ok = 1} END {exit !ok}' "$tmp/final.prom"
check "final analysis failed: /healthz agrees: 503 ($code)" test "$code" = 503
check "final analysis failed: /healthz says why ($(cat "$tmp/final.health"))" \
	grep -q "the recording's final analysis failed: Cannot allocate memory" "$tmp/final.health"
check "final analysis failed: stderr says so, not that the final picture is served" \
	bash -c "grep -q \"the capture has been read (.*); its final analysis failed\" '$tmp/final.err' &&
		 ! grep -q 'serving its final picture' '$tmp/final.err'"

# ---- the same recording, no failure: its final picture, /healthz 200 ----
port=$(free_port)
"$FABPROBE" export --pcap "$PCAPS/pingpong_rc.pcap" --speed 0 --listen "127.0.0.1:$port" \
	-r 0.2 >/dev/null 2>"$tmp/good.err" &
pid=$!
wait_up "$port"
sleep 1.5
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")
curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$tmp/good.prom"
kill -INT "$pid"
wait "$pid"
check "final analysis done: fabprobe_input_ended 1, no refresh error, /healthz 200 ($code)" \
	bash -c "grep -qx 'fabprobe_input_ended 1' '$tmp/good.prom' &&
		 grep -qx 'fabprobe_refresh_errors_total 0' '$tmp/good.prom' && test '$code' = 200"

finish export-failures
