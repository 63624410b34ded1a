#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The NIC front ends over recorded NIC trees (tests/fixtures/nic) whose
# counters this test moves between a running fabprobe's reads: `fabprobe
# nic` (JSON contract, rates, 32-bit wraps, resets, each NIC alert raised
# alone and cleared, bnxt's names), `top --once --json --nic-root`, the QP
# owner of flows in a capture built here, the capture bundle read back,
# and the exporter's fabprobe_nic_* metrics through promtool. Then the live
# path: one line on a host without RDMA, a veth's counters in a namespace
# against ethtool -S. Ground truth is what the test writes, ethtool, and
# the kernel's port formula and CRC-32 recomputed here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nic.bash"
TMP=$(mktemp -d /tmp/fp-nic-XXXXXX)
NS=fpn-rep-$$
trap 'ip netns del "$NS" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"' EXIT
T=$TMP/mlx5
PCAP_PY=$(dirname "$0")/nic_pcap.py
near() { python3 -c "import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > float(sys.argv[3]))" "$1" "$2" "$3" || { echo "     $1 is not $2 +- $3"; return 1; }; }
# sport LQPN RQPN: the kernel's rdma_calc_flow_label + rdma_flow_label_to_udp_sport.
sport() { python3 -c "
l, r = $1, $2
v = l * r
v ^= v >> 20
v ^= v >> 40
fl = v & 0xFFFFF
print(((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000)"; }

echo "--- fabprobe nic --json: the contract, rates, a 32-bit wrap, a reset"
nic_tree mlx5 "$T"
pma_set "$NEXT" mlx5_0 port_xmit_wait 4294967290
hw_set "$NEXT" mlx5_0 roce_adp_retrans 5000000000000
nic_next
hw_add "$NEXT" mlx5_0 np_cnp_sent 1000
pma_set "$NEXT" mlx5_0 port_xmit_wait 10
hw_set "$NEXT" mlx5_0 roce_adp_retrans 100
eth_add "$NEXT" ens1f0np0 rx_prio3_pause 40
eth_add "$NEXT" ens1f0np0 tx_prio3_pause_duration 250000
nic_bg "$TMP/r1.json" "$FABPROBE" nic --nic-root "$T" --json -r 2
nic_swap
nic_done
check "fabprobe nic exits 0" eq "$?" 0
R=$TMP/r1.json
iv=$(q "$R" 'r["nic"]["interval_s"]')
m0='[n for n in r["nics"] if n["device"] == "mlx5_0"][0]'
p3='[p for p in r["pfc"] if p["netdev"] == "ens1f0np0" and p["priority"] == 3][0]'
check "the interval is the -r asked for ($iv s)" near "$iv" 2 0.5
check "mode nic, version 1" eq "$(q "$R" 'r["mode"], r["version"]')" "('nic', 1)"
check "nics[]: mlx5_0/1 on ens1f0np0 and mlx5_1/1 on ens1f1np1" \
	eq "$(q "$R" '[(n["device"], n["port"], n["netdev"]) for n in r["nics"]]')" \
	"[('mlx5_0', 1, 'ens1f0np0'), ('mlx5_1', 1, 'ens1f1np1')]"
check "nics[] counters name -> value: np_cnp_sent is the file's" \
	eq "$(q "$R" "$m0[\"counters\"][\"np_cnp_sent\"]")" "$(hw_get "$T" mlx5_0 np_cnp_sent)"
check "nics[] rates: np_cnp_sent moved 1000 over the interval" \
	near "$(q "$R" "$m0[\"rates\"][\"np_cnp_sent\"] * $iv")" 1000 2
check "a 32-bit PMA counter going 4294967290 -> 10 wrapped: +16" \
	near "$(q "$R" "$m0[\"rates\"][\"port_xmit_wait\"] * $iv")" 16 0.1
check "... and is listed in wraps" eq "$(q "$R" "$m0[\"wraps\"]")" "['port_xmit_wait']"
check "a counter going 5e12 -> 100 was reset: +100, listed in resets" \
	eq "$(q "$R" "round($m0[\"rates\"][\"roce_adp_retrans\"] * $iv), $m0[\"resets\"]")" \
	"(100, ['roce_adp_retrans'])"
check "pfc[] has every field of the contract" \
	eq "$(q "$R" "sorted(k for k in $p3 if k in ('netdev', 'priority', 'rx_pause', 'tx_pause', 'rx_pause_duration_us', 'tx_pause_duration_us'))")" \
	"['netdev', 'priority', 'rx_pause', 'rx_pause_duration_us', 'tx_pause', 'tx_pause_duration_us']"
check "pfc[] prio 3: rx_pause 1540 (+40), the lossless one" \
	eq "$(q "$R" "$p3[\"rx_pause\"], $p3[\"lossless\"], round($p3[\"rates\"][\"rx_pause\"] * $iv)")" \
	"(1540, True, 40)"
check "pfc[] durations in microseconds, as the driver counts" \
	eq "$(q "$R" "$p3[\"tx_pause_duration_us\"]")" 262000
check "every pfc[] row has every PFC field, null where the driver has none (mlx5: tx transitions)" \
	eq "$(q "$R" "all(set(p) >= {'buf_discard', 'cong_discard', 'marked', 'rx_pause_transitions'} for p in r['pfc']), $p3['tx_pause_transitions']")" "(True, None)"
check "qps[] has every field of the contract" \
	eq "$(q "$R" 'all({"device", "lqpn", "rqpn", "pid", "comm", "predicted_sport", "predicted_path"} <= set(x) for x in r["qps"]) and len(r["qps"])')" 8
check "the port formula: lqpn 0x11, rqpn 0x22 -> 49730; 1, 1 -> 49153" \
	eq "$(sport 0x11 0x22) $(sport 1 1)" "49730 49153"
want=$(q "$R" '[(x["lqpn"], x["rqpn"]) for x in r["qps"] if x["type"] in ("RC", "UC") and x["rqpn"] and x["state"] in ("RTR", "RTS", "SQD")]')
got=$(q "$R" '[(x["lqpn"], x["predicted_sport"]) for x in r["qps"] if x["predicted_sport"]]')
check "every connected RC QP (and only those) has the kernel's port" \
	eq "$got" "[(17, $(sport 17 34)), (4660, $(sport 4660 22136))]"
check "... the connected RC QPs are those two" eq "$want" "[(17, 34), (4660, 22136)]"
check "kernel QPs have no pid, user QPs theirs" \
	eq "$(q "$R" '[(x["lqpn"], x["pid"], x["comm"]) for x in r["qps"][:3]]')" \
	"[(0, None, 'ib_core'), (1, None, 'ib_core'), (17, 41001, 'ib_write_bw')]"
check "no alerts: CNPs sent and pause on the lossless priority are normal" \
	eq "$(q "$R" 'r["alerts"]')" "[]"

echo "--- fabprobe nic, text"
"$FABPROBE" nic --nic-root "$T" -r 0.3 >"$TMP/text" 2>/dev/null
check "text: the port, its netdev and RoCEv2 address" \
	grep -q '^RDMA mlx5_0/1 (ens1f0np0, RoCEv2 10.0.1.2) Ethernet' "$TMP/text"
check "text: a known counter with its value" \
	grep -qE "^  np_cnp_sent +$(hw_get "$T" mlx5_0 np_cnp_sent) " "$TMP/text"
check "text: PFC of the lossless priority, marked" grep -qE '^ens1f0np0 +3\* +1540 ' "$TMP/text"
check "text: the QP table with the owner" \
	grep -qE '^mlx5_0/1 +17 +34 RC +RTS +49730 +- +ib_write_bw\[41001\]$' "$TMP/text"
check "text: a QP bound to no port yet is DEVICE/- (was mlx5_1/0)" \
	grep -qE '^mlx5_1/- +300 +- +RC +RESET ' "$TMP/text"

echo "--- fabprobe nic: each NIC alert raised alone, then cleared"
# raise ID [nic options] -- CHANGE: in the background, one interval of
# fabprobe nic over a copy of the tree $T shows, in which the function
# CHANGE DIR changed the counters; its report in $TMP/ID.json. Each on a
# tree of its own, all at once: one after another, a second each, they
# took 30 s.
RAISE_PIDS=()
raise() {
	local id=$1 opts=()
	shift
	while [ "$1" != "--" ]; do
		opts+=("$1")
		shift
	done
	(
		nic_copy "$T" "$TMP/$id"
		nic_next
		"$2" "$NEXT"
		nic_bg "$TMP/$id.json" "$FABPROBE" nic --nic-root "$TMP/$id" --json -r 1 "${opts[@]}" &&
			nic_swap && nic_done
	) >"$TMP/$id.log" 2>&1 &
	RAISE_PIDS+=($!)
}
# raised ID TYPE SEVERITY MESSAGE_ERE: exactly that alert in raise ID's report.
raised() {
	[ -s "$TMP/$1.json" ] || {
		sed 's/^/     /' "$TMP/$1.log"
		return 1
	}
	eq "$(q "$TMP/$1.json" '[(a["type"], a["severity"]) for a in r["alerts"]]')" "[('$2', '$3')]" &&
		matches "$(q "$TMP/$1.json" 'r["alerts"][0]["message"]')" "$4"
}
# quiet ID: raise ID's report has no alert.
quiet() { eq "$(q "$TMP/$1.json" 'r["alerts"]' 2>&1)" "[]"; }
rx_paused() { eth_add "$1" ens1f0np0 rx_prio3_pause_duration 900000; }
tx_paused() { eth_add "$1" ens1f1np1 tx_prio3_pause_duration 950000; }
storm_warning() { eth_add "$1" ens1f0np0 tx_pause_storm_warning_events 1; }
storm_error() { eth_add "$1" ens1f0np0 tx_pause_storm_error_events 2; }
prio5_paused() { eth_add "$1" ens1f0np0 rx_prio5_pause 10; }
prio3_discards() { eth_add "$1" ens1f0np0 rx_prio3_buf_discard 5; }
marks_no_cnp() { hw_add "$1" mlx5_0 np_ecn_marked_roce_packets 500; }
cnps_ignored() { hw_add "$1" mlx5_0 rp_cnp_ignored 50; }
out_of_seq() { hw_add "$1" mlx5_1 out_of_sequence 50; }
ack_timeouts() { hw_add "$1" mlx5_0 local_ack_timeout_err 3; }
rnr_naks() { hw_add "$1" mlx5_0 rnr_nak_retry_err 100; }
rdma_on_prio0() {
	eth_add "$1" ens1f0np0 rx_vport_rdma_unicast_packets 4500000
	eth_add "$1" ens1f0np0 tx_vport_rdma_unicast_packets 4500000
	eth_add "$1" ens1f0np0 rx_prio0_packets 4600000
	eth_add "$1" ens1f0np0 tx_prio0_packets 4500000
}
rdma_on_prio3() {
	eth_add "$1" ens1f0np0 rx_vport_rdma_unicast_packets 4500000
	eth_add "$1" ens1f0np0 rx_prio3_packets 4500000
}
both_paused() {
	eth_add "$1" ens1f0np0 rx_prio5_pause 10
	eth_add "$1" ens1f0np0 rx_prio3_pause 10
}
nothing() { :; }
raise rx -- rx_paused
raise tx -- tx_paused
raise warn -- storm_warning
raise err -- storm_error
raise p5 -- prio5_paused
raise disc -- prio3_discards
raise marks -- marks_no_cnp
raise ign -- cnps_ignored
raise seq -- out_of_seq
raise ack -- ack_timeouts
raise rnr -- rnr_naks
raise lossy -- rdma_on_prio0
raise p3 -- rdma_on_prio3
raise p0 --data-pcp 0 -- rdma_on_prio0
raise pcp5 --data-pcp 5 -- both_paused
raise clear -- nothing
wait "${RAISE_PIDS[@]}"
check "pfc_storm: prio 3 paused 90% of the interval by the switch" \
	raised rx pfc_storm critical 'ens1f0np0 priority 3 was paused [6-9][0-9]% .*the switch pauses this NIC'
check "pfc_storm: this NIC pausing its switch port" \
	raised tx pfc_storm critical 'priority 3 was paused .*this host.s NIC pauses its switch port'
check "pfc_storm: the stall watchdog's warning" \
	raised warn pfc_storm warning 'ens1f0np0: the NIC kept sending PFC pause past its stall watermark'
check "pfc_storm: the watchdog stopped pausing" raised err pfc_storm critical 'stopped pausing'
check "pfc_wrong_priority: pause on priority 5" \
	raised p5 pfc_wrong_priority warning 'PFC pause on priority 5, not the lossless priority 3'
check "lossless_discards: buffer discards on priority 3" \
	raised disc lossless_discards critical 'ens1f0np0 dropped 5 packets of the lossless priority 3'
check "nic_cnp_mismatch: ECN marks received, no CNP sent (notification point)" \
	raised marks nic_cnp_mismatch critical 'mlx5_0/1 \(ens1f0np0\) received 500 ECN-marked .* notification point is silent'
check "nic_cnp_mismatch: CNPs ignored, none handled (reaction point)" \
	raised ign nic_cnp_mismatch warning 'received 50 CNPs but handled none'
check "nic_seq_errors: out-of-sequence packets" \
	raised seq nic_seq_errors warning '^mlx5_1/1 \(ens1f1np1\): [0-9.]+ sequence errors per second'
check "nic_ack_timeouts: local ACK timeouts" \
	raised ack nic_ack_timeouts warning 'mlx5_0/1 \(ens1f0np0\): 3 ACK timeouts'
check "nic_rnr_retries: RNR NAKs" raised rnr nic_rnr_retries warning 'RNR NAKs per second'
check "lossy_roce: 9M RDMA packets on priority 0, none on the lossless 3" \
	raised lossy lossy_roce critical '^ens1f0np0: RoCE is not on the lossless priority 3 .*: of 9000000 RDMA packets it carried 0, priority 0 9100000'
check "lossy_roce: RDMA on the lossless priority raises nothing" quiet p3
check "lossy_roce: nor on priority 0 when it is the lossless one (--data-pcp 0)" quiet p0
check "--data-pcp 5: pause on 5 is right, pause on 3 is the wrong priority" \
	raised pcp5 pfc_wrong_priority warning 'priority 3, not the lossless priority 5'
check "nothing moved: no alert" quiet clear

"$FABPROBE" top --nic-root "$T" --plain -r 0.3 -d 0.3 >"$TMP/plain" 2>/dev/null
check "top --plain of NIC counters alone: the NIC's table, no per-second frames line of nothing" \
	sh -c "grep -q '^RDMA mlx5_0/1' $TMP/plain && ! grep -q '^per second' $TMP/plain"

echo "--- top --once --json --nic-root: all NIC alerts at once, then none"
nic_next
eth_add "$NEXT" ens1f0np0 rx_prio3_pause_duration 900000
eth_add "$NEXT" ens1f0np0 rx_prio5_pause 10
eth_add "$NEXT" ens1f0np0 rx_prio3_cong_discard 7
hw_add "$NEXT" mlx5_0 np_ecn_marked_roce_packets 500
hw_add "$NEXT" mlx5_0 out_of_sequence 50
hw_add "$NEXT" mlx5_0 local_ack_timeout_err 3
hw_add "$NEXT" mlx5_0 rnr_nak_retry_err 100
nic_bg "$TMP/top1.json" "$FABPROBE" top --nic-root "$T" --once --json -r 1
nic_swap
nic_done
check "top --once --json exits 0" eq "$?" 0
check "top: the seven NIC alert types, worst first" \
	eq "$(q "$TMP/top1.json" '[a["type"] for a in r["alerts"]]')" \
	"['pfc_storm', 'lossless_discards', 'nic_cnp_mismatch', 'pfc_wrong_priority', 'nic_seq_errors', 'nic_ack_timeouts', 'nic_rnr_retries']"
check "top: the report carries nic, nics, netdevs, pfc, qps, qp_collisions" \
	eq "$(q "$TMP/top1.json" 'all(k in r for k in ("nic", "nics", "netdevs", "pfc", "qps", "qp_collisions", "flows", "totals"))')" True
nic_bg "$TMP/top2.json" "$FABPROBE" top --nic-root "$T" --once --json -r 1 && nic_done
check "top: nothing moved, no alert" eq "$(q "$TMP/top2.json" 'r["alerts"]')" "[]"

echo "--- bnxt: other drivers' names"
B=$TMP/bnxt
nic_tree bnxt "$B"
nic_next
hw_add "$NEXT" bnxt_re0 seq_err_naks_rcvd 40
hw_add "$NEXT" bnxt_re0 tx_cnp_pkts 300
nic_bg "$TMP/b.json" "$FABPROBE" nic --nic-root "$B" --json -r 1
nic_swap
nic_done
check "bnxt: tx_cnp_pkts is np_cnp_sent, moved 300" \
	eq "$(q "$TMP/b.json" 'r["nics"][0]["counters"]["np_cnp_sent"], round(r["nics"][0]["rates"]["np_cnp_sent"] * r["nic"]["interval_s"])')" \
	"($(hw_get "$B" bnxt_re0 tx_cnp_pkts), 300)"
check "bnxt: rx_pfc_ena_frames_pri3 is prio 3's rx_pause" \
	eq "$(q "$TMP/b.json" '[p["rx_pause"] for p in r["pfc"] if p["priority"] == 3][0]')" \
	"$(eth_get "$B" ens2f0np0 rx_pfc_ena_frames_pri3)"
check "bnxt: seq_err_naks_rcvd raises nic_seq_errors on bnxt_re0/1 (ens2f0np0)" \
	matches "$(q "$TMP/b.json" '[(a["type"], a["message"]) for a in r["alerts"]]')" \
	"nic_seq_errors.*bnxt_re0/1 \(ens2f0np0\)"

echo "--- the QP owner of flows seen in a capture"
nic_tree mlx5 "$T"
# A second local QP whose numbers fold to the same port as 17 x 34 (289 x 2 = 578 = 17 x 34).
python3 - "$T/rdma-res-qp.json" <<'EOF'
import json, sys
qps = json.load(open(sys.argv[1]))
qps.insert(4, {"ifindex": 0, "ifname": "mlx5_0", "port": 1, "lqpn": 289, "rqpn": 2, "type": "RC",
               "state": "RTS", "rq-psn": 5, "sq-psn": 6, "pdn": 7, "pid": 42000,
               "comm": "all_reduce_perf"})
json.dump(qps, open(sys.argv[1], "w"))
EOF
check "17 x 34 and 289 x 2 fold to one port" eq "$(sport 17 34)" "$(sport 289 2)"
SP=$(sport 17 34)
python3 "$PCAP_PY" "$TMP/f.pcap" "10.0.1.2,10.0.9.9,$SP,34,20,17" "10.0.1.2,10.0.9.8,$SP,2,20,289" \
	"10.0.7.7,10.0.9.9,50000,99,5" "10.0.1.2,10.0.9.7,$(sport 4660 22136),22136,5" >/dev/null
"$FABPROBE" top --pcap "$TMP/f.pcap" --speed 0 --once --json --nic-root "$T" >"$TMP/f.json" 2>"$TMP/f.err"
check "top --pcap --nic-root exits 0" eq "$?" 0
owners='sorted((f["src"], f["dst"], f["dest_qp"], f["qp_owner"] and (f["qp_owner"]["comm"], f["qp_owner"]["pid"], f["qp_owner"]["lqpn"])) for f in r["flows"])'
check "each flow's qp_owner: by port and destination QP, both directions; null for a stranger" \
	eq "$(q "$TMP/f.json" "$owners")" \
	"[('10.0.1.2', '10.0.9.7', 22136, ('python3', 41337, 4660)), ('10.0.1.2', '10.0.9.8', 2, ('all_reduce_perf', 42000, 289)), ('10.0.1.2', '10.0.9.9', 34, ('ib_write_bw', 41001, 17)), ('10.0.7.7', '10.0.9.9', 99, None), ('10.0.9.8', '10.0.1.2', 289, ('all_reduce_perf', 42000, 289)), ('10.0.9.9', '10.0.1.2', 17, ('ib_write_bw', 41001, 17))]"
"$FABPROBE" top --pcap "$TMP/f.pcap" --speed 0 --once --json --nic-root "$T" --hash-model crc32-lo \
	>"$TMP/h.json" 2>/dev/null
crc() { python3 -c "
import socket, struct, zlib
print(zlib.crc32(socket.inet_aton('$1') + socket.inet_aton('$2') + struct.pack('!HH', $3, 4791)) % 4)"; }
check "--hash-model: each QP's path from its peer seen in the flows (CRC-32 recomputed here)" \
	eq "$(q "$TMP/h.json" '[(x["lqpn"], x["predicted_path"]) for x in r["qps"] if x["predicted_path"] is not None]')" \
	"[(17, $(crc 10.0.1.2 10.0.9.9 "$SP")), (4660, $(crc 10.0.1.2 10.0.9.7 "$(sport 4660 22136)")), (289, $(crc 10.0.1.2 10.0.9.8 "$SP"))]"
check "... the same path the analysis predicts for the QP's flow" \
	eq "$(q "$TMP/h.json" '[f["predicted_path"] for f in r["flows"] if f["dest_qp"] == 34][0]')" \
	"$(crc 10.0.1.2 10.0.9.9 "$SP")"
"$FABPROBE" top --pcap "$TMP/f.pcap" --speed 0 --once --json --nic-root "$T" --hash-model crc32-lo \
	--hash-fields sport,dport --elephant-rate 1k >"$TMP/c.json" 2>/dev/null
check "a predicted collision of two local QPs' elephants names both processes" \
	matches "$(q "$TMP/c.json" '[a["evidence"] for a in r["alerts"] if a["type"] == "predicted_collision"]')" \
	"local QP owners: .*(ib_write_bw\[41001\] QP 17.*all_reduce_perf\[42000\] QP 289|all_reduce_perf\[42000\] QP 289.*ib_write_bw\[41001\] QP 17)"
"$FABPROBE" nic --nic-root "$T" --hash-model crc32-lo --hash-fields sport,dport --json -r 0.2 >"$TMP/coll.json" 2>/dev/null
check "fabprobe nic: QPs sharing a predicted path, named by process (no flows needed without dst-ip)" \
	eq "$(q "$TMP/coll.json" '[(c["device"], c["queue_pairs"] >= 2, sorted(q["comm"] for q in c["qps"] if q["comm"] != "python3")) for c in r["qp_collisions"] if any(q["lqpn"] == 17 for q in c["qps"])]')" \
	"[('mlx5_0', True, ['all_reduce_perf', 'ib_write_bw'])]"
"$FABPROBE" nic --nic-root "$T" --hash-model crc32-lo --hash-fields sport,dport -r 0.2 >"$TMP/coll.txt" 2>/dev/null
check "... and in the text" grep -qE '^QPs sharing next-tier path [0-9] of mlx5_0/1 .*ib_write_bw\[41001\] QP 17' "$TMP/coll.txt"

echo "--- the capture bundle: nic.json, nic/ read back"
LONG=a_driver_counter_with_a_name_long_enough_to_need_a_tar_prefix_
hw_set "$T" mlx5_0 "$LONG" 77
"$FABPROBE" capture --pcap "$TMP/f.pcap" --nic-root "$T" -o "$TMP/b.tar.gz" >/dev/null 2>&1
check "capture --pcap --nic-root exits 0" eq "$?" 0
mkdir -p "$TMP/bundle" && tar -C "$TMP/bundle" -xzf "$TMP/b.tar.gz"
check "the bundle has nic.json, nic/ and the usual files" \
	test -s "$TMP/bundle/nic.json" -a -d "$TMP/bundle/nic/class/infiniband" -a -s "$TMP/bundle/summary.txt"
check "a member name past 100 bytes survives the tar" \
	test "$(cat "$TMP/bundle/nic/class/infiniband/mlx5_0/ports/1/hw_counters/$LONG")" = 77
"$FABPROBE" nic --nic-root "$T" --json -r 0.2 >"$TMP/orig.json" 2>/dev/null
"$FABPROBE" nic --nic-root "$TMP/bundle/nic" --json -r 0.2 >"$TMP/back.json" 2>/dev/null
values='[(k, [{f: v for f, v in e.items() if f not in ("rates",)} for e in r[k]]) for k in ("nics", "netdevs", "pfc", "qps")]'
check "fabprobe nic --nic-root BUNDLE/nic reads back the same counters, PFC and QPs" \
	eq "$(q "$TMP/back.json" "$values")" "$(q "$TMP/orig.json" "$values")"
check "nic.json holds the same counters, and the NIC alerts only" \
	eq "$(q "$TMP/bundle/nic.json" "$values[:2], all(a['type'].startswith(('pfc', 'nic', 'lossless')) for a in r['alerts'])")" \
	"$(q "$TMP/orig.json" "$values[:2], True")"
check "report.json: flows with their owners, and the NIC keys" \
	eq "$(q "$TMP/bundle/report.json" 'sorted({f["qp_owner"]["pid"] for f in r["flows"] if f["qp_owner"]}), "nics" in r')" "([41001, 41337, 42000], True)"
check "summary.txt: the NIC section with the QP owners" \
	sh -c "grep -q '^NIC COUNTERS' '$TMP/bundle/summary.txt' && grep -q 'all_reduce_perf\[42000\]' '$TMP/bundle/summary.txt'"
check "report.html: the NIC section and each flow's owner" \
	sh -c "grep -q '<h2>NIC counters</h2>' '$TMP/bundle/report.html' && grep -q '<th>local QP owner</th>' '$TMP/bundle/report.html'"

echo "--- export: fabprobe_nic_* metrics"
PORT=$((19000 + $$ % 900))
nic_tree mlx5 "$T"
nic_next
hw_add "$NEXT" mlx5_0 np_cnp_sent 123
"$FABPROBE" export --nic-root "$T" --listen "127.0.0.1:$PORT" -r 0.5 >/dev/null 2>"$TMP/exp.err" &
EXP=$!
for _ in $(seq 100); do
	grep -q "serving metrics" "$TMP/exp.err" && break
	sleep 0.05
done
nic_swap
sleep 1.5
curl -sf "http://127.0.0.1:$PORT/metrics" >"$TMP/m.prom"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$PORT/metrics" >"$TMP/m.om"
kill -INT "$EXP"
wait "$EXP"
check "export exits 0 on SIGINT" eq "$?" 0
lint=$(promtool check metrics <"$TMP/m.prom" 2>&1)
check "promtool check metrics: valid and lint clean" eq "$?:$lint" "0:"
check "fabprobe_nic_np_cnp_sent_total is the NIC's counter, moved" \
	grep -qx "fabprobe_nic_np_cnp_sent_total{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\"} $(hw_get "$T" mlx5_0 np_cnp_sent)" "$TMP/m.prom"
check "PFC pause time in seconds (30000 us)" \
	grep -qx 'fabprobe_nic_pfc_rx_pause_seconds_total{netdev="ens1f0np0",priority="3"} 0.03' "$TMP/m.prom"
check "QPs per device and state" \
	grep -qx 'fabprobe_nic_qps{device="mlx5_0",state="RTS"} 5' "$TMP/m.prom"
check "labels stay bounded: device, port, netdev, link_layer, priority, state only" \
	eq "$(grep '^fabprobe_nic_' "$TMP/m.prom" | grep -o '[a-z_]*="' | sort -u | tr -d '="\n')" \
	"devicelink_layernetdevportprioritystate"
check "the NIC alerts have their series" grep -q '^fabprobe_alerts{type="nic_cnp_mismatch",severity="critical"} 0$' "$TMP/m.prom"
check "OpenMetrics: the NIC families, and # EOF last" \
	sh -c "grep -q '^# TYPE fabprobe_nic_np_cnp_sent counter' '$TMP/m.om' && tail -n 1 '$TMP/m.om' | grep -qx '# EOF'"

echo "--- live: this host"
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	echo "skip: this host has RDMA devices ($(ls /sys/class/infiniband | tr '\n' ' '))"
else
	"$FABPROBE" nic >"$TMP/live.out" 2>"$TMP/live.err"
	check "no RDMA device: exit 0" eq "$?" 0
	check "... one line: no RDMA devices found" eq "$(cat "$TMP/live.out")" "no RDMA devices found"
	check "... nothing on stderr" eq "$(cat "$TMP/live.err")" ""
	"$FABPROBE" nic --json >"$TMP/live.json" 2>/dev/null
	check "... --json says it in nic.info, with empty tables" \
		eq "$(q "$TMP/live.json" 'r["nic"]["info"], r["nics"], r["qps"]')" "('no RDMA devices found', [], [])"
	"$FABPROBE" top --nic --once --json -r 0.3 >"$TMP/livetop.json" 2>/dev/null
	check "top --nic --once --json: the same info" \
		eq "$(q "$TMP/livetop.json" 'r["nic"]["info"]')" "no RDMA devices found"
fi
"$FABPROBE" nic -i nosuch0 >/dev/null 2>"$TMP/nosuch.err"
check "nic -i on a missing interface: exit 1, one line" \
	eq "$?:$(wc -l <"$TMP/nosuch.err")" "1:1"
ip netns add "$NS" && ip -n "$NS" link add fpn-a type veth peer name fpn-b &&
	ip -n "$NS" link set fpn-a up && ip -n "$NS" link set fpn-b up
ip netns exec "$NS" ethtool -S fpn-a >"$TMP/ethtool" 2>/dev/null
ip netns exec "$NS" "$FABPROBE" nic -i fpn-a --json -r 0.5 >"$TMP/veth.json" 2>/dev/null
check "a veth's ethtool statistics, RDMA or not, as ethtool -S prints them" \
	eq "$(q "$TMP/veth.json" 'sorted(r["netdevs"][0]["counters"].items())')" \
	"$(python3 -c "import sys; print(sorted((k.strip(), int(v)) for k, v in (l.split(':') for l in open(sys.argv[1]) if ': ' in l)))" "$TMP/ethtool")"
check "... with no error" eq "$(q "$TMP/veth.json" 'r["netdevs"][0]["name"], r["netdevs"][0]["error"]')" "('fpn-a', None)"
ip netns exec "$NS" "$FABPROBE" nic -i fpn-a -r 0.3 >"$TMP/veth.txt" 2>/dev/null
check "text: no RDMA devices found, then the veth's statistics" \
	sh -c "grep -qx 'no RDMA devices found' '$TMP/veth.txt' && grep -qE '^NETDEV fpn-a: [1-9][0-9]* ethtool statistics' '$TMP/veth.txt'"

finish nic-report
