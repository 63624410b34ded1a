#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`fabprobe replay --sflow` of the shared real sFlow captures
(../shared/pcaps/ext/sflow*.pcap), counted against tshark's sFlow
dissector: datagrams decoded = sFlow v5 datagrams tshark reads a header
with a sample count from, samples = the sum of those counts, malformed =
every other UDP datagram to port 6343 (NetFlow sent to the sFlow port, a
datagram of 8 bytes). Exit 0 for malformed datagrams (they are counted);
exit 3 for a capture file cut short (what was read is reported); never a
crash. Also: --sflow-port picks the datagrams of another port.
Usage: captures.py FABPROBE TOOLS_DIR (PCAPS from the environment)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []
PASSED = [0]


def check(what, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail and not ok else ''}")
    if not ok:
        FAILS.append(what)
    else:
        PASSED[0] += 1


def tshark_counts(capture, port=6343):
    rows = subprocess.run(
        ["tshark", "-n", "-r", capture, "-d", f"udp.port=={port},sflow", "-Y",
         f"udp.dstport=={port}", "-T", "fields", "-E", "occurrence=f", "-e", "sflow_245.version",
         "-e", "sflow_245.numsamples"], check=True, capture_output=True, text=True).stdout
    udp = decoded = samples = 0
    for line in rows.splitlines():
        version, numsamples = (line.split("\t") + [""])[:2]
        udp += 1
        if version == "5" and numsamples != "":
            decoded += 1
            samples += int(numsamples)
    return udp, decoded, samples


def replay(fabprobe, *args):
    return subprocess.run([fabprobe, "replay", "--json", "--sflow", *args], capture_output=True,
                          text=True)


def main():
    fabprobe = sys.argv[1]
    pcaps = os.environ.get("PCAPS", os.path.join(os.path.dirname(__file__), "../../../shared/pcaps"))
    captures = sorted(glob.glob(os.path.join(pcaps, "ext", "sflow*.pcap")))
    check("shared sFlow captures present", len(captures) >= 4, pcaps)
    for cap in captures:
        name = os.path.basename(cap)
        udp, decoded, samples = tshark_counts(cap)
        r = replay(fabprobe, cap)
        check(f"{name}: exit 0", r.returncode == 0, f"{r.returncode} {r.stderr}")
        if r.returncode != 0:
            continue
        t = json.loads(r.stdout)["totals"]
        check(f"{name}: datagrams {decoded}", t["sflow_datagrams"] == decoded,
              f"{t['sflow_datagrams']}")
        check(f"{name}: samples {samples}", t["sflow_samples"] == samples, f"{t['sflow_samples']}")
        check(f"{name}: malformed {udp - decoded}", t["sflow_malformed"] == udp - decoded,
              f"{t['sflow_malformed']}")
        txt = subprocess.run([fabprobe, "replay", "--sflow", cap], capture_output=True, text=True)
        check(f"{name}: text report", txt.returncode == 0 and "sFlow" in txt.stdout, txt.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        v6 = os.path.join(pcaps, "ext", "sflow-print-v6.pcap")
        # Cut short inside a record: exit 3, the datagrams before the cut reported.
        cut = os.path.join(tmp, "cut.pcap")
        data = open(v6, "rb").read()
        open(cut, "wb").write(data[:len(data) // 2])
        r = replay(fabprobe, cut)
        check("cut capture: exit 3", r.returncode == 3, f"{r.returncode} {r.stderr}")
        check("cut capture: says so", "cut short" in r.stderr, r.stderr)
        if r.stdout:
            t = json.loads(r.stdout)["totals"]
            check("cut capture: the datagrams before the cut", 0 < t["sflow_datagrams"] < 25,
                  f"{t['sflow_datagrams']}")
        # Not a capture at all: one line, exit 1.
        junk = os.path.join(tmp, "junk.pcap")
        open(junk, "wb").write(b"not a capture\n" * 10)
        r = replay(fabprobe, junk)
        check("junk file: exit 1, one line", r.returncode == 1 and len(r.stderr.splitlines()) == 1,
              f"{r.returncode} {r.stderr}")
        # The same datagrams looked for on another port: none, and --sflow-port finds them.
        r = replay(fabprobe, "--sflow-port", "6344", v6)
        check("--sflow-port 6344: no datagrams",
              r.returncode == 0 and json.loads(r.stdout)["totals"]["sflow_datagrams"] == 0)
        r = replay(fabprobe, "--sflow-port", "6343", v6)
        check("--sflow-port 6343: 25 datagrams",
              r.returncode == 0 and json.loads(r.stdout)["totals"]["sflow_datagrams"] == 25)
        r = subprocess.run([fabprobe, "replay", "--sflow-port", "6344", v6], capture_output=True,
                           text=True)
        check("--sflow-port without --sflow: usage error", r.returncode == 2, r.stderr)
    if FAILS:
        print("failed: " + ", ".join(FAILS))
    print(f"sflow-captures: {PASSED[0]} passed, {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
