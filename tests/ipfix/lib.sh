# SPDX-License-Identifier: GPL-2.0
# Collectors on loopback for the IPFIX tests: nfcapd, a plain UDP/TCP
# receiver that writes an IPFIX file, and a loopback capture, each on a
# free port in a temporary directory, all stopped by ipfix_cleanup.
# Source it, then call ipfix_init; a test that drives fabprobe itself
# (export --ipfix) uses the same helpers and tests/ipfix/ipfix_check.py.

IPFIX_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IPFIX_EMIT=${IPFIX_EMIT:-$IPFIX_TOP/build/tools/ipfix_emit}
IPFIX_CHECK="python3 $IPFIX_TOP/tests/ipfix/ipfix_check.py"
IPFIX_RECV="python3 $IPFIX_TOP/tests/ipfix/recv.py"
IPFIX_XML=$IPFIX_TOP/docs/ipfix/fabprobe-elements.xml
IPFIX_PIDS=()
# check, finish
. "$IPFIX_TOP/tests/lib/check.sh"

ipfix_cleanup() {
	local pid

	for pid in "${IPFIX_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "${IPFIX_NETNS:-}" ] && ip netns del "$IPFIX_NETNS" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"
}

ipfix_init() {
	TMP=$(mktemp -d /tmp/fp-ipfix.XXXXXX)
	trap ipfix_cleanup EXIT
	trap 'exit 130' INT TERM
}

# free_port udp|tcp [ADDR]: a port nothing is bound to right now.
free_port() {
	python3 - "$1" "${2:-127.0.0.1}" <<'EOF'
import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
fam = socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET
s = socket.socket(fam, kind)
s.bind((sys.argv[2], 0))
print(s.getsockname()[1])
EOF
}

# wait_listen udp|tcp PORT: until a socket is bound to PORT (5 s at most).
wait_listen() {
	local flag=-Hlun i
	[ "$1" = tcp ] && flag=-Hltn
	for i in $(seq 50); do
		[ -n "$(ss $flag "sport = :$2")" ] && return 0
		sleep 0.1
	done
	echo "nothing listens on $1 port $2"
	return 1
}

# start_nfcapd DIR PORT [default]: nfcapd on 127.0.0.1:PORT writing into DIR;
# sets NFCAPD_PID. Its receive buffer is 8 MiB, or with "default" the
# kernel's (net.core.rmem_default), as docs/ipfix.md starts it.
start_nfcapd() {
	local rcvbuf="-B 8388608"
	[ "${3:-}" = default ] && rcvbuf=
	mkdir -p "$1"
	nfcapd -w "$1" -p "$2" -b 127.0.0.1 $rcvbuf >"$1.log" 2>&1 &
	NFCAPD_PID=$!
	IPFIX_PIDS+=("$NFCAPD_PID")
	wait_listen udp "$2"
}

# stop_nfcapd DIR: SIGTERM (nfcapd closes its file), then wait for it.
stop_nfcapd() {
	kill "$NFCAPD_PID" 2>/dev/null
	wait "$NFCAPD_PID" 2>/dev/null
	ls "$1"/nfcapd.* >/dev/null 2>&1 || {
		echo "nfcapd wrote no file: $(cat "$1.log")"
		return 1
	}
}

# nfcapd_stored LOG FLOWS [PACKETS]: nfcapd's log counts FLOWS flows (and
# PACKETS packets), no sequence error and no bad packet, summed over its
# files: it starts a new one every 5 minutes of the clock, so a run across
# such a minute logs two lines (a run at 07:24:59 did).
nfcapd_stored() {
	awk -v want_f="$2" -v want_p="${3:-}" '
	/Flows:/ {
		n++
		for (i = 1; i < NF; i++) {
			if ($i == "Flows:") f += $(i + 1)
			else if ($i == "Packets:" && $(i - 1) == "Bad") bad += $(i + 1)
			else if ($i == "Packets:") p += $(i + 1)
			else if ($i == "Errors:") seq += $(i + 1)
		}
	}
	END {
		ok = n && f == want_f && (want_p == "" || p == want_p) && !seq && !bad
		if (!ok)
			printf "     nfcapd: %d flows, %d packets, %d sequence errors, %d bad packets in %d file(s)\n", f, p, seq, bad, n
		exit !ok
	}' "$1"
}

# start_recv udp|tcp ADDR OUT: the plain receiver; sets RECV_PID and RECV_PORT.
start_recv() {
	local i
	rm -f "$3.port"
	$IPFIX_RECV "--$1" "$2" --port-file "$3.port" --out "$3" --summary "$3.json" &
	RECV_PID=$!
	IPFIX_PIDS+=("$RECV_PID")
	for i in $(seq 50); do
		[ -s "$3.port" ] && break
		sleep 0.1
	done
	RECV_PORT=$(cat "$3.port" 2>/dev/null)
	[ -n "$RECV_PORT" ] || {
		echo "receiver did not start"
		return 1
	}
}

# stop_recv: the receiver writes OUT.json (datagrams, bytes, largest) and exits.
stop_recv() {
	kill "$RECV_PID" 2>/dev/null
	wait "$RECV_PID" 2>/dev/null
}

# start_capture udp|tcp PORT FILE: dumpcap on lo for that port; sets CAPTURE_PID.
start_capture() {
	local i
	dumpcap -q -i lo -f "$1 port $2" -w "$3" >"$3.log" 2>&1 &
	CAPTURE_PID=$!
	IPFIX_PIDS+=("$CAPTURE_PID")
	# dumpcap writes the file header once it captures.
	for i in $(seq 100); do
		[ -s "$3" ] && break
		sleep 0.1
	done
	[ -s "$3" ] || {
		echo "dumpcap did not start: $(cat "$3.log")"
		return 1
	}
}

stop_capture() {
	sleep 0.3 # the last packets reach the capture
	kill "$CAPTURE_PID" 2>/dev/null
	wait "$CAPTURE_PID" 2>/dev/null
}

# json_get FILE EXPR: one value of a JSON file (jq syntax).
json_get() {
	jq -r "$2" "$1"
}

# capture_to_ipfix PCAP PORT OUT: the UDP payloads to PORT in a capture, one
# after another: an IPFIX file (RFC 5655) of exactly the datagrams that
# went over the wire, for ipfixDump.
capture_to_ipfix() {
	tshark -r "$1" -Y "udp.dstport == $2" -T fields -e udp.payload 2>/dev/null |
		python3 -c 'import sys; out = open(sys.argv[1], "wb")
for line in sys.stdin:
    out.write(bytes.fromhex(line.strip().replace(":", "")))' "$3"
	[ -s "$3" ] || {
		echo "no UDP payload to port $2 in $1"
		return 1
	}
}
