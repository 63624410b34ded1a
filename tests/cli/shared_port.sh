#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Queue pairs that share a UDP source port between two hosts (a NIC that
# fixes it): the reverse flows are told apart by their PSNs, through the
# BPF parser (ACK PSNs) and the analysis (docs/alerts.md, "Pairing a flow
# with its reverse direction"), on a crafted capture whose QPs the
# generator knows. QP 11's CE marks get no CNP back; QP 12's larger reverse
# carries CNPs and must not stand in for QP 11's.
set -u
. "$(dirname "$0")/../lib/cli.sh"

# shared.py OUT [QPS]: 2 QPs A->B on source port 50000, 300 WRITEs each, an
# ACK every 10th, QP 12's with a CNP each; with "one", QP 12's answers are
# missing; with "nopsn", every QP starts at PSN 0 (nothing tells them apart).
cat >"$tmp/shared.py" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
out, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
A, B, SPORT = "10.0.0.1", "10.0.1.1", 50000


def back(opcode, qp, psn, ext):
    """B's answer to A's QP qp: an ACK (AETH) or a CNP, from write_only's frame."""
    bth = struct.pack("!BBHI", opcode, 0, 0xFFFF, qp) + struct.pack("!I", psn)
    roce = bth + ext + b"\0\0\0\0"
    f = inject.write_only(B, A, SPORT, qp, psn)
    eth, ip = f[:14], bytearray(f[14:34])
    udp = struct.pack("!HHHH", SPORT, 4791, 8 + len(roce), 0) + roce
    ip[2:4] = struct.pack("!H", 20 + len(udp))
    ip[10:12] = b"\0\0"
    ip[10:12] = struct.pack("!H", inject.csum(bytes(ip)))
    return eth + bytes(ip) + udp


# (dest QP at B, its requester's QP at A, start PSN, CE-marked, CNPs back, answered)
qps = [(11, 21, 0x100000, True, False, True), (12, 22, 0x900000, True, True, mode != "one")]
frames = []
for n in range(300):
    for qp, back_qp, start, ce, cnp, answered in qps:
        psn = ((0 if mode == "nopsn" else start) + n) & 0xFFFFFF
        frames.append(inject.write_only(A, B, SPORT, qp, psn, ecn=3 if ce and n % 3 == 0 else 2))
        if answered and n % 10 == 9:
            frames.append(back(0x11, back_qp, psn, struct.pack("!I", 0x1F << 24 | n)))
            if cnp:
                frames.append(back(0x81, back_qp, 0, bytes(16)))
with open(out, "wb") as w:
    w.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        w.write(struct.pack("<IIII", 1700000000, n * 100, len(f), len(f)) + f)
PY

# alert FILE TYPE: the destination QPs the alert names, or "none".
alert() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
a = [a for a in r["alerts"] if a["type"] == sys.argv[2]]
print(" ".join(str(f["dest_qp"]) for f in a[0]["flows"]) if a else "none")' "$@"
}

python3 "$tmp/shared.py" "$tmp/two.pcap"
"$FABPROBE" replay --json "$tmp/two.pcap" >"$tmp/two.json" 2>"$tmp/err"
check "two QPs on one source port: replay exits 0" test $? -eq 0
check "... ce_without_cnp names QP 11, whose answers carry no CNP" \
	eq "$(alert "$tmp/two.json" ce_without_cnp)" 11
check "... and its evidence counts QP 11's answers (30 packets), not QP 12's (60)" \
	grep -q '30 packets' <(python3 -c 'import json, sys
print([a["evidence"] for a in json.load(open(sys.argv[1]))["alerts"] if a["type"] == "ce_without_cnp"])' "$tmp/two.json")
check "... the source port's low entropy is named" \
	eq "$(alert "$tmp/two.json" low_entropy)" 11

python3 "$tmp/shared.py" "$tmp/one.pcap" one
"$FABPROBE" replay --json "$tmp/one.pcap" >"$tmp/one.json" 2>"$tmp/err"
check "only QP 11's answers in view: ce_without_cnp names QP 11 alone (QP 12's reverse is not in view)" \
	eq "$(alert "$tmp/one.json" ce_without_cnp)" 11

python3 "$tmp/shared.py" "$tmp/nopsn.pcap" nopsn
"$FABPROBE" replay --json "$tmp/nopsn.pcap" >"$tmp/nopsn.json" 2>"$tmp/err"
check "QPs at the same PSNs cannot be told apart: no ce_without_cnp rather than a guess" \
	eq "$(alert "$tmp/nopsn.json" ce_without_cnp)" none

finish shared-port
