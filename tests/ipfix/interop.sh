#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fabprobe's IPFIX exporter against real collectors, on loopback only:
# ipfixDump (libfixbuf) decodes files, UDP and TCP streams with fabprobe's
# element file; nfcapd stores what it receives over UDP and nfdump prints
# it; tshark's CFLOW dissector reads captures of lo. Every record is
# compared with the ground truth ipfix_emit writes (tests/ipfix/
# ipfix_check.py), never with the exporter's own counters alone.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ipfix_init
E=$IPFIX_EMIT

# run_check NAME OUT.json ARGS...: ipfix_check.py, its summary kept in OUT.json.
run_check() {
	local name=$1 out=$2
	shift 2
	if $IPFIX_CHECK "$@" >"$out" 2>"$out.err"; then
		return 0
	fi
	echo "  $name: $(cat "$out")"
	sed 's/^/  /' "$out.err" | head -20
	return 1
}

is() { # is FILE JQ-EXPR: the expression is true of the JSON in FILE
	[ "$(jq -r "$2" "$1")" = true ] || {
		echo "  not ($2) in $(cat "$1")"
		return 1
	}
}

# ---- the element file is the one the exporter's table makes ----
check "docs/ipfix/fabprobe-elements.xml is what ipfix_emit --elements-xml writes" \
	diff -u "$IPFIX_XML" <("$E" --elements-xml)

# ---- a file: every element of every record, with the element file ----
"$E" --file "$TMP/a.ipfix" -n 300 --intervals 3 --v6-every 2 --sampled-every 5 \
	--mirror-every 7 --domain 4242 --truth "$TMP/a.truth" --stats "$TMP/a.stats" 2>/dev/null
check "ipfixDump -e decodes a file: 900 records equal the truth, sequence numbers right" \
	run_check ipfixdump "$TMP/a.out" ipfixdump "$TMP/a.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/a.truth" --records 900 --mtu 1400
check "ipfixDump names the enterprise elements from the element file" \
	is "$TMP/a.out" '.names["32473/6"] == "roceCePackets" and .names["32473/15"] == "fabprobeSampledPackets" and .names["32473/1"] == "roceDestQueuePair"'
check "ipfixDump shows the observation domain, flow 0's QP and addresses" \
	bash -c "TZ=UTC ipfixDump -e '$IPFIX_XML' -i '$TMP/a.ipfix' >'$TMP/a.txt' &&
		grep -q 'observation domain id: 4242' '$TMP/a.txt' &&
		grep -Eq 'roceDestQueuePair : 256$' '$TMP/a.txt' &&
		grep -Eq 'sourceIPv4Address : 10\.0\.0\.1$' '$TMP/a.txt' &&
		grep -Eq 'sourceIPv6Address : fd00::0001:0000:0002$' '$TMP/a.txt'"
check "ipfixDump --rfc5610 learns the element names from the stream itself" \
	bash -c "run() { $IPFIX_CHECK ipfixdump '$TMP/a.ipfix' --rfc5610 --truth '$TMP/a.truth'; };
		run >'$TMP/a5610.out' && jq -e '.names[\"32473/9\"] == \"roceNakPackets\" and .type_records == 15' '$TMP/a5610.out' >/dev/null"
check "the exporter counted what ipfixDump saw" \
	is "$TMP/a.stats" '.records_sent == 900 and .records_dropped == 0 and .send_errors == 0 and .sequence == 915'

# ---- variable-length strings at the encoding's edges (RFC 7011 section 7) ----
for len in 0 254 255 300 1000; do
	"$E" --file "$TMP/v$len.ipfix" -n 6 --path-len $len --truth "$TMP/v$len.truth" 2>/dev/null
	check "a $len-byte path decodes in ipfixDump" \
		run_check "varlen $len" "$TMP/v$len.out" ipfixdump "$TMP/v$len.ipfix" \
		--elements "$IPFIX_XML" --truth "$TMP/v$len.truth" --records 6
done

# ---- another PEN and its own element file ----
"$E" --elements-xml --pen 99999 >"$TMP/pen.xml"
"$E" --file "$TMP/pen.ipfix" -n 20 --pen 99999 --truth "$TMP/pen.truth" 2>/dev/null
check "--pen 99999: the elements decode under that PEN with its element file" \
	run_check pen "$TMP/pen.out" ipfixdump "$TMP/pen.ipfix" --elements "$TMP/pen.xml" \
	--pen 99999 --truth "$TMP/pen.truth" --records 20
check "ipfixDump names PEN 99999's elements" is "$TMP/pen.out" '.names["99999/6"] == "roceCePackets"'

# ---- the checker can fail: one packet more in the truth is caught ----
jq '.flows[7].packets += 1' "$TMP/a.truth" >"$TMP/bad.truth"
check "a truth off by one packet is reported (the check can fail)" \
	bash -c "! $IPFIX_CHECK ipfixdump '$TMP/a.ipfix' --elements '$IPFIX_XML' --truth '$TMP/bad.truth' >/dev/null 2>&1"

# ---- UDP into nfcapd, captured on lo for tshark; templates refreshed ----
port=$(free_port udp)
check "nfcapd listens on 127.0.0.1:$port" start_nfcapd "$TMP/nf" "$port"
check "dumpcap captures udp port $port on lo" start_capture udp "$port" "$TMP/u.pcapng"
"$E" --udp "127.0.0.1:$port" -n 3000 --intervals 2 --v6-every 3 --sampled-every 11 \
	--mirror-every 13 --refresh-msgs 100 --truth "$TMP/u.truth" --stats "$TMP/u.stats" 2>/dev/null
stop_capture
check "nfcapd stops and writes its file" stop_nfcapd "$TMP/nf"
check "nfcapd: no sequence errors, no bad packets, 6000 flows" \
	nfcapd_stored "$TMP/nf.log" 6000
check "nfdump prints the same 6000 records: addresses, ports, packets, bytes, DSCP" \
	run_check nfdump "$TMP/nf.out" nfdump "$TMP/nf" --truth "$TMP/u.truth" --records 6000
check "tshark (CFLOW) decodes the capture: no malformed, every field equal, no payload above 1400" \
	run_check tshark "$TMP/u.out" tshark "$TMP/u.pcapng" --port "$port" --truth "$TMP/u.truth" \
	--records 6000 --mtu 1400
check "templates were refreshed over UDP (every 100 messages): tshark saw them again" \
	is "$TMP/u.out" '.templates >= 8 * 5 and .templates % 8 == 0'

# ---- UDP into a plain receiver, read back by ipfixDump: refresh by time ----
check "a UDP receiver starts" start_recv udp 127.0.0.1 "$TMP/r.ipfix"
"$E" --udp "127.0.0.1:$RECV_PORT" -n 400 --refresh-ms 100 --budget 1 --tick-us 20000 \
	--truth "$TMP/r.truth" 2>/dev/null
stop_recv
check "ipfixDump decodes the UDP datagrams: records equal, sequence numbers right" \
	run_check udp-ipfixdump "$TMP/r.out" ipfixdump "$TMP/r.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/r.truth" --records 400 --mtu 1400
check "templates were refreshed over UDP every 100 ms (descriptions once), never withdrawn" \
	is "$TMP/r.out" '.templates >= 9 + 8 * 3 and (.templates - 9) % 8 == 0 and .type_records == 15 and .withdrawals == 0'
check "no datagram above 1400 bytes" is "$TMP/r.ipfix.json" '.max_datagram <= 1400 and .datagrams > 40'

# ---- 100k flows: nothing above the MTU, nothing lost ----
port=$(free_port udp)
check "nfcapd listens for the 100k run" start_nfcapd "$TMP/nf100k" "$port"
check "dumpcap captures the 100k run" start_capture udp "$port" "$TMP/k.pcapng"
"$E" --udp "127.0.0.1:$port" -n 100000 --v6-every 4 --mtu 1400 --budget 16 \
	--truth "$TMP/k.truth" --stats "$TMP/k.stats" 2>/dev/null
stop_capture
check "nfcapd writes the 100k run" stop_nfcapd "$TMP/nf100k"
check "nfcapd: 100000 flows, no sequence errors" \
	nfcapd_stored "$TMP/nf100k.log" 100000
check "nfdump prints 100000 records, each equal to the truth" \
	run_check nfdump-100k "$TMP/k.out" nfdump "$TMP/nf100k" --truth "$TMP/k.truth" --records 100000
check "the capture: more than 10000 datagrams, none with a payload above 1400" \
	bash -c "tshark -r '$TMP/k.pcapng' -T fields -e udp.length 2>/dev/null |
		awk '{ n++; if (\$1 - 8 > 1400) big++ } END { exit !(n > 10000 && !big) }'"
check "the exporter sent 100000 records, dropped none" \
	is "$TMP/k.stats" '.records_sent == 100000 and .records_dropped == 0 and .records_lost == 0'

# ---- TCP over IPv6 loopback: templates once, withdrawn at the end ----
check "a TCP receiver starts on ::1" start_recv tcp ::1 "$TMP/t.ipfix"
check "dumpcap captures the TCP session" start_capture tcp "$RECV_PORT" "$TMP/t.pcapng"
"$E" --tcp "[::1]:$RECV_PORT" -n 500 --intervals 2 --sampled-every 4 --mtu 4000 \
	--truth "$TMP/t.truth" --stats "$TMP/t.stats" 2>/dev/null
stop_capture
stop_recv
check "ipfixDump decodes the TCP stream: 1000 records equal the truth" \
	run_check tcp-ipfixdump "$TMP/t.out" ipfixdump "$TMP/t.ipfix" --elements "$IPFIX_XML" \
	--truth "$TMP/t.truth" --records 1000 --mtu 4000
check "TCP: templates sent once, the 8 data templates withdrawn before the end of the stream" \
	is "$TMP/t.out" '.templates == 9 and .withdrawals == 8'
check "tshark decodes IPFIX over TCP: no malformed, records equal, the withdrawal seen" \
	run_check tcp-tshark "$TMP/tt.out" tshark "$TMP/t.pcapng" --tcp --port "$RECV_PORT" \
	--truth "$TMP/t.truth" --records 1000
check "tshark saw the 8 data templates withdrawn" is "$TMP/tt.out" '.withdrawals == 8'
check "one TCP connection, closed by the exporter" \
	is "$TMP/t.ipfix.json" '.connections == 1 and .closed_connections == 1'

# ---- no collector: nothing blocks, errors are counted ----
port=$(free_port udp)
check "UDP to a port nobody listens on: the emitter finishes" \
	timeout 60 "$E" --udp "127.0.0.1:$port" -n 2000 --stats "$TMP/nu.stats" 2>/dev/null
check "UDP with no collector: send errors and lost records counted" \
	is "$TMP/nu.stats" '.send_errors > 0 and .records_lost > 0'
# No route to the collector at the start (a namespace with loopback only):
# not fatal, counted as a collector that is down.
NOROUTE=fpz-ipfix-noroute$$
IPFIX_NETNS=$NOROUTE # the cleanup removes it, however the script ends
ip netns add "$NOROUTE" && ip -n "$NOROUTE" link set lo up
check "UDP with no route at the start: the emitter runs and finishes" \
	timeout 60 ip netns exec "$NOROUTE" "$E" --udp 10.255.255.1:4739 -n 100 \
	--stats "$TMP/nr.stats" 2>"$TMP/nr.err"
ip netns del "$NOROUTE"
check "UDP with no route: one line says so" grep -q "Network is unreachable; records are counted as lost" "$TMP/nr.err"
check "UDP with no route: send errors and lost records counted" \
	is "$TMP/nr.stats" '.send_errors > 0 and .records_lost > 0 and .records_sent == 0'
port=$(free_port tcp)
check "TCP to a port nobody listens on: the emitter gives up on its own" \
	timeout 60 "$E" --tcp "127.0.0.1:$port" -n 100 --timeout-ms 2500 --linger-ms 200 \
	--stats "$TMP/nt.stats" 2>/dev/null
check "TCP with no collector: failed connects counted (backoff 1 s, 2 s), records dropped" \
	is "$TMP/nt.stats" '.send_errors >= 2 and .connects == 0 and .records_sent == 0 and .records_dropped == 100'

finish "ipfix interop"
