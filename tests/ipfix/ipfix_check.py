#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What real collectors made of fabprobe's IPFIX, against ground truth.

  ipfix_check.py ipfixdump FILE [--elements XML | --rfc5610] [--truth T.json] ...
  ipfix_check.py nfdump DIR [--truth T.json] ...
  ipfix_check.py tshark PCAP --port P [--tcp] [--truth T.json] ...

Each reader runs the collector's own tool (ipfixDump, nfdump, tshark) and
turns its output into flow records. The records of one flow (key: src,
dst, sport, dport, and where the collector shows them dest_qp, VNI and
direction) are summed, since fabprobe sends per-interval deltas, and
compared field by field with the truth: {"flows": [...]} in the field
names of fabprobe's JSON report (docs/json.md), as written by
`ipfix_emit --truth` or `fabprobe replay --json`. Only fields both sides
carry are compared; a missing element (retransmits and psn_gaps of a
sampled flow) must be null in the truth.

A flow's CNPs in another class than its other packets are records of
their own (docs/ipfix.md), so a flow's records may carry two DSCPs: then
each must be one the truth saw (`dscps`). With --by-class the DSCP is
part of the key, as for a collector that sums by ToS, and the truth has
an entry per flow and DSCP (`mkpcap.py classes`).

Prints one JSON summary line (messages, records, templates, withdrawals,
largest message, flowEndReason counts, most records of one flow...) for
the caller to assert on; exits 1 on any mismatch or collector error,
listing the first differences.
"""
import argparse
import calendar
import collections
import csv
import io
import ipaddress
import json
import os
import re
import subprocess
import sys
import time

PEN_DEFAULT = 32473
ADDITIVE = ("packets", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "acks", "naks",
            "rnr_naks", "retransmits", "psn_gaps", "samples")

# Standard IANA element IDs, and fabprobe's enterprise IDs (docs/ipfix.md).
STD = {1: "bytes", 2: "packets", 4: "proto", 5: "tos", 7: "sport", 8: "src", 10: "in_if",
       11: "dport", 12: "dst", 14: "out_if", 27: "src", 28: "dst", 61: "direction",
       82: "path", 136: "end_reason", 152: "first_ms", 153: "last_ms", 351: "l2seg"}
ENT = {1: "dest_qp", 2: "opcode_classes", 3: "not_ect", 4: "ect0", 5: "ect1", 6: "ce",
       7: "cnp", 8: "acks", 9: "naks", 10: "rnr_naks", 11: "retransmits", 12: "psn_gaps",
       13: "mirror_session", 14: "sampling_rate", 15: "samples"}


def addr(s):
    return ipaddress.ip_address(s.strip()).compressed


def utc_ms(text, fmt):
    """'2026-06-17 03:12:38.004' (UTC) as UNIX ms."""
    main, _, frac = text.strip().partition(".")
    secs = calendar.timegm(time.strptime(main, fmt))
    return secs * 1000 + int((frac + "000")[:3])


def finish(rec):
    """Collector-neutral names: vni, dir, ifindex, dscp from the raw elements."""
    if "l2seg" in rec:
        seg = rec.pop("l2seg")
        rec["vni"] = seg & 0xFFFFFF if seg >> 56 == 1 else None
    if "direction" in rec:
        rec["dir"] = "egress" if rec.pop("direction") else "ingress"
        rec["ifindex"] = rec.get("out_if" if rec["dir"] == "egress" else "in_if")
    if "tos" in rec:
        rec["dscp"] = rec.pop("tos") >> 2
    rec.pop("in_if", None)
    rec.pop("out_if", None)
    return rec


# ---- truth ----

def load_truth(path):
    with open(path) as f:
        flows = json.load(f)["flows"]
    out = []
    for fl in flows:
        t = {k: fl[k] for k in ("packets", "bytes", "cnp", "acks", "naks", "rnr_naks",
                                "retransmits", "psn_gaps", "dest_qp", "dscp", "dscps", "dir",
                                "ifindex", "opcode_classes", "sampling_rate", "samples",
                                "mirror_session") if k in fl}
        t["src"], t["dst"] = addr(fl["src"]), addr(fl["dst"])
        t["sport"], t["dport"] = fl["sport"], fl["dport"]
        t["vni"] = fl.get("vni")
        for k, v in (fl.get("ecn") or {}).items():
            t[k] = v
        if fl.get("path") is not None:
            t["path"] = fl["path"]
        if "first_seen_ms" in fl:
            t["first_ms"], t["last_ms"] = fl["first_seen_ms"], fl["last_seen_ms"]
        elif fl.get("first_seen") is not None:
            t["first_s"], t["last_s"] = fl["first_seen"], fl["last_seen"]
        out.append(t)
    return out


# ---- grouping and comparing ----

def key_of(r, fields):
    return tuple(r.get(f) for f in fields)


def group(records, fields):
    """Sum the records of each flow; a field absent from any record stays absent."""
    flows = collections.OrderedDict()
    for r in records:
        k = key_of(r, fields)
        g = flows.get(k)
        if g is None:
            flows[k] = dict(r, _records=1, _dscps={r.get("dscp")})
            continue
        g["_records"] += 1
        g["_dscps"].add(r.get("dscp"))
        for f in ADDITIVE:
            if f in g and f in r and g[f] is not None and r[f] is not None:
                g[f] += r[f]
        for f in ("first_ms", "first_s"):
            if f in r and f in g:
                g[f] = min(g[f], r[f])
        for f in ("last_ms", "last_s"):
            if f in r and f in g:
                g[f] = max(g[f], r[f])
        for f in ("path", "sampling_rate", "mirror_session", "ifindex"):
            if f in r and g.get(f) != r[f]:
                g.setdefault("_conflicts", []).append(f)
        if "opcode_classes" in r:
            g["opcode_classes"] = g.get("opcode_classes", 0) | r["opcode_classes"]
    return flows


def compare(truth, records, key_fields, fields, errors):
    got = group(records, key_fields)
    want = group(truth, key_fields)
    for k in want:
        if k not in got:
            errors.append(f"flow {k}: not in the collector's records")
    for k in got:
        if k not in want:
            errors.append(f"flow {k}: in the collector's records but not in the truth")
            continue
        g, w = got[k], want[k]
        if g.get("_conflicts"):
            errors.append(f"flow {k}: records disagree on {sorted(set(g['_conflicts']))}")
        for f in fields:
            if f not in w:
                continue
            if f in ("retransmits", "psn_gaps") and w[f] is None:
                if g.get(f) is not None:
                    errors.append(f"flow {k}: {f} sent ({g[f]}) though unknown")
                continue
            if f == "first_s":
                if "first_ms" in g and abs(g["first_ms"] - w[f] * 1000) >= 1:
                    errors.append(f"flow {k}: first_ms {g['first_ms']} != {w[f]} s")
                continue
            if f == "last_s":
                if "last_ms" in g and abs(g["last_ms"] - w[f] * 1000) >= 1:
                    errors.append(f"flow {k}: last_ms {g['last_ms']} != {w[f]} s")
                continue
            if f == "dscp" and len(g["_dscps"]) > 1:
                # Its CNPs' class and its other packets': each one the flow used.
                seen = set(w.get("dscps") or [w[f]])
                if not g["_dscps"] <= seen:
                    errors.append(f"flow {k}: DSCPs {sorted(g['_dscps'])} "
                                  f"not all in {sorted(seen)}")
                continue
            if f not in g:
                errors.append(f"flow {k}: {f} missing (want {w[f]})")
            elif g[f] != w[f]:
                errors.append(f"flow {k}: {f} {g[f]!r} != {w[f]!r}")
    return len(want)


# ---- ipfixDump ----

FIELD_RE = re.compile(r"^\t\((\d+)(?:/(\d+))?\)\s*(?:\(S\))?\s*(\S+) : ?(.*)$")


def read_ipfixdump(path, elements, rfc5610, pen):
    cmd = ["ipfixDump", "--in", path]
    for e in elements or []:
        cmd += ["--element-file", e]
    if rfc5610:
        cmd.append("--rfc5610")
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
    s = {"collector": "ipfixDump", "messages": 0, "max_message": 0, "templates": 0,
         "withdrawals": 0, "data_records": 0, "flow_records": 0, "type_records": 0,
         "sequence_ok": True, "names": {}, "stderr": p.stderr.strip()}
    records, cur, in_template, msg_data, seq, next_seq = [], None, False, 0, None, None

    def end_message():
        nonlocal next_seq
        if seq is not None:
            if next_seq is not None and seq != next_seq:
                s["sequence_ok"] = False
                s.setdefault("sequence_errors", []).append([next_seq, seq])
            next_seq = seq + msg_data

    for line in p.stdout.splitlines():
        if line.startswith("--- Message Header"):
            end_message()
            s["messages"] += 1
            msg_data = 0
            cur, in_template = None, False
        elif line.startswith("message length:"):
            m = re.match(r"message length:\s*(\d+)\s+sequence number:\s*(\d+)", line)
            s["max_message"] = max(s["max_message"], int(m.group(1)))
            seq = int(m.group(2))
        elif line.startswith("--- template record") or line.startswith("--- options template"):
            cur, in_template = None, True
        elif line.startswith("--- data record"):
            cur, in_template = {"_fields": {}}, False
            records.append(cur)
            s["data_records"] += 1
            msg_data += 1
        elif in_template and "field count:" in line:
            if re.search(r"field count:\s+0\b", line):
                s["withdrawals"] += 1
            else:
                s["templates"] += 1
        elif cur is not None:
            m = FIELD_RE.match(line)
            if m:
                # "(152)" is an IANA element, "(32473/1)" PEN 32473's element 1.
                if m.group(2) is not None:
                    epen, eid = int(m.group(1)), int(m.group(2))
                else:
                    epen, eid = 0, int(m.group(1))
                cur["_fields"][(epen, eid)] = m.group(4)
                s["names"][f"{epen}/{eid}"] = m.group(3)
    end_message()

    out = []
    for r in records:
        f = r["_fields"]
        if (0, 2) not in f:  # no packetDeltaCount: an RFC 5610 type record
            if (0, 341) in f:
                s["type_records"] += 1
            continue
        rec = {}
        for (epen, eid), val in f.items():
            name = STD.get(eid) if epen == 0 else ENT.get(eid) if epen == pen else None
            if name is None:
                continue
            if name in ("src", "dst"):
                rec[name] = addr(val)
            elif name == "path":
                rec[name] = re.sub(r"^\(len: \d+\) ?", "", val)
                rec["path_len"] = int(re.match(r"^\(len: (\d+)\)", val).group(1))
            elif name in ("first_ms", "last_ms"):
                rec[name] = utc_ms(val, "%Y-%m-%d %H:%M:%S")
            else:
                rec[name] = int(val)
        out.append(finish(rec))
    s["flow_records"] = len(out)
    s["rc"] = p.returncode
    return out, s


# ---- nfdump ----

def read_nfdump(directory):
    p = subprocess.run(["nfdump", "-R", directory, "-o", "csv"], capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    s = {"collector": "nfdump", "rc": p.returncode, "stderr": p.stderr.strip()}
    lines = []
    for line in p.stdout.splitlines():
        if not line.strip() or line.startswith("Summary"):
            break
        lines.append(line)
    out = []
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        out.append({"src": addr(row["sa"]), "dst": addr(row["da"]), "sport": int(row["sp"]),
                    "dport": int(row["dp"]), "proto": row["pr"].strip(),
                    "packets": int(row["ipkt"]), "bytes": int(row["ibyt"]),
                    "dscp": int(row["stos"]) >> 2})
    s["flow_records"] = len(out)
    return out, s


# ---- tshark ----

def pairs_hook(pairs):
    """Keep every value of a key that tshark repeats (one per enterprise element)."""
    d = {}
    for k, v in pairs:
        if k in d:
            if not isinstance(d[k], list) or not getattr(d[k], "_multi", False):
                d[k] = MultiList([d[k]])
            d[k].append(v)
        else:
            d[k] = v
    return d


class MultiList(list):
    _multi = True


def as_list(v):
    return list(v) if isinstance(v, MultiList) else [v]


def read_tshark(pcap, port, tcp, pen):
    proto = "tcp" if tcp else "udp"
    cmd = ["tshark", "-r", pcap, "-d", f"{proto}.port=={port},cflow", "-T", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
    s = {"collector": "tshark", "rc": p.returncode, "messages": 0, "max_message": 0,
         "max_udp_payload": 0, "templates": 0, "withdrawals": 0, "flow_records": 0,
         "malformed": 0, "expert_warnings": 0,
         "stderr": "\n".join(l for l in p.stderr.splitlines() if "Running as user" not in l)}
    # Expert info and malformed markers are in the text output.
    v = subprocess.run(["tshark", "-r", pcap, "-d", f"{proto}.port=={port},cflow", "-V"],
                       capture_output=True, text=True)
    s["malformed"] = v.stdout.count("Malformed")
    # Warnings and errors of any layer but TCP's own (a zero window or a
    # segment dumpcap missed under load says nothing about the IPFIX).
    z = subprocess.run(["tshark", "-r", pcap, "-d", f"{proto}.port=={port},cflow", "-q",
                        "-z", "expert,warn"], capture_output=True, text=True)
    s["expert_warnings"] = sum(int(m.group(1)) for m in
                               re.finditer(r"^\s+(\d+)\s+\S+\s+(\S+)\s", z.stdout, re.M)
                               if m.group(2) != "TCP")
    packets = json.loads(p.stdout, object_pairs_hook=pairs_hook) if p.stdout.strip() else []
    templates, out = {}, []
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        if "udp" in layers:
            s["max_udp_payload"] = max(s["max_udp_payload"],
                                       int(layers["udp"]["udp.length"]) - 8)
        if "cflow" not in layers:
            continue
        for msg in as_list(layers["cflow"]):
            s["messages"] += 1
            s["max_message"] = max(s["max_message"], int(msg["cflow.len"]))
            for sk, sv in msg.items():
                if not sk.startswith("Set "):
                    continue
                for set_ in as_list(sv):
                    for tk, tv in set_.items():
                        if tk.startswith("Template (Id ="):
                            for t in as_list(tv):
                                tid = int(t["cflow.template_id"])
                                if int(t["cflow.template_field_count"]) == 0:
                                    s["withdrawals"] += 1
                                    templates.pop(tid, None)
                                    continue
                                s["templates"] += 1
                                ent = []
                                for fk, fv in t.items():
                                    if fk.startswith("Field (") and \
                                            fv.get("cflow.template_ipfix_pen_provided") == "1":
                                        ent.append((int(fv["cflow.template_ipfix_field_pen"]),
                                                    int(fv["cflow.template_ipfix_field_type_enterprise"])))
                                templates[tid] = ent
                        elif tk.startswith("Flow "):
                            tid = int(set_["cflow.flowset_id"])
                            for fl in as_list(tv):
                                if "cflow.packets" not in fl:
                                    continue
                                out.append(finish(tshark_flow(fl, templates.get(tid, []), pen)))
    s["flow_records"] = len(out)
    return out, s


def tshark_flow(fl, ent_fields, pen):
    rec = {"packets": int(fl["cflow.packets"]), "bytes": int(fl["cflow.octets"]),
           "sport": int(fl["cflow.srcport"]), "dport": int(fl["cflow.dstport"]),
           "in_if": int(fl["cflow.inputint"]), "out_if": int(fl["cflow.outputint"]),
           "direction": int(fl["cflow.direction"]), "tos": int(fl["cflow.tos"], 16),
           "l2seg": int(fl["cflow.layer2_segment_id"])}
    rec["src"] = addr(fl.get("cflow.srcaddr") or fl["cflow.srcaddrv6"])
    rec["dst"] = addr(fl.get("cflow.dstaddr") or fl["cflow.dstaddrv6"])
    if "cflow.if_name" in fl:
        rec["path"] = fl["cflow.if_name"]
    times = fl.get("cflow.timedelta_tree", {})
    if "cflow.abstimestart" in times:
        rec["first_ms"] = tshark_ms(times["cflow.abstimestart"])
        rec["last_ms"] = tshark_ms(times["cflow.abstimeend"])
    values = as_list(fl.get("cflow.enterprise_private_entry", MultiList()))
    for (epen, eid), val in zip(ent_fields, values):
        name = ENT.get(eid) if epen == pen else None
        if name:
            rec[name] = int(val.replace(":", ""), 16)
    return rec


def tshark_ms(text):
    """'Jun 17, 2026 03:12:38.004000000 UTC' as UNIX ms."""
    main, _, frac = text.replace(" UTC", "").partition(".")
    return calendar.timegm(time.strptime(main, "%b %d, %Y %H:%M:%S")) * 1000 + int(frac[:3])


# ---- main ----

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("collector", choices=["ipfixdump", "nfdump", "tshark"])
    ap.add_argument("input", help="IPFIX file, nfcapd directory or capture")
    ap.add_argument("--truth", help="ground truth: {\"flows\": [...]} (docs/json.md names)")
    ap.add_argument("-e", "--elements", action="append", help="ipfixDump --element-file")
    ap.add_argument("--rfc5610", action="store_true", help="ipfixDump --rfc5610")
    ap.add_argument("--pen", type=int, default=PEN_DEFAULT)
    ap.add_argument("--port", type=int, help="tshark: the collector's port")
    ap.add_argument("--tcp", action="store_true", help="tshark: IPFIX over TCP")
    ap.add_argument("--records", type=int, help="expect exactly this many flow records")
    ap.add_argument("--mtu", type=int, help="no message (UDP payload) above this")
    ap.add_argument("--by-class", action="store_true",
                    help="the DSCP is part of a flow's key (truth: an entry per flow and DSCP)")
    a = ap.parse_args()

    errors = []
    if a.collector == "ipfixdump":
        records, s = read_ipfixdump(a.input, a.elements, a.rfc5610, a.pen)
        key = ("src", "dst", "sport", "dport", "dest_qp", "vni", "dir")
        fields = ("packets", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "acks", "naks",
                  "rnr_naks", "retransmits", "psn_gaps", "path", "dscp", "ifindex",
                  "opcode_classes", "sampling_rate", "samples", "mirror_session", "first_ms",
                  "last_ms", "first_s", "last_s")
        if s["rc"] != 0 or s["stderr"]:
            errors.append(f"ipfixDump exit {s['rc']}: {s['stderr'][:500]}")
        if not s["sequence_ok"]:
            errors.append(f"sequence numbers: expected/seen {s['sequence_errors'][:5]}")
    elif a.collector == "nfdump":
        records, s = read_nfdump(a.input)
        key = ("src", "dst", "sport", "dport")
        fields = ("packets", "bytes", "dscp")
        if s["rc"] != 0:
            errors.append(f"nfdump exit {s['rc']}: {s['stderr'][:500]}")
    else:
        records, s = read_tshark(a.input, a.port, a.tcp, a.pen)
        key = ("src", "dst", "sport", "dport", "dest_qp", "vni", "dir")
        fields = ("packets", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "acks", "naks",
                  "rnr_naks", "retransmits", "psn_gaps", "path", "dscp", "ifindex",
                  "opcode_classes", "sampling_rate", "samples", "mirror_session", "first_ms",
                  "last_ms")
        if s["rc"] != 0:
            errors.append(f"tshark exit {s['rc']}: {s['stderr'][:500]}")
        if s["malformed"] or s["expert_warnings"]:
            errors.append(f"tshark: {s['malformed']} malformed, {s['expert_warnings']} "
                          "expert warnings or errors")
        if a.mtu and s["max_udp_payload"] > a.mtu:
            errors.append(f"a UDP payload of {s['max_udp_payload']} bytes is above {a.mtu}")
    if a.by_class:
        key += ("dscp",)
    if a.mtu and s.get("max_message", 0) > a.mtu:
        errors.append(f"a message of {s['max_message']} bytes is above {a.mtu}")
    if a.records is not None and s["flow_records"] != a.records:
        errors.append(f"{s['flow_records']} flow records, expected {a.records}")
    # flowEndReason of the records, and the most records one flow got (fabprobe export).
    reasons = collections.Counter(str(r["end_reason"]) for r in records if "end_reason" in r)
    if reasons:
        s["end_reasons"] = dict(reasons)
    per_flow = collections.Counter(key_of(r, key) for r in records)
    s["max_records_per_flow"] = max(per_flow.values()) if per_flow else 0
    if a.truth:
        s["flows"] = compare(load_truth(a.truth), records, key, fields, errors)
    s.pop("names", None) if a.collector != "ipfixdump" else None
    s["errors"] = len(errors)
    print(json.dumps(s, sort_keys=True))
    for e in errors[:20]:
        print("MISMATCH " + e, file=sys.stderr)
    if len(errors) > 20:
        print(f"... and {len(errors) - 20} more", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
