#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `fabprobe top`, the ncurses dashboard, driven through tmux on the lab:
# two elephants that leaf1 hashes onto one uplink and a mouse elsewhere.
# Ground truth is the generator's QP table and the kernel's ECMP choice
# (`lab.sh path`), never the dashboard's own earlier output. Checks what
# the screen shows (flows, paths, QPs, VNIs, the collision alert), that
# sorting, filtering, the detail view and resizing work, and that `q`
# leaves nothing attached.
# TOP_TMUX_SHOW=1 prints every captured screen (80x24 and 160x50 always).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpt-

SOCK=fpt-top-$$
SESSION=top
. "$(dirname "$0")/tmux.bash"
trap 'tmx_gone; lab_cleanup' EXIT

H1RE=${H1//./\\.}
H3RE=${H3//./\\.}

# flow_rows: the table rows (lines "ADDR > ADDR ...").
flow_rows() { screen | grep -E '^[0-9a-f.:]+(~|…)?[0-9a-f.:]* > '; }
# qp_of / path_of: the QP and PATH columns of Flows rows (FLOW SPORT [VNI] QP PATH ...).
qp_of() { awk '{ print ($5 == "-") ? $6 : $5 }'; }
path_of() { awk '{ print ($5 == "-") ? $7 : $6 }'; }
tab_sort() { screen | sed -n 4p | grep -oE 'sort [A-Z%/]+'; }
row_of() { flow_rows | grep -E "^$H1RE > $H3RE +$1 " | head -1; }

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
up=${UP[$E1]}
echo "elephants $E1 $E2 on ${UP[$E1]}/${UP[$E2]}, mouse $MOUSE on ${UP[$MOUSE]}"
all_qps=$(for q in $E1 $E2 $MOUSE; do echo "${q%%:*}"; echo "${q##*:}"; done | sort -n | xargs)
max_qp=${all_qps##* }

bg h3 "$TMP/serve.json" "$ROCEGEN" serve
sleep 0.5
bg h1 "$TMP/run.json" "$ROCEGEN" run --dst "$H3" --duration 120 \
	--qp "$E1:write:200:65536" --qp "$E2:write:200:65536" --qp "$MOUSE:write:2:4096"
RUN_PID=${BG_PIDS[-1]}

KEYS_SENT=0
tmx new-session -d -s "$SESSION" -x 120 -y 40 \
	"env LANG=C.UTF-8 FABPROBE_TEST_KEYS=$TMP/top.keys ip netns exec $(ns leaf1) $FABPROBE top -i $UPLINKS \
	--uplinks $UPLINKS --elephant-rate 50M 2>$TMP/top.err; echo \$? >$TMP/top.rc"
tmx set-option -t "$SESSION" remain-on-exit on >/dev/null

echo "--- Flows view"
check "elephants shown flagged E (elephant) and C (collision)" \
	wait_screen "^$H1RE > $H3RE .* EC *$" 20
sleep 1.5 # every flow has a rate over a full interval
maybe_show "start, 120x40"
check "header names the interfaces and the hooks" \
	wait_screen "^fabprobe top +up1 up2 up3 up4 \[xdp ingress \+ tc egress\] .* up [0-9]+s +cpu [0-9.]+%" 1
check "header shows rates per second" \
	wait_screen "^per s: frames [0-9.]+[kM]? +RoCE [0-9.]+[kM]? +VXLAN 0 +CE [0-9.]+ +CNP [0-9.]+[kM]? +rtx [0-9.]+[kM]? +malformed 0" 1
check "header shows flow-table fill and evictions" \
	wait_screen "^flows [0-9]+/65536\+16384 \([0-9.<%]+\) +evicted [0-9]+" 1
for q in $E1 $E2 $MOUSE; do
	row=$(row_of "${SPORT[$q]}")
	echo "     $row"
	check "flow $q (sport ${SPORT[$q]}): QP ${q##*:}" eq "$(qp_of <<<"$row")" "${q##*:}"
	check "flow $q: on ${UP[$q]}, the kernel's ECMP choice" eq "$(path_of <<<"$row")" "${UP[$q]}"
done
for q in $E1 $E2; do
	check "elephant $q is flagged EC" matches "$(row_of "${SPORT[$q]}")" ' EC *$'
done
check "mouse is not flagged" not_matches "$(row_of "${SPORT[$MOUSE]}")" ' [ECP]+ *$'
acks=$(flow_rows | grep -E "^$H3RE > $H1RE " | qp_of | sort -n | xargs)
want=$(for q in $E1 $E2 $MOUSE; do echo "${q%%:*}"; done | sort -n | xargs)
check "ACK side of every QP shown with the requester's QP" eq "$acks" "$want"

echo "--- sorting"
order_rate=$(flow_rows | qp_of | xargs)
check "by rate an elephant is first ($order_rate)" one_of "${order_rate%% *}" "${E1##*:}" "${E2##*:}"
for _ in $(seq 20); do
	[ "$(tab_sort)" = "sort QP" ] && break
	keys s
done
check "s reaches the QP column" eq "$(tab_sort)" "sort QP"
order_qp=$(flow_rows | qp_of | xargs)
maybe_show "sorted by QP"
check "by QP the order is ascending ($order_qp)" eq "$order_qp" "$all_qps"
check "sorting changed the order" test "$order_rate" != "$order_qp"
keys r
check "r reverses it" eq "$(flow_rows | head -1 | qp_of)" "$max_qp"
keys r
for _ in $(seq 20); do
	[ "$(tab_sort)" = "sort RATE" ] && break
	keys '>'
done
check "> cycles back to RATE" eq "$(tab_sort)" "sort RATE"

echo "--- filter and detail"
type_filter "qp=${E1##*:}"
maybe_show "filter qp=${E1##*:}"
rows=$(flow_rows)
check "qp=${E1##*:} leaves one flow" eq "$(grep -c . <<<"$rows")" 1
check "... and it is that QP" eq "$(qp_of <<<"$rows")" "${E1##*:}"
check "header shows the filter" wait_screen "filter: qp=${E1##*:}" 1
keys Enter
maybe_show "detail"
check "detail names the flow" \
	wait_screen "flow $H1RE:${SPORT[$E1]} > $H3RE:4791 +qp ${E1##*:} .*seen on $up egress" 2
check "detail shows PSN state" wait_screen "^PSN +last 0x[0-9a-f]{6} +max 0x[0-9a-f]{6}" 1
check "detail shows the ECN mix (rocegen sends ECT(0))" \
	wait_screen "^ECN +not-ECT 0% +ECT\(0\) 100% +ECT\(1\) 0% +CE 0%" 1
check "detail shows the path over time" wait_screen "^  $up +from [0-9]+s ago to now" 3
keys Escape
keys Escape
check "Esc clears the filter" ge "$(flow_rows | grep -c .)" 6
type_filter "vni=100"
check "vni=100 matches no bare RoCE flow" eq "$(flow_rows | grep -c .)" 0
check "... and the empty table keeps its header's layout (FLOW took the whole width)" \
	matches "$(screen)" "^FLOW \(src > dst\) {1,12}SPORT "
keys Escape
type_filter "path=${UP[$MOUSE]}"
check "path=${UP[$MOUSE]} keeps the mouse, not the elephants" \
	eq "$(flow_rows | grep -E "^$H1RE > $H3RE " | qp_of | xargs)" "${MOUSE##*:}"
keys Escape
type_filter "${H3%.*}.99"
check "an address that matches nothing shows no rows" eq "$(flow_rows | grep -c .)" 0
keys Escape
type_filter "$H3"
check "address substring keeps every flow (all name $H3)" ge "$(flow_rows | grep -c .)" 6
keys Escape

echo "--- views"
keys 2
maybe_show "Paths"
prow=$(screen | grep -E "^$up ")
check "Paths: $up carries both elephants ($prow)" matches "$prow" " 2 +- *$"
check "Paths: load bar" matches "$prow" '\[#+\.*\]'
check "Paths: imbalance line" wait_screen "^imbalance \(max/mean\): load [0-9.]+, flows [0-9.]+" 1
check "Paths: the collision is listed" wait_screen "observed: 2 elephants on $up while up[1-4] has room" 1
keys 3
maybe_show "QPs"
for q in $E1 $E2 $MOUSE; do
	check "QPs: $q paired with its ACK side" \
		wait_screen "^$H1RE > $H3RE +(- +)?${q##*:} +${q%%:*} +${UP[$q]}/up[1-4] " 1
done
keys 4
maybe_show "VNIs"
check "VNIs: bare RoCE as '-', 6 flows, 3 data QPs, 2 elephants" wait_screen "^ +- +6 +3 +2 " 1
keys 5
maybe_show "Alerts"
check "Alerts: elephant_collision, active" wait_screen "CRITICAL +elephant_collision +x[0-9]+ +first .* active" 2
check "Alerts: message" wait_screen "elephant flows share uplink $up while" 1
check "Alerts: evidence" wait_screen "$up carries [0-9.]+ [kMG]b/s with 2 elephants" 1
alerts=$(screen | sed -n 4p | grep -oE 'Alerts\([0-9]+\)' | tr -dc 0-9)
check "Alerts: the tab's count ($alerts) is the active entries listed" \
	eq "$(screen | grep -cE '^(CRITICAL|WARNING|INFO) .* active *$')" "${alerts:-0}"
sev=$(screen | grep -oE '^(CRITICAL|WARNING|INFO) ' | tr -d ' ' |
	sed 's/CRITICAL/0/; s/WARNING/1/; s/INFO/2/' | xargs)
check "Alerts: severity first ($sev)" eq "$sev" "$(tr ' ' '\n' <<<"$sev" | sort -n | xargs)"
keys F
check "F: Flows" wait_screen "^FLOW \(src > dst\)" 1
keys Tab
check "Tab: next view is Paths" wait_screen "^PATH +SPEED +LOAD" 1
keys Q
check "Q: QPs" wait_screen "^QUEUE PAIR" 1
keys h
check "h: help" wait_screen "keys \(any key closes\)" 1
keys x
check "any key closes help" wait_screen "^QUEUE PAIR" 1
keys p
check "p pauses" wait_screen "PAUSED" 1
keys p

echo "--- resize"
keys 1
tmx resize-window -t "$SESSION" -x 80 -y 24
sleep 1.5
show "80x24"
small=$(screen)
check "80x24: header" matches "$(head -1 <<<"$small")" "^fabprobe top up1 up2 up3 up4"
check "80x24: column header" matches "$small" "^FLOW \(src > dst\) +SPORT +QP +PATH +RATE"
check "80x24: flow rows with full addresses and rates" ge \
	"$(grep -cE "^$H1RE > $H3RE +[0-9]+ +[0-9]+ +up[1-4] +[0-9.]+ [kMG]?b/s" <<<"$small")" 3
check "80x24: status line" matches "$(tail -1 <<<"$small")" "^q quit"
check "80x24: the per-second line keeps malformed" matches "$(sed -n 2p <<<"$small")" " malformed [0-9]"
check "80x24: per-second counts from 10 up are whole (no '90.0')" \
	not_matches "$(sed -n 2p <<<"$small")" " [0-9]{2,3}\.[0-9]+( |$)"
check "80x24: a legend says what FLG and the windows mean" \
	matches "$(tail -2 <<<"$small" | head -1)" "^E elephant C collision .* /s: last [0-9.]+ s .*BYTES"
check "80x24: nothing wider than 80 columns" test "$(widest "$small")" -le 80
tmx resize-window -t "$SESSION" -x 160 -y 50
sleep 1.5
show "160x50"
check "160x50: the extra columns appear" wait_screen "NAK/s +DSCP +AGE +FLG" 1
check "160x50: rows use the width" wait_screen "^$H1RE > $H3RE .* up[1-4] out .* 26 +[0-9]+[smh]" 1

echo "--- alert history"
kill -INT "$RUN_PID" 2>/dev/null
sleep 4
keys 5
maybe_show "Alerts after the traffic stopped"
check "the collision stays in the history after it clears" \
	wait_screen "elephant_collision +x[0-9]+ +first [0-9]+s ago, cleared" 4
check "... once: one entry per type and flows" \
	eq "$(screen | grep -c 'elephant_collision')" 1

echo "--- an uplink goes away"
at leaf1 ip link del up4
check "the header marks up4 gone" wait_screen "^fabprobe top up1 up2 up3 up4\(gone\)" 5
check "... and says so" wait_screen "interface up4 disappeared" 1

echo "--- quit"
fp_pid=$(pgrep -P "$(tmx display -p -t "$SESSION" '#{pane_pid}')" -x fabprobe)
ids=$(cat /proc/"$fp_pid"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u | xargs)
names=$(for id in $ids; do bpftool prog show id "$id" | awk 'NR == 1 { print $4 }'; done | sort | xargs)
check "fabprobe holds its programs while running ($names)" matches "$names" "fp_tc_egress.*fp_xdp"
check "q exits with status 0" eq "$(quit_rc)" 0
left=""
for id in $ids; do
	bpftool prog show id "$id" >/dev/null 2>&1 && left+=" $id"
done
check "none of its programs ($ids) is left" eq "$left" ""
check "no XDP program attached in leaf1" \
	eq "$(at leaf1 bpftool -j net show 2>/dev/null | python3 -c \
		'import json,sys; print(sum(len(n.get("xdp", [])) for n in json.load(sys.stdin)))')" 0
check "nothing on stderr but the attach line" eq "$(grep -v '^fabprobe: attached to' "$TMP/top.err")" ""

finish top-tmux
