#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Captures without Ethernet headers (raw IP, Linux cooked v1) are counted
# as their frames would be on Ethernet (README "What is counted"): the
# same capture re-written in each link type gives replay the same frames,
# RoCE packets and bytes, flow by flow, as the Ethernet original.
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/check.sh"
eq() { [ "$1" = "$2" ] || { echo "     '$1' != '$2'"; return 1; }; }

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
finish linktypes
