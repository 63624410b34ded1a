#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `fabprobe top`, the ncurses dashboard, driven through tmux on the lab:
# two elephants that leaf1 hashes onto one uplink and a mouse elsewhere.
# Ground truth is the generator's QP table and the kernel's ECMP choice
# (`lab.sh path`), never the dashboard's own earlier output. Checks what
# the screen shows (flows, paths, QPs, VNIs, the collision alert), that
# sorting, filtering, the detail view and resizing work, and that `q`
# leaves nothing attached.
# TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpt-

SOCK=fpt-top-$$
SESSION=top
tmx() { tmux -L "$SOCK" "$@"; }
trap 'tmx kill-server >/dev/null 2>&1; lab_cleanup' EXIT

# screen: the pane's text now.
screen() { tmx capture-pane -p -t "$SESSION" 2>/dev/null; }
show() {
	echo "----- screen: $1"
	screen | sed 's/[[:space:]]*$//'
	echo "-----"
}
# wait_screen ERE [SECONDS]: until the screen matches (polling), 0 if it did.
wait_screen() {
	local i
	for i in $(seq $((${2:-10} * 10))); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() {
	tmx send-keys -t "$SESSION" "$@"
	sleep 0.5
}
# flow_rows: the table rows below the column header (lines "ADDR > ADDR ...").
flow_rows() { screen | grep -E '^ ?[0-9a-f.:]+(~|…)?[0-9a-f.:]* > '; }
# qp_of ROW: the QP column of a Flows row (FLOW SPORT [VNI] QP ...).
qp_of() { awk '{ print ($5 == "-") ? $6 : $5 }'; }
# path_of ROW: the PATH column of a Flows row.
path_of() { awk '{ print ($5 == "-") ? $7 : $6 }'; }
tab_sort() { screen | sed -n 4p | grep -oE 'sort [A-Z%/ ]+' | sed 's/ *$//'; }

read -r E1 E2 MOUSE <<<"$(colliding_qps 2)"
[ -n "$MOUSE" ] || {
	echo "no colliding QPs found"
	exit 1
}
declare -A SPORT UP
for q in $E1 $E2 $MOUSE; do
	SPORT[$q]=$("$ROCEGEN" sport "${q%%:*}" "${q##*:}")
	UP[$q]=$(uplink_of leaf1 "$H1" "$H3" "${SPORT[$q]}")
done
echo "elephants $E1 $E2 on ${UP[$E1]}/${UP[$E2]}, mouse $MOUSE on ${UP[$MOUSE]}"
min_qp=$(for q in $E1 $E2 $MOUSE; do
	echo "${q%%:*}"
	echo "${q##*:}"
done | sort -n | head -1)

bg h3 "$TMP/serve.json" "$ROCEGEN" serve
sleep 0.5
bg h1 "$TMP/run.json" "$ROCEGEN" run --dst "$H3" --duration 120 \
	--qp "$E1:write:200:65536" --qp "$E2:write:200:65536" --qp "$MOUSE:write:2:4096"
RUN_PID=${BG_PIDS[-1]}

tmx new-session -d -s "$SESSION" -x 120 -y 40 \
	"env LANG=C.UTF-8 ip netns exec $(ns leaf1) $FABPROBE top -i $UPLINKS \
	--uplinks $UPLINKS --elephant-rate 50M 2>$TMP/top.err; echo \$? >$TMP/top.rc"
tmx set-option -t "$SESSION" remain-on-exit on >/dev/null

echo "--- Flows view"
wait_screen "${H1//./\\.} > ${H3//./\\.} .* EC" 20
[ -n "${TOP_TMUX_SHOW:-}" ] && show "start, 120x40"
check "header names the interfaces and the hooks" \
	wait_screen "^fabprobe top +up1 up2 up3 up4 \[xdp ingress \+ tc egress\]" 1
check "header shows rates per second and the flow table" \
	wait_screen "^per s: frames [0-9.]+[kM]? .*CE .*CNP .*rtx .*malformed" 1
check "header shows flow-table fill and evictions" \
	wait_screen "^flows [0-9]+/[0-9]+ \([0-9.<%]+\) +evicted [0-9]+" 1
for q in $E1 $E2 $MOUSE; do
	row=$(flow_rows | grep -E "^ ?${H1//./\\.} > ${H3//./\\.} +${SPORT[$q]} " | head -1)
	check "flow $q: QP ${q##*:} on ${UP[$q]} (${row:-no row})" \
		test "$(echo "$row" | qp_of)" = "${q##*:}" -a "$(echo "$row" | path_of)" = "${UP[$q]}"
done
for q in $E1 $E2; do
	check "elephant $q flagged E and C" \
		bash -c "echo '$(flow_rows | grep -E "^ ?${H1//./\\.} > ${H3//./\\.} +${SPORT[$q]} ")' |
			grep -qE ' EC *$'"
done
acks=$(flow_rows | grep -E "^ ?${H3//./\\.} > ${H1//./\\.} " | qp_of | sort -n | xargs)
want=$(for q in $E1 $E2 $MOUSE; do echo "${q%%:*}"; done | sort -n | xargs)
check "ACK side of every QP shown with the requester's QP ($acks = $want)" test "$acks" = "$want"

echo "--- sorting"
first_rate=$(flow_rows | head -1 | qp_of)
order_rate=$(flow_rows | qp_of | xargs)
check "by rate an elephant is first (QP $first_rate)" \
	bash -c "[ '$first_rate' = '${E1##*:}' ] || [ '$first_rate' = '${E2##*:}' ]"
for i in $(seq 20); do
	[ "$(tab_sort)" = "sort QP" ] && break
	keys s
done
check "s reaches the QP column ($(tab_sort))" test "$(tab_sort)" = "sort QP"
first_qp=$(flow_rows | head -1 | qp_of)
order_qp=$(flow_rows | qp_of | xargs)
[ -n "${TOP_TMUX_SHOW:-}" ] && show "sorted by QP"
check "by QP the smallest QP is first ($first_qp = $min_qp)" test "$first_qp" = "$min_qp"
check "sorting changed the order ($order_rate -> $order_qp)" test "$order_rate" != "$order_qp"
check "QP order is ascending" bash -c "[ '$order_qp' = '$(echo "$order_qp" | tr ' ' '\n' | sort -n | xargs)' ]"
keys r
check "r reverses it" test "$(flow_rows | head -1 | qp_of)" = \
	"$(echo "$order_qp" | tr ' ' '\n' | sort -n | tail -1)"
keys r
for i in $(seq 20); do
	[ "$(tab_sort)" = "sort RATE" ] && break
	keys '>'
done
check "> cycles back to RATE" test "$(tab_sort)" = "sort RATE"

echo "--- filter"
keys / && tmx send-keys -t "$SESSION" -l "qp=${E1##*:}" && keys Enter
rows=$(flow_rows)
[ -n "${TOP_TMUX_SHOW:-}" ] && show "filter qp=${E1##*:}"
check "qp=${E1##*:} leaves one flow" test "$(echo "$rows" | grep -c .)" -eq 1
check "... and it is that QP" test "$(echo "$rows" | qp_of)" = "${E1##*:}"
check "header shows the filter" wait_screen "filter: qp=${E1##*:}" 1
echo "--- detail"
keys Enter
[ -n "${TOP_TMUX_SHOW:-}" ] && show "detail"
check "detail names the flow" \
	wait_screen "flow ${H1//./\\.}:${SPORT[$E1]} > ${H3//./\\.}:4791 +qp ${E1##*:}" 2
check "detail shows PSN state" wait_screen "^PSN +last 0x[0-9a-f]{6} +max 0x[0-9a-f]{6}" 1
check "detail shows the ECN mix (rocegen sends ECT(0))" \
	wait_screen "^ECN +not-ECT 0% +ECT\(0\) 100% +ECT\(1\) 0% +CE 0%" 1
check "detail shows the path over time" wait_screen "^  ${UP[$E1]} +from .* ago to now" 3
keys Escape
keys Escape
check "Esc clears the filter" test "$(flow_rows | grep -c .)" -ge 6
keys / && tmx send-keys -t "$SESSION" -l "${H3}" && keys Enter
check "address filter keeps rows naming ${H3}" \
	bash -c "[ \"\$(echo '$(flow_rows)' | grep -c .)\" -ge 6 ]"
keys / && tmx send-keys -t "$SESSION" -l "10.99." && keys Enter
check "address filter with no match shows none" test -z "$(flow_rows)"
keys Escape

echo "--- views"
keys 2
[ -n "${TOP_TMUX_SHOW:-}" ] && show "Paths"
up=${UP[$E1]}
prow=$(screen | grep -E "^$up +")
check "Paths: $up carries the 2 elephants ($prow)" \
	bash -c "echo '$prow' | grep -qE ' 2 +[0-9-]+ *$'"
check "Paths: load bars and imbalance" wait_screen "imbalance \(max/mean\): load [0-9.]+" 1
check "Paths: the collision is listed" wait_screen "observed: 2 elephants on $up while" 1
keys 3
[ -n "${TOP_TMUX_SHOW:-}" ] && show "QPs"
check "QPs: view switched" wait_screen "QUEUE PAIR" 1
for q in $E1 $E2 $MOUSE; do
	check "QPs: $q paired with its ACK side on ${UP[$q]}" \
		wait_screen "^ ?${H1//./\\.} > ${H3//./\\.} +(- +)?${q##*:} +${q%%:*} +${UP[$q]}/up[1-4] " 1
done
keys 4
[ -n "${TOP_TMUX_SHOW:-}" ] && show "VNIs"
check "VNIs: bare RoCE as '-' with 3 data QPs" wait_screen "^ +- +[0-9]+ +3 +2 " 1
keys 5
[ -n "${TOP_TMUX_SHOW:-}" ] && show "Alerts"
check "Alerts: elephant_collision" wait_screen "CRITICAL +elephant_collision .* active" 2
check "Alerts: message and evidence" wait_screen "share uplink $up while" 1
keys F
check "F: back to Flows" wait_screen "FLOW \(src > dst\)" 1
keys Tab
check "Tab: next view (Paths)" wait_screen "LOAD" 1
keys h
check "h: help" wait_screen "keys \(any key closes\)" 1
keys x

echo "--- resize"
tmx resize-window -t "$SESSION" -x 80 -y 24
keys 1
sleep 1
show "80x24"
small=$(screen)
check "80x24: header" bash -c "echo '$small' | head -1 | grep -q '^fabprobe top'"
check "80x24: column header" bash -c "echo '$small' | grep -q 'FLOW (src > dst)'"
check "80x24: flow rows" test "$(flow_rows | grep -c .)" -ge 1
check "80x24: rate column" bash -c "flow_rows() { echo '$small' | grep -E ' > '; };
	flow_rows | grep -qE '[0-9.]+ [kMG]b/s'"
check "80x24: nothing wider than 80 columns" \
	test "$(echo "$small" | awk '{ if (length > m) m = length } END { print m + 0 }')" -le 80
tmx resize-window -t "$SESSION" -x 160 -y 50
sleep 1
show "160x50"
check "160x50: the extra columns appear" wait_screen "NAK/s +DSCP +AGE +FLG" 1

echo "--- history"
kill -INT "$RUN_PID" 2>/dev/null
sleep 4
keys 5
[ -n "${TOP_TMUX_SHOW:-}" ] && show "Alerts after the traffic stopped"
check "Alerts: the collision stays in the history after it clears" \
	wait_screen "elephant_collision +x[0-9]+ +first .* ago, cleared" 4

echo "--- quit"
ids=$(at leaf1 bpftool -j net show 2>/dev/null |
	python3 -c 'import json,sys
ids=set()
def walk(o):
    if isinstance(o, dict):
        if str(o.get("name","")).startswith("fp_") or str(o.get("prog_name","")).startswith("fp_"):
            for k in ("id","prog_id"):
                if k in o: ids.add(o[k])
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(json.load(sys.stdin)); print(" ".join(map(str, sorted(ids))))')
check "fabprobe programs attached in leaf1 while running ($ids)" test -n "$ids"
keys q
for i in $(seq 50); do
	[ -s "$TMP/top.rc" ] && break
	sleep 0.1
done
check "q exits with status 0" test "$(cat "$TMP/top.rc" 2>/dev/null)" = 0
left=""
for id in $ids; do
	bpftool prog show id "$id" >/dev/null 2>&1 && left+=" $id"
done
check "no fabprobe program left (was:$ids; left:${left:- none})" test -z "$left"
check "nothing attached in leaf1 any more" \
	bash -c "! ip netns exec $(ns leaf1) bpftool net show 2>/dev/null | grep -q fp_"
check "stderr has no error" bash -c "! grep -qi 'error\|fail' $TMP/top.err"

finish top-tmux
