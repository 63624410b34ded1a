#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A bundle from a capture (capture --pcap): complete, and its samples.pcapng
# opens cleanly in tshark (no Malformed RoCE: whole frames, up to a 4 KB
# RoCE MTU), with the flows that raised alerts and nothing else.
set -u
. "$(dirname "$0")/../lib/cli.sh"

# A frame of a 4 KB RoCE MTU (4096-byte WRITE payload) in the wrong traffic
# class (DSCP 0), so that its flow raises an alert and is sampled.
python3 - "$tmp/big.pcap" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
frames = [inject.write_only("10.99.0.1", "10.99.0.2", 49999, 77, psn, payload=4096) for psn in range(3)]
frames = [f[:15] + b"\x02" + f[16:] for f in frames]  # DSCP 0, ECT(0)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, i, len(f), len(f)) + f)
PY

for f in "$PCAPS"/nccl_nccl_node0.pcap "$PCAPS"/rdma_write_bw.pcap "$PCAPS"/pingpong_ud.pcap "$tmp/big.pcap"; do
	name=$(basename "$f")
	rm -rf "$tmp/b" && mkdir "$tmp/b"
	"$FABPROBE" capture --pcap "$f" -o "$tmp/$name.tar.gz" 2>"$tmp/err"
	check "$name: capture --pcap exits 0" test $? -eq 0
	tar -xzf "$tmp/$name.tar.gz" -C "$tmp/b"
	check "$name: the bundle holds all five files" test -s "$tmp/b/report.json" -a -s "$tmp/b/summary.txt" \
		-a -s "$tmp/b/report.html" -a -s "$tmp/b/samples.pcapng" -a -s "$tmp/b/host.txt"
	tshark -n -r "$tmp/b/samples.pcapng" >"$tmp/t" 2>/dev/null
	check "$name: tshark shows sampled RoCE packets" grep -q RRoCE "$tmp/t"
	check "$name: none of them Malformed" test "$(grep -c Malformed "$tmp/t")" -eq 0
	check "$name: every sample is the whole frame" \
		test -z "$(tshark -r "$tmp/b/samples.pcapng" -T fields -e frame.len -e frame.cap_len 2>/dev/null | awk '$1 != $2')"
done
check "big.pcap: the 4 KB frames are sampled whole (4170 B)" \
	test "$(tshark -r "$tmp/b/samples.pcapng" -T fields -e frame.cap_len 2>/dev/null | sort -u)" = 4170

# No RoCE, so no sample: samples.pcapng still opens in tcpdump (libpcap wants an interface).
tshark -r "$PCAPS/nccl_nccl_node0.pcap" -Y '!infiniband' -c 5 -w "$tmp/noroce.pcap" -F pcap 2>/dev/null
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/noroce.pcap" -o "$tmp/noroce.tar.gz" 2>/dev/null
tar -xzf "$tmp/noroce.tar.gz" -C "$tmp/b"
check "a bundle without samples: its samples.pcapng opens in tcpdump" \
	tcpdump -r "$tmp/b/samples.pcapng" -w /dev/null -Z root
# Nothing observed is no clean bill of health (it said "nothing wrong was
# seen"): the findings say what was not seen and point at the README's
# section on where RoCE can be seen; so do report.html and stderr.
readme_section='Where fabprobe can see RoCE, and where it cannot'
grep -q "^## $readme_section\$" README.md
check "the README has the section the bundles point at" test $? -eq 0
check "no RoCE: summary.txt says none was seen, not that nothing was wrong" \
	sh -c "grep -qx 'FINDINGS: none, as nothing was observed: no RoCE traffic: 5 frames from .*noroce.pcap, none of them RoCEv2.' '$tmp/b/summary.txt' &&
	       grep -qF '\"$readme_section\" in fabprobe'\\''s README.md' '$tmp/b/summary.txt' &&
	       ! grep -q 'nothing wrong' '$tmp/b/summary.txt'"
check "no RoCE in a capture: the hint is a capture's (where it was taken, its filter, the port)" \
	grep -q "The capture holds no RoCEv2 on the RoCE UDP port (4791, or --roce-port): check where it was taken and its filter" "$tmp/b/summary.txt"
check "no RoCE: report.html says so too" \
	sh -c "grep -q 'None, as nothing was observed</b>: no RoCE traffic: 5 frames' '$tmp/b/report.html' &&
	       grep -qF '&quot;$readme_section&quot;' '$tmp/b/report.html' && ! grep -qi 'nothing wrong' '$tmp/b/report.html'"
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))' "$tmp/empty.pcap"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/empty.pcap" -o "$tmp/empty.tar.gz" 2>"$tmp/err"
check "no frames: capture exits 0" test $? -eq 0
tar -xzf "$tmp/empty.tar.gz" -C "$tmp/b"
check "no frames: summary.txt says no frame came, and where RoCE can be seen" \
	sh -c "grep -qx 'FINDINGS: none, as nothing was observed: no frames at all came from .*empty.pcap.' '$tmp/b/summary.txt' &&
	       grep -qF '$readme_section' '$tmp/b/summary.txt'"
check "no frames: one line on stderr says so" grep -qx 'capture: no frames at all came from .*empty.pcap: the findings judge nothing (summary.txt says why)' "$tmp/err"
rm -rf "$tmp/b" && mkdir "$tmp/b"
sport=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$FABPROBE" capture --sflow "127.0.0.1:$sport" -d 1 -o "$tmp/sflow-none.tar.gz" 2>/dev/null
tar -xzf "$tmp/sflow-none.tar.gz" -C "$tmp/b"
check "no sFlow sample of RoCE: the hint is sFlow's (the switches' sampling, where it goes)" \
	grep -q "No sample was of RoCEv2: check that the switches sample the ports RoCE crosses" "$tmp/b/summary.txt"
check "... and its series has no retransmit rate (null: sampling sees none), not 0" \
	jq -e '(.series | length) > 0 and all(.series[]; .retransmits_per_s == null)' "$tmp/b/report.json"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --nic-root tests/fixtures/nic/mlx5 -d 1 -o "$tmp/nic-only.tar.gz" 2>/dev/null
tar -xzf "$tmp/nic-only.tar.gz" -C "$tmp/b"
check "NIC counters alone, read: their findings stand" grep -qx 'FINDINGS: nothing wrong was seen.' "$tmp/b/summary.txt"
# No packet was watched: the RoCE line says so and what the NICs counted
# instead (it said "no RoCE flows", as if packets had been watched).
check "NIC counters alone: the RoCE line says no packets were watched, and the NICs' RDMA counts" \
	sh -c "grep -qx 'RoCE traffic: no packets watched (NIC counters only); the NICs counted 0 RDMA packets received and 0 sent in the whole 1\.[0-9] s, 602000000 and 596000000 since their counters started (rx/tx_vport_rdma_unicast_packets)' '$tmp/b/summary.txt' &&
	       grep -q 'RoCE traffic: no packets watched (NIC counters only); the NICs counted' '$tmp/b/report.html' &&
	       ! grep -q 'no RoCE flows' '$tmp/b/summary.txt' '$tmp/b/report.html'"

# Uplink captures are named NAME=FILE, no '*': no legend for one (top said '; * uplink').
check "top --once of uplink captures: no legend for a '*' it does not write" \
	sh -c "'$FABPROBE' top --once --pcap 'up1=$PCAPS/nccl_nccl_node0.pcap' --pcap 'up2=$PCAPS/nccl_nccl_node1.pcap' 2>/dev/null |
	       head -1 | grep -q '^fabprobe top: up1=.* (capture, as fast as it reads, ended), at '"

# A capture cut short or corrupt: the bundle is of a part, and says so
# itself, not only on stderr (it said "ended", as of a whole capture).
head -c 150000 "$PCAPS/nccl_nccl_node0.pcap" >"$tmp/cut.pcap"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/cut.pcap" -o "$tmp/cut.tar.gz" 2>"$tmp/err"
check "a cut capture: exit 3, and a bundle" test $? -eq 3 -a -s "$tmp/cut.tar.gz"
tar -xzf "$tmp/cut.tar.gz" -C "$tmp/b"
check "a cut capture: summary.txt says the bundle covers the frames before the cut" \
	grep -qx "partial: $tmp/cut.pcap: capture cut short or corrupt after frame 671: .*; the bundle covers the frames before it" "$tmp/b/summary.txt"
check "a cut capture: the input line says cut short, not ended as of a whole capture" \
	grep -qx "input: $tmp/cut.pcap (capture, as fast as it reads, cut short)" "$tmp/b/summary.txt"
check "a cut capture: report.html says so at its head" \
	grep -q "^<p class='warning'><b>Partial</b>: .*cut.pcap: capture cut short or corrupt after frame 671: " "$tmp/b/report.html"
check "a cut capture: report.json's provenance says so" \
	python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["provenance"]["partial"]
sys.exit(not ("capture cut short or corrupt after frame 671" in p and p.endswith("the bundle covers the frames before it")))' "$tmp/b/report.json"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$PCAPS/nccl_nccl_node0.pcap" -d 5 -o "$tmp/first5.tar.gz" 2>/dev/null
tar -xzf "$tmp/first5.tar.gz" -C "$tmp/b"
check "-d shorter than the capture: summary.txt says the bundle covers its first 5 s" \
	grep -qx "partial: -d 5 s ended the watch before the end of the capture: the bundle covers its first 5.0 s (45 frames)" "$tmp/b/summary.txt"
check "... and its first 5 s hold no RoCE: the hint is of the part read, not of where the capture was taken" \
	sh -c "grep -q 'The part of the capture read holds no RoCEv2' '$tmp/b/summary.txt' &&
	       ! grep -q 'check where it was taken' '$tmp/b/summary.txt' '$tmp/b/report.html'"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$PCAPS/nccl_nccl_node0.pcap" -o "$tmp/whole.tar.gz" 2>/dev/null
tar -xzf "$tmp/whole.tar.gz" -C "$tmp/b"
check "a whole capture: no partial line, and provenance.partial is null" \
	sh -c "! grep -q '^partial:' '$tmp/b/summary.txt' && ! grep -q 'Partial' '$tmp/b/report.html' &&
	       python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"provenance\"][\"partial\"] is not None)' '$tmp/b/report.json'"

# What a bundle says of its input: the capture, when its RoCE sent, that host.txt is not its host.
rm -rf "$tmp/b" && mkdir "$tmp/b"
TZ=UTC "$FABPROBE" capture --pcap "$PCAPS/nccl_nccl_node0.pcap" -o "$tmp/when.tar.gz" 2>/dev/null
tar -xzf "$tmp/when.tar.gz" -C "$tmp/b"
check "summary.txt: a capture's summary (it said 'replay summary'), naming the file" \
	sh -c "head -1 $tmp/b/summary.txt | grep -q '^fabprobe capture summary, made ' &&
	       sed -n 2p $tmp/b/summary.txt | grep -q '^input: .*nccl_nccl_node0.pcap'"
check "summary.txt: when the RoCE in it was sent, by the capture's clock (tshark: 07:14:59-07:15:09)" \
	grep -qx 'RoCE traffic: 2026-06-25 07:14:59 to 07:15:09 UTC' "$tmp/b/summary.txt"
check "report.html: its title names the capture" grep -q '<title>fabprobe capture: .*nccl_nccl_node0.pcap</title>' "$tmp/b/report.html"
check "host.txt: says it describes the host that made the bundle, not the capture's" \
	sh -c "head -1 $tmp/b/host.txt | grep -q 'host that made the bundle; the input, .*nccl_nccl_node0.pcap'"
# No paths in a capture not named for an uplink: the hint is --pcap's NAME=FILE
# (it said --uplinks, which --pcap refuses).
check "report.html: no paths, and how --pcap names them" \
	sh -c "grep -q '>no uplink captures named (--pcap NAME=FILE, one per uplink)<' $tmp/b/report.html &&
	       ! grep -q -- '--uplinks' $tmp/b/report.html"
check "summary.txt: the same" grep -qx 'PATHS: none: no uplink captures named (--pcap NAME=FILE, one per uplink)' "$tmp/b/summary.txt"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap up1="$PCAPS/nccl_nccl_node0.pcap" -o "$tmp/named.tar.gz" 2>/dev/null
tar -xzf "$tmp/named.tar.gz" -C "$tmp/b"
check "a capture named for an uplink: its path, and no hint" \
	sh -c "grep -q '>up1: [0-9]* flows\?, [0-9]* elephants\?<' $tmp/b/report.html && ! grep -q 'PATHS: none' $tmp/b/summary.txt"

# Where a bundle came from: host, version, command, start (UTC), in
# summary.txt, report.json and nic.json; none of it in replay's JSON.
rm -rf "$tmp/b" && mkdir "$tmp/b"
t0=$(date -u +%s)
"$FABPROBE" capture --pcap "$PCAPS/rdma_write_bw.pcap" --nic-root tests/fixtures/nic/mlx5 \
	-o "$tmp/from here.tar.gz" 2>/dev/null
t1=$(date -u +%s)
tar -xzf "$tmp/from here.tar.gz" -C "$tmp/b"
version=$("$FABPROBE" --version | cut -d' ' -f2)
check "report.json: provenance names the host, the version, the command and its UTC start" \
	python3 - "$tmp/b/report.json" "$(hostname)" "$version" "$t0" "$t1" "$PCAPS/rdma_write_bw.pcap" "$tmp/from here.tar.gz" <<'PY'
import calendar, json, sys, time
path, host, version, t0, t1, pcap, out = sys.argv[1:]
p = json.load(open(path))["provenance"]
started = calendar.timegm(time.strptime(p["started"], "%Y-%m-%dT%H:%M:%SZ"))
want = ["fabprobe", "capture", "--pcap", pcap, "--nic-root", "tests/fixtures/nic/mlx5", "-o", out]
ok = p["host"] == host and p["fabprobe_version"] == version and p["command"] == want
ok = ok and int(t0) <= started <= int(t1)
print(p) if not ok else None
sys.exit(0 if ok else 1)
PY
check "nic.json: the same provenance" \
	python3 -c 'import json,sys; a,b=(json.load(open(f))["provenance"] for f in sys.argv[1:]); sys.exit(a != b)' \
	"$tmp/b/report.json" "$tmp/b/nic.json"
check "summary.txt: the host, the version and the start, then the command as a shell takes it" \
	sh -c "grep -qx 'host: $(hostname), fabprobe $version, started [0-9-]*T[0-9:]*Z' '$tmp/b/summary.txt' &&
	       grep -qxF \"command: fabprobe capture --pcap $PCAPS/rdma_write_bw.pcap --nic-root tests/fixtures/nic/mlx5 -o '$tmp/from here.tar.gz'\" '$tmp/b/summary.txt'"
check "report.html: the same lines" grep -q "^command: fabprobe capture --pcap " "$tmp/b/report.html"
check "replay --json has no provenance (its report stays the same run after run)" \
	sh -c "! '$FABPROBE' replay --json '$PCAPS/rdma_write_bw.pcap' 2>/dev/null | grep -q provenance"

# RoCE that stops and does not resume is a finding of the whole run:
# nccl_nccl_node0.pcap's RoCE ends at 29.8 s (tshark) of 56 s.
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$PCAPS/nccl_nccl_node0.pcap" -o "$tmp/stop.tar.gz" 2>/dev/null
tar -xzf "$tmp/stop.tar.gz" -C "$tmp/b"
check "RoCE stopped and not resumed: roce_stopped among the findings, and active in alert_log" \
	python3 - "$tmp/b/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
log = {e["type"]: e for e in r["alert_log"]}
e = log.get("roce_stopped")
found = [a for a in r["alerts"] if a["type"] == "roce_stopped"]
ok = e is not None and e["active"] and e["first_s"] == 22.0 and len(found) == 1
ok = ok and "26.7 s before the end and did not resume" in found[0]["message"]
# Every finding of the whole run is in the log, active.
ok = ok and all(log[a["type"]]["active"] for a in r["alerts"])
print(e, found) if not ok else None
sys.exit(0 if ok else 1)
PY
check "summary.txt: the same, under FINDINGS" \
	grep -q "^[0-9]\. \[warning\] roce_stopped: RoCE traffic stopped 26.7 s before the end" "$tmp/b/summary.txt"

# What came and went, which the whole run's findings cannot show: RoCE for
# 1 s, 3 s of other frames only, RoCE again for 1 s.
python3 - "$tmp/pause.pcap" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
recs, psn = [], 0
for i in range(24):  # a frame every 0.25 s
    t = i * 0.25
    if t < 1 or 4 <= t < 5:
        f = inject.write_only("10.98.0.1", "10.98.0.2", 49998, 78, psn)
        psn += 1
    else:
        f = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + inject.ipv4("10.98.0.1", "10.98.0.2", 17, struct.pack("!HHHH", 5000, 53, 8, 0))
    recs.append(struct.pack("<IIII", 1700000000 + int(t), int(t % 1 * 1e6), len(f), len(f)) + f)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))
PY
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/pause.pcap" -o "$tmp/pause.tar.gz" 2>/dev/null
tar -xzf "$tmp/pause.tar.gz" -C "$tmp/b"
check "a pause of RoCE: roce_stopped in alert_log, cleared, and not among the findings" \
	python3 - "$tmp/b/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = {e["type"]: e for e in r["alert_log"]}.get("roce_stopped")
ok = e is not None and not e["active"] and 2 <= e["first_s"] <= 4 and e["last_s"] <= 4
ok = ok and "roce_stopped" not in [a["type"] for a in r["alerts"]]
print(e, r["alerts"]) if not ok else None
sys.exit(0 if ok else 1)
PY
check "summary.txt: roce_stopped under ALSO RAISED DURING THE RUN" \
	sh -c "sed -n '/^ALSO RAISED DURING THE RUN/,/^PATHS\|^frames/p' '$tmp/b/summary.txt' | grep -q '^- \[warning\] roce_stopped at '"
check "report.html: the same, under 'Also raised during the run'" \
	sh -c "sed -n '/Also raised during the run/,/<\/ul>/p' '$tmp/b/report.html' | grep -q '\[warning\] roce_stopped</b> at '"
check "replay --json has no alert log (one analysis, no refreshes)" \
	sh -c "! '$FABPROBE' replay --json '$tmp/pause.pcap' 2>/dev/null | grep -q alert_log"

# Rates over the time RoCE was seen, not the whole capture: other frames for
# 1 s, 2 s of RoCE (9 WRITEs of 1098 B), other frames to 10 s. Was: over 10 s.
# A burst shorter than a second is rated over a second.
idle_pcap() { # OUT FIRST_S LAST_S END_S: RoCE every 0.25 s from FIRST_S to LAST_S
	python3 - "$@" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
out, first, last, end = sys.argv[1], *map(float, sys.argv[2:])
recs, psn = [], 0
for i in range(int(end / 0.25) + 1):
    t = i * 0.25
    if first <= t <= last:
        f = inject.write_only("10.97.0.1", "10.97.0.2", 49997, 79, psn, payload=1024)
        psn += 1
    else:
        f = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + inject.ipv4("10.97.0.1", "10.97.0.2", 17, struct.pack("!HHHH", 5000, 53, 8, 0))
    recs.append(struct.pack("<IIII", 1700000000 + int(t), int(t % 1 * 1e6), len(f), len(f)) + f)
with open(out, "wb") as o:
    o.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))
PY
}
idle_pcap "$tmp/idle.pcap" 1 3 10
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/idle.pcap" --speed 0 -o "$tmp/idle.tar.gz" 2>/dev/null
tar -xzf "$tmp/idle.tar.gz" -C "$tmp/b"
check "traffic then idle: report.json's rates are over the 2 s of RoCE (9882 B: 39528 b/s)" \
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(not (r["interval_s"] == 2.0 and [(f["bytes"], f["bps"]) for f in r["flows"]] == [(9882, 39528)]))' \
	"$tmp/b/report.json"
check "... summary.txt's too" sh -c "grep -q '^RATE: over the 2.0 s from the first RoCE packet;' '$tmp/b/summary.txt' &&
	grep -q '^10.97.0.1:49997 > 10.97.0.2 .* 39.5 kb/s ' '$tmp/b/summary.txt'"
check "... report.html's too" grep -q '>39.5 kb/s<' "$tmp/b/report.html"
check "... as replay's" eq "$("$FABPROBE" replay --json "$tmp/idle.pcap" 2>/dev/null |
	python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["interval_s"], r["flows"][0]["bps"])')" "2.0 39528"
# The totals per second are over the capture's time, its frames not only RoCE's.
"$FABPROBE" top --once --pcap "$tmp/idle.pcap" >"$tmp/idle.top" 2>/dev/null
check "top --once: frames per second over the whole capture, flow rates over its RoCE" \
	python3 -c 'import re, sys; t = open(sys.argv[1]).read()
at = float(re.search(r"at ([0-9.]+) s, over the whole ([0-9.]+) s \(flow rates: the 2.0 s from the first RoCE packet\)", t).group(1))
per = float(re.search(r"per second \(over the whole ([0-9.]+) s\): frames ([0-9.]+)", t).group(2))
frames = int(re.search(r"^frames ([0-9]+)", t, re.M).group(1))
sys.exit(not (at > 9 and abs(per * at - frames) <= 0.01 * frames))' "$tmp/idle.top"
idle_pcap "$tmp/burst.pcap" 1 1.5 5
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/burst.pcap" --speed 0 -o "$tmp/burst.tar.gz" 2>/dev/null
tar -xzf "$tmp/burst.tar.gz" -C "$tmp/b"
check "a burst of 0.5 s: rated over a second, not its own span (3294 B: 26352 b/s)" \
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(not (r["interval_s"] == 1.0 and r["flows"][0]["bps"] == 26352))' "$tmp/b/report.json"

# 300 flows: summary.txt shows the busiest 100 and says where the rest are;
# report.json has them all.
python3 tests/ipfix/mkpcap.py many 300 "$tmp/many.pcap"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/many.pcap" -o "$tmp/many.tar.gz" 2>"$tmp/err"
check "many.pcap: capture --pcap exits 0" test $? -eq 0
check "many.pcap: says it is writing the bundle, then that it wrote it" \
	test "$(grep -o '^capture: wr[a-z]*' "$tmp/err" | tr '\n' ' ')" = "capture: writing capture: wrote "
check "many.pcap: with the flows it writes" grep -q "^capture: writing .*many.tar.gz: the findings over the whole run, 300 flows$" "$tmp/err"
tar -xzf "$tmp/many.tar.gz" -C "$tmp/b"
check "many.pcap: report.json has the 300 flows" \
	test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["flows"]))' "$tmp/b/report.json")" = 300
check "many.pcap: summary.txt shows 100 flow rows" \
	test "$(grep -c '^[0-9a-f.:]* > ' "$tmp/b/summary.txt")" -eq 100
check "many.pcap: and says report.json has the other 200" \
	grep -qx '\.\.\. 200 more flows (report.json shows all)' "$tmp/b/summary.txt"

# --nic-root of a tree without RDMA devices, as the whole input: nothing to
# capture, said at once (it watched for -d, then wrote an empty bundle).
mkdir -p "$tmp/nordma/class/infiniband"
"$FABPROBE" capture --nic-root "$tmp/nordma" -d 5 -o "$tmp/nordma.tar.gz" 2>"$tmp/err"
check "--nic-root without RDMA alone: capture exits 1" test $? -eq 1
check "--nic-root without RDMA alone: one line says why" \
	eq "$(cat "$tmp/err")" "fabprobe: capture: --nic-root: no RDMA devices found in $tmp/nordma: nothing to capture (give -i, --pcap or --sflow to capture packets)"
check "--nic-root without RDMA alone: no bundle" test ! -e "$tmp/nordma.tar.gz"

# --nic on a host without RDMA devices (this VM, CI's): alone, the same;
# beside a capture, one line at the start, and nic.json has the reason.
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls -A /sys/class/infiniband)" ]; then
	"$FABPROBE" capture --nic -d 5 -o "$tmp/nic-alone.tar.gz" 2>"$tmp/err"
	check "--nic without RDMA alone: capture exits 1 with one line" \
		sh -c "[ $? -eq 1 ] && grep -qx 'fabprobe: capture: --nic: no RDMA devices found: nothing to capture .*' '$tmp/err' && [ \$(wc -l <'$tmp/err') -eq 1 ]"
	rm -rf "$tmp/b" && mkdir "$tmp/b"
	"$FABPROBE" capture --pcap "$PCAPS/rdma_write_bw.pcap" --nic -o "$tmp/nic.tar.gz" 2>"$tmp/err"
	check "--nic without RDMA: capture exits 0" test $? -eq 0
	check "--nic without RDMA: one line says so, first (before the run), once" \
		sh -c "head -1 '$tmp/err' | grep -qx 'capture: --nic: no RDMA devices found; capturing .*rdma_write_bw.pcap without RDMA counters (nic.json says so)' &&
		       [ \$(grep -c 'no RDMA' '$tmp/err') -eq 1 ]"
	tar -xzf "$tmp/nic.tar.gz" -C "$tmp/b"
	check "--nic without RDMA: nic.json holds the reason, and no nic/ is there" \
		bash -c "grep -q '\"info\":\"no RDMA devices found\"' '$tmp/b/nic.json' && [ ! -e '$tmp/b/nic' ]"
fi

# More flows than --flows: the bundle holds what the table held when the
# capture ended, as replay reports it. A read after the end frees no slot
# for new flows (none can come): 1536 of 2016 flows stayed before.
python3 tests/ipfix/mkpcap.py many 6000 "$tmp/many6k.pcap"
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/many6k.pcap" --flows 2048 --threads 1 -o "$tmp/many6k.tar.gz" \
	2>/dev/null && tar -xzf "$tmp/many6k.tar.gz" -C "$tmp/b"
"$FABPROBE" replay --json --flows 2048 --threads 1 "$tmp/many6k.pcap" >"$tmp/many.json"
check "6000 flows into --flows 2048: the bundle keeps the flows and evictions replay does" \
	eq "$(jq -c '[(.flows | length), .totals.flow_evictions]' "$tmp/b/report.json" 2>/dev/null)" \
	"$(jq -c '[(.flows | length), .totals.flow_evictions]' "$tmp/many.json")"

# The same when the capture stops before the recording's end (-d): its last
# watching refresh frees no slot either, as no frame runs after it (1534 of
# the 1980 flows it had just counted stayed before). 6000 flows over 2 s.
python3 - "$tmp/spread.pcap" <<'PY'
import struct, sys
sys.path.insert(0, "tests/lib")
import inject
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(6000):
        t = 1700000000 * 10**6 + i * 333
        for psn in range(2):
            frame = inject.write_only("10.%d.%d.1" % (i // 250, i % 250), "10.99.0.2",
                                      49152 + i % 1000, 77, psn, payload=64)
            f.write(struct.pack("<IIII", t // 10**6, t % 10**6 + psn, len(frame), len(frame)) + frame)
PY
rm -rf "$tmp/b" && mkdir "$tmp/b"
"$FABPROBE" capture --pcap "$tmp/spread.pcap" --flows 2048 --threads 1 -d 1 \
	-o "$tmp/spread.tar.gz" 2>"$tmp/err" && tar -xzf "$tmp/spread.tar.gz" -C "$tmp/b"
check "-d 1 of a 2 s capture into --flows 2048: the bundle has the flows its last refresh counted" \
	eq "$(jq '.flows | length' "$tmp/b/report.json" 2>/dev/null)" \
	"$(grep -oE '[0-9]+ flows, [0-9]+ alerts? now' "$tmp/err" | tail -1 | cut -d' ' -f1)"

finish capture-pcap
