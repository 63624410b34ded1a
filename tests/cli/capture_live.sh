#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A live capture's bundle: its findings are the whole run's, and its alert
# log counts the watch's refreshes and that last word, nothing else. The
# bundle's own last read of the flows (after the watch, to sort them for
# its tables) is no interval: RoCE data outside the lossless class (DSCP
# 10, not 26), sent all through the capture, raises wrong_traffic_class in
# each of the watch's 2 refreshes and in the whole run's findings, 3 in
# all; the read after the watch, a millisecond later with frames in it,
# must not make it 4. A veth
# pair, frames sent into one end through a packet socket (tests/lib/inject.py).
set -u
. "$(dirname "$0")/../lib/cli.sh"

a=fpcl$$a b=fpcl$$b
cleanup() {
	kill "$inj" 2>/dev/null
	ip link del "$a" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
veth_up "$a" "$b"
python3 -I tests/lib/inject.py "$b" 100000000 --dscp 10 >/dev/null &
inj=$!
sleep 0.5
check "capture -d 2 on the veth" "$FABPROBE" capture -i "$a" -d 2 -o "$tmp/b.tar.gz"
mkdir "$tmp/b" && tar -xzf "$tmp/b.tar.gz" -C "$tmp/b"
log() { # the series' length and the refreshes that raised wrong_traffic_class
	python3 -I -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(len(r["series"]), *[e["refreshes"] for e in r["alert_log"] if e["type"] == "wrong_traffic_class"])
' "$tmp/b/report.json"
}
log_is() {
	[ "$(log)" = "$1" ] || {
		echo "     series, refreshes: $(log)"
		return 1
	}
}
check "the watch's 2 refreshes and the whole run raise wrong_traffic_class: 3 in the log" \
	log_is "2 3"
check "the whole run's findings raise it" grep -q '"type": *"wrong_traffic_class"' "$tmp/b/report.json"

# The input line marks the uplinks with '*', and says so (it said nothing).
check "capture --uplinks: a bundle" "$FABPROBE" capture --uplinks "$a" -d 1 -o "$tmp/up.tar.gz"
mkdir "$tmp/up" && tar -xzf "$tmp/up.tar.gz" -C "$tmp/up"
check "... its input line says what '*' marks" \
	grep -qx "input: $a\\* (.*; \\* uplink)" "$tmp/up/summary.txt"
check "... and report.html's" grep -q "^<p>Input: $a\\* (.*; \\* uplink); " "$tmp/up/report.html"

finish capture-live
