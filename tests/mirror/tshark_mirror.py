#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check the BPF parser's view of crafted mirror copies against
tshark's dissection of the same bytes.

`test_mirror --dump DIR` writes every frame of the mirror fixtures (ERSPAN
I/II/III, GRE TEB, truncated and cut copies, GRE that is no mirror) to
DIR/mirror.pcap, and what the probe made of each frame alone to
DIR/mirror.tsv. tshark never sees the probe's output: for each frame its
PDML dissection says which mirror it is, the session or GRE key, the
direction and T bit, the switch, the mirrored packet's addresses, ports,
VNI and destination QP, its IP length (the packet's bytes) and whether the
copy holds fewer bytes than that; those must be what the probe stored.

Usage: tshark_mirror.py TEST_MIRROR   Exit 0 when every frame agrees.
"""
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROCE_PORT, VXLAN_PORT = 4791, 4789
ERSPAN, ERSPAN3, TEB = 0x88BE, 0x22EB, 0x6558
TYPES = {1: "I", 2: "II", 3: "III", 4: "TEB"}
MASK64 = (1 << 64) - 1


def digest6(addr):
    """fp_addr6_digest() of bpf/fabprobe.h: the address as two host-order
    (little-endian) 64-bit words."""
    import socket
    hi, lo = struct.unpack("<QQ", socket.inet_pton(socket.AF_INET6, addr))
    h = ((hi ^ 0x9E3779B97F4A7C15) * 0xFF51AFD7ED558CCD) & MASK64
    h = ((h ^ (h >> 32) ^ lo) * 0xC4CEB9FE1A85EC53) & MASK64
    return (h ^ (h >> 32)) & 0xFFFFFFFF


class Layer:
    def __init__(self, proto):
        self.name = proto.get("name")
        self.pos = int(proto.get("pos", 0))
        self.size = int(proto.get("size", 0))
        self.fields = {}
        for f in proto.iter("field"):
            self.fields.setdefault(f.get("name"), f.get("show"))
        self.malformed = any(p.get("name") == "_ws.malformed" for p in proto.iter("proto"))

    def get(self, name, conv=str):
        v = self.fields.get(name)
        return None if v is None else conv(v)


def num(v):
    return int(v, 0)


def dissect(pcap):
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "pdml"], check=True,
                         capture_output=True, text=True).stdout
    packets = []
    for pkt in ET.fromstring(out).iter("packet"):
        layers = [Layer(p) for p in pkt.findall("proto")]
        frame = next(l for l in layers if l.name == "frame")
        packets.append((int(frame.get("frame.len")), [l for l in layers if l.name not in
                                                      ("geninfo", "frame", "fake-field-wrapper")]))
    return packets


def ip_of(layer):
    """(src, dst, datagram length) of an ip or ipv6 layer."""
    if layer.name == "ip":
        return layer.get("ip.src"), layer.get("ip.dst"), layer.get("ip.len", int)
    plen = layer.get("ipv6.plen", int)
    return layer.get("ipv6.src"), layer.get("ipv6.dst"), None if plen is None else plen + 40


def mirror_view(frame_len, layers):
    """What tshark says about a frame as a mirror copy; None when it is none."""
    names = [l.name for l in layers]
    if "gre" not in names:
        return None
    g = names.index("gre")
    gre = layers[g]
    outer = layers[g - 1]
    proto = gre.get("gre.proto", num)
    flags = gre.get("gre.flags_and_version", num)
    v = {"proto": proto, "gre_flags": flags, "key": gre.get("gre.key", num),
         "gre_size": gre.size}
    if outer.name not in ("ip", "ipv6"):
        # IPv6 extension headers between the IPv6 header and GRE.
        outer = next(l for l in reversed(layers[:g]) if l.name in ("ip", "ipv6"))
    v["switch"], _, _ = ip_of(outer)
    v["switch_v6"] = outer.name == "ipv6"
    rest = layers[g + 1:]
    # A copy inside the copy is not followed: its layers are not the mirrored packet's.
    nested = [i for i, l in enumerate(rest) if l.name == "gre"]
    rest = rest[:nested[0]] if nested else rest
    v["nested"] = bool(nested)
    erspan = rest[0] if rest and rest[0].name == "erspan" else None
    v["erspan_size"] = erspan.size if erspan else 0
    if erspan:
        v["o"] = erspan.get("erspan.o", int)
        v["version"] = erspan.get("erspan.version", int)
        v["session"] = erspan.get("erspan.spanid", int)
        v["index"] = erspan.get("erspan.index", int)
        v["t_bit"] = erspan.get("erspan.truncated", int)
        v["ft"] = erspan.get("erspan.ft", int)
        v["direction"] = erspan.get("erspan.direction", num)
        rest = rest[1:]
    eth = rest[0] if rest and rest[0].name == "eth" else None
    v["eth"] = eth
    if not eth:
        return v
    # The mirrored frame: tags, then IP.
    i = 1
    vlans = []
    while i < len(rest) and rest[i].name == "vlan":
        vlans.append(rest[i])
        i += 1
    v["vlan"] = vlans[0].get("vlan.id", int) if vlans else 0
    v["tagged"] = bool(vlans)
    v["ethertype"] = (vlans[-1].get("vlan.etype", num) if vlans else eth.get("eth.type", num))
    if vlans and (vlans[-1].size < 4 or v["ethertype"] is None):
        v["ethertype"] = 0x8100  # the copy ends inside the tag
    ip = rest[i] if i < len(rest) and rest[i].name in ("ip", "ipv6") else None
    v["ip"] = ip
    if ip:
        v["src"], v["dst"], iplen = ip_of(ip)
        v["bytes"] = ip.pos - eth.pos + iplen if iplen is not None else None
        v["short"] = v["bytes"] is None or frame_len - eth.pos < v["bytes"]
        udps = [l for l in rest[i + 1:] if l.name == "udp"]
        v["udp"] = [(u.get("udp.srcport", int), u.get("udp.dstport", int)) for u in udps]
        ips = [l for l in rest[i + 1:] if l.name in ("ip", "ipv6")]
        v["inner"] = ip_of(ips[0]) if ips else None
        vx = next((l for l in rest if l.name == "vxlan"), None)
        v["vni"] = vx.get("vxlan.vni", int) if vx else None
        ib = next((l for l in rest if l.name == "infiniband"), None)
        v["qp"] = ib.get("infiniband.bth.destqp", num) if ib else None
        v["bth_whole"] = bool(ib) and ib.size >= 12 and v["qp"] is not None
        v["opcode"] = ib.get("infiniband.bth.opcode", num) if ib else None
        v["syndrome"] = ib.get("infiniband.aeth.syndrome", num) if ib else None
    return v


def accepted(v):
    """Would the spec (RFC 2784/2890, draft-foschiano-erspan) call this a mirror
    copy whose headers are whole? The probe's rules, as tshark's fields show them:
    GRE version 0 without routing, a mirror protocol, ERSPAN version 1 under
    0x88BE with a sequence number and 2 under 0x22EB, every header byte there."""
    if v is None or v["proto"] not in (ERSPAN, ERSPAN3, TEB):
        return False
    flags = v["gre_flags"]
    if flags & 0x4007:  # routing bit, version
        return False
    if v["gre_size"] < 4 + 4 * sum(bool(flags & b) for b in (0x8000, 0x2000, 0x1000)):
        return False
    seq = bool(flags & 0x1000)
    if v["proto"] == ERSPAN and seq:
        return v.get("version") == 1 and v["erspan_size"] >= 8
    if v["proto"] == ERSPAN3:
        return v.get("version") == 2 and v["erspan_size"] >= 12 + 8 * (v.get("o") or 0)
    return True


def expect_truncated(v):
    """A copy is truncated when its T bit says so, or when it ends before the
    mirrored packet does: inside the Ethernet header or a tag, inside the IP
    header, or before the IP length's last byte."""
    if v.get("t_bit") == 1 or v["eth"] is None:
        return True
    if v["ethertype"] in (0x8100, 0x88A8):
        return True
    if v["ethertype"] in (0x0800, 0x86DD):
        return v["ip"] is None or v["short"]
    return False


def mirror_type(v):
    if v["proto"] == TEB:
        return 4
    if v["proto"] == ERSPAN3:
        return 3
    return 2 if v["gre_flags"] & 0x1000 else 1


def check_frame(row, frame_len, layers):
    """Differences between the probe's row and tshark's dissection."""
    errs = []
    v = mirror_view(frame_len, layers)
    mirrored = int(row["mirrored"]) == 1
    if mirrored != accepted(v):
        return [f"probe mirrored={mirrored}, tshark shows a whole mirror header: {accepted(v)}"]
    if not mirrored:
        return errs
    if v.get("ft"):
        if row["not_eth"] != "1":
            errs.append(f"ERSPAN III FT {v['ft']}: probe not_eth {row['not_eth']}")
        return errs
    trunc = expect_truncated(v)
    if int(row["truncated"]) != trunc:
        errs.append(f"truncated: probe {row['truncated']}, tshark says {trunc} (T bit "
                    f"{v.get('t_bit')}, packet {v.get('bytes')} bytes)")
    if v["eth"] is None or v["ip"] is None or v["nested"]:
        if row["class"] != "other":
            errs.append(f"class {row['class']}: no mirrored IP packet to follow")
        return errs
    udp = v["udp"][0] if v["udp"] else None
    if row["roce_cut"] == "1" and not (udp and udp[1] == ROCE_PORT or
                                      len(v["udp"]) > 1 and v["udp"][1][1] == ROCE_PORT):
        errs.append("probe roce_cut, tshark sees no UDP to the RoCE port")
    if row["roce_cut"] == "1" and v["bth_whole"]:
        errs.append("probe roce_cut, tshark has the whole BTH")
    if row["class"] == "other" and v["bth_whole"] and not trunc:
        errs.append("probe other, tshark has a whole BTH in an untruncated copy")
    if row["class"] != "roce":
        return errs
    # A flow: the mirrored packet's identity and the observation point.
    want = {
        "src": v["src"], "dst": v["dst"], "sport": str(udp[0]), "dport": str(udp[1]),
        "dest_qp": str(v["qp"]), "bytes": str(v["bytes"]), "vlan": str(v["vlan"]),
        "vlan_tagged": str(int(v["tagged"])), "mirror": str(mirror_type(v)),
    }
    if v["vni"] is not None:
        want.update({"vni": str(v["vni"]), "inner_src": v["inner"][0],
                     "inner_dst": v["inner"][1], "inner_sport": str(v["udp"][1][0]),
                     "inner_dport": str(v["udp"][1][1])})
    t = mirror_type(v)
    # Type II's Index, the port the copy was taken at, is kept above the session's 10 bits.
    want["mirror_id"] = str(v["session"] | (v["index"] or 0) << 10 if t == 2 else
                            v["session"] if t == 3 else (v["key"] or 0))
    want["mirror_src"] = ("digest:%08x" % digest6(v["switch"]) if v["switch_v6"]
                          else v["switch"])
    flags = int(row["flags"], 16)
    if t == 3:
        d = "egress" if v["direction"] else "ingress"
        got = "egress" if flags & 0x40 else "ingress" if flags & 0x20 else "unknown"
        if got != d:
            errs.append(f"direction: probe {got}, tshark {d}")
    elif flags & 0x60:
        errs.append(f"direction flags {flags:#x} on a type {TYPES[t]} copy")
    if bool(flags & 0x08) != (t in (1, 4) and v["key"] is not None):
        errs.append(f"GRE key flag {bool(flags & 0x08)}, tshark key {v['key']}")
    if v["opcode"] is not None and v["opcode"] & 0x1F == 0x11 and v["syndrome"] is not None:
        want["acks"] = str(int(v["syndrome"] & 0x60 == 0))
    for k, w in want.items():
        if row[k] != w:
            errs.append(f"{k}: probe {row[k]!r}, tshark {w!r}")
    return errs


def main():
    test_mirror = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="fpe-mirror-") as d:
        subprocess.run([test_mirror, "--dump", d], check=True, capture_output=True)
        rows = []
        with open(f"{d}/mirror.tsv") as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
        packets = dissect(f"{d}/mirror.pcap")
    if len(rows) != len(packets):
        print(f"FAIL probe wrote {len(rows)} frames, tshark read {len(packets)}")
        return 1
    failed = 0
    counts = {"mirrored": 0, "flows": 0}
    for row, (frame_len, layers) in zip(rows, packets):
        errs = check_frame(row, frame_len, layers)
        counts["mirrored"] += row["mirrored"] == "1"
        counts["flows"] += row["flows"] == "1"
        if errs:
            failed += 1
            print(f"FAIL frame {row['index']} ({row['label']}):")
            for e in errs:
                print(f"     {e}")
    print(f"tshark-mirror: {len(rows)} frames ({counts['mirrored']} mirror copies, "
          f"{counts['flows']} flows) checked, {failed} differ")
    return 1 if failed or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
