#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A minimal IPFIX collecting socket for the interop tests.

Listens on UDP or TCP (IPv4 or IPv6 loopback), appends everything it
receives to an IPFIX file (RFC 5655: messages one after another, which is
also what a TCP stream is), and writes a JSON summary when it stops:
datagrams or connections, bytes, the largest datagram. It stops on SIGTERM
or SIGINT, or after --idle seconds without data once something came in.

  recv.py --udp 127.0.0.1 --port-file P --out FILE --summary S.json
"""
import argparse
import json
import select
import signal
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--udp", metavar="ADDR")
    g.add_argument("--tcp", metavar="ADDR")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--out", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--idle", type=float, default=0, help="stop after this many quiet seconds")
    ap.add_argument("--rcvbuf", type=int, default=8 << 20)
    a = ap.parse_args()

    addr = a.udp or a.tcp
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    kind = socket.SOCK_DGRAM if a.udp else socket.SOCK_STREAM
    ls = socket.socket(family, kind)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    ls.bind((addr, a.port))
    if a.tcp:
        ls.listen(8)
    port = ls.getsockname()[1]

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    out = open(a.out, "wb")
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        import os
        os.rename(a.port_file + ".tmp", a.port_file)

    s = {"transport": "udp" if a.udp else "tcp", "port": port, "datagrams": 0,
         "connections": 0, "closed_connections": 0, "bytes": 0, "max_datagram": 0}
    conns = []
    last = None
    while not stop:
        socks = [ls] + conns
        try:
            r, _, _ = select.select(socks, [], [], 0.05)
        except InterruptedError:
            continue
        for sk in r:
            if sk is ls and a.tcp:
                c, _ = ls.accept()
                conns.append(c)
                s["connections"] += 1
                continue
            data = sk.recv(65536)
            if not data:
                sk.close()
                conns.remove(sk)
                s["closed_connections"] += 1
                continue
            out.write(data)
            s["bytes"] += len(data)
            if a.udp:
                s["datagrams"] += 1
                s["max_datagram"] = max(s["max_datagram"], len(data))
            last = time.monotonic()
        if a.idle and last is not None and time.monotonic() - last > a.idle and not conns:
            break
    out.close()
    with open(a.summary, "w") as f:
        json.dump(s, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
