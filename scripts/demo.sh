#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job on the built-in lab: a leaf-spine fabric of namespaces,
# RoCEv2 traffic with a deliberate elephant collision and a congested
# spine, and `fabprobe top` on leaf1's uplinks. Everything is torn down
# on exit. DEMO_SECONDS bounds a run without a terminal (default 20).
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
echo "demo: elephants $e1 and $e2 hash onto one uplink of leaf1; mouse $mouse elsewhere"

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
	--qp 50:70:write:80:65536 --qp 51:71:read:20:16384 >/dev/null 2>&1 &
pids+=($!)

args=(top -i up1,up2,up3,up4 --uplinks up1,up2,up3,up4 --elephant-rate 50M)
if [ -t 1 ]; then
	echo "demo: starting fabprobe top on leaf1 (q quits)"
	sleep 1
	ip netns exec "${P}leaf1" "$top/build/fabprobe" "${args[@]}"
else
	ip netns exec "${P}leaf1" "$top/build/fabprobe" "${args[@]}" --plain -r 5 \
		-d "${DEMO_SECONDS:-20}"
fi
