#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check `fabprobe replay --json` against tshark's dissection of the
same capture: per flow (src, dst, sport, dport, dest QP) the packets, bytes,
BTH opcodes and ACKs must agree, and so must the frame and RoCE totals.

tshark is the independent ground truth: it never sees fabprobe's output.
Usage: tshark_check.py FABPROBE CAPTURE...   Exit 0 when every capture agrees.
"""
import collections
import json
import subprocess
import sys


def tshark_flows(capture):
    fields = ["frame.len", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.srcport",
              "udp.dstport", "infiniband.bth.destqp", "infiniband.bth.opcode",
              "infiniband.aeth.syndrome", "ip.dsfield.ecn"]
    cmd = ["tshark", "-n", "-r", capture, "-Y", "infiniband.bth", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=l"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    flows = collections.defaultdict(lambda: {"packets": 0, "bytes": 0, "opcodes": set(), "acks": 0,
                                             "naks": 0, "rnr_naks": 0, "ecn": [0, 0, 0, 0]})
    for line in out.splitlines():
        flen, s4, d4, s6, d6, sport, dport, qp, opcode, syndrome, ecn = line.split("\t")
        key = (s4 or s6, d4 or d6, int(sport), int(dport), int(qp, 0))
        f = flows[key]
        f["packets"] += 1
        f["bytes"] += int(flen)
        op = int(opcode, 0)
        f["opcodes"].add(op)
        # IBTA 9.7.5.1: an ACK is opcode 0x11 whose AETH syndrome bits 6-5 are 00.
        if op & 0x1f == 0x11 and syndrome:
            kind = int(syndrome, 0) & 0x60
            f["acks" if kind == 0 else "rnr_naks" if kind == 0x20 else "naks"] += kind != 0x40
        if ecn:
            f["ecn"][int(ecn, 0)] += 1
    return flows


def tshark_frames(capture):
    out = subprocess.run(["tshark", "-n", "-r", capture, "-T", "fields", "-e", "frame.number"],
                         check=True, capture_output=True, text=True).stdout
    return len(out.split())


def check(fabprobe, capture):
    report = json.loads(subprocess.run([fabprobe, "replay", "--json", capture], check=True,
                                       capture_output=True, text=True).stdout)
    expect = tshark_flows(capture)
    got = {}
    for f in report["flows"]:
        key = (f["src"], f["dst"], f["sport"], f["dport"], f["dest_qp"])
        if key in got:
            return [f"flow {key} reported twice"]
        got[key] = f
    errors = []
    if set(got) != set(expect):
        errors.append(f"flow sets differ: only fabprobe {sorted(set(got) - set(expect))}, "
                      f"only tshark {sorted(set(expect) - set(got))}")
    for key in set(got) & set(expect):
        g, e = got[key], expect[key]
        for field in ("packets", "bytes", "acks", "naks", "rnr_naks"):
            if g[field] != e[field]:
                errors.append(f"{key} {field}: fabprobe {g[field]} tshark {e[field]}")
        ecn = [g["ecn"]["not_ect"], g["ecn"]["ect1"], g["ecn"]["ect0"], g["ecn"]["ce"]]
        if ecn != e["ecn"]:
            errors.append(f"{key} ecn: fabprobe {ecn} tshark {e['ecn']}")
        # The shared captures hold no loss (their README): nothing may look resent.
        if g["retransmits"] or g["psn_gaps"]:
            errors.append(f"{key} retransmits {g['retransmits']} psn_gaps {g['psn_gaps']} in a lossless capture")
        # A whole run's rates are over its interval_s (printed to 1 ms, pps to 0.1).
        iv = report["interval_s"]
        if abs(g["pps"] * iv - g["packets"]) > g["pps"] * 0.0005 + 0.05 * iv + 1e-9:
            errors.append(f"{key} pps {g['pps']}: not its {g['packets']} packets over {iv} s")
        if abs(g["ce_fraction"] - g["ecn"]["ce"] / g["packets"]) > 5e-5 + 1e-9:
            errors.append(f"{key} ce_fraction {g['ce_fraction']}: not {g['ecn']['ce']} CE / {g['packets']}")
        if set(g["opcodes"]) != e["opcodes"]:
            errors.append(f"{key} opcodes: fabprobe {sorted(g['opcodes'])} tshark {sorted(e['opcodes'])}")
    totals = report["totals"]
    roce = sum(e["packets"] for e in expect.values())
    if totals["roce_packets"] != roce:
        errors.append(f"roce_packets: fabprobe {totals['roce_packets']} tshark {roce}")
    frames = tshark_frames(capture)
    if totals["frames"] != frames:
        errors.append(f"frames: fabprobe {totals['frames']} tshark {frames}")
    if totals["roce_packets"] + totals["other_packets"] + totals["malformed"] != totals["frames"]:
        errors.append("frames != roce + other + malformed")
    if totals["malformed"] != 0:
        errors.append(f"malformed {totals['malformed']} in a clean capture")
    return errors, len(expect), roce


def main():
    fabprobe, captures = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for capture in captures:
        errors, nflows, roce = check(fabprobe, capture)
        name = capture.rsplit("/", 1)[-1]
        if errors:
            failed += 1
            print(f"FAIL {name}")
            for e in errors:
                print(f"     {e}")
        else:
            passed += 1
            print(f"ok   {name}: {nflows} flows, {roce} RoCE packets agree with tshark")
    print(f"tshark-check: {passed} passed, {failed} failed")
    return 1 if failed or not captures else 0


if __name__ == "__main__":
    sys.exit(main())
