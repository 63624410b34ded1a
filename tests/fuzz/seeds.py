#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seed inputs for the fuzzers, written into OUTDIR/<harness>/:
fuzz_bpf: every frame of the shared captures (behind the harness's two
control bytes) plus hand-built VLAN, IPv6 and VXLAN RoCE frames and their
ERSPAN and GRE TEB mirror copies, so the fuzzer starts from real
structure; fuzz_pcap: the captures themselves.
Usage: seeds.py PCAP_DIR OUTDIR"""
import os
import shutil
import struct
import sys


def pcap_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def bth(opcode=0x0A, qp=0x11, psn=1):
    return bytes([opcode, 0, 0xFF, 0xFF, 0, 0, 0, qp, 0x80, 0, 0, psn]) + bytes(16) + bytes(4)


def udp(dport, payload, sport=49152):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def ipv4(payload, tos=0x6A):
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 0, 0x4000, 64, 17, 0,
                      bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return hdr + payload


def ipv6(payload):
    return struct.pack(">IHBB", 0x6A000000, len(payload), 17, 64) + bytes(15) + b"\x01" + \
        bytes(15) + b"\x02" + payload


def gre_copy(frame, proto=0x88BE, flags=0x1000, header=b"\x10\x00\x00\x65" + bytes(4)):
    """A switch's mirror copy over IPv4: GRE (RFC 2890 key and sequence when
    flags say), the ERSPAN header, the frame."""
    gre = struct.pack(">HH", flags, proto)
    if flags & 0x8000:
        gre += bytes(4)
    if flags & 0x2000:
        gre += struct.pack(">I", 0xC0FFEE)
    if flags & 0x1000:
        gre += struct.pack(">I", 1)
    payload = gre + header + frame
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0x4000, 64, 47, 0,
                      bytes([10, 9, 0, 1]), bytes([10, 9, 0, 100]))
    return hdr + payload


def eth(payload, ethertype=0x0800, tags=()):
    out = bytes(6) + bytes([2, 0, 0, 0, 0, 1])
    for tpid, vid in tags:
        out += struct.pack(">HH", tpid, vid)
    return out + struct.pack(">H", ethertype) + payload


def main():
    pcaps, out = sys.argv[1], sys.argv[2]
    bpf, pcap = os.path.join(out, "fuzz_bpf"), os.path.join(out, "fuzz_pcap")
    os.makedirs(bpf, exist_ok=True)
    os.makedirs(pcap, exist_ok=True)
    seen = set()
    for name in sorted(os.listdir(pcaps)):
        if not name.endswith(".pcap"):
            continue
        shutil.copy(os.path.join(pcaps, name), pcap)
        for frame in pcap_frames(os.path.join(pcaps, name)):
            if len(frame) > 1600 or frame[12:14] != b"\x08\x00" or frame in seen:
                continue
            seen.add(frame)
    roce = eth(ipv4(udp(4791, bth())))
    erspan3 = b"\x20\x00\x04\x65" + bytes(6) + b"\x00\x09" + bytes(8)  # T, O set
    crafted = [
        eth(gre_copy(roce)),
        eth(gre_copy(roce, 0x22EB, 0x3000, erspan3)),
        eth(gre_copy(roce[:64], 0x88BE, 0x2000, b"")),
        eth(gre_copy(eth(ipv4(udp(4789, b"\x08" + bytes(7) + roce))), 0x6558, 0x8000, b"")),
        eth(ipv4(udp(4791, bth()))),
        eth(ipv4(udp(4791, bth(0x11))), tags=[(0x88A8, 0x2064), (0x8100, 0x6065)]),
        eth(ipv6(udp(4791, bth(0x81))), 0x86DD),
        eth(ipv4(udp(4789, b"\x08\x00\x00\x00\x00\x00\x64\x00" + eth(ipv4(udp(4791, bth()))))))
    ]
    for i, frame in enumerate(list(seen)[:200] + crafted):
        with open(os.path.join(bpf, f"seed-{i:04d}"), "wb") as f:
            f.write(b"\x00\x00" + frame)
    # fuzz_batch: runs of frames, each behind its length and wire excess.
    batch = os.path.join(out, "fuzz_batch")
    os.makedirs(batch, exist_ok=True)
    frames = sorted(seen)[:120] + crafted
    for i in range(0, len(frames), 20):
        run = frames[i:i + 20] + [frames[i][:13], frames[i] * 3]
        with open(os.path.join(batch, f"seed-{i:04d}"), "wb") as f:
            for frame in run:
                f.write(len(frame).to_bytes(2, "big") + b"\x00" + frame)


if __name__ == "__main__":
    main()
