#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The sFlow options on the command line: bad values and combinations are one
# line on stderr and exit 2; a port already taken, exit 1; a good listener
# with nothing arriving still reports (exit 0, zero datagrams).
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/../lib/check.sh"

# expect CODE NAME CMD...
expect() {
	local want=$1 name=$2 rc lines
	shift 2
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -le 1 ]; then
		PASS=$((PASS + 1))
		echo "ok   $want $name"
	else
		FAIL=$((FAIL + 1))
		echo "FAIL $name: exit $rc (want $want), $lines stderr lines"
		sed 's/^/     stderr: /' "$tmp/err" | head -5
	fi
}

for c in top capture export; do
	out=()
	[ "$c" = capture ] && out=(-o "$tmp/b.tar.gz")
	# Each case must fail for its own reason: the message names it.
	expect 2 "$c --sflow not a port" "$FABPROBE" "$c" --sflow nope "${out[@]}"
	expect 2 "$c --sflow port 0" "$FABPROBE" "$c" --sflow 0 "${out[@]}"
	expect 2 "$c --sflow port 65536" "$FABPROBE" "$c" --sflow 127.0.0.1:65536 "${out[@]}"
	expect 2 "$c --sflow bad address" "$FABPROBE" "$c" --sflow 300.1.1.1:6343 "${out[@]}"
	expect 2 "$c --sflow and -i" "$FABPROBE" "$c" --sflow 6343 -i lo "${out[@]}"
	expect 2 "$c --sflow and --pcap" "$FABPROBE" "$c" --sflow 6343 --pcap "$PCAPS/rdma_write_bw.pcap" "${out[@]}"
	expect 2 "$c --sflow-port-map without --sflow" "$FABPROBE" "$c" -i lo --sflow-port-map /etc/hosts "${out[@]}"
	expect 2 "$c --sflow-rcvbuf too small" "$FABPROBE" "$c" --sflow 6343 --sflow-rcvbuf 10 "${out[@]}"
done
expect 2 "replay --sflow-port without --sflow" "$FABPROBE" replay --sflow-port 6343 "$PCAPS/rdma_write_bw.pcap"
expect 2 "replay --sflow-port 0" "$FABPROBE" replay --sflow --sflow-port 0 "$PCAPS/rdma_write_bw.pcap"
expect 2 "replay --sflow with --path" "$FABPROBE" replay --sflow --path a="$PCAPS/rdma_write_bw.pcap"
expect 1 "replay --sflow missing port map" "$FABPROBE" replay --sflow --sflow-port-map "$tmp/none" "$PCAPS/rdma_write_bw.pcap"
# A RoCE capture holds no sFlow: zero datagrams, exit 0, and a line saying so, naming
# the port the capture's UDP went to (an empty report alone reads as a quiet fabric).
expect 0 "replay --sflow of a capture without sFlow" "$FABPROBE" replay --sflow "$PCAPS/rdma_write_bw.pcap"
check "... and says no datagram went to port 6343, most to 4791" grep -q \
	"no datagram to UDP port 6343 in 60 frames (20 UDP to other ports, most to 4791): --sflow-port" "$tmp/err"

# A port someone else holds: one line, exit 1.
python3 -c 'import socket,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1], flush=True); time.sleep(60)' >"$tmp/port" &
holder=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
expect 1 "top --sflow on a port in use" "$FABPROBE" top --sflow "127.0.0.1:$(cat "$tmp/port")" --once -r 1

# Nothing arrives: one report with zero datagrams.
expect 0 "top --sflow, nothing sent" "$FABPROBE" top --sflow 127.0.0.1:16342 --once -r 1 --json
check "top --sflow, nothing sent: zero datagrams, mode live" python3 -c \
	'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["totals"]["sflow_datagrams"] != 0 or r["mode"] != "live")' \
	"$tmp/out"
# A capture whose time steps back (its frames in reverse order): the span
# is still from its earliest to its latest datagram.
python3 - "$PCAPS/ext/sflow_multiple_counter_30_pdus.pcap" "$tmp/reversed.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, recs = 24, []
while off < len(d):
    incl = struct.unpack("<I", d[off + 8:off + 12])[0]
    recs.append(d[off:off + 16 + incl])
    off += 16 + incl
open(sys.argv[2], "wb").write(d[:24] + b"".join(reversed(recs)))
PY
span() {
	"$FABPROBE" replay --sflow --json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["interval_s"])'
}
want=$(span "$PCAPS/ext/sflow_multiple_counter_30_pdus.pcap")
check "sFlow capture stepping back: the same span ($want s)" test "$(span "$tmp/reversed.pcap")" = "$want"
# 14 leaves of 5 uplinks in the map: 70 uplinks, more than the 64 paths an
# analysis holds. Whole groups are paths while they fit (12 of 5, and the
# capture's own port in no group); a cut group would be judged without some
# of its members. The rest are said, once, not lost without a word.
for l in $(seq 1 14); do
	for u in 1 2 3 4 5; do
		echo "192.0.2.$l $((48 + u)) leaf$l:spine$u leaf$l-up"
	done
done >"$tmp/map70"
expect 0 "replay --sflow, 70 mapped uplinks" "$FABPROBE" replay --sflow --sflow-port-map "$tmp/map70" \
	--json "$PCAPS/ext/sflow_expanded.pcap"
check "... 12 groups, each whole (5 paths)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
groups = {}
for p in r["paths"]:
    if p.get("group"):
        groups[p["group"]] = groups.get(p["group"], 0) + 1
sys.exit(len(groups) != 12 or set(groups.values()) != {5})' "$tmp/out"
check "... and one line says the rest are not analysed, from the first of them" \
	grep -qE '^fabprobe: 10 uplinks not analysed, from leaf13:spine1 on' "$tmp/err"
finish sflow-cli
