#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send crafted RoCEv2 frames out of an interface through a packet socket.

  inject.py IFACE COUNT [--qp N[,N...]] [--sport N] [--src A] [--dst B] [--rate PPS] [--ce] [--dscp N]
                        [--erspan SESSION [--switch ADDR] [--collector ADDR]]

Each frame is an RC RDMA WRITE ONLY (BTH + RETH + 64-byte payload + ICRC)
from SRC:SPORT to DST:4791, PSNs counting up from 0 per queue pair, DSCP
26 (--dscp), ECT(0) (CE with --ce). With several --qp values the frames go round robin, the i-th
QP from SPORT+i. With --erspan each frame is sent as a switch's ERSPAN
type II mirror copy of session SESSION (GRE 0x88BE with a sequence
number), from the switch ADDR to the collector. The frames are what a NIC
or a switch would put on the wire; nothing here parses anything. Prints
the frames and bytes sent (the mirrored packets' bytes) as JSON.
"""
import argparse
import json
import socket
import struct
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def write_only(src, dst, sport, qp, psn, payload=64, ecn=2, dscp=26):
    bth = struct.pack("!BBHI", 0x0A, 0, 0xFFFF, qp & 0xFFFFFF) + struct.pack("!I", 0x80000000 | psn)
    reth = struct.pack("!QII", 0x1000, 0x1234, payload)
    roce = bth + reth + bytes(payload) + b"\0\0\0\0"
    udp = struct.pack("!HHHH", sport, 4791, 8 + len(roce), 0) + roce
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2 | ecn, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
    return eth + ip + udp


def write_only6(src, dst, sport, qp, psn):
    """write_only's frame with an IPv6 header in place of the IPv4 one."""
    v4 = write_only("10.0.0.1", "10.0.0.2", sport, qp, psn)
    udp = v4[14 + 20:]
    ip6 = struct.pack("!IHBB16s16s", 6 << 28 | (26 << 2 | 2) << 20, len(udp), 17, 64,
                      socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst))
    return v4[:12] + b"\x86\xdd" + ip6 + udp


def ipv4(src, dst, proto, payload, tos=0):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 0, 0x4000, 64, proto, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + payload


def erspan2(frame, session, seq, switch, collector):
    """ERSPAN type II (draft-foschiano-erspan-03): GRE with S, protocol 0x88BE, 8-byte header."""
    gre = struct.pack("!HHI", 0x1000, 0x88BE, seq)
    span = struct.pack("!HHI", 0x1000 | 0, session & 0x3FF, 0)
    eth = b"\x02\x00\x00\x00\x00\x04" + b"\x02\x00\x00\x00\x00\x03" + b"\x08\x00"
    return eth + ipv4(switch, collector, 47, gre + span + frame)


def erspan3(frame, session, seq, switch, collector, ingress=True):
    """ERSPAN type III (draft-foschiano-erspan-03): GRE 0x22EB, 12-byte header, D bit 0 at ingress."""
    gre = struct.pack("!HHI", 0x1000, 0x22EB, seq)
    # Version 2, VLAN 0; session; timestamp; SGT 0, P 0, FT 0 (Ethernet), HW ID 0, D, Gra 0, O 0.
    span = struct.pack("!HHIHH", 0x2000, session & 0x3FF, seq, 0, 0 if ingress else 0x0008)
    eth = b"\x02\x00\x00\x00\x00\x04" + b"\x02\x00\x00\x00\x00\x03" + b"\x08\x00"
    return eth + ipv4(switch, collector, 47, gre + span + frame)


def erspan1(frame, switch, collector):
    """ERSPAN type I: GRE with no flags, protocol 0x88BE, the copy right after: no session."""
    gre = struct.pack("!HH", 0x0000, 0x88BE)
    eth = b"\x02\x00\x00\x00\x00\x04" + b"\x02\x00\x00\x00\x00\x03" + b"\x08\x00"
    return eth + ipv4(switch, collector, 47, gre + frame)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("count", type=int)
    ap.add_argument("--qp", default="17", help="destination QP, or several: 17,18")
    ap.add_argument("--sport", type=int, default=49152)
    ap.add_argument("--src", default="10.99.0.1")
    ap.add_argument("--dst", default="10.99.0.2")
    ap.add_argument("--rate", type=float, default=0, help="frames per second (0: as fast as possible)")
    ap.add_argument("--ce", action="store_true", help="mark every frame CE (ECN 3), not ECT(0)")
    ap.add_argument("--dscp", type=int, default=26, help="the frames' DSCP (default 26)")
    ap.add_argument("--erspan", type=int, help="send as ERSPAN II copies of this session")
    ap.add_argument("--switch", default="10.98.0.1", help="the mirroring switch's address")
    ap.add_argument("--collector", default="10.98.0.2", help="the collector's address")
    a = ap.parse_args()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    sent = nbytes = 0
    t0 = time.time()
    qps = [int(q, 0) for q in a.qp.split(",")]
    for i in range(a.count):
        n = i % len(qps)
        f = write_only(a.src, a.dst, a.sport + n, qps[n], i // len(qps),
                       ecn=3 if a.ce else 2, dscp=a.dscp)
        nbytes += len(f)
        if a.erspan is not None:
            f = erspan2(f, a.erspan, i, a.switch, a.collector)
        s.send(f)
        sent += 1
        if a.rate:
            delay = t0 + sent / a.rate - time.time()
            if delay > 0:
                time.sleep(delay)
    print(json.dumps({"frames": sent, "bytes": nbytes}))


if __name__ == "__main__":
    main()
