#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The shipped Prometheus rules, by Prometheus' own rule tester: which alerts
# fire on series shaped as fabprobe export serves them, and which do not
# (tests/fixtures/prometheus/rules_test.yml). Then a real scrape of export
# over two uplinks' captures: lint clean, every name and label value the
# rules and the dashboard select on served (a rule over a name or a type
# never exported is an alert that can never fire), and the series count that
# docs/metrics.md's Cardinality gives for what the scrape holds.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/cli.sh

check "promtool check rules" promtool check rules docs/prometheus/fabprobe-alerts.yml
check "promtool test rules" promtool test rules tests/fixtures/prometheus/rules_test.yml

port=$(python3 -I -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 60 "$FABPROBE" export --pcap up1="$PCAPS/rdma_write_bw.pcap" \
	--pcap up2="$PCAPS/rdma_read_bw.pcap" --speed 0 -r 1 --listen 127.0.0.1:"$port" 2>"$tmp/err" &
exp=$!
for i in $(seq 600); do grep -q 'has been read' "$tmp/err" && break; sleep 0.1; done
curl -s http://127.0.0.1:"$port"/metrics >"$tmp/scrape.prom"
kill "$exp" 2>/dev/null
wait "$exp" 2>/dev/null
check "export served the capture's final picture" grep -qx 'fabprobe_input_ended 1' "$tmp/scrape.prom"

lint_clean() {
	local out
	out=$(promtool check metrics <"$1" 2>&1) && [ -z "$out" ] || {
		echo "$out"
		return 1
	}
}
check "promtool check metrics on the scrape (lint clean)" lint_clean "$tmp/scrape.prom"

# scrape_py WHAT: the scrape's families and samples, then the check WHAT.
scrape_py() {
	python3 -I - "$tmp/scrape.prom" "$@" <<'PY'
import json, re, sys
scrape, what = sys.argv[1], sys.argv[2]
text = open(scrape).read()
served = set(re.findall(r"^# TYPE (\S+)", text, re.M))
samples = []  # (name, {label: value})
for line in text.splitlines():
    if line.startswith("#") or not line:
        continue
    name, _, rest = line.partition("{")
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', rest)) if rest else {}
    samples.append((name.split(" ")[0], labels))
bad = []
if what == "used":
    exprs = []
    for path in sys.argv[3:]:
        if path.endswith(".json"):
            def walk(panels):
                for p in panels:
                    walk(p.get("panels", []))
                    exprs.extend(t["expr"] for t in p.get("targets", []) if "expr" in t)
            d = json.load(open(path))
            walk(d["panels"])
            exprs += [v["definition"] for v in d["templating"]["list"] if v.get("definition")]
        else:
            exprs += re.findall(r"expr: (\|\n(?:\s{10}.*\n)+|.*)", open(path).read())
    for e in exprs:
        names = set(re.findall(r"\b(fabprobe_[a-z0-9_]+)", e))
        for n in names - served:
            bad.append(f"{n} is not served: {e.strip()}")
        for n, sel in re.findall(r"\b(fabprobe_[a-z0-9_]+)\{([^}]*)\}", e):
            for label, value in re.findall(r'(\w+)="([^"]*)"', sel):
                if label in ("instance", "job"):
                    continue
                if not any(s == n and l.get(label) == value for s, l in samples):
                    bad.append(f'{n}{{{label}="{value}"}} has no series: {e.strip()}')
        for group in re.findall(r"\bby \(([^)]*)\)", e):
            for label in (g.strip() for g in group.split(",")):
                if label in ("instance", "job"):
                    continue
                if not any(s in names and label in l for s, l in samples):
                    bad.append(f"by ({label}): no series of {sorted(names)} has it")
    print(f"{len(exprs)} expressions checked")
elif what == "cardinality":
    doc = open("docs/metrics.md").read()
    m = re.search(r"about (\d+) \+ 2·I·10 \+ I \+ 4·D \+ 5·min\(V, 257\) \+ 6·U \+ (\d+) \+ 7·K series", doc)
    if not m:
        sys.exit("docs/metrics.md: no Cardinality formula")
    fixed, alerts = int(m.group(1)), int(m.group(2))
    def distinct(name, label):
        return len({l.get(label) for s, l in samples if s == name})
    I = distinct("fabprobe_interface_uplink", "interface")
    U = distinct("fabprobe_uplink_flows", "interface")
    D = distinct("fabprobe_dscp_roce_packets_total", "dscp")
    V = distinct("fabprobe_vni_roce_packets_total", "vni")
    K = sum(1 for s, _ in samples if s == "fabprobe_flow_bytes_per_second")
    want = fixed + 2 * I * 10 + I + 4 * D + 5 * min(V, 257) + 6 * U + alerts + 7 * K
    n_alerts = sum(1 for s, _ in samples if s == "fabprobe_alerts")
    print(f"I={I} U={U} D={D} V={V} K={K}: {len(samples)} series, the formula says {want}")
    if n_alerts != alerts:
        bad.append(f"fabprobe_alerts has {n_alerts} series, the formula {alerts}")
    if len(samples) != want:
        bad.append(f"{len(samples)} series, the formula {want}")
for b in bad:
    print("    " + b)
sys.exit(1 if bad else 0)
PY
}
check "the rules' and the dashboard's names, label values and by-labels are served" \
	scrape_py used docs/prometheus/fabprobe-alerts.yml docs/grafana/fabprobe-fabric.json
check "docs/metrics.md's Cardinality counts the scrape's series" scrape_py cardinality

finish "prometheus rules"
