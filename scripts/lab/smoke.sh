#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lab smoke test: fabric up, 2 elephants + 2 mice from h1 to h3 through a
# congested spine, then check the generator's ground truth against
# independent captures (tshark) and the congestion emulator's counters.
# Always tears the lab down.

set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build/lab}
export FP_LAB_PREFIX=${FP_LAB_PREFIX:-fps-}
LAB="$HERE/lab.sh"
DURATION=${SMOKE_DURATION:-3}
H1=10.77.1.11
H3=10.77.2.13
# LQP:RQP:KIND:MBPS:BYTES - two elephants, two mice.
QPS="17:33:write:200:65536 18:34:send:200:65536 41:97:write:2:4096 42:98:write:1:1024"
CE_ABOVE_MBPS=150
DROP_PERMILLE=10

TMP=$(mktemp -d /tmp/fpl-smoke.XXXXXX)
PIDS=()
# check WHAT CMD... and finish NAME, shared with the test suites.
. "$TOP/tests/lib/check.sh"

cleanup()
{
	local pid

	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	"$LAB" down
	[ -n "${SMOKE_KEEP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

eq() { [ "$1" = "$2" ] || { echo "     $1 != $2"; return 1; }; }
gt0() { [ "${1:-0}" -gt 0 ] || { echo "     $1 is not > 0"; return 1; }; }

qp_field() { echo "$1" | cut -d: -f"$2"; }

# Packets/bytes that tshark sees in @pcap for src, sport, dest QP (hex).
tshark_rows()
{
	tshark -r "$1" -T fields -E separator=' ' -e ip.src -e udp.srcport \
		-e infiniband.bth.destqp -e infiniband.bth.opcode \
		-e infiniband.bth.psn -e ip.dsfield.ecn -e frame.len \
		-e ip.dsfield.dscp 'udp.dstport == 4791' 2>/dev/null
}

start_capture()
{
	local node=$1 dev=$2 out=$3

	"$LAB" exec "$node" tcpdump -i "$dev" -s 96 -B 65536 -U -w "$out" \
		'udp dst port 4791' 2>"$out.log" &
	PIDS+=($!)
}

stop_captures()
{
	local pid

	for pid in "${PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	PIDS=()
}

hexqp() { printf '0x%06x' "$1"; }

# --- bring up, place congestion on the elephants' spines -----------------

make -s -C "$HERE" BUILD="$BUILD" || exit 1
"$LAB" up || exit 1

declare -A UPLINK
CONGESTED=""
for qp in $QPS; do
	sport=$("$BUILD/rocegen" sport "$(qp_field "$qp" 1)" "$(qp_field "$qp" 2)")
	UPLINK[$qp]=$("$LAB" path leaf1 "$H1" "$H3" "$sport" 4791)
	echo "qp $qp sport $sport -> leaf1 ${UPLINK[$qp]}"
	if [ "$(qp_field "$qp" 4)" -ge 100 ]; then
		CONGESTED+=" spine${UPLINK[$qp]#up}"
	fi
done
CONGESTED=$(echo "$CONGESTED" | tr ' ' '\n' | sort -u | xargs)
for spine in $CONGESTED; do
	"$LAB" exec "$spine" "$BUILD/congest" -i leaf2 \
		--ce-above-mbps "$CE_ABOVE_MBPS" --drop-permille "$DROP_PERMILLE" \
		>/dev/null || exit 1
done
echo "congest on: $CONGESTED (leaf2 egress)"

# --- traffic with captures ------------------------------------------------

start_capture h1 eth0 "$TMP/h1.pcap"
start_capture h3 eth0 "$TMP/h3.pcap"
for s in 1 2 3 4; do
	start_capture leaf1 "up$s" "$TMP/up$s.pcap"
done
"$LAB" exec h3 "$BUILD/rocegen" serve >"$TMP/serve.json" 2>"$TMP/serve.log" &
SERVE=$!
sleep 1
args=()
for qp in $QPS; do args+=(--qp "$qp"); done
"$LAB" exec h1 "$BUILD/rocegen" run --dst "$H3" --duration "$DURATION" \
	"${args[@]}" >"$TMP/run.json" 2>"$TMP/run.log"
kill -INT "$SERVE"
wait "$SERVE"
# libpcap hands over a partly filled TPACKET_V3 block only when its 1 s
# timeout retires it; stopping earlier loses the tail without a drop count.
sleep 1.5
stop_captures
for spine in $CONGESTED; do
	"$LAB" exec "$spine" "$BUILD/congest" -i leaf2 --stats
done >"$TMP/congest.json"

# --- assertions -----------------------------------------------------------

for f in "$TMP"/*.pcap.log; do
	check "capture $(basename "$f" .pcap.log) lost nothing" \
		grep -q '^0 packets dropped by kernel' "$f"
done
tshark_rows "$TMP/h1.pcap" >"$TMP/h1.rows"
tshark_rows "$TMP/h3.pcap" >"$TMP/h3.rows"
for s in 1 2 3 4; do tshark_rows "$TMP/up$s.pcap" >"$TMP/up$s.rows"; done

# rows matching src, sport, dest QP; prints "packets bytes"
count_rows()
{
	awk -v s="$2" -v p="$3" -v q="$4" \
		'$1 == s && $2 == p && $3 == q { n++; b += $7 }
		 END { print n + 0, b + 0 }' "$1"
}

# packets whose PSN was already seen: go-back-N resends on the wire
dup_psns()
{
	awk -v s="$2" -v p="$3" -v q="$4" \
		'$1 == s && $2 == p && $3 == q && seen[$5]++ { n++ }
		 END { print n + 0 }' "$1"
}

json_flow()
{
	jq -r --arg dir "$2" --argjson q "$3" \
		".$4[] | select(.dest_qp == \$q and .src == \$dir) |
		 \"\(.packets) \(.bytes) \(.retransmits) \(.sport)\"" "$1"
}

total_ce=0
for qp in $QPS; do
	lqp=$(qp_field "$qp" 1)
	rqp=$(qp_field "$qp" 2)
	read -r pk by rt sport < <(json_flow "$TMP/run.json" "$H1" "$rqp" sent)
	check "qp $lqp: tshark on h1 == generator sent ($pk pkts, $by bytes)" \
		eq "$(count_rows "$TMP/h1.rows" "$H1" "$sport" "$(hexqp "$rqp")")" "$pk $by"
	check "qp $lqp: resent PSNs on the wire == generator retransmits ($rt)" \
		eq "$(dup_psns "$TMP/h1.rows" "$H1" "$sport" "$(hexqp "$rqp")")" "$rt"
	read -r rpk rby _ _ < <(json_flow "$TMP/serve.json" "$H1" "$rqp" received)
	check "qp $lqp: tshark on h3 == responder received ($rpk pkts)" \
		eq "$(count_rows "$TMP/h3.rows" "$H1" "$sport" "$(hexqp "$rqp")")" "$rpk $rby"
	read -r spk sby _ _ < <(json_flow "$TMP/serve.json" "$H3" "$lqp" sent)
	check "qp $lqp: tshark on h1 == responder sent ($spk pkts)" \
		eq "$(count_rows "$TMP/h1.rows" "$H3" "$sport" "$(hexqp "$lqp")")" "$spk $sby"
	for s in 1 2 3 4; do
		want=0
		[ "up$s" = "${UPLINK[$qp]}" ] && want=$pk
		check "qp $lqp: leaf1 up$s carries $want pkts (lab.sh path says ${UPLINK[$qp]})" \
			eq "$(count_rows "$TMP/up$s.rows" "$H1" "$sport" "$(hexqp "$rqp")" | cut -d' ' -f1)" "$want"
	done
done

sum_json() { jq "[.$2[] | .$3] | add // 0" "$1"; }
opcode_count() { awk -v o="$2" -v s="$3" '$4 == o && $1 == s { n++ } END { print n + 0 }' "$1"; }

acks=$(opcode_count "$TMP/h1.rows" 17 "$H3")
cnps=$(opcode_count "$TMP/h1.rows" 129 "$H3")
check "ACKs on the wire ($acks)" gt0 "$acks"
check "CNPs (opcode 0x81) on the wire ($cnps)" gt0 "$cnps"
check "CNPs on the wire == responder cnps" eq "$cnps" "$(sum_json "$TMP/serve.json" sent cnps)"
check "CNPs carry DSCP 48" eq "$(awk '$4 == 129 && $8 != 48' "$TMP/h1.rows" | wc -l)" 0
check "retransmits happened" gt0 "$(sum_json "$TMP/run.json" sent retransmits)"
check "NAKs happened" gt0 "$(sum_json "$TMP/serve.json" sent naks)"
ce=$(awk -v s="$H1" '$1 == s && $6 == 3 { n++ } END { print n + 0 }' "$TMP/h3.rows")
check "CE marks on the wire at h3 ($ce)" gt0 "$ce"
check "CE on the wire == responder ce" eq "$ce" "$(sum_json "$TMP/serve.json" received ce)"
check "CE on the wire == congest marked" eq "$ce" "$(jq -s '[.[].marked] | add' "$TMP/congest.json")"
lost=$(( $(sum_json "$TMP/run.json" sent packets) - $(sum_json "$TMP/serve.json" received packets) ))
check "sent - received == congest dropped ($lost)" \
	eq "$lost" "$(jq -s '[.[].dropped] | add' "$TMP/congest.json")"

echo "generator: $(jq -c '[.sent[] | {sport, kind, packets, retransmits}]' "$TMP/run.json")"
echo "congest:   $(jq -c . "$TMP/congest.json" | xargs)"
finish smoke
