#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RoCEv2 inside the lab's VXLAN overlay (kernel vxlan devices on the
# hosts, VNI 100): fabprobe on leaf1's uplinks sees the outer VXLAN flow
# with the inner RoCE tuple, counts what the generator sent (+50 bytes of
# encapsulation per frame), and reports the uplink that really carried
# each flow: per-uplink captures say which. (`ip route get` cannot say:
# the vxlan device gives the skb an L4 hash of the inner flow, and the
# leaf's multipath hash uses that hash when it is present.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpv- --vxlan

bg h3 "$TMP/serve.json" "$ROCEGEN" serve
serve_pid=${BG_PIDS[-1]}
bg leaf1 "$TMP/leaf1.json" "$FABPROBE" top --once --json -r 5 -i "$UPLINKS" --uplinks "$UPLINKS"
probe_pid=${BG_PIDS[-1]}
wait_attached "$TMP/leaf1.json.err"
for u in 1 2 3 4; do
	bg leaf1 "$TMP/up$u.log" tcpdump -i up$u -Q out -w "$TMP/up$u.pcap" -U udp dst port 4789
done
sleep 1
at h1 "$ROCEGEN" run --dst 10.78.0.13 --qp 17:33:write:40:65536 --qp 41:97:send:5:4096 \
	--duration 2 >"$TMP/run.json"
wait "$probe_pid"
kill -INT "$serve_pid" "${BG_PIDS[@]:2}"
wait
# The kernel chooses the outer source port; ask leaf1 for the path of each.
python3 - "$TMP" <<'PY' >"$TMP/outer"
import json, sys
r = json.load(open(sys.argv[1] + "/leaf1.json"))
for f in r["flows"]:
    if f["vni"] is not None and f["dir"] == "egress":
        print(f["src"], f["dst"], f["sport"], f["inner"]["sport"], f["path"])
PY
# The uplink whose capture holds the flow's outer source port.
while read -r src dst sport inner path; do
	carried=$(for u in 1 2 3 4; do
		n=$(tshark -n -r "$TMP/up$u.pcap" -Y "udp.srcport == $sport" -T fields \
			-e frame.number </dev/null 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] && echo up$u
	done)
	echo "$inner ${carried:-none} $path"
done <"$TMP/outer" >"$TMP/paths"
check "VXLAN flows counted against the generator" python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
run, rep = json.load(open(tmp + "/run.json")), json.load(open(tmp + "/leaf1.json"))
out = {f["inner"]["sport"]: f for f in rep["flows"] if f["vni"] is not None and f["dir"] == "egress"}
errors = []
assert rep["totals"]["vxlan_packets"] > 0, "no VXLAN frame counted"
for s in run["sent"]:
    f = out.get(s["sport"])
    if not f:
        errors.append(f"no VXLAN flow for inner sport {s['sport']}")
        continue
    want = {"vni": 100, "dest_qp": s["dest_qp"], "dport": 4789, "packets": s["packets"],
            "bytes": s["bytes"] + 50 * s["packets"]}
    for k, v in want.items():
        if f[k] != v:
            errors.append(f"inner sport {s['sport']}: {k} {f[k]} want {v}")
    inner = f["inner"]
    if (inner["src"], inner["dst"], inner["dport"]) != ("10.78.0.11", "10.78.0.13", 4791):
        errors.append(f"inner tuple {inner}")
    if f["src"] != "10.77.1.11" or f["dst"] != "10.77.2.13":
        errors.append(f"outer addresses {f['src']} > {f['dst']}")
    if f["inner_ecn"]["ect0"] != s["packets"]:
        errors.append(f"inner ECT(0) {f['inner_ecn']} for {s['packets']} packets")
print("\n".join("     " + e for e in errors))
sys.exit(1 if errors else 0)
PY
while read -r inner kernel probe; do
	check "VXLAN flow (inner sport $inner): path $probe carried it ($kernel in the captures)" \
		test "$kernel" = "$probe"
done <"$TMP/paths"
check "paths checked for both QPs" test "$(wc -l <"$TMP/paths")" -eq 2
finish vxlan-lab
