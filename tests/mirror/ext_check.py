#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Real mirror captures (tcpdump's test suite: ERSPAN I, II, III, various
GRE) through the probe, against tshark's dissection of the same files.

For each capture: `fabprobe replay --json` must run and report the frames
tshark reads, the RoCE packets and flows tshark finds (none: these carry no
RoCE), and frames == roce + other + malformed. The totals the JSON report
does not print yet (mirror copies, truncated copies) come from
`test_mirror --replay`, which runs the same XDP program over the same
frames; they must match the copies tshark decodes with every mirror header
byte present, and the copies shorter than the packet they carry. A copy
whose mirror header was cut short on the wire is malformed; one whose
mirror header the capture's snap length cut (its wire length longer than
what was kept) is other, as a bare header a capture cut (docs/json.md).

Usage: ext_check.py FABPROBE TEST_MIRROR CAPTURE...   Exit 0 when all agree.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tshark_mirror import (ERSPAN, ERSPAN3, TEB, accepted, dissect,  # noqa: E402
                           expect_truncated, mirror_view)


def header_cut(v):
    """A mirror protocol under GRE version 0, its header cut short."""
    return (v is not None and v["proto"] in (ERSPAN, ERSPAN3, TEB) and
            not v["gre_flags"] & 0x4007 and not accepted(v) and
            v.get("version") in (None, 1 if v["proto"] == ERSPAN else 2))


def capture_cut(capture):
    """Per frame: did the capture keep fewer bytes than the frame had on the wire?"""
    out = subprocess.run(["tshark", "-n", "-r", capture, "-T", "fields", "-e", "frame.len",
                          "-e", "frame.cap_len"], check=True, capture_output=True,
                         text=True).stdout
    return [int(w) > int(c) for w, c in (l.split("\t") for l in out.splitlines())]


def tshark_expect(capture):
    packets = dissect(capture)
    cut = capture_cut(capture)
    e = {"frames": len(packets), "mirrored": 0, "mirror_truncated": 0, "malformed": 0,
         "roce": 0}
    for (frame_len, layers), snapped in zip(packets, cut):
        v = mirror_view(frame_len, layers)
        if any(l.name == "infiniband" and l.get("infiniband.bth.destqp") for l in layers):
            e["roce"] += 1
        if accepted(v):
            e["mirrored"] += 1
            e["mirror_truncated"] += expect_truncated(v) if not v.get("ft") else 0
        elif header_cut(v) and not snapped:
            e["malformed"] += 1
    return e


def probe_totals(test_mirror, captures):
    out = subprocess.run([test_mirror, "--replay"] + captures, check=True,
                         capture_output=True, text=True).stdout
    return {t["file"]: t for t in (json.loads(l[len("TOTALS "):]) for l in out.splitlines()
                                   if l.startswith("TOTALS "))}


def check(fabprobe, capture, probe):
    errors = []
    report = json.loads(subprocess.run([fabprobe, "replay", "--json", capture], check=True,
                                       capture_output=True, text=True).stdout)
    t = report["totals"]
    want = tshark_expect(capture)
    if t["frames"] != want["frames"]:
        errors.append(f"frames: fabprobe {t['frames']}, tshark {want['frames']}")
    if t["roce_packets"] != want["roce"] or len(report["flows"]) != 0:
        errors.append(f"RoCE {t['roce_packets']} in {len(report['flows'])} flows, "
                      f"tshark {want['roce']}")
    if t["roce_packets"] + t["other_packets"] + t["malformed"] != t["frames"]:
        errors.append("frames != roce + other + malformed")
    if t["malformed"] != want["malformed"]:
        errors.append(f"malformed: fabprobe {t['malformed']}, tshark shows "
                      f"{want['malformed']} mirror headers sent cut short")
    for k in ("frames", "roce", "other", "malformed"):
        jk = {"roce": "roce_packets", "other": "other_packets"}.get(k, k)
        if probe[k] != t[jk]:
            errors.append(f"{k}: test_mirror --replay {probe[k]}, fabprobe replay {t[jk]}")
    for k in ("mirrored", "mirror_truncated"):
        if probe[k] != want[k]:
            errors.append(f"{k}: probe {probe[k]}, tshark {want[k]}")
    return errors, want


def main():
    fabprobe, test_mirror, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    probes = probe_totals(test_mirror, captures)
    passed = failed = 0
    for capture in captures:
        name = capture.rsplit("/", 1)[-1]
        errors, want = check(fabprobe, capture, probes[capture])
        if errors:
            failed += 1
            print(f"FAIL {name}")
            for e in errors:
                print(f"     {e}")
        else:
            passed += 1
            print(f"ok   {name}: {want['frames']} frames, {want['mirrored']} mirror copies "
                  f"({want['mirror_truncated']} truncated), {want['malformed']} malformed, "
                  f"0 RoCE: as tshark")
    print(f"mirror-ext: {passed} passed, {failed} failed")
    return 1 if failed or not captures else 0


if __name__ == "__main__":
    sys.exit(main())
