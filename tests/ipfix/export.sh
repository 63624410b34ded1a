#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `fabprobe export --ipfix` end to end, on loopback and one veth pair:
# recordings replayed through export at full speed and at a pace, their
# IPFIX records collected by nfcapd (nfdump prints the standard fields),
# ipfixDump (the RoCE enterprise fields, with the element file) and tshark,
# and every flow's records summed against `fabprobe replay --json` of the
# same file (or, live, against what the generator sent). Then TCP over
# IPv6, a flow table that evicts, a collector that is not there, the
# fabprobe_ipfix_* metrics, a 100,000-flow burst, and bad options.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ipfix_init
FABPROBE=${FABPROBE:-$IPFIX_TOP/build/fabprobe}
PCAPS=${PCAPS:-$(cd "$IPFIX_TOP/.." && pwd)/shared/pcaps}
MKPCAP="python3 $IPFIX_TOP/tests/ipfix/mkpcap.py"
INJECT="python3 $IPFIX_TOP/tests/lib/inject.py"
NS=fpx-ipfix-$$

cleanup_all() {
	ip netns del "$NS" 2>/dev/null
	ipfix_cleanup
}
trap cleanup_all EXIT

# run_check NAME OUT.json ARGS...: ipfix_check.py, its summary kept in OUT.json.
run_check() {
	local name=$1 out=$2
	shift 2
	if $IPFIX_CHECK "$@" >"$out" 2>"$out.err"; then
		return 0
	fi
	echo "  $name: $(jq -c 'del(.names)' "$out" 2>/dev/null || cat "$out")"
	sed 's/^/  /' "$out.err" | head -20
	return 1
}

is() { # is FILE JQ-EXPR: the expression is true of the JSON in FILE
	[ "$(jq -r "$2" "$1")" = true ] || {
		echo "  not ($2) in $(jq -c 'del(.names)' "$1")"
		return 1
	}
}

# start_export NAME ARGS...: fabprobe export in the background (stderr in
# $TMP/NAME.err); sets EXP_PID. In the namespace when NETNS is set.
start_export() {
	local name=$1
	shift
	${NETNS:+ip netns exec "$NETNS"} "$FABPROBE" export "$@" >"$TMP/$name.out" \
		2>"$TMP/$name.err" &
	EXP_PID=$!
	IPFIX_PIDS+=("$EXP_PID")
}

# wait_stderr NAME TEXT: until export NAME says TEXT (60 s at most).
wait_stderr() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$TMP/$1.err" && return 0
		kill -0 "$EXP_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "  export $1 never said '$2': $(cat "$TMP/$1.err")"
	return 1
}

# stop_export NAME: SIGINT (a forced end for what remains), then its exit status 0.
stop_export() {
	kill -INT "$EXP_PID" 2>/dev/null
	wait "$EXP_PID"
	local rc=$?
	[ "$rc" -eq 0 ] || {
		echo "  export $1 exited $rc: $(cat "$TMP/$1.err")"
		return 1
	}
}

# exits_alone NAME [STATUS]: export NAME ends by itself (60 s at most), exit STATUS (0).
exits_alone() {
	local i rc want=${2:-0}
	for i in $(seq 600); do
		kill -0 "$EXP_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$EXP_PID" 2>/dev/null && {
		echo "  export $1 still runs: $(cat "$TMP/$1.err")"
		return 1
	}
	wait "$EXP_PID"
	rc=$?
	[ "$rc" -eq "$want" ] || {
		echo "  export $1 exited $rc, not $want: $(cat "$TMP/$1.err")"
		return 1
	}
}

# metric PORT NAME: one sample's value from /metrics.
metric() {
	curl -s -m 5 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'
}

truth() { # truth OUT ARGS...: the replay's JSON report, the ground truth
	local out=$1
	shift
	"$FABPROBE" replay --json "$@" >"$out" 2>"$out.err" || {
		echo "  replay failed: $(cat "$out.err")"
		return 1
	}
}

# ---- options: every bad value is one line and exit 2, before anything runs ----
bad() { # bad RC ARGS...: export with ARGS exits RC with one line on stderr
	local want=$1 rc
	shift
	"$FABPROBE" export --pcap "$PCAPS/rdma_write_bw.pcap" "$@" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	[ "$rc" -eq "$want" ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] || {
		echo "  $*: exit $rc, stderr: $(cat "$TMP/bad.err")"
		return 1
	}
}
for v in "" 127.0.0.1: 127.0.0.1:0 127.0.0.1:70000 127.0.0.1:http :4739 ::1:4739 '[::1' \
	'[::1]4739' '[zz::1]:4739'; do
	check "--ipfix '$v' is a usage error" bad 2 --ipfix "$v"
done
for o in "--ipfix-interval 0" "--ipfix-interval 1x" "--ipfix-interval 100000" "--ipfix-pen 0" \
	"--ipfix-pen 4294967296" "--ipfix-domain -1" "--ipfix-mtu 511" "--ipfix-mtu 65536" \
	"--ipfix-rate x" "--ipfix-rate -1" "--ipfix-rate 5G"; do
	# shellcheck disable=SC2086
	check "$o is a usage error" bad 2 --ipfix 127.0.0.1:4739 $o
done
check "--ipfix-tcp without --ipfix is a usage error" bad 2 --ipfix-tcp
check "--ipfix-domain without --ipfix is a usage error" bad 2 --ipfix-domain 7
check "--listen none without --ipfix is a usage error" bad 2 --listen none
check "a collector name that does not resolve fails (exit 1)" \
	bad 1 --ipfix no-such-host.invalid:4739 --listen none
"$FABPROBE" export --pcap "$PCAPS/rdma_write_bw.pcap" --speed 0 --listen none --ipfix '[::1]' \
	>/dev/null 2>"$TMP/port.err"
check "a collector given without its port is named with the one used, 4739 (was '[::1]')" \
	sh -c "grep -q 'sending IPFIX to \[::1\]:4739 over UDP' $TMP/port.err &&
	       grep -q 'messages to \[::1\]:4739, ' $TMP/port.err"

# ---- the exporter's start time: one value, before the first refresh and after ----
port=$(free_port tcp)
start_export st --pcap "$PCAPS/nccl_nccl_node0.pcap" -r 2 --listen "127.0.0.1:$port"
wait_stderr st "serving metrics"
curl -s "http://127.0.0.1:$port/metrics" | grep '^fabprobe_start_time_seconds ' >"$TMP/st1"
sleep 3
curl -s "http://127.0.0.1:$port/metrics" | grep '^fabprobe_start_time_seconds ' >"$TMP/st2"
stop_export st
check "fabprobe_start_time_seconds holds from the first scrape on (it moved after the first refresh)" \
	sh -c "[ -s $TMP/st1 ] && cmp -s $TMP/st1 $TMP/st2"

# ---- a recording served without IPFIX: played slower than its own time ----
# Refreshed every interval of wall time (not of the recording's), so
# /healthz stays 200; once read, its end is said (fabprobe_input_ended).
port=$(free_port tcp)
start_export slow --pcap "$PCAPS/nccl_ring2_node0.pcap" --speed 0.2 -r 1 \
	--listen "127.0.0.1:$port"
wait_stderr slow "serving metrics"
sleep 1.5
codes=""
for i in 1 2 3 4 5 6 7 8; do
	codes="$codes $(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")"
	sleep 1
done
check "--speed 0.2, no IPFIX: /healthz 200 at every poll ($codes)" \
	test "$codes" = " 200 200 200 200 200 200 200 200"
check "... and the recording is not over yet: fabprobe_input_ended 0" \
	test "$(metric "$port" fabprobe_input_ended)" = 0
stop_export slow

port=$(free_port tcp)
start_export ended --pcap "$PCAPS/rdma_write_bw.pcap" --speed 0 --listen "127.0.0.1:$port"
wait_stderr ended "has been read"
curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$TMP/ended.prom"
check "a recording read to its end: fabprobe_input_ended 1 (FabprobeStale leaves it be)" \
	grep -qx 'fabprobe_input_ended 1' "$TMP/ended.prom"
check "an unnamed capture is an interface like the others: uplink 0, its flows counted" \
	bash -c "grep -qx 'fabprobe_interface_uplink{interface=\"capture\"} 0' '$TMP/ended.prom' &&
		 grep -qx 'fabprobe_interface_flows{interface=\"capture\",direction=\"ingress\"} 2' '$TMP/ended.prom'"
check "... said in words and counted: the capture has been read (60 frames)" \
	grep -q 'the capture has been read (60 frames)' "$TMP/ended.err"
stop_export ended

# ---- a shared capture at full speed: nfcapd, tshark and ipfixDump, one run ----
cap=$PCAPS/nccl_nccl_node0.pcap
check "replay --json of $(basename "$cap") (the truth)" truth "$TMP/nccl.truth" "$cap"
port=$(free_port udp)
check "nfcapd listens on 127.0.0.1:$port" start_nfcapd "$TMP/nf" "$port"
check "dumpcap captures udp port $port on lo" start_capture udp "$port" "$TMP/nccl.pcapng"
start_export nccl --pcap "$cap" --speed 0 --listen none --ipfix "127.0.0.1:$port" \
	--ipfix-interval 2 -r 1
check "export reads the capture at --speed 0" wait_stderr nccl "has been read"
check "--listen none: nothing to serve, so it sends the last records and exits 0" exits_alone nccl
check "... saying what it sent" grep -q "ipfix: 8 records in .* 0 dropped, 0 lost" "$TMP/nccl.err"
stop_capture
check "nfcapd writes its file" stop_nfcapd "$TMP/nf"
check "nfcapd: no sequence errors, no bad packets" \
	grep -q "Flows: [1-9][0-9]*, .*Sequence Errors: 0, Bad Packets: 0" "$TMP/nf.log"
check "nfdump: per-flow packets, bytes, DSCP, addresses, ports equal replay --json" \
	run_check nfdump "$TMP/nccl-nf.out" nfdump "$TMP/nf" --truth "$TMP/nccl.truth"
check "tshark (CFLOW): no malformed, every field equal, no payload above 1400" \
	run_check tshark "$TMP/nccl-ts.out" tshark "$TMP/nccl.pcapng" --port "$port" \
	--truth "$TMP/nccl.truth" --mtu 1400
check "the datagrams of the capture as an IPFIX file" \
	capture_to_ipfix "$TMP/nccl.pcapng" "$port" "$TMP/nccl.ipfix"
check "ipfixDump: QP, ECN, CNP, ACK, NAK, retransmit and PSN-gap sums equal replay --json" \
	run_check ipfixdump "$TMP/nccl-ix.out" ipfixdump "$TMP/nccl.ipfix" \
	--elements "$IPFIX_XML" --truth "$TMP/nccl.truth" --mtu 1400
check "the bursts 10 s apart are separate records, idle-timed-out (flowEndReason 1)" \
	is "$TMP/nccl-ix.out" '.end_reasons == {"1": 8} and .max_records_per_flow == 2 and .flows == 4'
check "the three collectors saw the same number of records" \
	bash -c "[ \$(jq .flow_records '$TMP/nccl-nf.out') -eq \$(jq .flow_records '$TMP/nccl-ix.out') ] &&
		[ \$(jq .flow_records '$TMP/nccl-ts.out') -eq \$(jq .flow_records '$TMP/nccl-ix.out') ]"
jq '.flows[0].packets += 1' "$TMP/nccl.truth" >"$TMP/nccl.bad"
check "a truth one packet off is caught (the comparison can fail)" \
	bash -c "! $IPFIX_CHECK ipfixdump '$TMP/nccl.ipfix' -e '$IPFIX_XML' --truth '$TMP/nccl.bad' >/dev/null 2>&1"

# ---- every shared capture, and one as an uplink (interfaceName) ----
# one_capture NAME FILE: the truth, a receiver, export at full speed into
# it, then ipfixDump's per-flow sums against the truth.
one_capture() {
	truth "$TMP/$1.truth" "$2" || return 1
	start_recv udp 127.0.0.1 "$TMP/$1.ipfix" || return 1
	start_export "$1" --pcap "$2" --speed 0 --listen none --ipfix "127.0.0.1:$RECV_PORT"
	wait_stderr "$1" "has been read" && stop_export "$1"
	stop_recv
	run_check "$1" "$TMP/$1.out" ipfixdump "$TMP/$1.ipfix" --elements "$IPFIX_XML" \
		--truth "$TMP/$1.truth"
}
# Four at a time, each in a subshell with its lines kept, then checked in
# order: 27 s one after another, 22 s so (each is mostly CPU, Python
# starting and the program loading, on 2 CPUs).
caps=("$PCAPS"/*.pcap) pids=()
for cap in "${caps[@]}"; do
	name=$(basename "$cap" .pcap)
	while [ "$(jobs -rp | wc -l)" -ge 4 ]; do
		wait -n
	done
	(one_capture "$name" "$cap" >"$TMP/$name.log" 2>&1; echo $? >"$TMP/$name.rc") &
	pids+=($!)
done
wait "${pids[@]}"
for cap in "${caps[@]}"; do
	name=$(basename "$cap" .pcap)
	check "$name: ipfixDump's per-flow sums equal replay --json" \
		sh -c "cat '$TMP/$name.log'; [ \"\$(cat '$TMP/$name.rc' 2>/dev/null)\" = 0 ]"
done
cap=$PCAPS/rdma_write_bw.pcap
truth "$TMP/up.truth" --path "up1=$cap"
start_recv udp 127.0.0.1 "$TMP/up.ipfix"
start_export up --pcap "up1=$cap" --speed 0 --listen none --ipfix "127.0.0.1:$RECV_PORT"
wait_stderr up "has been read" && stop_export up
stop_recv
check "--pcap up1=FILE: interfaceName is the path up1, sums equal replay --path" \
	run_check up "$TMP/up.out" ipfixdump "$TMP/up.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/up.truth"
check "the truth had a path to compare" is "$TMP/up.truth" '[.flows[].path] | all(. == "up1")'

# ---- a mirror session (crafted ERSPAN II copies): the mirror template, the session, its name ----
# mirror_pcap II|I OUT: 20 crafted copies of one QP's writes, ERSPAN II (session 101) or I.
mirror_pcap() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
def copy(i):
    f = inject.write_only("10.99.0.1", "10.99.0.2", 49200, 17, i)
    if sys.argv[1] == "II":
        return inject.erspan2(f, 101, i, "10.98.0.1", "10.98.0.2")
    return inject.erspan1(f, "10.98.0.1", "10.98.0.2")
with open(sys.argv[2], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(20):
        f = copy(i)
        out.write(struct.pack("<IIII", 1700000000, i * 1000, len(f), len(f)) + f)
PY
}
mirror_pcap II "$TMP/mir.pcap"
start_recv udp 127.0.0.1 "$TMP/mir.ipfix"
start_export mir --pcap "$TMP/mir.pcap" --speed 0 --listen none --ipfix "127.0.0.1:$RECV_PORT" \
	--mirror-session 101=leaf1:eth49
wait_stderr mir "has been read" && stop_export mir
stop_recv
ipfixDump -e "$IPFIX_XML" -d -i "$TMP/mir.ipfix" >"$TMP/mir.dump" 2>&1
check "mirror copies: a record with fabprobeMirrorSession 101" grep -q "fabprobeMirrorSession : 101" "$TMP/mir.dump"
check "... whose interfaceName is the session's name" grep -q "interfaceName : (len: 11) leaf1:eth49" "$TMP/mir.dump"
check "... and the 20 mirrored packets" grep -q "packetDeltaCount : 20" "$TMP/mir.dump"
# ERSPAN I names no session: its records use a template without one (unknown is absent, not 0).
mirror_pcap I "$TMP/mir1.pcap"
start_recv udp 127.0.0.1 "$TMP/mir1.ipfix"
start_export mir1 --pcap "$TMP/mir1.pcap" --speed 0 --listen none --ipfix "127.0.0.1:$RECV_PORT"
wait_stderr mir1 "has been read" && stop_export mir1
stop_recv
ipfixDump -e "$IPFIX_XML" -d -i "$TMP/mir1.ipfix" >"$TMP/mir1.dump" 2>&1
check "ERSPAN I copies: their 20 packets, in records without fabprobeMirrorSession (was 0)" \
	sh -c "grep -q 'packetDeltaCount : 20' $TMP/mir1.dump && ! grep -q 'fabprobeMirrorSession :' $TMP/mir1.dump"
"$FABPROBE" replay --mirror-session 101=leaf1:eth49 "$TMP/mir.pcap" >"$TMP/mir.txt" 2>&1
check "replay's text names the session as its flows' PATH, as the JSON does (was '-')" \
	grep -qE '^[0-9.:]+ > [0-9.]+ +- +[0-9]+ leaf1:eth49 ' "$TMP/mir.txt"

# ---- seconds of traffic at a pace: active, idle and forced records ----
$MKPCAP long "$TMP/long.pcap"
check "replay --json of the 3-second synthetic capture" truth "$TMP/long.truth" "$TMP/long.pcap"
check "a UDP receiver starts" start_recv udp 127.0.0.1 "$TMP/long.ipfix"
start_export long --pcap "$TMP/long.pcap" --speed 2 --listen none \
	--ipfix "127.0.0.1:$RECV_PORT" --ipfix-interval 1 -r 0.5 --ipfix-domain 77
check "export plays the capture at --speed 2" wait_stderr long "has been read"
check "export stops" stop_export long
stop_recv
check "--speed 2: every flow's records sum to replay --json (IPv4, IPv6, VXLAN, ECN, CNP, NAK...)" \
	run_check long "$TMP/long.out" ipfixdump "$TMP/long.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/long.truth" --mtu 1400
check "active-timeout records every interval, one idle end, forced ends at the recording's end" \
	is "$TMP/long.out" '.end_reasons["2"] >= 12 and .end_reasons["1"] == 1 and .end_reasons["4"] == 6 and .max_records_per_flow >= 3'
check "the truth has retransmits, PSN gaps, CE, CNPs, NAKs, IPv6 and a VNI to compare" \
	is "$TMP/long.truth" '([.flows[].retransmits] | add) > 0 and ([.flows[].psn_gaps] | add) > 0 and ([.flows[].ecn.ce] | add) > 0 and ([.flows[].cnp] | add) > 0 and ([.flows[].naks] | add) > 0 and any(.flows[]; .vni == 5001) and any(.flows[]; .src == "fd00::1")'
check "the observation domain is the one asked for" \
	bash -c "ipfixDump -i '$TMP/long.ipfix' | grep -q 'observation domain id: 77'"

# ---- a queue pair's reverse flow: ACKs at DSCP 26, CNPs at 48, a record per class ----
# The generator's own count per flow and DSCP is the truth: replay --json
# counts a flow once, whatever its classes.
# tos_sums NFDIR TRUTH: nfdump -A tos's packets and bytes per ToS are the truth's per DSCP.
tos_sums() {
	local got want
	got=$(TZ=UTC nfdump -R "$1" -A tos -o csv | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		/^Summary/ { exit }
		NF > 1 { print $col["stos"] / 4, $col["ipkt"], $col["ibyt"] }' | sort -n)
	want=$(jq -r '.flows | group_by(.dscp)[] |
		"\(.[0].dscp) \(map(.packets) | add) \(map(.bytes) | add)"' "$2" | sort -n)
	[ -n "$got" ] && [ "$got" = "$want" ] || {
		echo "  nfdump -A tos (DSCP packets bytes): $(echo $got); generated: $(echo $want)"
		return 1
	}
}
$MKPCAP classes "$TMP/cls.pcap" "$TMP/cls.truth"
check "replay --json of the classes capture" truth "$TMP/cls.replay" "$TMP/cls.pcap"
check "... one flow carries the ACKs (26) and the CNPs (48)" \
	is "$TMP/cls.replay" 'any(.flows[]; .cnp > 0 and .acks > 0 and .dscps == [26, 48])'
port=$(free_port udp)
check "nfcapd listens for the classes capture" start_nfcapd "$TMP/nfc" "$port"
check "dumpcap captures udp port $port on lo" start_capture udp "$port" "$TMP/cls.pcapng"
start_export cls --pcap "$TMP/cls.pcap" --speed 0 --listen none --ipfix "127.0.0.1:$port" \
	--ipfix-interval 1 -r 0.5
check "export sends the classes capture and exits 0" exits_alone cls
stop_capture
check "nfcapd writes its file" stop_nfcapd "$TMP/nfc"
check "the datagrams of the capture as an IPFIX file" \
	capture_to_ipfix "$TMP/cls.pcapng" "$port" "$TMP/cls.ipfix"
check "ipfixDump, by flow and DSCP: the CNPs (their bytes, Not-ECT) at 48, the ACKs at 26, as generated" \
	run_check cls-ix "$TMP/cls-ix.out" ipfixdump "$TMP/cls.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/cls.truth" --by-class
check "nfdump, by flow and ToS: packets and bytes as generated" \
	run_check cls-nf "$TMP/cls-nf.out" nfdump "$TMP/nfc" --truth "$TMP/cls.truth" --by-class
check "tshark, by flow and ToS: no malformed, every field as generated" \
	run_check cls-ts "$TMP/cls-ts.out" tshark "$TMP/cls.pcapng" --port "$port" \
	--truth "$TMP/cls.truth" --by-class
check "nfdump -A tos: each class's packets and bytes as generated (48: the CNPs alone)" \
	tos_sums "$TMP/nfc" "$TMP/cls.truth"
check "by flow alone, the records add up to replay --json, each DSCP one the flow used" \
	run_check cls-all "$TMP/cls-all.out" ipfixdump "$TMP/cls.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/cls.replay"
check "the summary counts every record: as many as the three collectors read" \
	bash -c "n=\$(jq .flow_records '$TMP/cls-ix.out') &&
		[ \$(jq .flow_records '$TMP/cls-nf.out') -eq \$n ] &&
		[ \$(jq .flow_records '$TMP/cls-ts.out') -eq \$n ] &&
		grep -q \"ipfix: \$n records in .* 0 dropped, 0 lost\" '$TMP/cls.err'"

# ---- TCP to an IPv6 collector: templates once, withdrawn at the end ----
check "a TCP receiver starts on ::1" start_recv tcp ::1 "$TMP/t.ipfix"
check "dumpcap captures the TCP session" start_capture tcp "$RECV_PORT" "$TMP/t.pcapng"
start_export tcp --pcap "$TMP/long.pcap" --speed 0 --listen none \
	--ipfix "[::1]:$RECV_PORT" --ipfix-tcp --ipfix-interval 1 -r 0.5 --ipfix-mtu 4000
check "export over TCP reads the capture" wait_stderr tcp "has been read"
sleep 0.5
check "export over TCP stops" stop_export tcp
stop_capture
stop_recv
check "TCP over IPv6: ipfixDump's sums equal replay --json" \
	run_check tcp "$TMP/t.out" ipfixdump "$TMP/t.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/long.truth" --mtu 4000
check "TCP: templates once, the 8 data templates withdrawn at the end" \
	is "$TMP/t.out" '.templates == 9 and .withdrawals == 8'
check "tshark decodes the TCP session: no malformed, records equal" \
	run_check tcp-tshark "$TMP/tt.out" tshark "$TMP/t.pcapng" --tcp --port "$RECV_PORT" \
	--truth "$TMP/long.truth"
check "one TCP connection, closed by the exporter" \
	is "$TMP/t.ipfix.json" '.connections == 1 and .closed_connections == 1'

# ---- a flow the table evicts and takes back ----
$MKPCAP evict "$TMP/evict.pcap"
truth "$TMP/evict.truth" "$TMP/evict.pcap"
# One thread: which flow a full table evicts depends on how flows interleave,
# and only the capture's own order is the same from run to run.
truth "$TMP/evict2.truth" --flows 2 --threads 1 "$TMP/evict.pcap"
check "with --flows 2, replay loses flow A's first half (the table evicts)" \
	is "$TMP/evict2.truth" '.totals.flow_evictions >= 1 and ([.flows[] | select(.sport == 52000) | .packets] == [50])'
hp=$(free_port tcp)
start_recv udp 127.0.0.1 "$TMP/ev.ipfix"
start_export evict --pcap "$TMP/evict.pcap" --speed 0 --flows 2 --threads 1 --listen "127.0.0.1:$hp" \
	--ipfix "127.0.0.1:$RECV_PORT" --ipfix-interval 10 -r 0.25
wait_stderr evict "has been read"
sleep 0.5
check "/metrics counts the evictions" test "$(metric "$hp" fabprobe_flow_evictions_total)" -ge 1
check "fabprobe_ipfix_records_total counts the 4 records" \
	test "$(metric "$hp" fabprobe_ipfix_records_total)" -eq 4
check "export stops" stop_export evict
stop_recv
check "--flows 2: IPFIX sums equal the whole truth (A's records before and after eviction)" \
	run_check evict "$TMP/ev.out" ipfixdump "$TMP/ev.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/evict.truth" --records 4
check "A's first half left with the table (idle), its return ended with the recording (forced)" \
	is "$TMP/ev.out" '.end_reasons["1"] == 2 and .end_reasons["4"] == 2'

# ---- the metrics: valid exposition, and what the collector got ----
hp=$(free_port tcp)
start_recv udp 127.0.0.1 "$TMP/m.ipfix"
start_export metrics --pcap "$TMP/long.pcap" --speed 0 --listen "127.0.0.1:$hp" \
	--ipfix "127.0.0.1:$RECV_PORT" --ipfix-interval 1 -r 0.5
wait_stderr metrics "has been read"
sleep 0.5
curl -s -m 5 "http://127.0.0.1:$hp/metrics" >"$TMP/m.prom"
curl -s -m 5 -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"http://127.0.0.1:$hp/metrics" >"$TMP/m.om"
check "fabprobe_ipfix_* families in /metrics, promtool finds nothing to say" \
	bash -c "grep -q '^fabprobe_ipfix_records_total ' '$TMP/m.prom' &&
		[ -z \"\$(promtool check metrics <'$TMP/m.prom' 2>&1)\" ]"
check "OpenMetrics: the families there too, ending in # EOF" \
	bash -c "grep -q '^# TYPE fabprobe_ipfix_records counter' '$TMP/m.om' && tail -1 '$TMP/m.om' | grep -q '^# EOF$'"
check "connected 1 (UDP), nothing dropped, lost or waiting" \
	bash -c "grep -qx 'fabprobe_ipfix_connected 1' '$TMP/m.prom' &&
		grep -qx 'fabprobe_ipfix_records_dropped_total 0' '$TMP/m.prom' &&
		grep -qx 'fabprobe_ipfix_records_lost_total 0' '$TMP/m.prom' &&
		grep -qx 'fabprobe_ipfix_records_waiting 0' '$TMP/m.prom'"
check "export stops" stop_export metrics
stop_recv
run_check metrics "$TMP/m.out" ipfixdump "$TMP/m.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/long.truth" >/dev/null
check "fabprobe_ipfix_records_total is what ipfixDump read" \
	test "$(awk '$1 == "fabprobe_ipfix_records_total" {print $2}' "$TMP/m.prom")" \
	-eq "$(jq .flow_records "$TMP/m.out")"

# ---- a recording's final picture is the whole recording's ----
# nccl_node0's last seconds are silent: over its last interval no flow moves
# and only the DSCP alert holds; over the whole of it, replay's two alerts
# and four flows at their mean rates over its RoCE traffic (10.02 s of 56.4).
hp=$(free_port tcp)
start_export whole --pcap "$PCAPS/nccl_nccl_node0.pcap" --speed 0 --listen "127.0.0.1:$hp"
wait_stderr whole "has been read"
sleep 0.5
curl -s -m 5 "http://127.0.0.1:$hp/metrics" >"$TMP/whole.prom"
check "the final picture: replay's alerts (not_ect_roce, wrong_traffic_class)" \
	bash -c "grep -qx 'fabprobe_alerts{type=\"not_ect_roce\",severity=\"warning\"} 1' '$TMP/whole.prom' &&
		grep -qx 'fabprobe_alerts{type=\"wrong_traffic_class\",severity=\"critical\"} 1' '$TMP/whole.prom'"
check "... and the 4 flows, at their rates while RoCE was seen (36636 B in 10.02 s, not 56.4)" \
	bash -c "[ \$(grep -c '^fabprobe_flow_bytes_per_second{' '$TMP/whole.prom') -eq 4 ] &&
		grep '^fabprobe_flow_bytes_per_second{.*sport=\"50051\",dest_qp=\"29\"' '$TMP/whole.prom' |
		awk '{exit !(\$2 > 3640 && \$2 < 3670)}'"
check "a capture without a path name is the interface \"capture\" (was ifindex0)" \
	grep -qx 'fabprobe_interface_roce_packets_total{interface="capture",direction="ingress"} 184' "$TMP/whole.prom"
check "export stops" stop_export whole

# ---- no collector: export keeps serving, the errors are counted ----
dead=$(free_port udp)
hp=$(free_port tcp)
start_export down --pcap "$TMP/long.pcap" --speed 1 --listen "127.0.0.1:$hp" \
	--ipfix "127.0.0.1:$dead" --ipfix-interval 1 -r 0.5
sleep 2
e1=$(metric "$hp" fabprobe_ipfix_send_errors_total)
wait_stderr down "has been read"
sleep 1.5
e2=$(metric "$hp" fabprobe_ipfix_send_errors_total)
check "UDP, nobody listening: send errors grow while it runs ($e1 -> $e2)" \
	test "${e1:-0}" -gt 0 -a "${e2:-0}" -gt "${e1:-0}"
check "UDP, nobody listening: the records are counted lost" \
	test "$(metric "$hp" fabprobe_ipfix_records_lost_total)" -gt 0
# Each datagram sent was refused (an ICMP port unreachable): none of the
# records handed to the socket was delivered, and lost counts them (it said
# 9 lost of 10 sent: those sent were not).
d_sent=$(metric "$hp" fabprobe_ipfix_records_total)
d_lost=$(metric "$hp" fabprobe_ipfix_records_lost_total)
check "UDP, nobody listening: the records sent count as lost too (sent $d_sent, lost $d_lost)" \
	test "${d_sent:-0}" -gt 0 -a "${d_lost:-0}" -ge "${d_sent:-0}"
check "UDP, nobody listening: /healthz is 200 and /metrics answers" \
	bash -c "curl -sf -m 5 http://127.0.0.1:$hp/healthz >/dev/null && curl -sf -m 5 http://127.0.0.1:$hp/metrics | grep -q '^fabprobe_refreshes_total [1-9]'"
check "export stops" stop_export down

dead=$(free_port tcp)
hp=$(free_port tcp)
start_export tdown --pcap "$TMP/long.pcap" --speed 0 --listen "127.0.0.1:$hp" \
	--ipfix "127.0.0.1:$dead" --ipfix-tcp --ipfix-interval 1 -r 0.5
wait_stderr tdown "has been read"
sleep 1.5
check "TCP, nobody listening: not connected, connects fail, the records wait" \
	bash -c "curl -s -m 5 http://127.0.0.1:$hp/metrics >'$TMP/td.prom' &&
		grep -qx 'fabprobe_ipfix_connected 0' '$TMP/td.prom' &&
		awk '\$1 == \"fabprobe_ipfix_send_errors_total\" && \$2 >= 1 {ok=1} END {exit !ok}' '$TMP/td.prom' &&
		awk '\$1 == \"fabprobe_ipfix_queue_records\" && \$2 > 0 {ok=1} END {exit !ok}' '$TMP/td.prom' &&
		grep -qx 'fabprobe_ipfix_records_total 0' '$TMP/td.prom'"
t0=$(date +%s)
check "TCP, nobody listening: export stops anyway" stop_export tdown
check "... within the close timeout, saying what it dropped" \
	bash -c "[ \$(( \$(date +%s) - $t0 )) -le 6 ] && grep -q 'ipfix: 0 records .* [1-9][0-9]* dropped' '$TMP/tdown.err'"

# --listen none, the TCP collector away: nothing goes out, so export gives up
# on its own (3 s without progress, then the close's 3 s) and says what it dropped.
dead=$(free_port tcp)
start_export tnone --pcap "$TMP/long.pcap" --speed 0 --listen none \
	--ipfix "127.0.0.1:$dead" --ipfix-tcp --ipfix-interval 1 -r 0.5
check "--listen none, TCP collector away: export exits 1 by itself (nothing was delivered)" \
	exits_alone tnone 1
check "... saying the records it dropped, and that they were not delivered" \
	bash -c "grep -q 'ipfix: 0 records .* [1-9][0-9]* dropped' '$TMP/tnone.err' &&
		 tail -n 1 '$TMP/tnone.err' | grep -q '^fabprobe: export: IPFIX records were not delivered'"

# --listen none, UDP to a port nobody listens on: every record lost. A
# datagram sent draws an ICMP port unreachable, which the kernel reports at
# the next send (ECONNREFUSED: that one did not go out) or to SO_ERROR: the
# records sent were refused, not delivered. They were counted sent and not
# lost (10 records sent, 9 lost, of 19 over 4 send errors).
dead=$(free_port udp)
start_export unone --pcap "$TMP/long.pcap" --speed 0 --listen none \
	--ipfix "127.0.0.1:$dead" --ipfix-interval 1 -r 0.5
check "--listen none, UDP collector away: export exits 1 (records lost)" exits_alone unone 1
# sent, lost, refused: from "S records in ..., L lost to E send errors (R of them sent, then refused...)"
read -r u_sent u_lost u_refused < <(sed -nE 's/.*ipfix: ([0-9]+) records in .* ([0-9]+) lost to [0-9]+ send errors( \(([0-9]+) of them sent, then refused.*)?$/\1 \2 \4/p' "$TMP/unone.err")
check "... every record it sent was refused, so none delivered (sent $u_sent, refused ${u_refused:-0})" \
	test "${u_sent:-0}" -gt 0 -a "${u_refused:-0}" -eq "${u_sent:-0}"
# The records of this capture, as ipfixDump read them from the run at --speed 2 above.
u_all=$(jq '[.end_reasons[]] | add' "$TMP/long.out" 2>/dev/null)
check "... and lost counts them all, the refused and those whose send failed ($u_lost of $u_all)" \
	test "${u_all:-0}" -gt 0 -a "${u_lost:-0}" -eq "${u_all:-0}"

# ---- a burst of 100,000 flows: paced, nothing dropped, scrapes answered ----
$MKPCAP many 100000 "$TMP/many.pcap"
port=$(free_port udp)
hp=$(free_port tcp)
check "nfcapd listens for the burst" start_nfcapd "$TMP/nfb" "$port"
start_export burst --pcap "$TMP/many.pcap" --speed 0 --flows 262144 --listen "127.0.0.1:$hp" \
	--ipfix "127.0.0.1:$port"
check "export reads the 200,000 frames" wait_stderr burst "has been read"
t0=$(date +%s.%N)
scrapes=0 done_at=""
for i in $(seq 240); do
	n=$(metric "$hp" fabprobe_ipfix_records_total) && scrapes=$((scrapes + 1))
	if [ "${n:-0}" -ge 100000 ]; then
		done_at=$(date +%s.%N)
		break
	fi
	sleep 0.25
done
check "scrapes answered while the burst drained ($scrapes)" test "$scrapes" -ge 2
check "all 100000 records sent, none dropped or waiting" \
	bash -c "[ '$(metric "$hp" fabprobe_ipfix_records_dropped_total)' = 0 ] &&
		[ '$(metric "$hp" fabprobe_ipfix_records_waiting)' = 0 ] && [ -n '$done_at' ]"
[ -n "$done_at" ] && echo "     (100000 records out in $(echo "$done_at - $t0" | bc) s after the refresh)"
check "export stops" stop_export burst
check "nfcapd writes the burst" stop_nfcapd "$TMP/nfb"
check "nfcapd: 100000 flows, 200000 packets, no sequence errors" \
	nfcapd_stored "$TMP/nfb.log" 100000 200000

# ---- live: a veth pair, frames from the generator, active timeouts and a forced end ----
if ip netns add "$NS" 2>/dev/null; then
	ip -n "$NS" link set lo up
	ip -n "$NS" link add fpx-a type veth peer name fpx-b
	ip -n "$NS" link set fpx-a up
	ip -n "$NS" link set fpx-b up
	NETNS=$NS
	rm -f "$TMP/live.ipfix.port"
	ip netns exec "$NS" $IPFIX_RECV --udp 127.0.0.1 --port-file "$TMP/live.ipfix.port" \
		--out "$TMP/live.ipfix" --summary "$TMP/live.ipfix.json" &
	LRECV=$!
	IPFIX_PIDS+=("$LRECV")
	for i in $(seq 50); do
		[ -s "$TMP/live.ipfix.port" ] && break
		sleep 0.1
	done
	start_export live -i fpx-b --hook xdp --listen none \
		--ipfix "127.0.0.1:$(cat "$TMP/live.ipfix.port")" --ipfix-interval 1 -r 0.5
	check "live: export attaches to fpx-b" wait_stderr live "sending IPFIX"
	sleep 0.5
	ip netns exec "$NS" $INJECT fpx-a 3000 --rate 1000 --qp 77 --sport 50123 \
		>"$TMP/inject.json"
	sleep 0.3
	check "live: export stops on SIGINT (forced end)" stop_export live
	unset NETNS
	kill "$LRECV" 2>/dev/null
	wait "$LRECV" 2>/dev/null
	jq '{flows: [{src: "10.99.0.1", dst: "10.99.0.2", sport: 50123, dport: 4791, dest_qp: 77,
		dir: "ingress", packets: .frames, bytes: .bytes}]}' "$TMP/inject.json" >"$TMP/live.truth"
	check "live: the records sum to the generator's frames and bytes" \
		run_check live "$TMP/live.out" ipfixdump "$TMP/live.ipfix" --elements "$IPFIX_XML" \
		--truth "$TMP/live.truth"
	# The last active timeout may or may not have taken the last packets.
	check "live: active-timeout records while it sent, then at most a forced end" \
		is "$TMP/live.out" '.end_reasons["2"] >= 2 and (.end_reasons["4"] // 0) <= 1 and .end_reasons["2"] + (.end_reasons["4"] // 0) == .flow_records'
else
	check "a network namespace for the live test" false
fi

# What the collectors got, for the log.
for f in nccl-ix long cls-ix t ev m live; do
	[ -f "$TMP/$f.out" ] &&
		echo "     $f: $(jq -c '{flow_records, end_reasons, max_records_per_flow, flows}' "$TMP/$f.out")"
done
finish "ipfix export"
