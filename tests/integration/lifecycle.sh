#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Interfaces that go down, come back or disappear while fabprobe is
# attached: each change is reported once, the probe keeps running on the
# others, and an interface that comes back is attached again. When none
# is left, the run ends (status 3) and one line says so.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NS=${FPZ_LIFE_NS:-fpz-life}
PASS=0 FAIL=0
TMP=$(mktemp -d /tmp/fpz-life.XXXXXX)
cleanup() {
	[ -n "${SOCK:-}" ] && tmx_gone
	kill -INT "$probe" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add "$NS"
ip -n "$NS" link add va type veth peer name vb
ip -n "$NS" link add vc type veth peer name vd
ip -n "$NS" link add ve type veth peer name vg
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

# expect_new PATTERN CMD...: run CMD, then wait for PATTERN reported once more than before.
expect_new() {
	local i n pat=$1
	n=$(grep -c "$pat" "$TMP/err")
	shift
	"$@"
	for i in $(seq 50); do
		[ "$(grep -c "$pat" "$TMP/err")" -gt "$n" ] && break
		sleep 0.1
	done
	check "reported again: $pat" test "$(grep -c "$pat" "$TMP/err")" -gt "$n"
}

# links: the probe's open BPF links.
links() {
	ls -l "/proc/$probe/fd" 2>/dev/null | grep -c 'bpf_link'
}
# Made again and again: the links of a device gone are closed, never piled up.
before=$(links)
for i in 1 2 3 4 5 6; do
	ip -n "$NS" link del va
	sleep 0.4
	ip -n "$NS" link add va type veth peer name vb
	ip -n "$NS" link set va up
	ip -n "$NS" link set vb up
	sleep 0.5
done
expect_event "interface va is back and attached again"
check "six times made again: as many links as before ($before)" test "$(links)" -eq "$before"
check "and some" test "$before" -gt 0
# A rename takes the device away from the name: its links close.
ip -n "$NS" link set va down
expect_new "interface va disappeared" ip -n "$NS" link set va name vz
check "the renamed device is no longer probed" \
	sh -c "! ip -n $NS -d link show vz | grep -q prog/xdp"
ip -n "$NS" link set vz name va
expect_new "interface va is back and attached again" ip -n "$NS" link set va up
check "named again, probed again" sh -c "ip -n $NS -d link show va | grep -q prog/xdp"
kill -INT "$probe"
wait "$probe"

# An interface down at the start is attached and waited for, not fatal.
ip netns exec "$NS" "$FABPROBE" top --plain -r 0.3 -i vc,ve >"$TMP/out2" 2>"$TMP/err2" &
probe=$!
wait_attached "$TMP/err2"
check "down at the start: said" grep -q "interface ve is down: attached" "$TMP/err2"
check "down at the start: attached" sh -c "ip -n $NS -d link show ve | grep -q prog/xdp"
ip -n "$NS" link set ve up
ip -n "$NS" link set vg up
for i in $(seq 50); do
	grep -q "interface ve is up again" "$TMP/err2" && break
	sleep 0.1
done
check "and up again: said" grep -q "interface ve is up again" "$TMP/err2"
kill -INT "$probe"
wait "$probe"

# Nobody reads any more (| head): the probe stops and detaches, one line.
ip netns exec "$NS" sh -c 'echo $$ >"$1"; exec "$2" top --plain -r 0.2 -i vc' sh \
	"$TMP/pid3" "$FABPROBE" 2>"$TMP/err3" | head -1 >/dev/null &
sleep 0.5
for i in $(seq 50); do
	kill -0 "$(cat "$TMP/pid3")" 2>/dev/null || break
	sleep 0.1
done
check "a closed pipe stops top --plain" sh -c "! kill -0 $(cat "$TMP/pid3") 2>/dev/null"
check "and says so" grep -q "cannot write to standard output: Broken pipe" "$TMP/err3"
check "top --once to /dev/full fails" sh -c \
	"! ip netns exec $NS $FABPROBE top --once -r 0.2 -i vc >/dev/full 2>/dev/null"

# Stopped before its interval ended: --once reports the time it ran.
ip netns exec "$NS" "$FABPROBE" top --once --json -r 10 -i vc >"$TMP/once.json" 2>/dev/null &
probe=$!
sleep 1.5
kill -INT "$probe"
wait "$probe"
check "--once stopped early: exit 0" test $? -eq 0
check "--once stopped early: a report" python3 -c \
	"import json,sys; json.load(open(sys.argv[1]))['totals']" "$TMP/once.json"

# A dropped ssh session (SIGHUP) still writes the capture's bundle.
ip netns exec "$NS" "$FABPROBE" capture -i vc -d 30 -o "$TMP/hup.tar.gz" 2>"$TMP/err4" &
probe=$!
wait_attached "$TMP/err4"
sleep 0.5
kill -HUP "$probe"
wait "$probe"
check "SIGHUP: the capture exits 0" test $? -eq 0
check "SIGHUP: the bundle is written" sh -c "tar -tzf $TMP/hup.tar.gz | grep -qx summary.txt"
# A device renamed to another watched name (that one deleted first) is
# probed under its new name, though the point that watched it comes after.
ip -n "$NS" link add wa type veth peer name wb
ip -n "$NS" link add wc type veth peer name wd
for i in wa wb wc wd; do ip -n "$NS" link set "$i" up; done
ip netns exec "$NS" "$FABPROBE" top --plain -r 0.3 -i wc,wa >/dev/null 2>"$TMP/err5" &
probe=$!
wait_attached "$TMP/err5"
ip -n "$NS" link del wc
sleep 0.8
ip -n "$NS" link set wa down
ip -n "$NS" link set wa name wc
ip -n "$NS" link set wc up
for i in $(seq 50); do
	grep -q "interface wc is back and attached again" "$TMP/err5" && break
	sleep 0.1
done
sleep 1
check "renamed onto a watched name: attached again" \
	grep -q "interface wc is back and attached again" "$TMP/err5"
check "... and still probed after the next refreshes" \
	sh -c "ip -n $NS -d link show wc | grep -q prog/xdp"
kill -INT "$probe"
wait "$probe"
# Under nohup SIGHUP stays ignored, as asked.
nohup ip netns exec "$NS" "$FABPROBE" top --plain -r 0.3 -i vc >/dev/null 2>&1 &
probe=$!
sleep 1
kill -HUP "$probe"
sleep 0.5
check "under nohup SIGHUP is ignored" kill -0 "$probe"
kill -INT "$probe"
wait "$probe"

# Every interface watched gone: one line says so, and the run ends with
# status 3 (the input cut short, as a capture cut short is), whatever the
# front end; while one is left, it goes on as above.
ip -n "$NS" link add xa type veth peer name xb
ip -n "$NS" link add xc type veth peer name xd
for i in xa xb xc xd; do ip -n "$NS" link set "$i" up; done
ip netns exec "$NS" "$FABPROBE" top --plain -r 0.3 -i xa,xc >/dev/null 2>"$TMP/err6" &
probe=$!
wait_attached "$TMP/err6"
# ends PID: wait 5 s at most for it to exit; its status in $rc ("running" if it did not).
ends() {
	local i
	for i in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -INT "$1"
		wait "$1"
		rc=running
	else
		wait "$1"
		rc=$?
	fi
}
ip -n "$NS" link del xa
for i in $(seq 50); do
	grep -q "interface xa disappeared; probing the others goes on" "$TMP/err6" && break
	sleep 0.1
done
check "one of two gone: said, and the probe goes on" \
	sh -c "grep -q 'interface xa disappeared; probing the others goes on' $TMP/err6 && kill -0 $probe"
ip -n "$NS" link del xc
ends "$probe"
check "the last one gone: top --plain stops by itself, status 3" eq "$rc" 3
check "... one line says so" eq "$(grep -v '^fabprobe: attached to' "$TMP/err6" | tail -n +2)" \
	"fabprobe: interface xc disappeared; none of the interfaces watched is left: fabprobe stops"
check "... and 'the others goes on' was never said of the last" \
	test "$(grep -c 'probing the others goes on' "$TMP/err6")" -eq 1

ip -n "$NS" link add ya type veth peer name yb
ip -n "$NS" link set ya up
ip netns exec "$NS" "$FABPROBE" capture -i ya -d 60 -o "$TMP/gone.tar.gz" 2>"$TMP/err7" &
probe=$!
wait_attached "$TMP/err7"
sleep 1.2
ip -n "$NS" link del ya
ends "$probe"
check "capture, its one interface gone: stops by itself, status 3" eq "$rc" 3
check "... says so" grep -qx "fabprobe: interface ya disappeared; none of the interfaces watched is left: fabprobe stops" "$TMP/err7"
check "... and still writes its bundle" sh -c "tar -tzf $TMP/gone.tar.gz | grep -qx summary.txt"

# The dashboard, in tmux: its header had the event; once it ends, stderr has it.
if command -v tmux >/dev/null; then
	SOCK=fpz-life-$$
	SESSION=life
	. "$(dirname "$0")/tmux.bash"
	ip -n "$NS" link add za type veth peer name zb
	ip -n "$NS" link set za up
	FABPROBE="ip netns exec $NS $FABPROBE" start 120 30 -i za -r 0.3
	wait_screen "^fabprobe top za " 10 >/dev/null
	ip -n "$NS" link del za
	check "the dashboard, its one interface gone: ends by itself, status 3" eq "$(top_rc)" 3
	check "... and says why on stderr" grep -qx \
		"fabprobe: interface za disappeared; none of the interfaces watched is left: fabprobe stops" "$TMP/top.err"
	tmx_gone
fi
finish lifecycle
