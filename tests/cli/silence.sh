#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A capture whose clock jumps (frames of a device without a clock beside
# ones with, captures taken far apart and merged) read as fast as it runs:
# capture and export read it to the end and see every frame, as replay
# does. They advanced its time a refresh at a time, empty refresh after
# empty refresh: a jump of 54 years never ended, and capture's series
# grew by a sample a second of it. timeout 60 only guards against that hang.
set -u
. "$(dirname "$0")/../lib/cli.sh"

# mkpcap OUT SEC[.USEC]...: a classic pcap of one WRITE Only per time given.
mkpcap() {
	python3 - "$@" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
out, times = sys.argv[1], sys.argv[2:]
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for psn, t in enumerate(times):
        sec, _, usec = t.partition(".")
        frame = inject.write_only("10.99.0.1", "10.99.0.2", 49999, 77, psn, payload=64)
        f.write(struct.pack("<IIII", int(sec), int(usec or 0), len(frame), len(frame)) + frame)
PY
}

# series FILE JQ: the expression over report.json's series.
series() { jq -r ".series | $2" "$1"; }

# From 1 s after the epoch to 2023 (1700000000 is 2023-11-14), by a frame's clock.
mkpcap "$tmp/jump.pcap" 1 1700000000 1700000000.001000
rm -rf "$tmp/b" && mkdir "$tmp/b"
timeout 60 "$FABPROBE" capture --pcap "$tmp/jump.pcap" -o "$tmp/jump.tar.gz" 2>"$tmp/err"
check "a jump of 54 years: capture --pcap reads to the end and exits 0" test $? -eq 0
tar -xzf "$tmp/jump.tar.gz" -C "$tmp/b" 2>/dev/null
check "a jump of 54 years: report.json counts the 3 frames" \
	eq "$(jq -r .totals.roce_packets "$tmp/b/report.json" 2>/dev/null)" 3
check "a jump of 54 years: the series ends with the capture (its last frame, 1699999999.001 s in)" \
	eq "$(series "$tmp/b/report.json" '.[-1].t' 2>/dev/null)" 1699999999.001
# The silence's first minute (from the first frame, at 0 s) is refreshed
# as usual, a sample a second; the whole seconds of it that remain pass in
# one sample, of nothing; the last second before the next frame is its own.
check "a jump of 54 years: a sample a second for the silence's first minute (1 to 60 s)" \
	eq "$(series "$tmp/b/report.json" '[.[] | select(.t < 60.5) | .t] | length' 2>/dev/null)" 60
check "a jump of 54 years: then one sample, of nothing, to the second before the next frame" \
	eq "$(series "$tmp/b/report.json" '[.[] | select(.t > 60.5 and .t < 1699999998.5)] | if length > 3 then "\(length) samples" else map([.t, .frames_per_s]) | tostring end' 2>/dev/null)" \
	'[[1699999998,0]]'
check "a jump of 54 years: 63 samples in all (it grew by one a second of the silence)" \
	eq "$(series "$tmp/b/report.json" length 2>/dev/null)" 63

# export, IPFIX alone: every frame goes out in its flow's records (the
# collector's view, summed, is replay's), and export says it read the capture.
port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 tests/ipfix/recv.py --udp 127.0.0.1 --port "$port" --out "$tmp/jump.ipfix" \
	--summary "$tmp/recv.json" &
recv=$!
for i in $(seq 50); do [ -n "$(ss -Hlun "sport = :$port")" ] && break; sleep 0.1; done
timeout 60 "$FABPROBE" export --pcap "$tmp/jump.pcap" --speed 0 --ipfix 127.0.0.1:"$port" \
	--listen none 2>"$tmp/err"
check "a jump of 54 years: export --ipfix reads to the end and exits 0" test $? -eq 0
check "a jump of 54 years: export says the capture has been read, 3 frames" \
	grep -q '^fabprobe: the capture has been read (3 frames)' "$tmp/err"
sleep 0.5
kill "$recv" && wait "$recv"
"$FABPROBE" replay --json "$tmp/jump.pcap" >"$tmp/truth.json" 2>/dev/null
check "the truth: replay sees the 3 frames in one flow" \
	eq "$(jq -c '[.flows[] | .packets]' "$tmp/truth.json")" '[3]'
check "a jump of 54 years: the IPFIX records carry the 3 frames, as replay counts them" \
	python3 tests/ipfix/ipfix_check.py ipfixdump "$tmp/jump.ipfix" -e docs/ipfix/fabprobe-elements.xml \
	--truth "$tmp/truth.json" >"$tmp/check.json"

# export with /metrics: its final picture (the whole capture) is served.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 60 "$FABPROBE" export --pcap "$tmp/jump.pcap" --speed 0 --listen 127.0.0.1:"$port" 2>"$tmp/err" &
exp=$!
for i in $(seq 600); do grep -q 'has been read' "$tmp/err" && break; sleep 0.1; done
curl -s http://127.0.0.1:"$port"/metrics >"$tmp/metrics"
check "a jump of 54 years: export --listen serves the whole capture's 3 RoCE frames" \
	grep -qx 'fabprobe_roce_frames_total 3' "$tmp/metrics"
kill "$exp" 2>/dev/null
wait "$exp" 2>/dev/null

# top --plain: a table a refresh, the jump's one table over all of it.
timeout 60 "$FABPROBE" top --plain --pcap "$tmp/jump.pcap" --speed 0 -r 1 >"$tmp/top" 2>"$tmp/err"
check "a jump of 54 years: top --plain reads to the end and exits 0" test $? -eq 0
check "a jump of 54 years: top --plain prints 63 tables, as capture's series has samples" \
	eq "$(grep -c '^fabprobe top: ' "$tmp/top")" 63
check "a jump of 54 years: the table of the jump is over all of it" \
	grep -q '^fabprobe top: .*, at 1699999998 s, every 1699999938.0 s$' "$tmp/top"

# Two uplinks' captures taken 30 days apart, merged: the same, and a silence
# under a minute (9 s of up1's own) stays a sample a second, as it was.
mkpcap "$tmp/up1.pcap" 1700000000 1700000010
mkpcap "$tmp/up2.pcap" $((1700000000 + 30 * 86400)).500000
rm -rf "$tmp/b" && mkdir "$tmp/b"
timeout 60 "$FABPROBE" capture --pcap up1="$tmp/up1.pcap" --pcap up2="$tmp/up2.pcap" \
	-o "$tmp/merged.tar.gz" 2>"$tmp/err"
check "captures 30 days apart, merged: capture exits 0" test $? -eq 0
tar -xzf "$tmp/merged.tar.gz" -C "$tmp/b" 2>/dev/null
check "captures 30 days apart: report.json counts the 3 frames" \
	eq "$(jq -r .totals.roce_packets "$tmp/b/report.json" 2>/dev/null)" 3
check "captures 30 days apart: 9 s without a frame, a sample each (1 to 10 s)" \
	eq "$(series "$tmp/b/report.json" '[.[] | select(.t < 10.5) | .t] | tostring' 2>/dev/null)" \
	'[1,2,3,4,5,6,7,8,9,10]'
check "captures 30 days apart: the series ends with the capture, 30 days and 0.5 s in" \
	eq "$(series "$tmp/b/report.json" '.[-1].t' 2>/dev/null)" $((30 * 86400)).5
# -d ends within a silence: the jump stops there.
rm -rf "$tmp/b" && mkdir "$tmp/b"
timeout 60 "$FABPROBE" capture --pcap "$tmp/jump.pcap" -d 3600 -o "$tmp/hour.tar.gz" 2>"$tmp/err"
check "-d 3600 within the silence: capture exits 0" test $? -eq 0
tar -xzf "$tmp/hour.tar.gz" -C "$tmp/b" 2>/dev/null
check "-d 3600 within the silence: the series ends at 3600 s, with the 1 frame before it" \
	eq "$(jq -c '[.series[-1].t, .totals.roce_packets]' "$tmp/b/report.json" 2>/dev/null)" '[3600,1]'

finish silence
