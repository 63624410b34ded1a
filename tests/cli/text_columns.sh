#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The text report's tables stay in columns whatever a path is called: a
# capture named on the command line, an sFlow port (192.0.2.1:swp49,
# [2001:db8::2]:swp49) or a mirror session can be longer than the PATH
# column's usual width, and every column after it must still line up under
# its title, in replay's report and in top --once's. So must the FLOW
# column's: an IPv6 endpoint runs past its usual 40 characters.
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
TOOLS=${TOOLS:-$(dirname "$FABPROBE")/tools}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/check.sh"

# aligned FILE: in the PATH and FLOW tables of the text report in FILE, each
# row has a value under every title: ending where a right-aligned title ends,
# starting where a left-aligned one starts. Also says how many rows it read.
aligned() {
	python3 - "$1" <<'PY'
import sys

LEFT = {"PATH", "GROUP", "LAST OPCODE"}
RIGHT_PATHS = ["FLOWS", "ELEPHANTS", "PACKETS", "BYTES", "RATE", "PORT OUT", "DISCARDS", "OPER"]
RIGHT_FLOWS = ["VNI", "QP", "RATE", "PACKETS", "BYTES", "CE", "CNP", "ACK", "NAK", "RTX", "GAPS"]
lines = open(sys.argv[1]).read().splitlines()
bad, rows = [], 0


def table(start, titles):
    global rows
    head = lines[start]
    for row in lines[start + 1:]:
        if not row or row.startswith(("group ", "imbalance", "... ")):
            return
        rows += 1
        for t in titles:
            if head.startswith(t + " "):
                at = 0
            elif t == titles[-1]:
                at = head.rfind(" " + t) + 1
            else:
                at = head.find(" " + t + " ") + 1
            if t in LEFT:
                ok = (at == 0 or row[at - 1] == " ") and row[at:at + 1] not in ("", " ")
            else:
                end = at + len(t)
                ok = row[end - 1:end] not in ("", " ") and row[end:end + 1] in ("", " ")
            if not ok:
                bad.append(f"{t!r} not in line in: {row}")


for i, line in enumerate(lines):
    if line.startswith("PATH "):
        table(i, ["PATH"] + (["GROUP"] if " GROUP " in line else []) +
              [t for t in RIGHT_PATHS if " " + t in line])
    elif line.startswith("FLOW (src:sport > dst)"):
        table(i, RIGHT_FLOWS[:2] + ["PATH"] + RIGHT_FLOWS[2:] + ["LAST OPCODE"])
for b in bad[:5]:
    print("     " + b)
print(f"     {rows} rows")
sys.exit(1 if bad or not rows else 0)
PY
}

long=leaf1-spine1-uplink-a
"$FABPROBE" replay --path "$long=$PCAPS/nccl_ring2_node0.pcap" \
	--path "${long%a}b=$PCAPS/nccl_ring2_node1.pcap" >"$tmp/replay.txt" 2>"$tmp/err"
check "replay --path with names past 16 characters: in columns" aligned "$tmp/replay.txt"
"$FABPROBE" top --once --pcap "$long=$PCAPS/nccl_ring2_node0.pcap" \
	--pcap "${long%a}b=$PCAPS/nccl_ring2_node1.pcap" >"$tmp/top.txt" 2>"$tmp/err"
check "top --once --pcap with names past 16 characters: in columns" aligned "$tmp/top.txt"
# sFlow ports named agent:port (no port map), an IPv6 agent's past 16 characters.
"$TOOLS/sflow_scenario" pcap "$tmp/sflow.pcap" "$tmp/expect.json" "$tmp/map" >/dev/null
"$FABPROBE" replay --sflow "$tmp/sflow.pcap" >"$tmp/sflow.txt" 2>"$tmp/err"
check "replay --sflow, ports as agent:port: in columns" aligned "$tmp/sflow.txt"
check "... the long names are there" grep -q "^\[2001:db8::2\]:swp49 " "$tmp/sflow.txt"
# IPv6 endpoints up to 87 characters wide, beside a short IPv6 and an IPv4 flow.
src6=2001:db8:1234:5678:9abc:def0:1234:5678 dst6=2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff
python3 - "$tmp/v6.pcap" "$src6" "$dst6" <<'PY'
import socket, struct, sys
sys.path.insert(0, "tests/lib")
import inject

path, src6, dst6 = sys.argv[1:4]
frames = []
for psn in range(3):
    frames.append(inject.write_only6(src6, dst6, 49152, 0x101, psn))
    frames.append(inject.write_only6(src6, "fd00::2", 1024, 0x102, psn))
    frames.append(inject.write_only6("fd00::1", "fd00::2", 49153, 0x103, psn))
    frames.append(inject.write_only("10.1.0.1", "10.2.0.1", 49154, 0x104, psn))
with open(path, "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, n, len(f), len(f)) + f)
PY
"$FABPROBE" replay "$tmp/v6.pcap" >"$tmp/v6.txt" 2>"$tmp/err"
check "replay, IPv6 endpoints past 40 characters: in columns" aligned "$tmp/v6.txt"
check "... the longest whole" grep -q "^\[$src6\]:49152 > $dst6 " "$tmp/v6.txt"
# As wide as the longest flow and no wider: its padding, one space, then VNI's six.
longest="[$src6]:49152 > $dst6"
check "... the FLOW column as wide as it" \
	grep -qE "^FLOW \(src:sport > dst\) {$((${#longest} - 22))}    VNI " "$tmp/v6.txt"
"$FABPROBE" top --once --pcap "$tmp/v6.pcap" >"$tmp/v6top.txt" 2>"$tmp/err"
check "top --once --pcap, IPv6 endpoints: in columns" aligned "$tmp/v6top.txt"
# Short names keep the widths the report always had.
"$FABPROBE" replay "$PCAPS/rdma_write_bw.pcap" >"$tmp/short.txt" 2>"$tmp/err"
check "short names: in columns" aligned "$tmp/short.txt"
check "... at the usual widths" grep -q "^FLOW (src:sport > dst)  *VNI  *QP PATH          RATE " "$tmp/short.txt"
finish text-columns
