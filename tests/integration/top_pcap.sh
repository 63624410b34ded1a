#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `fabprobe top --pcap`: the dashboard over a recording, driven through
# tmux. Ground truth is `fabprobe replay --json` of the same capture (the
# same BPF program run over the file, no dashboard) and tshark's count of
# the capture's RoCE packets: the flows, their QPs, addresses, packets
# and bytes must be what the dashboard shows. Checks the header says it
# is a capture (file, pace, capture time, end of capture), that keys work
# while it plays and after it ended, --view, and that q exits 0.
# TOP_TMUX_SHOW=1 prints every captured screen.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PCAPS=${PCAPS:-$TOP/../shared/pcaps}
PCAP=$PCAPS/nccl_nccl_node0.pcap
NAME=$(basename "$PCAP")
TMP=$(mktemp -d /tmp/fp-top-pcap-XXXXXX)
SOCK=fpt-pcap-$$
SESSION=pcap
. "$(dirname "$0")/tmux.bash"
trap 'tmx_gone; rm -rf "$TMP"' EXIT
flow_rows() { screen | grep -E '^[0-9a-f.:]+ > [0-9a-f.:]+ '; }


# Ground truth: replay's flows ("src dst sport qp packets bytes"), and tshark's RoCE count.
"$FABPROBE" replay --json "$PCAP" >"$TMP/replay.json" 2>/dev/null || {
	echo "replay of $PCAP failed"
	exit 1
}
python3 - "$TMP/replay.json" >"$TMP/flows" <<'EOF'
import json, sys

def si(value, unit):
    # util/format.c fmt_si: three significant digits and an SI prefix
    prefix, i, v = ["", "k", "M", "G", "T", "P"], 0, abs(value)
    while v >= 999.95 and i < 5:
        v /= 1000.0; value /= 1000.0; i += 1
    if i == 0 and value == int(value):
        return "%.0f %s" % (value, unit)
    return "%.*f %s%s" % (2 if v < 9.995 else 1 if v < 99.95 else 0, value, prefix[i], unit)

r = json.load(open(sys.argv[1]))
for f in r["flows"]:
    print(f["src"], f["dst"], f["sport"], f["dest_qp"], f["packets"], si(f["bytes"], "B"))
EOF
n_flows=$(grep -c . "$TMP/flows")
roce=$(tshark -r "$PCAP" -Y 'udp.dstport == 4791' 2>/dev/null | grep -c .)
replay_roce=$(python3 -c 'import json,sys; print(sum(f["packets"] for f in json.load(open(sys.argv[1]))["flows"]))' "$TMP/replay.json")
echo "replay: $n_flows flows, $replay_roce RoCE packets; tshark: $roce"
check "replay and tshark agree on the RoCE packets ($roce)" eq "$replay_roce" "$roce"

echo "--- --speed 0, 160x50: the whole capture at once"
start 160 50 --pcap "$PCAP" --speed 0
check "the end of the capture is shown" wait_screen "end of capture at [0-9]+s" 20
check "... with no cpu figure, which would be the last refresh's" \
	bash -c "! grep -q ' cpu [0-9]' <<<'$(screen | head -1)'"
sleep 0.5
maybe_show "end of capture, 160x50"
check "the header names the capture and its pace" \
	wait_screen "^fabprobe top .*$NAME \[capture, as fast as it reads\]" 1
check "the header says rates are over the whole capture" \
	wait_screen "rates: whole capture \([0-9.]+ ?s( from the first RoCE)?\)" 1
check "flow count as replay ($n_flows)" wait_screen "^flows $n_flows/[0-9]+\+[0-9]+ " 1
check "as many rows as replay has flows" eq "$(flow_rows | grep -c .)" "$n_flows"
while read -r src dst sport qp packets bytes; do
	row=$(flow_rows | grep -E "^${src//./\\.} > ${dst//./\\.} +$sport ")
	check "flow $src > $dst sport $sport: QP $qp, $bytes" \
		matches "$row" "^${src//./\\.} > ${dst//./\\.} +$sport +(- +)?$qp +- .* ${bytes} "
done <"$TMP/flows"
check "QP 29 and the 172.30.0.x addresses are on screen" \
	matches "$(flow_rows)" "^172\.30\.0\.[0-9]+ > 172\.30\.0\.[0-9]+ +[0-9]+ +(- +)?29 "
read -r src dst sport qp packets bytes < <(grep ' 29 ' "$TMP/flows" | head -1)
type_filter "$src qp=$qp"
check "keys work after the end: the filter keeps one flow" eq "$(flow_rows | grep -c .)" 1
keys Enter
maybe_show "detail"
check "the detail counts replay's packets ($packets)" \
	wait_screen "^since seen +$packets packets, $bytes " 2
check "the detail names the window of its rates" wait_screen "^rate .*\(whole capture" 1
keys Escape
keys Escape
keys 5
check "Alerts: the capture's alerts are listed" wait_screen "^(CRITICAL|WARNING|INFO) +[a-z_]+ +x[0-9]+" 2
alerts=$(screen | sed -n 4p | grep -oE 'Alerts\([0-9]+\)' | tr -dc 0-9)
check "Alerts tab count ($alerts) = active entries listed" \
	eq "$(screen | grep -cE '^(CRITICAL|WARNING|INFO) .* active *$')" "${alerts:-0}"
# The capture's last seconds are silent: the whole capture's alerts hold, not the last slice's.
check "... = replay's alerts over the whole capture" \
	eq "${alerts:-0}" "$(jq '.alerts | length' "$TMP/replay.json")"
check "q exits 0" eq "$(quit_rc)" 0

echo "--- --speed 20, 80x24: keys while it plays"
start 80 24 --pcap "$PCAP" --speed 20 --view qps
check "--view qps opens on QPs" wait_screen "^QUEUE PAIR" 3
check "while playing the header shows the capture time" wait_screen "capture time [0-9]+s" 3
check "... and the pace" wait_screen "^fabprobe top $NAME \[capture at 20x\]" 1
keys 1
check "a key while playing: 1 shows Flows" wait_screen "^FLOW \(src > dst\)" 1
check "the flows appear" wait_screen "^172\.30\.0\.[0-9]+ > 172\.30\.0\.[0-9]+ " 5
check "the capture ends (56 s at 20x)" wait_screen "end of capture at [0-9]+s" 10
sleep 0.5
small=$(screen)
maybe_show "ended, 80x24"
check "80x24: the per-second line keeps malformed" matches "$small" "^per s: .* malformed [0-9]"
check "80x24: nothing wider than 80 columns" test "$(widest "$small")" -le 80
check "80x24: a legend line" matches "$(tail -2 <<<"$small" | head -1)" "E elephant C collision"
check "Flows sorts, and its status line offers s" matches "$(screen | tail -1)" " s sort "
keys 2
check "a key after the end: 2 shows Paths" wait_screen "^PATH +SPEED +LOAD" 1
check "Paths sorts nothing, and offers no sort key" \
	bash -c "! grep -q ' s sort ' <<<'$(screen | tail -1)'"
keys h
check "h: help, written from the key table" wait_screen "^ 1-6 F P Q V A N +Flows, Paths, QPs" 1
keys x
check "q exits 0 after the end" eq "$(quit_rc)" 0
check "nothing on stderr" eq "$(cat "$TMP/top.err")" ""

echo "--- --speed 5: p holds the capture's clock"
# The pace restarts where the capture stood: a pause of 4 s of wall time is
# not caught up afterwards (it was: 20 s of capture at once).
ctime() { screen | grep -oE 'capture time [0-9]+s' | grep -oE '[0-9]+'; }
start 160 50 --pcap "$PCAP" --speed 5
check "playing" wait_screen "capture time [1-9][0-9]*s" 5
keys p
check "p pauses" wait_screen "PAUSED" 1
t1=$(ctime)
sleep 4
check "paused, the capture time holds ($t1 s)" eq "$(ctime)" "$t1"
keys p
sleep 0.6
t2=$(ctime)
check "after p again it goes on from there ($t1 -> $t2 s, not +20)" \
	test "${t2:-99}" -ge "${t1:-0}" -a "${t2:-99}" -le $((${t1:-0} + 12))
check "q exits 0" eq "$(quit_rc)" 0

echo "--- --plain: the last block is the whole capture"
"$FABPROBE" top --pcap "$PCAP" --speed 0 --plain -r 20 >"$TMP/plain.txt" 2>&1
check "--plain over a capture exits 0" eq "$?" 0
last=$(awk '/^fabprobe top: /{b=""} {b=b $0 "\n"} END{printf "%s", b}' "$TMP/plain.txt")
check "its last block: rates over the whole capture" matches "$last" "^RATE: over the (whole [0-9]+s|[0-9]+s from the first RoCE packet)"
check "... and its header says so (was 'every 20.0 s')" \
	matches "$last" "^fabprobe top: .*ended\), at [0-9]+(\.[0-9])? s, over the whole [0-9.]+ s( \(flow rates: the [0-9.]+ ?s from the first RoCE packet\))?$"
check "... its rates too (was 'last 20.0 s')" matches "$last" "^per second \(over the whole [0-9.]+ s\):"
check "... with replay's alerts ($(jq '.alerts | length' "$TMP/replay.json"))" \
	eq "$(grep -cE '^  (critical|warning|info) ' <<<"$last")" "$(jq '.alerts | length' "$TMP/replay.json")"
# -d counts the capture's time here (--speed 0): 2 s, 2 s, then the last 1 s.
"$FABPROBE" top --pcap "$PCAP" --speed 0 --plain -r 2 -d 5 >"$TMP/d5.txt" 2>&1
check "--plain -d 5 -r 2 ends at 5 s, not at the next whole interval (6 s)" \
	eq "$(grep '^fabprobe top: ' "$TMP/d5.txt" | grep -oE 'at [0-9]+ s' | tr '\n' ' ')" "at 2 s at 4 s at 5 s "

echo "--- --sflow: the title is the listener, not the sampled ports"
port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start 160 30 --sflow "127.0.0.1:$port" -r 0.5
check "the dashboard listens" wait_screen 'sFlow listener' 
# The datagrams of tcpdump's sFlow captures (Ethernet, IPv4, UDP), sent to the listener.
python3 - "$port" "$PCAPS/ext/sflow_expanded.pcap" "$PCAPS/ext/sflow_multiple_counter_30_pdus.pcap" <<'EOF2'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for path in sys.argv[2:]:
    d = open(path, "rb").read()
    off = 24
    while off + 16 <= len(d):
        incl = struct.unpack("<I", d[off + 8:off + 12])[0]
        f = d[off + 16:off + 16 + incl]
        off += 16 + incl
        ihl = (f[14] & 15) * 4
        if f[12:14] == b"\x08\x00" and f[23] == 17:
            s.sendto(f[14 + ihl + 8:], ("127.0.0.1", int(sys.argv[1])))
EOF2
sleep 1.5
check "--sflow: the title names the listener once samples arrived (it showed the sampled ports)" \
	matches "$(screen | head -1)" "sFlow on 127.0.0.1:$port \[sFlow listener, [1-9][0-9]* agents?\]"
keys 2
check "... the sampled ports are in the Paths view" wait_screen "^PATH" 3
check "q exits 0" eq "$(quit_rc)" 0

echo "--- --view"
"$FABPROBE" top --pcap "$PCAP" --view nope >/dev/null 2>"$TMP/view.err"
check "--view with an unknown name is a usage error (2)" eq "$?" 2
check "... that lists the views" matches "$(cat "$TMP/view.err")" "flows\|paths\|qps\|vnis\|alerts"

echo "--- QPs: a READ's requester on the left"
# rdma_read_bw.pcap: 10.1.16.62 reads from 10.1.16.61 (requests to QP 28,
# responses back to QP 30; tshark agrees). The responses are data too, and
# the larger flow: the row must still put the requester first.
READ=$PCAPS/rdma_read_bw.pcap
start 160 30 --pcap "$READ" --speed 0 --view qps
check "the READ capture ends" wait_screen "end of capture at [0-9]+s" 20
check "the requester first, its requests' QP, the responses' QP as PEER" \
	wait_screen "^10\.1\.16\.62 > 10\.1\.16\.61 +- +28 +30 " 1
maybe_show "READ, QPs"
check "... and no row the other way round" \
	not_matches "$(screen)" "^10\.1\.16\.61 > 10\.1\.16\.62 "
keys q
check "q exits 0" eq "$(quit_rc)" 0

echo "--- QPs: a READ's CE marks are on its responses, the payload"
# 10.97.0.2 reads from 10.97.0.1: requests to QP 40, responses (CE-marked,
# DSCP 26) back to QP 41. The row is the requester's; its CE% the responses'.
python3 - "$TMP/read_ce.pcap" <<'PY'
import socket, struct, sys
sys.path.insert(0, "tests/lib")
import inject
def frame(src, dst, opcode, qp, psn, ext, tos):
    bth = struct.pack("!BBHI", opcode, 0, 0xFFFF, qp) + struct.pack("!I", 0x80000000 | psn)
    roce = bth + ext + b"\0\0\0\0"
    udp = struct.pack("!HHHH", 49990, 4791, 8 + len(roce), 0) + roce
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + inject.ipv4(src, dst, 17, udp, tos)
recs = []
for i in range(4):
    req = frame("10.97.0.2", "10.97.0.1", 0x0C, 40, i, struct.pack("!QII", 0x1000, 0x1234, 1024), 26 << 2 | 2)
    resp = frame("10.97.0.1", "10.97.0.2", 0x10, 41, i, struct.pack("!I", i) + bytes(1024), 26 << 2 | 3)
    for j, f in enumerate((req, resp)):
        recs.append(struct.pack("<IIII", 1700000000, i * 1000 + j, len(f), len(f)) + f)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))
PY
start 160 30 --pcap "$TMP/read_ce.pcap" --speed 0 --view qps
check "the READ row: requester first, CE% 100 (its responses')" \
	wait_screen "^10\\.97\\.0\\.2 > 10\\.97\\.0\\.1 +- +40 +41 .* 100% " 20
maybe_show "READ with CE, QPs"
keys q
check "q exits 0" eq "$(quit_rc)" 0

echo "--- --speed 0 over a clock that jumps 54 years: the dashboard steps over the silence"
python3 - "$TMP/jump.pcap" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for psn, (sec, usec) in enumerate([(1, 0), (1700000000, 0), (1700000000, 1000)]):
        frame = inject.write_only("10.99.0.1", "10.99.0.2", 49999, 77, psn)
        f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)
PY
start 160 30 --pcap "$TMP/jump.pcap" --speed 0
check "it reaches the end of the capture (a refresh a second would take years)" \
	wait_screen "end of capture at 19675d" 20
keys q
check "q exits 0" eq "$(quit_rc)" 0

finish top-pcap
