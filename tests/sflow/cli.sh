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
# Sampled headers that cannot run, each for its own reason: one of header
# protocol 2 (ISO 802.4 token bus), one Ethernet header of 10 bytes (too
# short to be a frame). Both counted in skipped_frames, and the line on
# stderr names each reason with its count.
python3 - "$tmp/skipped.pcap" <<'PY'
import struct, sys

def flow_sample(seq, protocol, header):
    pad = b"\0" * (-len(header) % 4)
    rec = struct.pack(">IIII", protocol, 1500, 4, len(header)) + header + pad
    body = struct.pack(">IIIIIIII", seq, 49, 1, 1, 0, 49, 50, 1)
    body += struct.pack(">II", 1, len(rec)) + rec  # record 0:1 sampled_header
    return struct.pack(">II", 1, len(body)) + body  # sample 0:1 flow_sample

def datagram(seq, sample):
    # sFlow v5, IPv4 agent 192.0.2.7, sub-agent 0, uptime, one sample
    return struct.pack(">II4sIIII", 5, 1, bytes([192, 0, 2, 7]), 0, seq, 1000 * seq, 1) + sample

def udp_frame(payload):
    udp = struct.pack(">HHHH", 40000, 6343, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([192, 0, 2, 7]), bytes([192, 0, 2, 100])) + udp
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip

frames = [udp_frame(datagram(1, flow_sample(1, 2, bytes(range(64))))),
          udp_frame(datagram(2, flow_sample(2, 1, bytes(range(10)))))]
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i, f in enumerate(frames):
    out += struct.pack("<IIII", 1 + i, 0, len(f), len(f)) + f
open(sys.argv[1], "wb").write(out)
PY
expect 0 "replay --sflow, headers that cannot run" "$FABPROBE" replay --sflow "$tmp/skipped.pcap"
check "... one line names each reason and its count" grep -qx \
	"fabprobe: replay: 2 frames skipped: 1 of another header protocol, 1 too short or too long to run (counted in totals.skipped_frames)" \
	"$tmp/err"
"$FABPROBE" replay --sflow --json "$tmp/skipped.pcap" >"$tmp/skipped.json" 2>/dev/null
check "... and in the JSON totals: 2 skipped, 1 of them another header protocol" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
sys.exit((t["sflow_datagrams"], t["skipped_frames"], t.get("sflow_skipped_protocol"),
          t.get("sflow_skipped_untracked"), t["frames"]) != (2, 2, 1, 0, 0))' "$tmp/skipped.json"
# Flow samples no agent sends: sampling rate 0, and a frame length near
# 4 GB. Refused and counted (not taken as rate 1, not run); the datagrams'
# sequence then jumps 2^30 ahead: a reset, not a billion datagrams lost.
python3 - "$tmp/badsamples.pcap" <<'PY'
import struct, sys

def flow_sample(seq, rate, frame_length):
    header = bytes(range(64))
    rec = struct.pack(">IIII", 1, frame_length, 4, len(header)) + header
    body = struct.pack(">IIIIIIII", seq, 49, rate, rate, 0, 49, 50, 1)
    body += struct.pack(">II", 1, len(rec)) + rec
    return struct.pack(">II", 1, len(body)) + body

def datagram(seq, sample):
    return struct.pack(">II4sIIII", 5, 1, bytes([192, 0, 2, 7]), 0, seq, 1000 + seq % 1000, 1) + sample

def udp_frame(payload):
    udp = struct.pack(">HHHH", 40000, 6343, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([192, 0, 2, 7]), bytes([192, 0, 2, 100])) + udp
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip

frames = [udp_frame(datagram(1, flow_sample(1, 0, 1500))),
          udp_frame(datagram(2, flow_sample(2, 1000, 0xFFFFFFF0))),
          udp_frame(datagram(2 + (1 << 30), flow_sample(3, 1000, 1500)))]
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i, f in enumerate(frames):
    out += struct.pack("<IIII", 1 + i, 0, len(f), len(f)) + f
open(sys.argv[1], "wb").write(out)
PY
"$FABPROBE" replay --sflow --json "$tmp/badsamples.pcap" >"$tmp/badsamples.json" 2>"$tmp/badsamples.err"
# Three notes before the one refresh: the one event line says all three.
check "replay --sflow: the one event line says both refused samples and the reset" \
	grep -qE "sampling rate 0, frame length 1500 refused.*; .*sampling rate 1000, frame length 4294967280 refused.*; .*sequence 1073741826 after 2, a restart or a reset, not loss" \
	"$tmp/badsamples.err"
check "replay --sflow: rate 0 and a 4 GB frame refused as malformed samples, a 2^30 jump a reset, not loss" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
got = (t["sflow_datagrams"], t.get("sflow_malformed_samples"), t["frames"],
       t["sflow_lost_datagrams"], t.get("sflow_sequence_resets"), t["skipped_frames"])
print(got)
sys.exit(got != (3, 2, 1, 0, 1, 0))' "$tmp/badsamples.json"
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
