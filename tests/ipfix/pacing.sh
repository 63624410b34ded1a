#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# IPFIX over UDP is paced so that a collector with the kernel's default
# receive buffer (net.core.rmem_default, no nfcapd -B) gets every record:
# a burst of flows, all due at once, from `fabprobe export --ipfix` into
# nfcapd as docs/ipfix.md starts it. Ground truth: the generator's flow
# count, and nfcapd's own count of records and sequence errors.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ipfix_init
FABPROBE=${FABPROBE:-$IPFIX_TOP/build/fabprobe}
N=${N:-30000}

python3 "$IPFIX_TOP/tests/ipfix/mkpcap.py" many "$N" "$TMP/many.pcap"
echo "     (net.core.rmem_default is $(sysctl -n net.core.rmem_default 2>/dev/null))"
# The default pace at two message sizes, into the default buffer; and a
# pace of 8 MiB/s asked for (--ipfix-rate), whose bursts are 20 ms of it,
# 160 KiB: about 117 datagrams of 1400 bytes, where the default buffer
# holds about 90 with their overhead. It got every record while nfcapd
# drained as they came, and lost one message when the CPUs were busy (a
# CI run beside other work): so into a buffer sized for it (-B 8 MiB), as
# docs/ipfix.md says to give a collector read at a faster rate.
for mtu in 1400 65535 8M; do
	port=$(free_port udp)
	buf=default
	[ "$mtu" = 8M ] && buf=
	check "nfcapd (${buf:-8 MiB} receive buffer) listens" start_nfcapd "$TMP/nf$mtu" "$port" $buf
	pace=(--ipfix-mtu "$mtu")
	[ "$mtu" = 8M ] && pace=(--ipfix-rate 8M)
	"$FABPROBE" export --pcap "$TMP/many.pcap" --speed 0 --flows 262144 --listen none \
		--ipfix "127.0.0.1:$port" "${pace[@]}" 2>"$TMP/exp$mtu.err"
	check "${pace[*]}: export sent all $N records, none dropped or lost" \
		grep -q "ipfix: $N records in .* 0 dropped, 0 lost" "$TMP/exp$mtu.err"
	check "nfcapd writes its file" stop_nfcapd "$TMP/nf$mtu"
	check "${pace[*]}: nfcapd stored $N flows, $((2 * N)) packets, no sequence errors" \
		nfcapd_stored "$TMP/nf$mtu.log" "$N" "$((2 * N))"
	grep -h "Flows:" "$TMP/nf$mtu.log" | sed 's/^/     /'
done
finish ipfix-pacing
