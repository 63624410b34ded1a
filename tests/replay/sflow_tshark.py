#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check fabprobe's sFlow decoder (build/tools/sflow_dump) against
tshark's sFlow dissector, datagram by datagram, on real captures and on the
test encoder's crafted datagrams (build/tools/sflow_gen, wrapped in a pcap
here). tshark is the independent ground truth: it never sees our output.

Per UDP datagram to port 6343:
- tshark finds no sFlow in it (tshark only takes versions 2, 4, 5): ours
  must reject it as "version".
- ours rejects it: tshark must mark it malformed too.
- every sample and record in it is one tshark knows (its own value tables,
  `tshark -G values`): tshark must dissect it cleanly, and the header,
  every sample's fields, every record format, sampled-header fields and
  generic interface counters must be equal ("exact").
- otherwise tshark 4.0 misreads from the first structure it does not know:
  it does not skip an unknown counter record's body (port name 0:1005,
  host 0:2001 ...) nor an unknown sample type, and reads the body as the
  next record. Then the header, the sample types and each sample's records
  are compared up to and including the first unknown one ("prefix"); tshark
  may call the datagram malformed there, ours must not.
Prints per-capture figures; exit 0 when every datagram agrees.
Usage: sflow_tshark.py TOOLS_DIR CAPTURE...
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

PORT = 6343
FIELDS = [
    "frame.number", "udp.dstport", "sflow_245.version", "sflow_245.agent", "sflow_245.agent.v6",
    "sflow_245.sub_agent_id", "sflow_245.sequence_number", "sflow_245.numsamples",
    "sflow_245.sampletype", "sflow_245.flow_record_format", "sflow_245.counters_record_format",
    "sflow.flow_sample.flow_record", "sflow.counters_sample.counters_records",
    "sflow.flow_sample.sequence_number", "sflow.counters_sample.sequence_number",
    "sflow.flow_sample.sampling_rate", "sflow.flow_sample.sample_pool",
    "sflow.flow_sample.dropped_packets", "sflow.flow_sample.input_interface",
    "sflow.flow_sample.input_interface_format", "sflow.flow_sample.input_interface_value",
    "sflow.flow_sample.output_interface_format", "sflow.flow_sample.output_interface.format",
    "sflow.flow_sample.output_interface_value", "sflow_245.header_protocol",
    "sflow_245.header.frame_length", "sflow_245.header.payload_stripped",
    "sflow_245.header.sampled_header_length", "sflow_245.ifindex", "sflow_245.ifspeed",
    "sflow_245.ifinoct", "sflow_245.ifoutoct", "sflow_245.ifadmin_status",
    "sflow_245.ifoper_status", "_ws.malformed",
]


def ints(text):
    return [int(v, 0) for v in text.split(",") if v != ""]


def dport(row):
    """The outer UDP destination port (sampled headers add inner ones after it)."""
    ports = ints(row["udp.dstport"])
    return ports[0] if ports else 0


def known_formats():
    """The sample and record formats tshark's dissector decodes (its value tables)."""
    out = subprocess.run(["tshark", "-G", "values"], check=True, capture_output=True,
                         text=True).stdout
    known = {"sampletype": set(), "flow_record_format": set(), "counters_record_format": set()}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 3 and cols[0] == "V" and cols[1].startswith("sflow_245."):
            name = cols[1][len("sflow_245."):]
            if name in known:
                known[name].add(int(cols[2]))
    # "Lag Port stats" (7) is listed as a sample type but is a counter record.
    known["sampletype"] &= {1, 2, 3, 4}
    return known


def tshark_datagrams(capture):
    cmd = ["tshark", "-n", "-r", capture, "-d", f"udp.port=={PORT},sflow", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = {}
    for line in out.splitlines():
        row = dict(zip(FIELDS, line.split("\t")))
        frames[int(row["frame.number"])] = row
    return frames


def sflow_dump(tools, capture):
    out = subprocess.run([os.path.join(tools, "sflow_dump"), "--datagrams", "--port", str(PORT),
                          capture], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def split(flat, counts):
    """Cut a flat list into per-sample lists of the given lengths."""
    parts, at = [], 0
    for n in counts:
        parts.append(flat[at:at + n])
        at += n
    return parts


def upto_unknown(tags, known):
    """Formats up to and including the first one tshark does not know; whether all are known."""
    out = []
    for tag in tags:
        enterprise, fmt = (int(x) for x in tag.split(":"))
        out.append(fmt)
        if enterprise != 0 or fmt not in known:
            return out, False
    return out, True


def compare(ours, t, known, errors, where):
    """One accepted datagram against tshark's fields; returns 'exact' or 'prefix'."""
    def check(what, a, b):
        if a != b:
            errors.append(f"{where}: {what}: ours {a} tshark {b}")

    agent = t["sflow_245.agent"] or t["sflow_245.agent.v6"]
    check("agent", ours["agent"], agent)
    check("sub_agent_id", ours["sub_agent_id"], int(t["sflow_245.sub_agent_id"] or -1))
    check("sequence", ours["sequence"], int(t["sflow_245.sequence_number"] or -1))
    check("sample_count", ours["sample_count"], int(t["sflow_245.numsamples"] or -1))

    samples, exact = upto_unknown(ours["samples"], known["sampletype"])
    tsamples = ints(t["sflow_245.sampletype"])
    check("sample types", samples, tsamples[:len(samples)])

    # Records, sample by sample: tshark resynchronises at each sample's length.
    flows = [s for s in ours["samples"] if s in ("0:1", "0:3")]
    counters = [s for s in ours["samples"] if s in ("0:2", "0:4")]
    ours_flow = split(ours["flow_records"], [f["records"] for f in ours["flows"]])
    ours_ctr = split(ours["counter_records"], [c["records"] for c in ours["counters"]])
    t_flow = split(ints(t["sflow_245.flow_record_format"]),
                   ints(t["sflow.flow_sample.flow_record"]))
    t_ctr = split(ints(t["sflow_245.counters_record_format"]),
                  ints(t["sflow.counters_sample.counters_records"]))
    check("flow sample count", len(ours["flows"]), len(flows))
    check("counter sample count", len(ours["counters"]), len(counters))
    for kind, mine, theirs, table in (("flow", ours_flow, t_flow, "flow_record_format"),
                                      ("counter", ours_ctr, t_ctr, "counters_record_format")):
        for i, recs in enumerate(mine):
            formats, all_known = upto_unknown(recs, known[table])
            exact &= all_known
            if i >= len(theirs):
                if exact:
                    errors.append(f"{where}: tshark has no {kind} sample {i}")
                break
            check(f"{kind} sample {i} records", formats, theirs[i][:len(formats)])
    if not exact:
        return "prefix"

    # Everything is known to tshark: it must agree on every field.
    if t["_ws.malformed"]:
        errors.append(f"{where}: tshark calls malformed a datagram whose structures it all knows")
    check("flow record counts", [f["records"] for f in ours["flows"]],
          ints(t["sflow.flow_sample.flow_record"]))
    check("counter record counts", [c["records"] for c in ours["counters"]],
          ints(t["sflow.counters_sample.counters_records"]))
    check("flow sample sequence", [f["sequence"] for f in ours["flows"]],
          ints(t["sflow.flow_sample.sequence_number"]))
    check("counter sample sequence", [c["sequence"] for c in ours["counters"]],
          ints(t["sflow.counters_sample.sequence_number"]))
    for key, field in (("sampling_rate", "sampling_rate"), ("sample_pool", "sample_pool"),
                       ("drops", "dropped_packets")):
        check(key, [f[key] for f in ours["flows"]], ints(t["sflow.flow_sample." + field]))
    compact = [f for f in ours["flows"] if not f["expanded"]]
    expanded = [f for f in ours["flows"] if f["expanded"]]
    check("compact input ports", [f["input"][0] << 30 | f["input"][1] for f in compact],
          ints(t["sflow.flow_sample.input_interface"]))
    check("expanded input port formats", [f["input"][0] for f in expanded],
          ints(t["sflow.flow_sample.input_interface_format"]))
    check("expanded input port values", [f["input"][1] for f in expanded],
          ints(t["sflow.flow_sample.input_interface_value"]))
    check("compact output port formats", [f["output"][0] for f in compact],
          ints(t["sflow.flow_sample.output_interface_format"]))
    check("expanded output port formats", [f["output"][0] for f in expanded],
          ints(t["sflow.flow_sample.output_interface.format"]))
    check("output port values", [f["output"][1] for f in ours["flows"]],
          ints(t["sflow.flow_sample.output_interface_value"]))
    for key, field in (("protocol", "header_protocol"), ("frame_length", "header.frame_length"),
                       ("stripped", "header.payload_stripped"),
                       ("header_length", "header.sampled_header_length")):
        check("header " + key, [h[key] for h in ours["headers"]], ints(t["sflow_245." + field]))
    for key, field in (("if_index", "ifindex"), ("if_speed", "ifspeed"),
                       ("in_octets", "ifinoct"), ("out_octets", "ifoutoct")):
        check(key, [c[key] for c in ours["if_counters"]], ints(t["sflow_245." + field]))
    check("admin status", [c["if_status"] & 1 for c in ours["if_counters"]],
          ints(t["sflow_245.ifadmin_status"]))
    check("oper status", [c["if_status"] >> 1 & 1 for c in ours["if_counters"]],
          ints(t["sflow_245.ifoper_status"]))
    return "exact"


def check_capture(tools, capture, known):
    ours = sflow_dump(tools, capture)
    theirs = tshark_datagrams(capture)
    errors = []
    cats = {"exact": 0, "prefix": 0, "both_malformed": 0, "not_sflow": 0}
    t_sflow = t_malformed = 0
    for d in ours["datagram_list"]:
        where = f"{os.path.basename(capture)} frame {d['frame']}"
        t = theirs.get(d["frame"])
        if t is None or dport(t) != PORT:
            errors.append(f"{where}: tshark does not see a UDP datagram to {PORT}")
            continue
        t_sflow += bool(t["sflow_245.version"])
        t_malformed += bool(t["sflow_245.version"] and t["_ws.malformed"])
        if not t["sflow_245.version"]:
            if d.get("error") != "version":
                errors.append(f"{where}: tshark sees no sFlow, ours says {d.get('error', 'ok')}")
            cats["not_sflow"] += 1
        elif "error" in d:
            if not t["_ws.malformed"]:
                errors.append(f"{where}: ours rejects it ({d['error']}), tshark does not")
            cats["both_malformed"] += 1
        else:
            cats[compare(d, t, known, errors, where)] += 1
    udp = sum(1 for t in theirs.values() if dport(t) == PORT)
    if udp != ours["udp_to_port"]:
        errors.append(f"{capture}: UDP datagrams to {PORT}: ours {ours['udp_to_port']} tshark {udp}")
    if ours["datagrams"] + ours["malformed"] != ours["udp_to_port"]:
        errors.append(f"{capture}: datagrams + malformed != UDP datagrams")
    figures = {
        "udp_datagrams": udp, "tshark_sflow": t_sflow, "tshark_malformed": t_malformed,
        "ours_decoded": ours["datagrams"], "ours_malformed": ours["malformed"],
        "ours_errors": {k: v for k, v in ours["errors"].items() if v},
        "flow_samples": ours["flow_samples"] + ours["flow_samples_expanded"],
        "counter_samples": ours["counter_samples"] + ours["counter_samples_expanded"],
        "flow_records": ours["flow_records_by_kind"],
        "counter_records": ours["counter_records_by_kind"],
        "lost_datagrams": ours["lost_datagrams"], **cats,
    }
    return figures, errors


def crafted_pcap(tools, tmp):
    """The encoder's datagrams (sflow_gen), each in an Ethernet/IPv4/UDP frame."""
    gen = os.path.join(tmp, "gen")
    os.mkdir(gen)
    subprocess.run([os.path.join(tools, "sflow_gen"), gen], check=True)
    path = os.path.join(tmp, "crafted.pcap")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, name in enumerate(sorted(os.listdir(gen))):
            with open(os.path.join(gen, name), "rb") as d:
                payload = d.read()
            udp = struct.pack(">HHHH", 40000, PORT, 8 + len(payload), 0) + payload
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                             bytes([192, 0, 2, 10]), bytes([192, 0, 2, 1])) + udp
            frame = bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)
    return path


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tools, captures = sys.argv[1], sys.argv[2:]
    known = known_formats()
    passed = failed = 0
    totals = {"exact": 0, "prefix": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for capture in captures + [crafted_pcap(tools, tmp)]:
            figures, errors = check_capture(tools, capture, known)
            name = os.path.basename(capture)
            print(f"{name}: {json.dumps(figures)}")
            for k in totals:
                totals[k] += figures[k]
            if errors:
                failed += 1
                for e in errors[:20]:
                    print(f"  FAIL {e}")
            else:
                passed += 1
    # A comparison that compared nothing field by field proves nothing.
    if totals["exact"] == 0:
        print("FAIL no datagram was compared field by field")
        failed += 1
    print(f"sflow-tshark: {passed} passed, {failed} failed "
          f"({totals['exact']} datagrams exact, {totals['prefix']} up to a structure tshark lacks)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
