#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The two flow tables (bpf/maps.h): flows whose addresses are all IPv4 in
# fp_flows4 (--flows), flows with an IPv6 address in fp_flows6 (--flows6).
# A capture of 40 IPv4 and 1500 IPv6 queue pairs, three WRITEs each: with
# --flows6 1024 the IPv6 table evicts and the IPv4 one does not, the
# report says so and names --flows6; with room for all, every flow is
# there whole. Then the sizes the options and their defaults give.
set -u
. "$(dirname "$0")/../lib/cli.sh"

python3 - "$tmp/mixed.pcap" <<'PY'
import socket, struct, sys
sys.path.insert(0, "tests/lib")
import inject

frames = []
for psn in range(3):
    for q in range(40):
        frames.append(inject.write_only("10.1.0.1", "10.2.0.%d" % (1 + q), 49152 + q, 0x100 + q, psn))
    for q in range(1500):
        frames.append(inject.write_only6("fd00::1", "fd00::%x" % (2 + q), 49152 + q, 0x100 + q, psn))
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, n, len(f), len(f)) + f)
PY

json_check() { # what, report, python expression over t (totals), f (flows), a (alerts)
	check "$1" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t, f, a = r["totals"], r["flows"], r.get("alerts", [])
v4 = [x for x in f if ":" not in x["src"]]
v6 = [x for x in f if ":" in x["src"]]
sys.exit(not eval(sys.argv[2]))' "$2" "$3"
}

"$FABPROBE" replay --json --threads 1 --flows 4096 --flows6 1024 "$tmp/mixed.pcap" >"$tmp/small.json"
check "small IPv6 table: replay exits 0" test $? -eq 0
json_check "small IPv6 table: capacity 4096 + 1024" "$tmp/small.json" 't["flow_table_size"] == 5120'
json_check "small IPv6 table: every IPv4 flow stays, whole" "$tmp/small.json" \
	'len(v4) == 40 and all(x["packets"] == 3 and x["psn_gaps"] == 0 for x in v4)'
json_check "small IPv6 table: the IPv6 table holds at most 1024" "$tmp/small.json" '0 < len(v6) <= 1024'
# An evicted flow comes back on its next packet: more inserts than queue pairs.
json_check "small IPv6 table: evictions are inserts - present" "$tmp/small.json" \
	't["flow_inserts"] > 1540 and t["flow_evictions"] == t["flow_inserts"] - len(f) > 0 and t["flow_insert_failures"] == 0'
json_check "small IPv6 table: every frame counted" "$tmp/small.json" 't["frames"] == 4620 and t["roce_packets"] == 4620'
json_check "small IPv6 table: the alert names --flows6" "$tmp/small.json" \
	'any("--flows6" in x["message"] and "IPv6 table" in x["evidence"] for x in a)'

"$FABPROBE" replay --json --threads 1 --flows 16 --flows6 2048 "$tmp/mixed.pcap" >"$tmp/small4.json"
json_check "small IPv4 table: every IPv6 flow stays" "$tmp/small4.json" \
	'len(v6) == 1500 and all(x["packets"] == 3 for x in v6) and len(v4) <= 16'
json_check "small IPv4 table: the alert names --flows, not --flows6" "$tmp/small4.json" \
	'any("raise --flows)" in x["message"] for x in a) and not any("--flows6" in x["message"] for x in a)'

"$FABPROBE" replay --json --threads 1 --flows 64 --flows6 2048 "$tmp/mixed.pcap" >"$tmp/room.json"
check "room for all: replay exits 0" test $? -eq 0
json_check "room for all: 40 + 1500 flows, three packets each, no eviction" "$tmp/room.json" \
	'len(v4) == 40 and len(v6) == 1500 and all(x["packets"] == 3 for x in f) and t["flow_evictions"] == 0'
json_check "room for all: IPv6 keys whole" "$tmp/room.json" \
	'sorted(x["dst"] for x in v6) == sorted("fd00::%x" % (2 + q) for q in range(1500))'
json_check "room for all: no table alert" "$tmp/room.json" 'not any("flow table" in x["message"] for x in a)'

"$FABPROBE" replay --json "$tmp/mixed.pcap" >"$tmp/default.json"
json_check "default sizes: 65536 + a quarter of it" "$tmp/default.json" 't["flow_table_size"] == 65536 + 16384'
"$FABPROBE" replay --json --flows 1000 "$tmp/mixed.pcap" >"$tmp/min.json"
json_check "--flows 1000: the IPv6 table's floor of 1024" "$tmp/min.json" 't["flow_table_size"] == 1000 + 1024'
# Table sizes in binary multiples, as an operator types them: k 1024, M 1048576.
"$FABPROBE" replay --json --flows 4k --flows6 2K "$tmp/mixed.pcap" >"$tmp/suffix.json"
json_check "--flows 4k --flows6 2K: 4096 + 2048 entries" "$tmp/suffix.json" 't["flow_table_size"] == 4096 + 2048'
"$FABPROBE" top --once --json --pcap "$tmp/mixed.pcap" --flows 1M >"$tmp/suffix_top.json"
json_check "top --flows 1M: 1048576 + a quarter of it" "$tmp/suffix_top.json" \
	't["flow_table_size"] == 1048576 + 262144'
"$FABPROBE" replay --flows 4096 --flows6 1024 "$tmp/mixed.pcap" >"$tmp/small.txt"
check "text report: both tables' sizes" grep -q "of 5120 table entries (IPv4 4096 + IPv6 1024)" "$tmp/small.txt"

finish flow-tables
