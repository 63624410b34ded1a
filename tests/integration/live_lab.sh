#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fabprobe live on the lab's leaf uplinks, checked against independent
# ground truth: the generator's own counts, the congestion emulator's
# counters, `ip route get` for the ECMP path, and tshark for pass-through.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpi-

read -r E1 E2 MOUSE <<<"$(colliding_qps 2)"
# A READ QP too, below the elephant rate: its retries after a drop, and the
# responses sent again for them, are checked against the generator's.
READQP=90:106
QPS="--qp $E1:write:150:65536 --qp $E2:write:150:65536 --qp $MOUSE:write:2:4096"
QPS+=" --qp $READQP:read:10:4096"
echo "elephants $E1 $E2 (one uplink), mouse $MOUSE, READ $READQP"

# path_map: "sport=uplink" for every QP, both directions (leaf1 and leaf2 hash).
path_map() {
	local q l r sport
	for q in $E1 $E2 $MOUSE $READQP; do
		l=${q%%:*} r=${q##*:}
		sport=$("$ROCEGEN" sport "$l" "$r")
		echo "req:$sport=$(uplink_of leaf1 "$H1" "$H3" "$sport")"
		echo "rsp:$sport=$(uplink_of leaf2 "$H3" "$H1" "$sport")"
	done
}
path_map >"$TMP/paths"

probe() { # probe LEAF OUT SECONDS
	bg "$1" "$2" "$FABPROBE" top --once --json -r "$3" -i "$UPLINKS" --uplinks "$UPLINKS" \
		--elephant-rate 20M
}

echo "--- phase A: congestion with CNPs"
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --ce-above-mbps 100 --drop-permille 5 >/dev/null 2>&1
done
bg h3 "$TMP/serve.json" "$ROCEGEN" serve
serve_pid=${BG_PIDS[-1]}
probe leaf1 "$TMP/leaf1.json" 8
probe leaf2 "$TMP/leaf2.json" 8
wait_attached "$TMP/leaf1.json.err" "$TMP/leaf2.json.err"
at h1 "$ROCEGEN" run --dst "$H3" $QPS --duration 3 >"$TMP/run.json"
wait "${BG_PIDS[1]}" "${BG_PIDS[2]}"
kill -INT "$serve_pid"
wait "$serve_pid"
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --stats >"$TMP/congest$s.json"
	at spine$s "$CONGEST" -i leaf2 --detach >/dev/null 2>&1
done
check "phase A ground truth" python3 "$TOP/tests/integration/check_live.py" congestion \
	"$TMP" "$E1" "$E2" "$MOUSE"

echo "--- phase B: CE marks, receiver sends no CNP"
BG_PIDS=()
at spine1 "$CONGEST" -i leaf2 --ce-above-mbps 1 >/dev/null 2>&1
at spine2 "$CONGEST" -i leaf2 --ce-above-mbps 1 >/dev/null 2>&1
at spine3 "$CONGEST" -i leaf2 --ce-above-mbps 1 >/dev/null 2>&1
at spine4 "$CONGEST" -i leaf2 --ce-above-mbps 1 >/dev/null 2>&1
bg h3 "$TMP/serveB.json" "$ROCEGEN" serve --no-cnp
serve_pid=${BG_PIDS[-1]}
probe leaf2 "$TMP/leaf2B.json" 4
wait_attached "$TMP/leaf2B.json.err"
at h1 "$ROCEGEN" run --dst "$H3" --qp "$E1:write:100:65536" --qp "$E2:write:100:65536" \
	--duration 1.5 >"$TMP/runB.json"
wait "${BG_PIDS[1]}"
kill -INT "$serve_pid"
wait "$serve_pid"
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --detach >/dev/null 2>&1
done
check "phase B names the collision and ce_without_cnp" \
	python3 "$TOP/tests/integration/check_live.py" no_cnp "$TMP" "$E1" "$E2"

echo "--- phase C: byte-identical pass-through with XDP and tc attached"
BG_PIDS=()
bg h3 "$TMP/serveC.json" "$ROCEGEN" serve
serve_pid=${BG_PIDS[-1]}
bg leaf1 "$TMP/plain.txt" "$FABPROBE" top --plain -r 1 -i down1,$UPLINKS --uplinks "$UPLINKS"
probe_pid=${BG_PIDS[-1]}
bg h1 "$TMP/h1.pcap.log" tcpdump -i eth0 -w "$TMP/h1.pcap" -U udp dst port 4791
bg h3 "$TMP/h3.pcap.log" tcpdump -i eth0 -w "$TMP/h3.pcap" -U udp dst port 4791
wait_attached "$TMP/plain.txt.err"
sleep 1
at h1 "$ROCEGEN" run --dst "$H3" --qp "$E1:write:50:65536" --qp "$MOUSE:send:5:4096" \
	--duration 1 >"$TMP/runC.json"
sleep 1.5
kill -INT "${BG_PIDS[@]:2}" "$serve_pid"
sleep 0.5
kill -INT "$probe_pid"
wait
check "phase C probe ran on leaf1" grep -q "RoCE" "$TMP/plain.txt"
check "phase C payloads byte-identical" python3 "$TOP/tests/integration/check_live.py" \
	passthrough "$TMP"

echo "--- phase E: per-uplink captures replayed as one group agree with the live probe"
BG_PIDS=()
bg h3 "$TMP/serveE.json" "$ROCEGEN" serve
serve_pid=${BG_PIDS[-1]}
probe leaf1 "$TMP/leaf1E.json" 5
wait_attached "$TMP/leaf1E.json.err"
for u in 1 2 3 4; do
	bg leaf1 "$TMP/up$u.log" tcpdump -i up$u -w "$TMP/up$u.pcap" -U -Q out udp dst port 4791
done
sleep 1
at h1 "$ROCEGEN" run --dst "$H3" --qp "$E1:write:60:65536" --qp "$E2:write:60:65536" \
	--qp "$MOUSE:write:2:4096" --duration 1.5 >"$TMP/runE.json"
wait "${BG_PIDS[1]}"
sleep 1
kill -INT "${BG_PIDS[@]:2}" "$serve_pid"
wait
"$FABPROBE" replay --json --elephant-rate 50M --path up1="$TMP/up1.pcap" \
	--path up2="$TMP/up2.pcap" --path up3="$TMP/up3.pcap" --path up4="$TMP/up4.pcap" \
	>"$TMP/replayE.json"
check "phase E replay --path matches live" python3 "$TOP/tests/integration/check_live.py" \
	replay_group "$TMP" "$E1" "$E2"

echo "--- phase D: lifecycle"
BG_PIDS=()
bg leaf1 "$TMP/kill.txt" "$FABPROBE" top --plain -r 1 -i "$UPLINKS"
victim=${BG_PIDS[-1]}
wait_attached "$TMP/kill.txt.err"
check "attached while running (XDP on up1)" sh -c \
	"ip -n $(ns leaf1) -d link show up1 | grep -q 'prog/xdp'"
check "attached while running (tcx links; bpftool 7.1 says type 11)" sh -c \
	"bpftool link show | grep -q 'tcx\|type 11'"
check "a second fabprobe on the same interface runs, through tc, and says so" sh -c \
	"ip netns exec $(ns leaf1) $FABPROBE top --once -r 0.1 -i up1 >/dev/null 2>$TMP/second.err &&
	 grep -q \"XDP is taken on up1 ('fp_xdp', id [0-9]*) by another fabprobe\" $TMP/second.err"
check "--hook xdp still refuses to replace it, naming it" sh -c \
	"! ip netns exec $(ns leaf1) $FABPROBE top --once -r 0.1 --hook xdp -i up1 2>$TMP/third.err &&
	 grep -q \"already runs the XDP program 'fp_xdp'\" $TMP/third.err"
check "first fabprobe still running" kill -0 "$victim"
xdp_id=$(ip -n "$(ns leaf1)" -d link show up1 | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
link_ids=$(cat /proc/"$victim"/fdinfo/* 2>/dev/null | sed -n 's/^link_id:\s*//p')
check "the probe holds its attachments as links ($(echo $link_ids | wc -w))" \
	test "$(echo $link_ids | wc -w)" -eq 8
kill -KILL "$victim"
wait "$victim" 2>/dev/null
sleep 1
check "nothing attached after SIGKILL (XDP)" sh -c \
	"! ip -n $(ns leaf1) -d link show | grep -q 'prog/xdp'"
links_gone() {
	local id
	for id in $link_ids; do
		bpftool link show id "$id" >/dev/null 2>&1 && return 1
	done
	return 0
}
check "nothing attached after SIGKILL (its 8 XDP and tcx links are gone)" links_gone
# The kernel frees a program once its last link is gone (after an RCU grace period).
gone() {
	local i
	for i in $(seq 50); do
		bpftool prog show id "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}
check "the killed probe's XDP program (id $xdp_id) is unloaded" gone "$xdp_id"

finish live-lab
