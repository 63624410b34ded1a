#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The sFlow source against a crafted fabric (build/tools/sflow_scenario),
checked against the generator's own count of what it sent: per flow the
samples, the estimates (each sample times its own rate; one flow's rate
doubles half way), CE, the point and path and group each flow is reported
at (map names, a port-name record, a dropped output), VXLAN and raw
IPv4/IPv6 headers; the totals (datagrams, samples, sequence gaps); the
ports' counters; the collision named on the right port and group, and
none across groups.

Two ways in: `replay --sflow` of the datagrams in a pcap, and the UDP
listener (`top --sflow --once --json`) while the generator sends them.
Then out again (`export --sflow --ipfix`): ipfixDump reads each flow's
estimate, and its output port as egressInterface with flowDirection
egress; the Prometheus interface series say egress too.
Usage: scenario.py FABPROBE TOOLS_DIR
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

FAILS = []
PASSED = [0]


def check(what, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail and not ok else ''}")
    if not ok:
        FAILS.append(what)
    else:
        PASSED[0] += 1


def flow_of(report, want):
    for f in report["flows"]:
        if f["src"] == want["src"] and f["sport"] == want["sport"] and \
                f["dest_qp"] == want["dest_qp"]:
            return f
    return None


def check_counts(tag, report, truth):
    t = report["totals"]
    check(f"{tag}: sflow_datagrams", t["sflow_datagrams"] == truth["datagrams"],
          f"{t['sflow_datagrams']} != {truth['datagrams']}")
    check(f"{tag}: sflow_samples", t["sflow_samples"] == truth["samples"],
          f"{t['sflow_samples']} != {truth['samples']}")
    check(f"{tag}: sflow_lost_datagrams (sequence gaps)",
          t["sflow_lost_datagrams"] == truth["lost"], f"{t['sflow_lost_datagrams']}")
    check(f"{tag}: sflow_malformed 0", t["sflow_malformed"] == 0)
    check(f"{tag}: flows", len(report["flows"]) == len(truth["flows"]),
          f"{len(report['flows'])} != {len(truth['flows'])}")
    for want in truth["flows"]:
        got = flow_of(report, want)
        name = f"{tag}: flow {want['src']}:{want['sport']} qp {want['dest_qp']}"
        if not got:
            check(name, False, "missing")
            continue
        s = got["sampled"] or {}
        check(f"{name} samples", s.get("samples") == want["samples"],
              f"{s.get('samples')} != {want['samples']}")
        check(f"{name} rate", s.get("rate") == want["rate"], f"{s.get('rate')} != {want['rate']}")
        check(f"{name} point", s.get("point") == want["point"], f"{s.get('point')}")
        check(f"{name} packets (estimate)", got["packets"] == want["packets"],
              f"{got['packets']} != {want['packets']}")
        check(f"{name} bytes (estimate)", got["bytes"] == want["bytes"],
              f"{got['bytes']} != {want['bytes']}")
        check(f"{name} CE", got["ecn"]["ce"] == want["ce"] or
              (got["inner_ecn"] or {}).get("ce") == want["ce"], f"{got['ecn']}")
        check(f"{name} path", got["path"] == want["path"], f"{got['path']} != {want['path']}")
        # A sample's point is the port the packet left by, as IPFIX's flowDirection says.
        check(f"{name} dir egress (its output port)", got["dir"] == "egress", got["dir"])
        check(f"{name} vni", got["vni"] == want["vni"], f"{got['vni']}")
        check(f"{name} retransmits and psn_gaps null",
              got["retransmits"] is None and got["psn_gaps"] is None)
    paths = {p["name"]: p for p in report["paths"]}
    for want in truth["flows"]:
        if want["path"]:
            p = paths.get(want["path"])
            check(f"{tag}: path {want['path']} group", p is not None and p["group"] == want["group"],
                  f"{p and p['group']} != {want['group']}")
    for name in ("leaf1-up51", "leaf1-up52"):
        check(f"{tag}: idle mapped uplink {name} is a path", name in paths)
    pc = (paths.get("leaf1-up49") or {}).get("port_counters")
    check(f"{tag}: port counters of leaf1-up49", pc is not None and pc["oper_up"] and
          pc["speed_bps"] == 100000000000 and pc["counter_samples"] == truth["seconds"], f"{pc}")
    check(f"{tag}: no port counters where none were sent",
          (paths.get("192.0.2.1:swp10") or {}).get("port_counters") is None)
    groups = {g["name"]: g for g in report["groups"]}
    check(f"{tag}: groups leaf1 and leaf2",
          sorted(groups) == ["leaf1", "leaf2"] and len(groups["leaf1"]["paths"]) == 4 and
          len(groups["leaf2"]["paths"]) == 2, f"{report['groups']}")


def check_analysis(tag, report, truth):
    """Rates are over the capture's own clock: only the replay has them right."""
    paths = {p["name"]: p for p in report["paths"]}
    pc = paths["leaf1-up49"]["port_counters"]
    check(f"{tag}: port out_bps from octets", pc["out_bps"] == truth["port_out_bps"],
          f"{pc['out_bps']}")
    check(f"{tag}: port out_discards_per_s", pc["out_discards_per_s"] == truth["port_discards_per_s"],
          f"{pc['out_discards_per_s']}")
    obs = [c for c in report["collisions"] if c["kind"] == "observed"]
    check(f"{tag}: one collision, on leaf1-up49 in group leaf1",
          [(c["path"], c["group"]) for c in obs] ==
          [(c["path"], c["group"]) for c in truth["collisions"]], f"{obs}")
    check(f"{tag}: its idle path is in the same group",
          bool(obs) and obs[0]["idle_path"].startswith("leaf1-"), f"{obs}")
    al = [a for a in report["alerts"] if a["type"] == "elephant_collision"]
    check(f"{tag}: elephant_collision alert names leaf1-up49 and group leaf1",
          len(al) == 1 and "leaf1-up49" in al[0]["message"] and "group leaf1" in al[0]["message"],
          f"{al}")
    g2 = [g for g in report["groups"] if g["name"] == "leaf2"][0]
    check(f"{tag}: leaf2 balanced", g2["imbalance"]["bytes"] < 1.1, f"{g2}")


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def metrics_of(port, ready, tries=100):
    """GET /metrics until ready(text) holds (0.2 s apart); the last text, or ''."""
    text = ""
    for _ in range(tries):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                text = r.read().decode()
            if ready(text):
                break
        except OSError:
            pass
        time.sleep(0.2)
    return text


def check_ipfix(fabprobe, gen, tmp, port_map, truth):
    """export --sflow --ipfix: ipfixDump reads each flow at its output port, egress."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, os.path.join(top, "tests", "ipfix"))
    import ipfix_check
    out, port_file = os.path.join(tmp, "sc.ipfix"), os.path.join(tmp, "recv.port")
    recv = subprocess.Popen([sys.executable, os.path.join(top, "tests", "ipfix", "recv.py"),
                             "--udp", "127.0.0.1", "--port-file", port_file, "--out", out,
                             "--summary", os.path.join(tmp, "recv.json")])
    for _ in range(100):
        if os.path.exists(port_file):
            break
        time.sleep(0.1)
    cport, sport = open(port_file).read().strip(), free_udp_port()
    hs = socket.socket()
    hs.bind(("127.0.0.1", 0))
    hport = hs.getsockname()[1]
    hs.close()
    exp = subprocess.Popen([fabprobe, "export", "--sflow", f"127.0.0.1:{sport}",
                            "--sflow-port-map", port_map, "--listen", f"127.0.0.1:{hport}",
                            "--ipfix", f"127.0.0.1:{cport}", "--ipfix-interval", "1", "-r", "1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Serving metrics: the sFlow socket is open, so nothing sent is lost.
    metrics_of(hport, lambda m: "fabprobe_" in m)
    subprocess.run([gen, "send", "127.0.0.1", str(sport), "2000"], check=True,
                   capture_output=True)
    # Prometheus says what IPFIX does: every sampled flow is egress at its port.
    # Both directions' series exist for every port; only egress counts packets.
    # Polled until every datagram sent has been counted (SIGINT does not wait).
    want = sum(f["packets"] for f in truth["flows"])
    series = lambda m: [(d, int(v)) for d, v in re.findall(
        r'^fabprobe_interface_roce_packets_total\{[^}]*direction="(\w+)"\} (\d+)$', m, re.M)]
    metrics = metrics_of(hport, lambda m: sum(v for _, v in series(m)) >= want)
    got = series(metrics)
    check("export --sflow: Prometheus counts every port's packets direction=\"egress\"",
          sum(v for _, v in got) == want and {d for d, v in got if v} == {"egress"},
          f"{got or metrics[:200]}")
    exp.send_signal(2)
    _, err = exp.communicate(timeout=30)
    recv.terminate()
    recv.wait(timeout=10)
    check("export --sflow --ipfix exit 0 on SIGINT", exp.returncode == 0, err)
    records, summary = ipfix_check.read_ipfixdump(
        out, [os.path.join(top, "docs", "ipfix", "fabprobe-elements.xml")], False,
        ipfix_check.PEN_DEFAULT)
    check("ipfixDump reads the records", summary["rc"] == 0 and records, summary["stderr"])
    # A port's switch ifIndex: the port map's, a port-name record's (AGENT:swpN), else none.
    ifindex = {}
    for line in open(port_map):
        f = line.split()
        if len(f) >= 3 and not line.startswith("#"):
            ifindex[f[2]] = int(f[1])
    for want in truth["flows"]:
        name = f"ipfix: flow {want['src']}:{want['sport']} qp {want['dest_qp']}"
        got = [r for r in records if r["src"] == want["src"] and r["sport"] == want["sport"] and
               r["dest_qp"] == want["dest_qp"]]
        point = want["point"]
        port = ifindex.get(point, int(point.rsplit("swp", 1)[1]) if ":swp" in point else 0)
        check(f"{name} packets (estimate)", sum(r["packets"] for r in got) == want["packets"],
              f"{[r['packets'] for r in got]} != {want['packets']}")
        check(f"{name} flowDirection egress at its output port {port}",
              got and all(r["dir"] == "egress" and r["ifindex"] == port for r in got),
              f"{[(r['dir'], r['ifindex']) for r in got]}")
        check(f"{name} path", got and all(r.get("path", "") == (want["path"] or "") for r in got),
              f"{[r.get('path') for r in got]}")


def main():
    fabprobe, tools = sys.argv[1], sys.argv[2]
    gen = os.path.join(tools, "sflow_scenario")
    with tempfile.TemporaryDirectory() as tmp:
        pcap, truth_path, port_map = (os.path.join(tmp, n) for n in ("sc.pcap", "sc.json", "sc.map"))
        subprocess.run([gen, "pcap", pcap, truth_path, port_map], check=True)
        truth = json.load(open(truth_path))

        r = subprocess.run([fabprobe, "replay", "--json", "--sflow", "--sflow-port-map", port_map,
                            "--elephant-rate", "1G", pcap], capture_output=True, text=True)
        check("replay --sflow exit 0", r.returncode == 0, r.stderr)
        if r.returncode == 0:
            report = json.loads(r.stdout)
            check_counts("replay", report, truth)
            check_analysis("replay", report, truth)
            # One flow at two rates is two table entries: the text says both counts, as the JSON.
            t = subprocess.run([fabprobe, "replay", "--sflow", "--sflow-port-map", port_map,
                                "--elephant-rate", "1G", pcap], capture_output=True, text=True)
            want = f"flows {len(report['flows'])} ({report['totals']['flows']} entries: sampled at several rates) of "
            check("replay --sflow text: flows, and the table entries they are in",
                  len(report["flows"]) < report["totals"]["flows"] and
                  any(l.startswith(want) for l in t.stdout.splitlines()), want)
            # The text says what the estimates rest on: the flows' sampling rates.
            rates = sorted({f["sampled"]["rate"] for f in report["flows"] if f["sampled"]})
            want = (f"(sampled 1 in {rates[0]} to 1 in {rates[-1]}: " if len(rates) > 1
                    else f"(sampled 1 in {rates[0]}: ")
            check("replay --sflow text: the sampling rates",
                  any(l.startswith(want) for l in t.stdout.splitlines()), want)

        # The listener: a free port, the generator sends while top listens.
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        top = subprocess.Popen([fabprobe, "top", "--sflow", f"127.0.0.1:{port}",
                                "--sflow-port-map", port_map, "--once", "-r", "4", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        subprocess.run([gen, "send", "127.0.0.1", str(port), "2000"], check=True,
                       capture_output=True)
        out, err = top.communicate(timeout=30)
        check("top --sflow exit 0", top.returncode == 0, err)
        if top.returncode == 0:
            report = json.loads(out)
            check("top --sflow: mode live", report["mode"] == "live")
            check("top --sflow: no socket drops", report["totals"]["sflow_socket_drops"] == 0)
            check_counts("listener", report, truth)

        check_ipfix(fabprobe, gen, tmp, port_map, truth)

        # A bad port map: one line per bad line, with its number; usage exit.
        with open(port_map, "a") as m:
            m.write("192.0.2.1 x bad\n\n# fine\nnot-an-ip 3 name\n192.0.2.1 49 again leaf1\n")
        r = subprocess.run([fabprobe, "replay", "--sflow", "--sflow-port-map", port_map, pcap],
                           capture_output=True, text=True)
        lines = [l for l in r.stderr.splitlines() if ".map:" in l]
        check("bad port map: usage error (2)", r.returncode == 2, f"{r.returncode}")
        check("bad port map: one line per bad line, numbered",
              len(lines) == 3 and ":8:" in lines[0] and ":11:" in lines[1] and ":12:" in lines[2],
              r.stderr)
    if FAILS:
        print("failed: " + ", ".join(FAILS))
    print(f"sflow-scenario: {PASSED[0]} passed, {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
