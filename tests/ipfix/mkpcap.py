#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthetic RoCEv2 captures for the `export --ipfix` tests.

The shared captures are bursts of a few milliseconds; these last seconds,
so that active timeouts, idle timeouts and flow-table evictions happen at
chosen times. Frames are built from the specs (Ethernet, IPv4/IPv6, UDP,
VXLAN RFC 7348, BTH/RETH/AETH per IBTA Annex A17) and written as pcap.

  mkpcap.py long OUT.pcap    7 flows over 3 s: IPv4, IPv6, VXLAN, ECN
                             codepoints, CE, CNPs, ACKs, NAKs, RNR NAKs,
                             retransmits and PSN gaps; one flow stops at 1 s
  mkpcap.py evict OUT.pcap   flow A (0-0.5 s), then B and C (1.5-2 s), then
                             A again (3-3.5 s): with --flows 2, A is evicted
                             while B and C run, and comes back
  mkpcap.py many N OUT.pcap  N flows of 2 packets each (a burst of flows)
  mkpcap.py classes OUT.pcap TRUTH.json
                             one queue pair over 3 s: WRITEs at DSCP 26, and
                             the reverse flow carrying its ACKs at 26 and
                             CNPs at 48 (Not-ECT); the CNPs stop at 2.5 s

The ground truth is what `fabprobe replay --json` makes of the file; the
numbers here are only what the frames carry. For `classes`, TRUTH.json is
the generator's own count of each flow's packets in each class
({"flows": [...]}, one entry per flow and DSCP, in docs/json.md's names):
what a collector that sums by class must find, which replay, counting a
flow once, cannot say.
"""
import ipaddress
import json
import struct
import sys

T0 = 1781665958.0  # capture start, UNIX seconds


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def bth(opcode, qp, psn):
    # opcode, SE/M/pad/TVer 0, P_Key 0xffff, reserved + dest QP, AckReq + PSN
    return struct.pack("!BBHII", opcode, 0, 0xFFFF, qp & 0xFFFFFF, psn & 0xFFFFFF)


def roce_payload(kind, qp, psn, length=256):
    """BTH + extension headers + payload + ICRC for one packet kind."""
    if kind == "write":  # RC RDMA WRITE Only: RETH
        hdr = bth(0x0A, qp, psn) + struct.pack("!QII", 0x1000, 0x1234, length)
        body = bytes(length)
    elif kind == "send":  # RC SEND Only
        hdr, body = bth(0x04, qp, psn), bytes(length)
    elif kind in ("ack", "nak", "rnr"):  # RC Acknowledge: AETH syndrome + MSN
        syndrome = {"ack": 0x1F, "rnr": 0x20 | 0x0E, "nak": 0x60}[kind]
        hdr, body = bth(0x11, qp, psn) + struct.pack("!I", syndrome << 24 | 1), b""
    elif kind == "cnp":  # CNP: opcode 0x81, 16 reserved bytes
        hdr, body = bth(0x81, qp, 0), bytes(16)
    else:
        raise ValueError(kind)
    return hdr + body + b"\0\0\0\0"  # ICRC (not checked by the probe)


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def ip(src, dst, dscp, ecn, l4):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    tc = dscp << 2 | ecn
    if s.version == 4:
        h = struct.pack("!BBHHHBBH4s4s", 0x45, tc, 20 + len(l4), 0, 0x4000, 64, 17, 0,
                        s.packed, d.packed)
        h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
        return 0x0800, h + l4
    # IPv6 forbids a zero UDP checksum (RFC 8200 section 8.1): compute it.
    pseudo = s.packed + d.packed + struct.pack("!IxxxB", len(l4), 17)
    l4 = l4[:6] + struct.pack("!H", csum(pseudo + l4) or 0xFFFF) + l4[8:]
    h = struct.pack("!IHBB16s16s", 6 << 28 | tc << 20, len(l4), 17, 64, s.packed, d.packed)
    return 0x86DD, h + l4


def eth(ethertype, payload):
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + struct.pack("!H", ethertype) + payload


class Flow:
    def __init__(self, src, dst, sport, qp, kind, dscp=26, ecn=2, vni=None):
        self.src, self.dst, self.sport, self.qp = src, dst, sport, qp
        self.kind, self.dscp, self.ecn, self.vni = kind, dscp, ecn, vni
        self.psn = 100

    def frame(self, kind=None, ecn=None, psn=None, dscp=None):
        kind = kind or self.kind
        p = self.psn if psn is None else psn
        if psn is None and kind in ("write", "send"):
            self.psn += 1
        ecn = self.ecn if ecn is None else ecn
        dscp = self.dscp if dscp is None else dscp
        inner_t, inner = ip(self.src, self.dst, dscp, ecn,
                            udp(self.sport, 4791, roce_payload(kind, self.qp, p)))
        if self.vni is None:
            return eth(inner_t, inner)
        # RoCE in VXLAN: the outer header carries the ECN codepoint too (RFC 6040).
        vx = struct.pack("!II", 0x08 << 24, self.vni << 8) + eth(inner_t, inner)
        out_t, out = ip("192.168.0.1", "192.168.0.2", dscp, ecn,
                        udp(self.sport ^ 0x5A5A, 4789, vx))
        return eth(out_t, out)


def long_scenario():
    f = [Flow("10.0.0.1", "10.0.0.2", 49152, 17, "write"),
         Flow("10.0.0.2", "10.0.0.1", 49153, 18, "ack", dscp=26, ecn=0),
         Flow("10.0.0.3", "10.0.0.4", 49200, 33, "send", ecn=1),
         Flow("fd00::1", "fd00::2", 50000, 44, "write"),
         Flow("10.1.0.1", "10.1.0.2", 51000, 55, "write", vni=5001),
         Flow("10.0.0.4", "10.0.0.3", 49201, 34, "cnp", dscp=48, ecn=0),
         Flow("10.0.0.5", "10.0.0.6", 49300, 66, "write")]
    out = []
    for i in range(300):  # every 10 ms for 3 s
        t = T0 + i * 0.01
        out.append((t, f[0].frame(ecn=3 if i % 7 == 0 else None)))  # some CE
        if i % 3 == 0:
            kind = "nak" if i % 60 == 0 else "rnr" if i % 45 == 0 else "ack"
            out.append((t + 0.001, f[1].frame(kind=kind)))
        out.append((t + 0.002, f[2].frame()))
        out.append((t + 0.003, f[3].frame(ecn=3 if i % 11 == 0 else None)))
        out.append((t + 0.004, f[4].frame()))
        if i % 10 == 0:
            out.append((t + 0.005, f[5].frame()))
        if i < 100:  # stops at 1 s: ends on its idle timeout
            fl = f[6]
            if i % 20 == 10:  # a go-back-N resend of the last 3 PSNs
                for p in range(fl.psn - 3, fl.psn):
                    out.append((t + 0.006, fl.frame(psn=p)))
            elif i % 25 == 0:  # a loss before the probe: 4 PSNs skipped
                fl.psn += 4
            out.append((t + 0.007, fl.frame()))
    return out


def evict_scenario():
    a = Flow("10.2.0.1", "10.2.0.2", 52000, 71, "write")
    b = Flow("10.2.0.3", "10.2.0.4", 52001, 72, "write")
    c = Flow("10.2.0.5", "10.2.0.6", 52002, 73, "send")
    out = []
    for start in (0.0, 3.0):
        out += [(T0 + start + i * 0.01, a.frame()) for i in range(50)]
    for i in range(50):
        out.append((T0 + 1.5 + i * 0.01, b.frame()))
        out.append((T0 + 1.5 + i * 0.01 + 0.005, c.frame()))
    return out


def many_scenario(n):
    out = []
    for i in range(n):
        f = Flow(f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}", "10.255.0.1",
                 1024 + i % 60000, i & 0xFFFFFF, "write")
        t = T0 + i * 1e-6
        out += [(t, f.frame()), (t + 0.5, f.frame())]
    return out


ECN_NAMES = ("not_ect", "ect1", "ect0", "ce")  # by codepoint (RFC 3168)


def classes_scenario():
    """One QP: its WRITEs, and its reverse flow's ACKs (26) and CNPs (48, Not-ECT).

    Returns the frames and the truth: per flow and DSCP, what the frames
    carry. Until 2.5 s the reverse flow sends a CNP after its ACK every
    40 ms, so a refresh at a multiple of 0.5 s finds a CNP its newest
    packet; past 2.5 s it sends only ACKs.
    """
    fwd = Flow("10.3.0.1", "10.3.0.2", 53000, 91, "write")
    rev = Flow("10.3.0.2", "10.3.0.1", 53001, 92, "ack")
    out, truth = [], {}

    def add(t, flow, kind, dscp, ecn):
        fr = flow.frame(kind=kind, dscp=dscp, ecn=ecn)
        out.append((t, fr))
        k = (flow.src, flow.dst, flow.sport, flow.qp, dscp)
        e = truth.setdefault(k, {"packets": 0, "bytes": 0, "cnp": 0, "acks": 0, "naks": 0,
                                 "rnr_naks": 0, "ecn": dict.fromkeys(ECN_NAMES, 0)})
        e["packets"] += 1
        e["bytes"] += len(fr)
        e["cnp"] += kind == "cnp"
        e["acks"] += kind == "ack"
        e["ecn"][ECN_NAMES[ecn]] += 1

    for i in range(300):  # every 10 ms for 3 s
        t = T0 + i * 0.01
        add(t, fwd, "write", 26, 3 if i % 6 == 0 else 2)  # some CE: the receiver's CNPs
        if i % 2 == 0:
            add(t + 0.002, rev, "ack", 26, 2)
        if i % 4 == 0 and i < 250:
            add(t + 0.004, rev, "cnp", 48, 0)
    flows = [dict(src=src, dst=dst, sport=sport, dport=4791, dest_qp=qp, dir="ingress",
                  dscp=dscp, **e)
             for (src, dst, sport, qp, dscp), e in sorted(truth.items())]
    return out, {"flows": flows}


def write_pcap(path, frames):
    frames.sort(key=lambda x: x[0])
    with open(path, "wb") as w:
        w.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for t, fr in frames:
            sec = int(t)
            usec = int(round((t - sec) * 1e6))
            if usec == 1000000:
                sec, usec = sec + 1, 0
            w.write(struct.pack("<IIII", sec, usec, len(fr), len(fr)) + fr)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    what = sys.argv[1]
    if what == "long":
        write_pcap(sys.argv[2], long_scenario())
    elif what == "evict":
        write_pcap(sys.argv[2], evict_scenario())
    elif what == "many":
        write_pcap(sys.argv[3], many_scenario(int(sys.argv[2])))
    elif what == "classes" and len(sys.argv) == 4:
        frames, truth = classes_scenario()
        write_pcap(sys.argv[2], frames)
        with open(sys.argv[3], "w") as f:
            json.dump(truth, f, indent=1)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
