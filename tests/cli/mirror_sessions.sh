#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Mirror sessions as paths in replay (docs/mirror.md, "Userspace"), on
# crafted ERSPAN III captures whose queue pairs and copies the generator
# knows: one session copying a QP at ingress and at egress is two flows on
# one path, and one QP, which never collides with itself; a path's name
# is its own; a capture of copies alone is the collector's link; a bundle
# of copies that carried no RoCE says why.
set -u
. "$(dirname "$0")/../lib/cli.sh"

# mirror.py OUT COPIES...: 200 WRITEs per QP, 1 ms apart; a copy is
# QP:SESSION:ingress|egress[:PAYLOAD] (1024 bytes, else), each QP at 10.0.0.QP.
cat >"$tmp/mirror.py" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
out, copies = sys.argv[1], [(c + ":1024").split(":")[:4] for c in sys.argv[2:]]
frames = []
for psn in range(200):
    for qp, session, point, payload in copies:
        f = inject.write_only(f"10.0.0.{qp}", "10.0.1.1", 50000 + int(qp), int(qp), psn,
                              payload=int(payload))
        frames.append(inject.erspan3(f, int(session), len(frames), "192.0.2.1", "192.0.2.100",
                                     point == "ingress"))
with open(out, "wb") as w:
    w.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        w.write(struct.pack("<IIII", 1700000000, n * 1000 // len(copies), len(f), len(f)) + f)
PY

# report FILE PYTHON-EXPR: the expression over the JSON report r, printed.
report() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}
path_of() { # report, path name: its "flows elephants" (copies)
	report "$1" "' '.join(str(p[k]) for p in r['paths'] if p['name'] == '$2' for k in ('flows', 'elephants'))"
}
alerts() { report "$1" "' '.join(a['type'] for a in r['alerts'])"; }

# One elephant QP copied at both points of session 5, a mouse in session 6.
python3 "$tmp/mirror.py" "$tmp/one.pcap" 1:5:ingress 1:5:egress 2:6:ingress:16
"$FABPROBE" replay --json "$tmp/one.pcap" >"$tmp/one.json" 2>"$tmp/err"
check "one QP at ingress and egress: replay exits 0" test $? -eq 0
check "one QP at ingress and egress: two flows on erspan:5, both elephants (copies)" \
	eq "$(path_of "$tmp/one.json" erspan:5)" "2 2"
check "one QP at ingress and egress: no elephant_collision" \
	eq "$(alerts "$tmp/one.json" | grep -c elephant_collision)" 0

# The text report's rows of the two copies were alike: each says its point.
"$FABPROBE" replay "$tmp/one.pcap" >"$tmp/one.txt" 2>"$tmp/err"
check "the text rows of QP 1 say where each was copied" \
	eq "$(grep -E '^10\.0\.0\.1:50001 ' "$tmp/one.txt" | grep -oE '\[copied at [a-z]+\]$' | sort | tr '\n' ' ')" \
	"[copied at egress] [copied at ingress] "

check "the PATH table says a session's counts are of copies" \
	grep -q '^mirror sessions count copies: a packet a session copies at two points' "$tmp/one.txt"
"$FABPROBE" replay --path "up1=$PCAPS/rdma_write_bw.pcap" >"$tmp/bare.txt" 2>"$tmp/err"
check "... and a table of no session does not" eq "$(grep -c '^mirror sessions count copies' "$tmp/bare.txt")" 0

# Two such QPs do collide: counted, and named, each once.
python3 "$tmp/mirror.py" "$tmp/two.pcap" 1:5:ingress 1:5:egress 3:5:ingress 3:5:egress 2:6:ingress:16
"$FABPROBE" replay --json "$tmp/two.pcap" >"$tmp/two.json" 2>"$tmp/err"
check "two QPs at ingress and egress: 2 elephant flows share erspan:5, 2 named" \
	eq "$(report "$tmp/two.json" "[(a['message'].split(' while')[0], len(a['flows'])) for a in r['alerts'] if a['type'] == 'elephant_collision']")" \
	"[('2 elephant flows share mirror session erspan:5', 2)]"

# The sessions are one balance group by design, but mirrored switch ports,
# not one host's ECMP uplinks: the bundle's findings and what to check
# next say so (they said "uplink erspan:5 ... the ECMP group is out of
# balance" and "Compare the uplinks' hashing").
rm -rf "$tmp/twob" && mkdir "$tmp/twob"
"$FABPROBE" capture --pcap "$tmp/two.pcap" -o "$tmp/two.tar.gz" 2>/dev/null &&
	tar -xzf "$tmp/two.tar.gz" -C "$tmp/twob"
check "sessions out of balance: the finding names a mirror session, not an uplink" \
	grep -q '^2\. \[warning\] path_imbalance: mirror session erspan:5 carries 1\.96x the sessions. mean: the mirrored ports. loads differ (if they are one ECMP group.s members, its hashing is uneven)$' "$tmp/twob/summary.txt"
check "sessions: check next asks which ports they mirror, never the uplinks' hashing" \
	sh -c "[ \$(grep -c '^   check next: Find which switch ports the sessions mirror: if they are one ECMP group' '$tmp/twob/summary.txt') -eq 2 ] &&
	       ! grep -qE 'uplink erspan|the uplinks. hashing|ECMP group is out of balance' '$tmp/twob/summary.txt'"

# A capture of session 5's copies beside a bare one named erspan:5: the
# automatic name takes its switch.
python3 "$tmp/mirror.py" "$tmp/copies.pcap" 1:5:ingress
"$FABPROBE" replay --json --path "erspan:5=$PCAPS/rdma_write_bw.pcap" --path "collector=$tmp/copies.pcap" \
	>"$tmp/names.json" 2>"$tmp/err"
check "--path erspan:5 beside session 5: the session is erspan:5@192.0.2.1" \
	eq "$(report "$tmp/names.json" "[p['name'] for p in r['paths']]")" \
	"['erspan:5', 'collector', 'erspan:5@192.0.2.1']"
# The capture of copies alone is the collector's link: no uplink of the
# group (its flows are erspan:5's), so not weighed in the balance.
"$FABPROBE" replay --json --path "up1=$PCAPS/rdma_write_bw.pcap" --path "collector=$tmp/copies.pcap" \
	>"$tmp/coll.json" 2>"$tmp/err"
check "--path of copies alone: out of the group, which is up1 and erspan:5" \
	eq "$(report "$tmp/coll.json" "([p['flows'] for p in r['paths'] if p['name'] == 'collector'], [g['paths'] for g in r['groups']])")" \
	"([0], [['up1', 'erspan:5']])"

# A bundle from a mirror feed that brought no RoCE says why (it said RoCE
# offloaded to a NIC is unseen, "see switch mirrors", and "--uplinks"): the
# switch truncated its copies before the BTH, or copied no RoCE at all.
cat >"$tmp/nobth.py" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
out, cut, dport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(out, "wb") as w:
    w.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n in range(40):
        f = inject.write_only6("fd00::1", "fd00::2", 50000, 17, n)[:cut]
        f = f[:56] + struct.pack("!H", dport) + f[58:]
        f = inject.erspan3(f, 5, n, "192.0.2.1", "192.0.2.100")
        w.write(struct.pack("<IIII", 1700000000, n * 1000, len(f), len(f)) + f)
PY
python3 "$tmp/nobth.py" "$tmp/cut.pcap" 64 4791
python3 "$tmp/nobth.py" "$tmp/udp.pcap" 200 5000
for c in cut udp; do
	rm -rf "$tmp/$c" && mkdir "$tmp/$c"
	"$FABPROBE" capture --pcap "$tmp/$c.pcap" -o "$tmp/$c.tar.gz" 2>/dev/null
	tar -xzf "$tmp/$c.tar.gz" -C "$tmp/$c"
done
check "copies cut before the BTH: the findings count them" \
	grep -qx 'FINDINGS: none, as nothing was observed: no RoCE traffic: 40 frames from .*cut.pcap (40 of them switch mirror copies), none of them RoCEv2 with a whole BTH: 40 cut short before it.' "$tmp/cut/summary.txt"
check "copies cut before the BTH: the hint is the mirror's truncation, not a NIC's offload" \
	sh -c "grep -q 'a switch mirror session that truncates its copies' '$tmp/cut/summary.txt' &&
	       ! grep -q 'offloaded' '$tmp/cut/summary.txt'"
check "copies of no RoCE: the hint is what the sessions copy" \
	sh -c "grep -qx 'FINDINGS: none, as nothing was observed: no RoCE traffic: 40 frames from .*udp.pcap (40 of them switch mirror copies), none of them RoCEv2.' '$tmp/udp/summary.txt' &&
	       grep -q 'Switch mirror copies (ERSPAN or GRE, decapsulated here) arrived, but none carried RoCEv2' '$tmp/udp/summary.txt'"
check "copies of no RoCE: no advice to name uplink captures" \
	sh -c "grep -qx 'PATHS: none: each switch mirror session is a path once its copies carry RoCE with a whole BTH, and none did' '$tmp/udp/summary.txt' &&
	       grep -q 'each switch mirror session is a path once its copies carry RoCE' '$tmp/udp/report.html'"

# Given names are refused against each other before the run (bad_input.sh
# has the rest).
"$FABPROBE" top --plain --mirror-session 5=collector --pcap "collector=$tmp/copies.pcap" \
	>/dev/null 2>"$tmp/err"
check "a --mirror-session NAME that a --pcap has: exit 2, one line" \
	eq "$? $(wc -l <"$tmp/err")" "2 1"

finish mirror-sessions
