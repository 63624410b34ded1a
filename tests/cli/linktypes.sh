#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Captures without Ethernet headers (raw IP, Linux cooked v1) are counted
# as their frames would be on Ethernet (README "What is counted"): the
# same capture re-written in each link type gives replay the same frames,
# RoCE packets and bytes, flow by flow, as the Ethernet original.
set -u
. "$(dirname "$0")/../lib/cli.sh"

src=$PCAPS/rdma_write_bw.pcap
# The original's frames without their Ethernet header (101, LINKTYPE_RAW) and with a
# 16-byte Linux cooked header in its place (113, LINKTYPE_LINUX_SLL).
python3 - "$src" "$tmp" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic, vmaj, vmin, tz, sig, snap, lt = struct.unpack("<IHHiIII", d[:24])
assert magic == 0xa1b2c3d4 and lt == 1, (hex(magic), lt)
out = {101: open(sys.argv[2] + "/raw.pcap", "wb"), 113: open(sys.argv[2] + "/sll.pcap", "wb")}
for t, f in out.items():
    f.write(struct.pack("<IHHiIII", magic, vmaj, vmin, tz, sig, snap, t))
off = 24
while off < len(d):
    s, us, incl, orig = struct.unpack("<IIII", d[off:off + 16])
    frame = d[off + 16:off + 16 + incl]
    off += 16 + incl
    body, proto = frame[14:], frame[12:14]
    sll = struct.pack("!HHH", 0, 1, 6) + frame[6:12] + b"\0\0" + proto
    for t, new in ((101, body), (113, sll + body)):
        grow = len(new) - incl
        out[t].write(struct.pack("<IIII", s, us, len(new), orig + grow) + new)
PY
summary() {
	"$FABPROBE" replay --json "$1" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["totals"]
print(t["frames"], t["roce_packets"], t["bytes"],
      sorted((f["sport"], f["dest_qp"], f["packets"], f["bytes"]) for f in r["flows"]))'
}
want=$(summary "$src")
check "the Ethernet original replays ($want)" test -n "$want"
for lt in raw sll; do
	check "$lt: the same frames, RoCE packets and bytes, flow by flow" eq "$(summary "$tmp/$lt.pcap")" "$want"
done
# Compressed with gzip, as captures are kept and sent (tshark reads them as
# they are): the same report as the original; cut short, what was read and
# exit 3, as for a capture cut short.
gzip -c "$src" >"$tmp/write.pcap.gz"
check "gzip: the same frames, RoCE packets and bytes, flow by flow" \
	eq "$(summary "$tmp/write.pcap.gz")" "$want"
head -c 2000 "$tmp/write.pcap.gz" >"$tmp/cut.pcap.gz"
"$FABPROBE" replay "$tmp/cut.pcap.gz" >"$tmp/cut.out" 2>"$tmp/cut.err"
check "gzip cut short: exit 3" eq "$?" 3
check "... one line saying so" eq "$(grep -c 'cut short or corrupt after frame' "$tmp/cut.err")/$(wc -l <"$tmp/cut.err")" 1/1
# Cut only in its trailer (CRC and length): every record whole, but the
# stream is not, and zlib cannot vouch for what it gave (it said "ended").
head -c $(($(stat -c %s "$tmp/write.pcap.gz") - 8)) "$tmp/write.pcap.gz" >"$tmp/notrailer.pcap.gz"
"$FABPROBE" replay "$tmp/notrailer.pcap.gz" >/dev/null 2>"$tmp/cut.err"
check "gzip without its trailer: exit 3" eq "$?" 3
check "... saying the capture is cut short" grep -q 'cut short or corrupt after frame' "$tmp/cut.err"

# The same frames dated after 2038 (classic pcap seconds are unsigned 32
# bits, which libpcap widens as signed), and as a pcapng whose second
# interface is raw IP (one libpcap cannot read on: said as such, not as
# corruption).
python3 - "$src" "$tmp" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
late = bytearray(d[:24])
off = 24
frames = []
while off < len(d):
    s, us, incl, orig = struct.unpack("<IIII", d[off:off + 16])
    frames.append((us, d[off + 16:off + 16 + incl], orig))
    late += struct.pack("<IIII", 0xF0000000 + (s & 0xFF), us, incl, orig) + d[off + 16:off + 16 + incl]
    off += 16 + incl
open(sys.argv[2] + "/late.pcap", "wb").write(late)

def block(t, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", t, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
ng = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
ng += block(1, struct.pack("<HHI", 1, 0, 65535))
ng += block(1, struct.pack("<HHI", 101, 0, 65535))
for us, frame, orig in frames[:2]:
    ng += block(6, struct.pack("<IIIII", 0, 0, us, len(frame), orig) + frame)
open(sys.argv[2] + "/two_types.pcapng", "wb").write(ng)

# The frames in reverse order: the capture's time steps back at every frame.
rev = bytearray(d[:24])
off, recs = 24, []
while off < len(d):
    incl = struct.unpack("<I", d[off + 8:off + 12])[0]
    recs.append(d[off:off + 16 + incl])
    off += 16 + incl
for r in reversed(recs):
    rev += r
open(sys.argv[2] + "/reversed.pcap", "wb").write(rev)
PY
first=$("$FABPROBE" replay --json "$tmp/late.pcap" 2>/dev/null |
	python3 -c 'import json,sys; print(min(f["first_seen"] for f in json.load(sys.stdin)["flows"]))')
check "after 2038: times past 2^31 s, not negative ($first)" \
	python3 -c "import sys; sys.exit(not float('$first') >= 0xF0000000)"
"$FABPROBE" replay "$tmp/two_types.pcapng" >/dev/null 2>"$tmp/two.err"
check "a pcapng of two link types: exit 3 (the frames before are reported)" eq "$?" 3
check "... said as what libpcap cannot read, not as corruption" \
	grep -q "an interface of another link type starts, which libpcap cannot read in one file" "$tmp/two.err"
span() {
	"$FABPROBE" replay --json "$1" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r["interval_s"], sorted((f["sport"], f["dest_qp"], f["first_seen"], f["last_seen"]) for f in r["flows"]))'
}
want=$(span "$src")
check "time stepping back: the span and each flow's first and last packet as in order" \
	eq "$(span "$tmp/reversed.pcap")" "$want"
finish linktypes
