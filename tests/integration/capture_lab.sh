#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fabprobe capture on the lab with a deliberate collision, CE marks and
# drops: the bundle is complete and right (json, summary, tshark on the
# samples, Chromium on the HTML), Ctrl-C still writes it, and bad
# destinations fail cleanly without leaving a half-written file.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpc-

read -r E1 E2 MOUSE <<<"$(colliding_qps 2)"
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --ce-above-mbps 100 --drop-permille 5 >/dev/null 2>&1
done
bg h3 "$TMP/serve.json" "$ROCEGEN" serve
CAP=(capture -i "$UPLINKS" --uplinks "$UPLINKS" --elephant-rate 20M)

# capture_run SECONDS OUT: a capture in leaf1 with traffic running inside it.
capture_run() {
	bg leaf1 "$TMP/cap.out" "$FABPROBE" "${CAP[@]}" -d "$1" -o "$2"
	local pid=${BG_PIDS[-1]}
	wait_attached "$TMP/cap.out.err"
	at h1 "$ROCEGEN" run --dst "$H3" --qp "$E1:write:150:65536" --qp "$E2:write:150:65536" \
		--qp "$MOUSE:write:2:4096" --duration 3 >"$TMP/run.json"
	wait "$pid"
}

echo "--- a 7 s capture"
capture_run 7 "$TMP/incident.tar.gz"
check "capture exited 0" test $? -eq 0
mkdir -p "$TMP/b"
tar -xzf "$TMP/incident.tar.gz" -C "$TMP/b"
for f in report.json summary.txt report.html samples.pcapng host.txt; do
	check "bundle has $f" test -s "$TMP/b/$f"
done
check "bundle is mode 0600" test "$(stat -c %a "$TMP/incident.tar.gz")" = 600
check "report.json: alerts, collision, series" python3 - "$TMP/b/report.json" \
	"$("$ROCEGEN" sport ${E1/:/ })" "$("$ROCEGEN" sport ${E2/:/ })" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ports = {int(sys.argv[2]), int(sys.argv[3])}
types = [a["type"] for a in r["alerts"]]
hit = [a for a in r["alerts"] if a["type"] == "elephant_collision"]
assert hit, f"no elephant_collision in {types}"
assert ports <= {f["sport"] for f in hit[0]["flows"]}, hit[0]["flows"]
assert "retransmits" in types, types
assert len(r["series"]) >= 5, f"{len(r['series'])} samples"
assert any(s["paths"][hit[0]["path"]]["bps"] > 100e6 for s in r["series"]), "no load in the series"
assert r["totals"]["frames"] == r["totals"]["roce_packets"] + r["totals"]["other_packets"] + r["totals"]["malformed"]
PY
# The findings rate what the uplink carried while RoCE flowed (the run's 3 s),
# not over the 7 s the capture watched (which gave 3/7 of it).
check "report.json: the collision's uplink at the elephants' rate, not thinned by the idle" \
	python3 - "$TMP/b/report.json" "$TMP/run.json" \
	"$("$ROCEGEN" sport ${E1/:/ })" "$("$ROCEGEN" sport ${E2/:/ })" <<'PY'
import json, sys
r, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ports = {int(sys.argv[3]), int(sys.argv[4])}
sent = sum(f["bytes"] for f in run["sent"] if f["sport"] in ports) * 8 / 3
up = [a for a in r["alerts"] if a["type"] == "elephant_collision"][0]["path"]
bps = {p["name"]: p["bps"] for p in r["paths"]}[up]
assert bps >= 0.6 * sent, f"{up}: {bps / 1e6:.1f} Mb/s over {r['interval_s']} s; the elephants sent {sent / 1e6:.1f} Mb/s"
PY
up=$(python3 -c "import json; print([a for a in json.load(open('$TMP/b/report.json'))['alerts'] if a['type']=='elephant_collision'][0]['path'])")
check "summary.txt puts the collision first, naming $up" sh -c \
	"sed -n '/^FINDINGS/,/^$/p;/^1\\./p' $TMP/b/summary.txt | grep -q 'elephant_collision.*uplink $up'"
check "host.txt has the ECMP sysctl and the uplinks" sh -c \
	"grep -q 'fib_multipath_hash_policy = 1' $TMP/b/host.txt && grep -q '== interface up1' $TMP/b/host.txt"
check "tshark reads samples.pcapng: the elephants' RoCE packets" python3 - "$TMP/b/samples.pcapng" \
	"$("$ROCEGEN" sport ${E1/:/ })" "$("$ROCEGEN" sport ${E2/:/ })" <<'PY'
import subprocess, sys
out = subprocess.run(["tshark", "-n", "-r", sys.argv[1], "-Y", "infiniband.bth", "-T", "fields",
                      "-e", "udp.srcport", "-e", "frame.comment"], capture_output=True, text=True, check=True).stdout
rows = [l.split("\t") for l in out.splitlines()]
for port in sys.argv[2:]:
    # The flow's own packets; its answers (ACKs, CNPs: the same port) say so in theirs.
    mine = [r for r in rows if r[0] == port and r[1].startswith("fabprobe: flow raised")]
    assert mine, f"no sampled packet of sport {port}"
    assert all("elephant_collision" in r[1] for r in mine), mine[:2]
    assert len(mine) <= 8 * 2, f"{len(mine)} samples of one flow (8 per CPU)"
PY
check "samples.pcapng: the elephants' packets on interface $up, outbound" python3 - "$TMP/b/samples.pcapng" \
	"$up" "$("$ROCEGEN" sport ${E1/:/ })" "$("$ROCEGEN" sport ${E2/:/ })" <<'PY'
import subprocess, sys
out = subprocess.run(["tshark", "-n", "-r", sys.argv[1], "-Y", "infiniband.bth", "-T", "fields",
                      "-e", "udp.srcport", "-e", "frame.interface_name",
                      "-e", "frame.packet_flags_direction", "-e", "frame.comment"],
                     capture_output=True, text=True, check=True).stdout
rows = [l.split("\t") for l in out.splitlines()]
# Their own packets: the answers (same source port, inbound) say they answer them.
mine = [r for r in rows if r[0] in sys.argv[3:] and r[3].startswith("fabprobe: flow raised")]
assert mine, "no sampled elephant packet"
assert all(r[1] == sys.argv[2] for r in mine), f"interfaces {sorted({r[1] for r in mine})}"
assert all(int(r[2], 0) == 2 for r in mine), f"directions {sorted({r[2] for r in mine})}"
PY
check "samples.pcapng: the answering flows' packets too, for cnp_without_ce (the CNPs' direction had none)" \
	python3 - "$TMP/b/samples.pcapng" "$TMP/b/report.json" <<'PY'
import json, subprocess, sys
if "cnp_without_ce" not in [a["type"] for a in json.load(open(sys.argv[2]))["alerts"]]:
    sys.exit("no cnp_without_ce in this run to check")
out = subprocess.run(["tshark", "-n", "-r", sys.argv[1], "-T", "fields", "-e", "frame.comment"],
                     capture_output=True, text=True, check=True).stdout
rev = [l for l in out.splitlines() if l.startswith("fabprobe: the flow this one answers raised")]
assert any("cnp_without_ce" in l for l in rev), sorted(set(out.splitlines()))
PY
check "samples.pcapng opens cleanly in tshark: no Malformed, whole frames" python3 - "$TMP/b/samples.pcapng" <<'PY'
import subprocess, sys
out = subprocess.run(["tshark", "-n", "-r", sys.argv[1]], capture_output=True, text=True, check=True).stdout
assert out.strip(), "no packets"
bad = [l for l in out.splitlines() if "Malformed" in l]
assert not bad, f"{len(bad)} malformed, e.g. {bad[0]}"
lens = subprocess.run(["tshark", "-r", sys.argv[1], "-T", "fields", "-e", "frame.len", "-e", "frame.cap_len"],
                      capture_output=True, text=True, check=True).stdout.split("\n")
assert all(a == b for a, b in (l.split("\t") for l in lens if l)), "a sample was cut short"
PY
rm -rf "$TMP/chrome"
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/chrome" --window-size=1200,1600 --screenshot="$TMP/report.png" \
	"file://$TMP/b/report.html" >"$TMP/chrome.log" 2>&1
check "report.html renders to a screenshot" test -s "$TMP/report.png"
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/chrome" --dump-dom "file://$TMP/b/report.html" >"$TMP/dom.html" 2>/dev/null
check "rendered DOM has the three charts with data" python3 - "$TMP/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
for chart in ("chart-load", "chart-ecn", "chart-flows"):
    m = re.search(r"<svg[^>]*id=\"%s\".*?</svg>" % chart, dom, re.S)
    assert m, f"{chart} missing"
    assert re.search(r"<(polyline|rect)", m.group(0)), f"{chart} has no data"
assert "http://" not in dom.replace("http://www.w3.org/2000/svg", ""), "external reference"
assert "<script" not in dom
PY

echo "--- Ctrl-C ends early and still writes a complete bundle"
bg leaf1 "$TMP/int.out" "$FABPROBE" "${CAP[@]}" -d 120 -o "$TMP/early.tar.gz"
pid=${BG_PIDS[-1]}
wait_attached "$TMP/int.out.err"
sleep 2
kill -INT "$pid"
wait "$pid"
check "interrupted capture exits 0" test $? -eq 0
check "interrupted bundle is complete" sh -c \
	"tar -tzf $TMP/early.tar.gz | sort | tr '\n' ' ' | grep -q 'host.txt report.html report.json samples.pcapng summary.txt'"
check "interrupted report.json parses" sh -c "tar -xzOf $TMP/early.tar.gz report.json | python3 -m json.tool >/dev/null"

echo "--- destinations"
before=$(md5sum <"$TMP/incident.tar.gz")
check "an existing file is not overwritten" sh -c \
	"! ip netns exec $(ns leaf1) $FABPROBE ${CAP[*]} -d 1 -o $TMP/incident.tar.gz 2>$TMP/exists.err &&
	 grep -q 'exists; use --force' $TMP/exists.err && [ \$(wc -l <$TMP/exists.err) -eq 1 ]"
check "the existing file is unchanged" test "$(md5sum <"$TMP/incident.tar.gz")" = "$before"
check "--force overwrites" ip netns exec "$(ns leaf1)" "$FABPROBE" "${CAP[@]}" -d 1 --force \
	-o "$TMP/incident.tar.gz"
mkdir -p "$TMP/ro" "$TMP/full"
mount -t tmpfs -o ro,size=64k tmpfs "$TMP/ro"
mount -t tmpfs -o size=4k tmpfs "$TMP/full"
head -c 8192 /dev/zero >"$TMP/full/filler" 2>/dev/null
check "a read-only directory fails cleanly" sh -c \
	"! ip netns exec $(ns leaf1) $FABPROBE ${CAP[*]} -d 1 -o $TMP/ro/x.tar.gz 2>$TMP/ro.err &&
	 grep -q 'Read-only file system' $TMP/ro.err && [ \$(wc -l <$TMP/ro.err) -eq 1 ]"
check "a full disk fails cleanly, leaving no file" sh -c \
	"! ip netns exec $(ns leaf1) $FABPROBE ${CAP[*]} -d 1 -o $TMP/full/x.tar.gz 2>$TMP/full.err &&
	 grep -q 'No space left' $TMP/full.err && [ \"\$(ls -A $TMP/full)\" = filler ]"
umount "$TMP/ro" "$TMP/full"

finish capture-lab
