#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A second fabprobe beside a running one (the exporter the systemd unit
# starts): it must just work and count the same packets, watching ingress
# through tcx where the first holds XDP, with one line saying so, and
# egress behind the first's tcx program, which leaves each packet to the
# next (TCX_NEXT), not passes it on at once. Another
# tool's XDP program is named, never replaced; --hook xdp refuses it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NS=fpz-coex
TMP=$(mktemp -d /tmp/fpz-coex.XXXXXX)
INJECT="python3 $TOP/tests/lib/inject.py"
OTHER=$TOP/build/tests/other_xdp.bpf.o
PORT=19571
cleanup() {
	kill -INT "${exporter:-}" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add va type veth peer name vb
for i in va vb; do ip -n "$NS" link set "$i" up; done
at() { ip netns exec "$NS" "$@"; }

# roce_packets of a JSON report.
roce_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["roce_packets"])' "$1"; }
scrape_roce() { at curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^fabprobe_roce_frames_total /{print $2}'; }

# 1. The exporter holds vb's XDP hook, as the systemd unit would.
ip netns exec "$NS" "$FABPROBE" export -i vb -r 0.5 --listen "127.0.0.1:$PORT" >"$TMP/exp.out" 2>"$TMP/exp.err" &
exporter=$!
wait_attached "$TMP/exp.err"
before=$(scrape_roce)

# 2. top on the same interface while 200 RoCE frames arrive.
ip netns exec "$NS" "$FABPROBE" top -i vb --once -r 3 --json >"$TMP/top.json" 2>"$TMP/top.err" &
top=$!
wait_attached "$TMP/top.err"
at $INJECT va 200 --rate 400 >"$TMP/inject.json"
at $INJECT vb 100 --rate 400 --sport 50000 >/dev/null # out of vb: its egress
wait "$top"
rc=$?
check "top beside the exporter exits 0" eq "$rc" 0
check "one line says XDP is taken by another fabprobe and tc is used" \
	grep -q "XDP is taken on vb ('fp_xdp', id [0-9]*) by another fabprobe: watching ingress there with tc instead" "$TMP/top.err"
check "top counted every frame, in and out (egress was the exporter's alone)" \
	eq "$(roce_of "$TMP/top.json")" 300
sleep 1.2
check "the exporter counted every frame too" eq "$(($(scrape_roce) - before))" 300
check "the exporter still runs" kill -0 "$exporter"
kill -INT "$exporter"
wait "$exporter" 2>/dev/null
exporter=

# 3. Another tool's XDP program: named, kept, and fabprobe watches through tc.
at ip link set dev vb xdpgeneric obj "$OTHER" sec xdp
ip netns exec "$NS" "$FABPROBE" top -i vb --once -r 2 --json >"$TMP/top2.json" 2>"$TMP/top2.err" &
top=$!
wait_attached "$TMP/top2.err"
at $INJECT va 50 --rate 200 >/dev/null
wait "$top"
check "beside another tool's XDP: exit 0" eq "$?" 0
check "the notice names the other program" \
	grep -q "XDP is taken on vb ('other_tool', id [0-9]*) by another program" "$TMP/top2.err"
check "beside another tool's XDP: every frame counted" eq "$(roce_of "$TMP/top2.json")" 50
at "$FABPROBE" top -i vb --hook xdp --once -r 0.5 >/dev/null 2>"$TMP/top3.err"
check "--hook xdp refuses: exit 1" eq "$?" 1
check "... in one line naming the program" eq "$(wc -l <"$TMP/top3.err")" 1
check "... 'other_tool', another tool's" \
	grep -q "vb already runs the XDP program 'other_tool' (id [0-9]*, another tool's); fabprobe will not replace it: use --hook tc" "$TMP/top3.err"
check "the other tool's program is still attached" \
	bash -c "ip -n $NS -d link show vb | grep -q 'prog/xdp id'"
# The drop is XDP's: with the hook taken it cannot be done, and is refused, not silently off.
at "$FABPROBE" top -i vb --mirror-port-drop --once -r 0.5 >/dev/null 2>"$TMP/top4.err"
check "--mirror-port-drop with XDP taken refuses: exit 1" eq "$?" 1
check "... in one line saying why" \
	grep -q "vb already runs the XDP program 'other_tool' (id [0-9]*): --mirror-port-drop drops in XDP" "$TMP/top4.err"
check "the fallback's attached line names tc ingress" \
	grep -q "attached to 1 interface (xdp ingress + tc egress; tc ingress where XDP is taken)" "$TMP/top2.err"

finish coexist
