#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of export_lab.sh, run inside the namespace the exporter serves in.

Usage: check_export.py http EXPORTER
       check_export.py truth TMP EXPORTER PROMETHEUS UPLINK
       check_export.py names EXPORTER FILE...
       check_export.py stress EXPORTER PID
Prints one line per failed check (and a few facts); exits 1 if any failed.
EXPORTER and PROMETHEUS are host:port.
"""
import json
import os
import re
import resource
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

errors = []
PROM_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
               "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def expect(cond, what):
    if not cond:
        errors.append(what)
    return cond


def get(url, accept=None, timeout=10, method="GET"):
    req = urllib.request.Request(url, method=method)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def samples(text):
    """{(name, frozenset(labels)): value} from exposition text."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not expect(m, f"unparsable sample line: {line!r}"):
            continue
        labels = frozenset(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def total(smp, name, **want):
    return sum(v for (n, labels), v in smp.items()
               if n == name and all((k, w) in labels for k, w in want.items()))


def load(path):
    with open(path) as f:
        return json.load(f)


def check_http(exp):
    base = f"http://{exp}"
    status, ctype, body = get(base + "/metrics")
    expect(status == 200, f"/metrics: {status}")
    expect(ctype.startswith("text/plain; version=0.0.4"), f"/metrics without Accept: {ctype}")
    expect("# EOF" not in body, "0.0.4 text has # EOF")
    status, ctype, body = get(base + "/metrics", PROM_ACCEPT)
    expect(ctype.startswith("application/openmetrics-text; version=1.0.0"),
           f"/metrics with Prometheus' Accept: {ctype}")
    expect(body.endswith("\n# EOF\n") and body.count("# EOF") == 1, "OpenMetrics text does not end in # EOF")
    expect("# TYPE fabprobe_roce_frames counter\n" in body, "OpenMetrics counter family keeps _total")
    expect("\nfabprobe_roce_frames_total " in body, "OpenMetrics counter sample without _total")
    status, _, body = get(base + "/healthz")
    expect(status == 200 and body == "ok\n", f"/healthz: {status} {body!r}")
    status, ctype, body = get(base + "/")
    expect(status == 200 and "text/html" in ctype and 'href="/metrics"' in body, f"/: {status} {ctype}")
    status, _, _ = get(base + "/nope")
    expect(status == 404, f"/nope: {status}")
    # A NUL in the path ends no path early: not the index, not the metrics.
    for path in ("/%00", "/metrics%00.txt"):
        status, _, _ = get(base + path)
        expect(status == 404, f"{path}: {status}")
    status, _, _ = get(base + "/%6detrics")  # an escaped letter is the letter
    expect(status == 200, f"/%6detrics: {status}")
    # The absolute form a proxy sends (RFC 9112 3.2.2) names the same path.
    host, port = exp.rsplit(":", 1)
    with socket.create_connection((host.strip("[]"), int(port)), timeout=10) as s:
        s.sendall(f"GET http://{exp}/metrics HTTP/1.1\r\nHost: {exp}\r\n"
                  "Connection: close\r\n\r\n".encode())
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    expect(reply.startswith(b"HTTP/1.1 200") and b"fabprobe_roce_frames_total" in reply,
           f"GET http://{exp}/metrics: {reply[:40]!r}")
    status, _, _ = get(base + "/metrics", method="POST")
    expect(status == 405, f"POST /metrics: {status}")
    status, _, body = get(base + "/metrics", method="HEAD")
    expect(status == 200 and body == "", f"HEAD /metrics: {status}")


def prom_query(prom, query):
    url = f"http://{prom}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    status, _, body = get(url)
    r = json.loads(body)
    if status != 200 or r.get("status") != "success":
        errors.append(f"query {query}: {body}")
        return None
    res = r["data"]["result"]
    return float(res[0]["value"][1]) if res else None


def check_truth(tmp, exp, prom, uplink):
    """Prometheus holds the lab's RoCE bytes: what rocegen sent, exactly."""
    run, serve = load(f"{tmp}/run.json"), load(f"{tmp}/serve.json")
    req_bytes = sum(f["bytes"] for f in run["sent"])
    rsp_bytes = sum(f["bytes"] for f in serve["sent"])
    frames = sum(f["packets"] for f in run["sent"]) + sum(f["packets"] for f in serve["sent"])
    print(f"ground truth: requester sent {req_bytes} B, responder {rsp_bytes} B, {frames} frames")

    queries = {
        "egress": 'sum(fabprobe_interface_roce_bytes_total{job="fabprobe",direction="egress"})',
        "ingress": 'sum(fabprobe_interface_roce_bytes_total{job="fabprobe",direction="ingress"})',
        "frames": 'sum(fabprobe_roce_frames_total{job="fabprobe"})',
    }
    # The traffic is over; wait until Prometheus has scraped the exporter's last refresh.
    deadline = time.time() + 20
    while True:
        smp = samples(get(f"http://{exp}/metrics")[2])
        own = {"egress": total(smp, "fabprobe_interface_roce_bytes_total", direction="egress"),
               "ingress": total(smp, "fabprobe_interface_roce_bytes_total", direction="ingress"),
               "frames": total(smp, "fabprobe_roce_frames_total")}
        got = {k: prom_query(prom, q) for k, q in queries.items()}
        if got == own and own["egress"] == req_bytes or time.time() > deadline:
            break
        time.sleep(0.5)
    print(f"prometheus: {got}; exporter: {own}")
    expect(got == own, f"Prometheus {got} != the exporter's own values {own}")
    expect(got["egress"] == req_bytes, f"egress RoCE bytes {got['egress']} != requester sent {req_bytes}")
    expect(got["ingress"] == rsp_bytes, f"ingress RoCE bytes {got['ingress']} != responder sent {rsp_bytes}")
    expect(got["frames"] == frames, f"RoCE frames {got['frames']} != generator packets {frames}")
    # Per DSCP: the responder's CNPs (DSCP 48, 74-byte frames) under 48, though
    # they share their flows with its ACKs (26); everything else under 26.
    cnps = sum(f["cnps"] for f in serve["sent"])
    expect(cnps > 0, "the responder sent no CNP: the CE marking did not happen")
    want = {48: (cnps, 74 * cnps, cnps), 26: (frames - cnps, req_bytes + rsp_bytes - 74 * cnps, 0)}
    for dscp, (packets, nbytes, cnp) in want.items():
        have = tuple(total(smp, f"fabprobe_dscp_{m}_total", dscp=str(dscp))
                     for m in ("roce_packets", "roce_bytes", "cnp_packets"))
        expect(have == (packets, nbytes, cnp),
               f"DSCP {dscp}: packets, bytes, CNPs {have} != generator {(packets, nbytes, cnp)}")
    others = {labels for (n, labels) in smp if n == "fabprobe_dscp_roce_packets_total"} - \
        {frozenset({("dscp", "26")}), frozenset({("dscp", "48")})}
    expect(not others, f"DSCPs the lab never sends: {sorted(others)}")

    up = prom_query(prom, 'up{job="fabprobe"}')
    expect(up == 1, f"up = {up}")
    status, _, body = get(f"http://{prom}/api/v1/targets")
    for t in json.loads(body)["data"]["activeTargets"]:
        expect(t["health"] == "up" and not t["lastError"], f"target {t['scrapeUrl']}: {t['lastError']}")
    # Over the run, the two elephants shared the uplink the kernel chose for them.
    ele = prom_query(prom, f'max_over_time(fabprobe_uplink_elephants{{interface="{uplink}"}}[5m])')
    expect(ele == 2, f"{uplink}: at most {ele} elephants, the run put 2 there")
    col = prom_query(prom, 'max_over_time(fabprobe_alerts{type="elephant_collision"}[5m])')
    expect(col is not None and col >= 1, f"elephant_collision alert never raised ({col})")
    top = prom_query(prom, f'count(max_over_time(fabprobe_flow_bytes_per_second{{path="{uplink}"}}[5m]))')
    expect(top is not None and top >= 2, f"top flows on {uplink}: {top}")
    # The alerting rules evaluate against these metrics without errors.
    status, _, body = get(f"http://{prom}/api/v1/rules")
    rules = [r for g in json.loads(body)["data"]["groups"] for r in g["rules"]]
    expect(len(rules) >= 6, f"{len(rules)} rules loaded")
    for r in rules:
        expect(r["health"] == "ok", f"rule {r['name']}: {r['health']} {r.get('lastError')}")


def check_names(exp, files):
    """Every fabprobe_* name the dashboard and the rules use is one the exporter serves."""
    text = get(f"http://{exp}/metrics")[2]
    served = set(re.findall(r"^# TYPE (\S+)", text, re.M))
    served |= {n[:-6] for n in served if n.endswith("_total")}
    served.add("fabprobe_scrape_duration_seconds")
    for path in files:
        with open(path) as f:
            used = set(re.findall(r"\bfabprobe_[a-z0-9_]+", f.read()))
        used = {u for u in used if not u.startswith("fabprobe_fabric") and u != "fabprobe_export"}
        for name in sorted(used - served):
            errors.append(f"{os.path.basename(path)} uses {name}, which the exporter does not serve")
        print(f"{os.path.basename(path)}: {len(used)} metric names, all served" if used <= served else "")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def raw(exp, payload, src="127.0.0.1", timeout=5):
    """Send payload on a fresh connection; the status line back, or how it ended."""
    host, port = exp.rsplit(":", 1)
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(timeout)
    try:
        s.connect((host, int(port)))
        try:
            s.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while b"\r\n" not in data:  # the status line is the verdict; keep-alive may follow
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "timeout"
    finally:
        s.close()


def scrape_ok(exp, src="127.0.0.1"):
    line = raw(exp, b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n", src, timeout=10)
    return line.startswith("HTTP/1.") and " 200 " in line


def check_stress(exp, pid):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(8192, hard), hard))
    base = f"http://{exp}/metrics"
    expect(open(f"/proc/{pid}/comm").read().strip() == "fabprobe", f"pid {pid} is not fabprobe")
    get(base)
    rss0 = rss_kb(pid)

    # 200 concurrent scrapers, 5 scrapes each.
    results = []
    barrier = threading.Barrier(200)

    def scraper():
        barrier.wait()
        for _ in range(5):
            try:
                status, _, body = get(base, PROM_ACCEPT, timeout=30)
                results.append(status == 200 and body.endswith("# EOF\n"))
            except Exception as e:  # noqa: BLE001 - any failure is a failed scrape
                results.append(False)
                errors.append(f"concurrent scrape: {e}")
    threads = [threading.Thread(target=scraper) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expect(sum(results) == 1000, f"{sum(results)} of 1000 concurrent scrapes answered")
    print(f"200 concurrent scrapers: {sum(results)}/1000 scrapes OK, RSS {rss0} -> {rss_kb(pid)} kB")

    # Malformed and oversized requests: an error status or a closed connection, never a crash.
    bad = {
        "garbage": os.urandom(4096) + b"\r\n\r\n",
        "nul bytes": b"\x00" * 200 + b"\r\n\r\n",
        "bad version": b"GET /metrics HTTP/9.9\r\n\r\n",
        "unknown method": b"BREW /pot HTCPCP/1.0\r\nHost: x\r\n\r\n",
        "100 kB URL": b"GET /" + b"A" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        "1 MB header": b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n",
        "header without colon": b"GET /metrics HTTP/1.1\r\nHost x\r\n\r\n",
        "body on GET": b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"b" * 100000,
    }
    for what, payload in bad.items():
        line = raw(exp, payload)
        print(f"{what}: {line}")
        if what == "body on GET":
            expect(" 200 " in line, f"{what}: {line}")
        else:
            expect(" 200 " not in line, f"{what} answered 200: {line}")
        expect(os.path.exists(f"/proc/{pid}"), f"exporter died after {what}")

    # 1000 idle connections from 8 addresses, a slow client, and one idle socket to watch time out.
    idle, refused = [], 0
    host, port = exp.rsplit(":", 1)
    for i in range(1000):
        s = socket.socket()
        s.bind((f"127.0.0.{10 + i % 8}", 0))
        try:
            s.connect((host, int(port)))
            idle.append(s)
        except OSError:
            refused += 1
            s.close()
    slow_line = []

    def slow():
        s = socket.socket()
        s.bind(("127.0.0.3", 0))
        s.settimeout(20)
        s.connect((host, int(port)))
        try:
            for b in b"GET /metrics HTTP/1.1\r\n":
                s.send(bytes([b]))
                time.sleep(1)
                if len(slow_line) > 0:
                    break
        except OSError:
            pass
        s.close()
    st = threading.Thread(target=slow)
    st.start()
    time.sleep(1)
    rss_held = rss_kb(pid)
    expect(scrape_ok(exp, "127.0.0.99"), "no scrape while 1000 idle connections and a slow client are held")
    watch = idle[0]
    watch.settimeout(20)
    t0 = time.time()
    try:
        closed = watch.recv(1) == b""
    except OSError:
        closed = True
    print(f"1000 idle connections: {len(idle)} open, {refused} refused; RSS with them {rss_held} kB; "
          f"an idle one was closed after {time.time() - t0:.0f} s")
    expect(closed, "the server never closed an idle connection")
    expect(scrape_ok(exp, "127.0.0.98"), "no scrape after the idle timeout")
    slow_line.append(1)
    st.join()
    for s in idle:
        s.close()
    time.sleep(1)

    # One client holding more idle connections than the per-address limit must not
    # starve a scraper on the same address (a Prometheus on the host, or behind a NAT).
    same = []
    for i in range(300):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        try:
            s.connect((host, int(port)))
            same.append(s)
        except OSError:
            s.close()
    time.sleep(0.5)
    t0 = time.time()
    expect(scrape_ok(exp, "127.0.0.1"), "300 idle connections from 127.0.0.1 starved a scrape from it")
    print(f"300 idle connections from 127.0.0.1: a scrape from 127.0.0.1 answered in "
          f"{time.time() - t0:.2f} s")
    # ... and while 1000 idle ones from 8 addresses are held, a scrape from one of them.
    many = []
    for i in range(1000):
        s = socket.socket()
        s.bind((f"127.0.0.{10 + i % 8}", 0))
        try:
            s.connect((host, int(port)))
            many.append(s)
        except OSError:
            s.close()
    time.sleep(0.5)
    expect(scrape_ok(exp, "127.0.0.12"), "1000 idle connections starved a scrape from 127.0.0.12")
    closed = 0
    for s in same + many:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    print(f"idle connections the exporter closed to make room: {closed}")
    expect(closed > 0, "no idle connection was closed to make room")
    time.sleep(1)

    expect(scrape_ok(exp), "no scrape after the stress")
    status, _, body = get(base, PROM_ACCEPT)
    expect(status == 200 and body.endswith("# EOF\n"), "OpenMetrics scrape after the stress")
    rss1 = rss_kb(pid)
    print(f"RSS before {rss0} kB, after {rss1} kB (+{(rss1 - rss0) / 1024:.1f} MB)")
    expect(rss1 - rss0 < 20 * 1024, f"RSS grew {(rss1 - rss0) / 1024:.1f} MB")
    expect(rss_held - rss0 < 40 * 1024, f"RSS with 1000 connections grew {(rss_held - rss0) / 1024:.1f} MB")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "http":
        check_http(*args)
    elif cmd == "truth":
        check_truth(*args)
    elif cmd == "names":
        check_names(args[0], args[1:])
    elif cmd == "stress":
        check_stress(args[0], int(args[1]))
    else:
        sys.exit(f"unknown check {cmd}")
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
