#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a pcap of RoCEv2 flows for the NIC tests (nic_report.sh, top_nic.sh).

  nic_pcap.py OUT SRC,DST,SPORT,DEST_QP,COUNT[,ACK_QP] ...

Each flow is COUNT RC RDMA WRITE ONLY frames SRC:SPORT > DST:4791 with BTH
destination QP DEST_QP (tests/lib/inject.py builds them); with ACK_QP, each
is answered by an ACK DST:SPORT > SRC:4791 to ACK_QP, as the responder's
NIC sends it (the same UDP source port both ways). Frames are 1 ms apart.
Prints the number of frames written.
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from inject import csum, write_only  # noqa: E402


def ack(src, dst, sport, qp, psn):
    bth = struct.pack("!BBHI", 0x11, 0, 0xFFFF, qp & 0xFFFFFF) + struct.pack("!I", psn)
    aeth = struct.pack("!I", 0x1F << 24 | psn)  # syndrome 0x1F: ACK, credits invalid
    roce = bth + aeth + b"\0\0\0\0"
    udp = struct.pack("!HHHH", sport, 4791, 8 + len(roce), 0) + roce
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2 | 2, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + b"\x08\x00" + ip + udp


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    frames = []
    for spec in sys.argv[2:]:
        f = spec.split(",")
        src, dst, sport, qp, count = f[0], f[1], int(f[2]), int(f[3]), int(f[4])
        for psn in range(count):
            frames.append(write_only(src, dst, sport, qp, psn))
            if len(f) > 5:
                frames.append(ack(dst, src, sport, int(f[5]), psn))
    t = 1700000000.0
    with open(sys.argv[1], "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            ts = t + i * 0.001
            out.write(struct.pack("<IIII", int(ts), int(round(ts % 1 * 1e6)) % 1000000, len(fr),
                                  len(fr)) + fr)
    print(len(frames))


if __name__ == "__main__":
    main()
