#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A collector fed by switch mirror sessions. This kernel has no GRE
# devices, so a generator sends crafted ERSPAN II copies onto a veth, as a
# switch would: session 101 carries two elephant queue pairs, session 102 a
# mouse. top and capture on the other end must see the mirrored RoCE (not
# the switch-to-collector header), name the sessions as paths, and name
# the collision on session 101. --mirror-port-drop drops the copies after
# counting them and nothing else.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NS=fpz-mirror
TMP=$(mktemp -d /tmp/fpz-mirror.XXXXXX)
INJECT="python3 $TOP/tests/lib/inject.py"
cleanup() {
	kill "${dump:-}" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add "$NS"
ip -n "$NS" link add va type veth peer name vb
for i in va vb; do ip -n "$NS" link set "$i" up; done
at() { ip netns exec "$NS" "$@"; }
ANALYSIS=(--elephant-rate 300k --mirror-session 101=leaf1:eth49 --mirror-session 102=leaf1:eth50)

# send: session 101, QPs 17 and 18 at 1500 frames/s each; session 102, QP 30 at 50/s.
send() {
	local a

	at $INJECT va 6000 --qp 17,18 --sport 49200 --rate 3000 --erspan 101 --switch 10.98.0.1 \
		>"$TMP/a.json" &
	a=$!
	at $INJECT va 100 --qp 30 --sport 49300 --rate 50 --erspan 102 --switch 10.98.0.1 \
		>"$TMP/b.json"
	wait "$a"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. top --once --json over the mirror feed.
ip netns exec "$NS" "$FABPROBE" top -i vb --once -r 4 --json "${ANALYSIS[@]}" \
	>"$TMP/top.json" 2>"$TMP/top.err" &
top=$!
wait_attached "$TMP/top.err"
send
wait "$top"
check "top over the mirror feed exits 0" eq "$?" 0
sent=$(($(json "$TMP/a.json" 'd["frames"]') + $(json "$TMP/b.json" 'd["frames"]')))
check "every copy is counted as mirrored" eq "$(json "$TMP/top.json" 'd["totals"]["mirrored_frames"]')" "$sent"
check "... and as RoCE" eq "$(json "$TMP/top.json" 'd["totals"]["roce_packets"]')" "$sent"
check "three flows, the mirrored packets' (10.99.0.1 > 10.99.0.2), never the switch's" \
	eq "$(json "$TMP/top.json" 'sorted((f["src"], f["dst"], f["dest_qp"]) for f in d["flows"]) == [("10.99.0.1", "10.99.0.2", q) for q in (17, 18, 30)]')" True
check "flows carry their session: type 2, 101/102, switch 10.98.0.1" \
	eq "$(json "$TMP/top.json" 'sorted((f["mirror"]["type"], f["mirror"]["session"], f["mirror"]["switch"], f["dest_qp"]) for f in d["flows"])')" \
	"[(2, 101, '10.98.0.1', 17), (2, 101, '10.98.0.1', 18), (2, 102, '10.98.0.1', 30)]"
check "the sessions are the paths, by their names" \
	eq "$(json "$TMP/top.json" 'sorted(p["name"] for p in d["paths"])')" "['leaf1:eth49', 'leaf1:eth50']"
check "flows report their session as path" \
	eq "$(json "$TMP/top.json" 'sorted((f["dest_qp"], f["path"]) for f in d["flows"])')" \
	"[(17, 'leaf1:eth49'), (18, 'leaf1:eth49'), (30, 'leaf1:eth50')]"
check "mirrored bytes are the packets' (138 B each)" \
	eq "$(json "$TMP/top.json" 'sum(f["bytes"] for f in d["flows"])')" "$(($(json "$TMP/a.json" 'd["bytes"]') + $(json "$TMP/b.json" 'd["bytes"]')))"
check "the collision is named on leaf1:eth49, with leaf1:eth50 to spare" \
	eq "$(json "$TMP/top.json" '[(c["path"], c["idle_path"], len(c["flows"])) for c in d["collisions"]]')" \
	"[('leaf1:eth49', 'leaf1:eth50', 2)]"
check "an elephant_collision alert names it" \
	eq "$(json "$TMP/top.json" '[a["path"] for a in d["alerts"] if a["type"] == "elephant_collision"]')" "['leaf1:eth49']"

# 2. capture: the bundle says the same.
ip netns exec "$NS" "$FABPROBE" capture -i vb -d 4 -o "$TMP/b.tar.gz" "${ANALYSIS[@]}" \
	>/dev/null 2>"$TMP/cap.err" &
cap=$!
wait_attached "$TMP/cap.err"
send
wait "$cap"
check "capture exits 0" eq "$?" 0
tar -xzf "$TMP/b.tar.gz" -C "$TMP" report.json summary.txt
check "the bundle's report names the collision on leaf1:eth49" \
	eq "$(json "$TMP/report.json" '[c["path"] for c in d["collisions"]]')" "['leaf1:eth49']"
check "summary.txt says so in words" grep -q "share mirror session leaf1:eth49 while mirror session leaf1:eth50 has room" "$TMP/summary.txt"

# 3. --mirror-port-drop: copies dropped after counting, plain frames pass.
ip netns exec "$NS" tcpdump -U -i vb -n -w "$TMP/vb.pcap" 2>/dev/null &
dump=$!
sleep 1
ip netns exec "$NS" "$FABPROBE" top -i vb --mirror-port-drop --once -r 6 --json \
	>"$TMP/drop.json" 2>"$TMP/drop.err" &
top=$!
wait_attached "$TMP/drop.err"
at $INJECT va 300 --qp 40 --rate 300 --erspan 101 >/dev/null
at $INJECT va 200 --qp 41 --rate 300 >/dev/null
wait "$top"
sleep 1
kill -INT "$dump"
wait "$dump" 2>/dev/null
dump=
check "drop mode: the copies are counted" eq "$(json "$TMP/drop.json" 'd["totals"]["mirrored_frames"]')" 300
check "drop mode: ... and dropped" eq "$(json "$TMP/drop.json" 'd["totals"]["mirror_dropped"]')" 300
check "drop mode: RoCE counted, copies and wire frames alike" eq "$(json "$TMP/drop.json" 'd["totals"]["roce_packets"]')" 500
check "drop mode: the host's stack saw the 200 wire frames and no copy" \
	eq "$(tcpdump -r "$TMP/vb.pcap" -n 2>/dev/null | grep -c 4791),$(tcpdump -r "$TMP/vb.pcap" -n 2>/dev/null | grep -c GRE)" "200,0"

finish mirror-live
