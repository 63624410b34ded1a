#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of live_lab.sh: fabprobe's reports against the generator's ground
truth (rocegen's JSON), the congestion emulator's counters, the kernel's
ECMP choice (`ip route get`, via lab.sh path) and tshark.

Usage: check_live.py congestion TMP E1 E2 MOUSE
       check_live.py no_cnp TMP E1
       check_live.py passthrough TMP
Prints one line per failed check; exits 1 if any failed.
"""
import collections
import json
import os
import subprocess
import sys

errors = []


def expect(cond, what):
    if not cond:
        errors.append(what)
    return cond


def load(path):
    with open(path) as f:
        return json.load(f)


def key(f):
    return (f["src"], f["dst"], f["sport"], f["dport"], f["dest_qp"])


def flows_by_key(report, direction):
    out = {}
    for f in report["flows"]:
        if f["dir"] == direction:
            expect(key(f) not in out, f"{key(f)} seen on two {direction} uplinks")
            out[key(f)] = f
    return out


def paths(tmp):
    m = {}
    with open(f"{tmp}/paths") as f:
        for line in f:
            kind, rest = line.strip().split(":")
            sport, up = rest.split("=")
            m[(kind, int(sport))] = up
    return m


def check_totals(name, report):
    t = report["totals"]
    expect(t["frames"] == t["roce_packets"] + t["other_packets"] + t["malformed"],
           f"{name}: frames != roce + other + malformed")
    expect(t["malformed"] == 0, f"{name}: {t['malformed']} malformed frames in the lab")
    expect(t["flow_insert_failures"] == 0, f"{name}: flow insert failures")
    expect(sum(f["packets"] for f in report["flows"]) == t["roce_packets"],
           f"{name}: flows do not add up to roce_packets")


def same_counts(name, probe, truth, fields):
    for ours, theirs in fields:
        expect(probe[ours] == truth[theirs],
               f"{name}: {ours} fabprobe {probe[ours]} != generator {theirs} {truth[theirs]}")


def congestion(tmp, e1, e2, mouse):
    run, serve = load(f"{tmp}/run.json"), load(f"{tmp}/serve.json")
    leaf1, leaf2 = load(f"{tmp}/leaf1.json"), load(f"{tmp}/leaf2.json")
    stats = [load(f"{tmp}/congest{s}.json") for s in (1, 2, 3, 4)]
    route = paths(tmp)
    check_totals("leaf1", leaf1)
    check_totals("leaf2", leaf2)

    # leaf1 sees every request leave (tc egress) before the spines mark or drop it.
    out1, in1 = flows_by_key(leaf1, "egress"), flows_by_key(leaf1, "ingress")
    for s in run["sent"]:
        f = out1.get(key(s))
        if not expect(f, f"leaf1: no egress flow for request {key(s)}"):
            continue
        same_counts(f"leaf1 request {key(s)}", f, s,
                    [("packets", "packets"), ("bytes", "bytes"), ("retransmits", "retransmits")])
        expect(f["path"] == route[("req", s["sport"])],
               f"leaf1 request {key(s)}: path {f['path']}, kernel chose {route[('req', s['sport'])]}")
    # ACKs, NAKs, CNPs and READ responses come back through leaf2's ECMP choice, into
    # leaf1 (XDP). Nothing drops them (the emulator sits towards leaf2), so every response
    # the responder sent again for a duplicate READ is one fabprobe has seen before: the
    # generator's retransmits of a response flow (0 for a write or send QP) are exact.
    for s in serve["sent"]:
        f = in1.get(key(s))
        if not expect(f, f"leaf1: no ingress flow for response {key(s)}"):
            continue
        same_counts(f"leaf1 response {key(s)}", f, s,
                    [("packets", "packets"), ("bytes", "bytes"), ("acks", "acks"),
                     ("naks", "naks"), ("cnp", "cnps"), ("retransmits", "retransmits")])
        expect(f["path"] == route[("rsp", s["sport"])],
               f"leaf1 response {key(s)}: path {f['path']}, leaf2 chose {route[('rsp', s['sport'])]}")

    # leaf2 sees the requests after the spines: CE and drops are the emulator's.
    in2 = flows_by_key(leaf2, "ingress")
    sent = sum(s["packets"] for s in run["sent"])
    dropped = sum(c["dropped"] for c in stats)
    marked = sum(c["marked"] for c in stats)
    arrived = sum(in2[key(s)]["packets"] for s in run["sent"] if key(s) in in2)
    ce = sum(in2[key(s)]["ecn"]["ce"] for s in run["sent"] if key(s) in in2)
    expect(arrived == sent - dropped, f"leaf2: {arrived} requests arrived, sent {sent} - dropped {dropped}")
    expect(ce == marked and ce > 0, f"leaf2: {ce} CE marks seen, emulator marked {marked}")
    for s in run["sent"]:
        f = in2.get(key(s))
        if f and f["packets"]:
            expect(abs(f["ce_fraction"] - f["ecn"]["ce"] / f["packets"]) <= 5e-5 + 1e-9,
                   f"leaf2 {key(s)}: ce_fraction {f['ce_fraction']}, {f['ecn']['ce']} CE of {f['packets']}")
    expect(dropped > 0, "the emulator dropped nothing: no retransmits to check")
    rtx = sum(s["retransmits"] for s in run["sent"])
    expect(rtx > 0 and sum(out1[key(s)]["retransmits"] for s in run["sent"] if key(s) in out1) == rtx,
           f"retransmits: generator {rtx}")
    cnps = sum(s["cnps"] for s in serve["sent"])
    expect(cnps > 0, "the receiver sent no CNP")

    # The report names the collision: both elephants, on the uplink the kernel chose.
    e_ports = {sport_of(q) for q in (e1, e2)}
    collision_named("leaf1", leaf1, e_ports, route[("req", min(e_ports))])
    expect(any(a["type"] == "retransmits" for a in leaf1["alerts"]), "leaf1: no retransmits alert")
    up = {p["name"]: p for p in leaf1["paths"]}
    expect(up[route[("req", min(e_ports))]]["elephants"] == 2, "leaf1: loaded uplink does not count 2 elephants")


def collision_named(name, report, ports, uplink=None):
    hits = [a for a in report["alerts"] if a["type"] == "elephant_collision"]
    if expect(hits, f"{name}: no elephant_collision alert; alerts {[a['type'] for a in report['alerts']]}"):
        named = {f["sport"] for f in hits[0]["flows"]}
        expect(ports <= named, f"{name}: collision names sports {named}, elephants are {ports}")
        if uplink:
            expect(hits[0]["path"] == uplink, f"{name}: collision on {hits[0]['path']}, elephants on {uplink}")


def replay_group(tmp, e1, e2):
    """Captures from each uplink, replayed as one ECMP group, tell what the live probe told."""
    live, replay = load(f"{tmp}/leaf1E.json"), load(f"{tmp}/replayE.json")
    run = load(f"{tmp}/runE.json")
    out = flows_by_key(live, "egress")
    rep = {key(f): f for f in replay["flows"]}
    for s in run["sent"]:
        f, r = out.get(key(s)), rep.get(key(s))
        if not expect(f and r, f"{key(s)} missing: live {bool(f)} replay {bool(r)}"):
            continue
        for field in ("packets", "bytes", "retransmits", "path"):
            expect(f[field] == r[field], f"{key(s)} {field}: live {f[field]} replay {r[field]}")
        expect(r["packets"] == s["packets"], f"{key(s)}: replay {r['packets']} generator {s['packets']}")
    ports = {sport_of(e1), sport_of(e2)}
    # The live rates are averaged over the probe's whole window, so only replay is asked.
    collision_named("replay", replay, ports, out[key(run["sent"][0])]["path"] if run["sent"] else None)


def no_cnp(tmp, e1, e2):
    leaf2 = load(f"{tmp}/leaf2B.json")
    serve = load(f"{tmp}/serveB.json")
    check_totals("leaf2", leaf2)
    expect(sum(s["cnps"] for s in serve["sent"]) == 0, "serve --no-cnp sent CNPs")
    expect(sum(f["ecn"]["ce"] for f in leaf2["flows"]) > 0, "leaf2: no CE marks")
    ports = {sport_of(e1), sport_of(e2)}
    hits = [a for a in leaf2["alerts"] if a["type"] == "ce_without_cnp"]
    if expect(hits, f"leaf2: no ce_without_cnp alert; alerts {[a['type'] for a in leaf2['alerts']]}"):
        named = {f["sport"] for f in hits[0]["flows"]}
        expect(ports <= named, f"ce_without_cnp names sports {named}, elephants are {ports}")
    collision_named("leaf2", leaf2, ports)


def payloads(pcap, src):
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", f"ip.src == {src} && udp.dstport == 4791",
                          "-T", "fields", "-e", "udp.payload"], check=True, capture_output=True,
                         text=True).stdout
    return collections.Counter(out.split())


def passthrough(tmp):
    sent, got = payloads(f"{tmp}/h1.pcap", "10.77.1.11"), payloads(f"{tmp}/h3.pcap", "10.77.1.11")
    run = load(f"{tmp}/runC.json")
    n = sum(s["packets"] for s in run["sent"])
    expect(sum(sent.values()) == n, f"h1 capture has {sum(sent.values())} requests, generator sent {n}")
    expect(sent == got, f"payloads differ: {sum((sent - got).values())} missing or changed at h3")
    # Nothing dropped: the responder received every request the generator sent.
    serve = load(f"{tmp}/serveC.json")
    received = sum(f["packets"] for f in serve["received"])
    expect(received == n, f"responder received {received} of {n} requests")


def sport_of(qp_pair):
    """The UDP source port rocegen derives for "LQP:RQP" (as mlx5 does)."""
    rocegen = os.path.join(os.path.dirname(__file__), "..", "..", "build", "lab", "rocegen")
    return int(subprocess.check_output([rocegen, "sport", *qp_pair.split(":")], text=True))


def main():
    mode, tmp = sys.argv[1], sys.argv[2]
    {"congestion": lambda: congestion(tmp, *sys.argv[3:6]),
     "no_cnp": lambda: no_cnp(tmp, sys.argv[3], sys.argv[4]),
     "replay_group": lambda: replay_group(tmp, sys.argv[3], sys.argv[4]),
     "passthrough": lambda: passthrough(tmp)}[mode]()
    for e in errors:
        print(f"     {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
