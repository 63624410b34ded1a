#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job on the built-in lab: a leaf-spine fabric of namespaces,
# RoCEv2 traffic with a deliberate elephant collision and a congested
# spine, and `fabprobe top` on leaf1's uplinks. Everything is torn down
# on exit. DEMO_SECONDS bounds a run without a terminal (default 20).
# The dashboard opens on Paths, where the collision is; after it, a few
# lines say what was shown.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
lab=$top/scripts/lab/lab.sh
gen=$top/build/lab/rocegen
export FP_LAB_PREFIX=${FP_LAB_PREFIX:-fpl-}
P=$FP_LAB_PREFIX
pids=()

cleanup() {
	for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$lab" down >/dev/null 2>&1 || true
	echo "demo: lab torn down"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "demo: building the lab fabric (2 leaves, 4 spines, 4 hosts)"
"$lab" up >/dev/null
read -r e1 e2 mouse <<<"$("$top/scripts/lab/qps.sh" collide 2)"
echo "demo: QP pairs (h1's QP:h3's QP) $e1 and $e2 are elephants that leaf1 hashes onto"
echo "      one uplink; the mouse $mouse takes another"
# h2's 80 Mb/s WRITE is an elephant too. The hash's seed is drawn at boot,
# so on some boots its first pair would join the collision (three
# elephants there, not the two named): take the first pair leaf1 hashes
# onto another uplink.
crowded=$("$lab" path leaf1 10.77.1.11 10.77.2.13 "$("$gen" sport "${e1%%:*}" "${e1##*:}")" 4791)
lqp=50
while [ "$("$lab" path leaf1 10.77.1.12 10.77.2.14 "$("$gen" sport "$lqp" $((lqp + 20)))" 4791)" = "$crowded" ]; do
	lqp=$((lqp + 2))
done

ip netns exec "${P}h3" "$gen" serve >/dev/null 2>&1 &
pids+=($!)
ip netns exec "${P}h4" "$gen" serve --no-cnp >/dev/null 2>&1 &
pids+=($!)
# spine congestion: CE marks above 150 Mb/s and 0.5% loss towards leaf2
for s in 1 2 3 4; do
	ip netns exec "${P}spine$s" "$top/build/lab/congest" -i leaf2 --ce-above-mbps 150 \
		--drop-permille 5 >/dev/null 2>&1
done
sleep 0.5
ip netns exec "${P}h1" "$gen" run --dst 10.77.2.13 --duration 3600 \
	--qp "$e1:write:200:65536" --qp "$e2:write:200:65536" --qp "$mouse:send:5:4096" \
	>/dev/null 2>&1 &
pids+=($!)
ip netns exec "${P}h2" "$gen" run --dst 10.77.2.14 --duration 3600 \
	--qp "$lqp:$((lqp + 20)):write:80:65536" --qp "$((lqp + 1)):$((lqp + 21)):read:20:16384" \
	>/dev/null 2>&1 &
pids+=($!)

args=(top -i up1,up2,up3,up4 --uplinks up1,up2,up3,up4 --elephant-rate 50M)
if [ -t 1 ]; then
	echo "demo: fabprobe top on leaf1's uplinks, opening on Paths"
	echo "      keys: 1 Flows  2 Paths  3 QPs  5 Alerts  Enter detail  h help  q quit"
	sleep 2
	ip netns exec "${P}leaf1" "$top/build/fabprobe" "${args[@]}" --view paths
else
	ip netns exec "${P}leaf1" "$top/build/fabprobe" "${args[@]}" --plain -r 5 \
		-d "${DEMO_SECONDS:-20}"
fi

# The notes name the columns of what ran: the dashboard's, or --plain's tables.
if [ -t 1 ]; then
	eleph="Paths shows 2 in ELEPH and lists the collision"
	flag="Flows flag the two rows C"
	rtx="RTX/s"
	rates="RATE, PPS, x/s"
	totals="BYTES and CE%"
	qps="The QPs view puts both directions of a pair on one row."
else
	eleph="the PATH table shows 2 ELEPHANTS on one uplink"
	flag="their FLOW rows end [elephant]"
	rtx="RTX"
	rates="RATE"
	totals="PACKETS to GAPS"
	qps="(top's QPs view puts both directions of a pair on one row)"
fi
cat <<EOF

demo: what was shown
  QP pairs   "$e1" is h1's queue pair ${e1%%:*} talking to h3's queue pair ${e1##*:}. A flow's
             QP column is the QP its packets are sent to: ${e1##*:} on h1's data, ${e1%%:*} on
             h3's ACKs. $qps
  collision  leaf1's ECMP hash put both elephants ($e1, $e2) on one uplink while
             others had room: $eleph,
             the alerts raise elephant_collision, $flag.
  CNPs       the spines mark CE towards leaf2, past the probe on leaf1: leaf1
             sees h1's data leave unmarked and h3's CNPs come back, so
             cnp_without_ce is the expected finding here, not broken marking.
             The spines also drop 0.5%: hence the NAKs and retransmits ($rtx).
  windows    rates ($rates) are over the last refresh interval;
             $totals count since the flow entered the flow table.
EOF
