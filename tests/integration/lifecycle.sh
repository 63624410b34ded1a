#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Interfaces that go down, come back or disappear while fabprobe is
# attached: each change is reported once, the probe keeps running on the
# others, and an interface that comes back is attached again.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NS=fpz-life
PASS=0 FAIL=0
TMP=$(mktemp -d /tmp/fpz-life.XXXXXX)
cleanup() {
	kill -INT "$probe" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add "$NS"
ip -n "$NS" link add va type veth peer name vb
ip -n "$NS" link add vc type veth peer name vd
for i in va vb vc vd; do ip -n "$NS" link set "$i" up; done

ip netns exec "$NS" "$FABPROBE" top --plain -r 0.3 -i va,vc >"$TMP/out" 2>"$TMP/err" &
probe=$!
wait_attached "$TMP/err"

# expect_event PATTERN: the probe reports it within 5 s, and is still alive.
expect_event() {
	local i
	for i in $(seq 50); do
		grep -q "$1" "$TMP/err" && break
		sleep 0.1
	done
	check "reported: $1" grep -q "$1" "$TMP/err"
	check "still running after: $1" kill -0 "$probe"
}

ip -n "$NS" link set va down
expect_event "interface va went down; probing the others goes on"
ip -n "$NS" link set va up
expect_event "interface va is up again"
ip -n "$NS" link del va
expect_event "interface va disappeared; probing the others goes on"
check "vc stays attached" sh -c "ip -n $NS -d link show vc | grep -q prog/xdp"
ip -n "$NS" link add va type veth peer name vb
ip -n "$NS" link set va up
ip -n "$NS" link set vb up
expect_event "interface va is back and attached again"
check "the new va carries the probe" sh -c "ip -n $NS -d link show va | grep -q prog/xdp"
check "each event reported once" test "$(grep -c 'went down' "$TMP/err")" -eq 1
tables=$(grep -c '^fabprobe top' "$TMP/out")
sleep 1
check "the table keeps coming" test "$(grep -c '^fabprobe top' "$TMP/out")" -gt "$tables"
finish lifecycle
