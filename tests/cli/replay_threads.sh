#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Replay on several threads (--threads, probe/runpool.c): the report is the
# same, byte for byte, as one thread's, because a flow's frames stay in
# order on one worker. Checked on every shared capture, tcpdump's ERSPAN,
# GRE, VXLAN and sFlow captures, and a crafted capture whose flows need
# order (PSN gaps, go-back-N retransmissions, mirror copies of two
# switches); then the flag's bad values and where it does not apply.
set -u
. "$(dirname "$0")/../lib/cli.sh"

# 512 queue pairs between 64 host pairs, their frames interleaved; every
# 7th QP loses a PSN, every 11th goes back N (a retransmission), and the
# frames of every 5th QP arrive as ERSPAN II copies from one of two switches.
python3 - "$tmp/order.pcap" <<'PY'
import random, struct, sys
sys.path.insert(0, "tests/lib")
import inject
rnd = random.Random(7)
qps = []
for q in range(512):
    h = q % 64
    psns = list(range(40))
    if q % 7 == 0:
        del psns[17]
    if q % 11 == 0:
        psns = psns[:30] + list(range(24, 40))
    qps.append((f"10.{h // 8}.{h % 8}.1", f"10.9.{h % 8}.{h // 8 + 2}", 49152 + q, 0x100 + q, psns))
frames, cursor = [], [0] * len(qps)
while any(cursor[i] < len(q[4]) for i, q in enumerate(qps)):
    i = rnd.randrange(len(qps))
    src, dst, sport, qp, psns = qps[i]
    if cursor[i] >= len(psns):
        continue
    f = inject.write_only(src, dst, sport, qp, psns[cursor[i]], payload=64 + (i % 3) * 512)
    if i % 5 == 0:
        f = inject.erspan2(f, 100 + i % 2, len(frames), f"192.0.2.{1 + i % 2}", "192.0.2.100")
    frames.append(f)
    cursor[i] += 1
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000 + n // 100000, n % 100000 * 10, len(f), len(f)) + f)
PY

same() { # what, replay arguments...
	local what=$1 t
	shift
	"$FABPROBE" replay --json --threads 1 "$@" >"$tmp/t1" 2>"$tmp/e1"
	local rc=$?
	check "$what: one thread exits 0" test "$rc" -eq 0
	for t in 2 3; do
		"$FABPROBE" replay --json --threads "$t" "$@" >"$tmp/t$t" 2>"$tmp/e$t"
		check "$what: $t threads, the same report" cmp -s "$tmp/t1" "$tmp/t$t"
	done
}

# Each queue pair's PSN state is its own (in its flow entry), so the
# default table gives the same report on any number of threads.
same "order.pcap" "$tmp/order.pcap"
# A table past 87,381 flows has its slot table read on one CPU while its
# hash tables are walked on another (collect.c): the same flows as the
# default table, read on one.
"$FABPROBE" replay --json --threads 1 --flows 100000 "$tmp/order.pcap" >"$tmp/big" 2>"$tmp/ebig"
check "order.pcap, --flows 100000 (collect on two CPUs): the same flows as the default table" \
	cmp -s <(jq -S '.flows' "$tmp/t1") <(jq -S '.flows' "$tmp/big")
check "... and flows to compare" test "$(jq '.flows | length' "$tmp/big")" -gt 50
check "order.pcap: gaps, retransmissions and mirror copies to keep in order" \
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t, f = r["totals"], r["flows"]
sys.exit(not (sum(x["psn_gaps"] for x in f) == 74 and sum(x["retransmits"] for x in f) > 0
              and t["mirrored_frames"] > 0 and t["flow_evictions"] == 0 and len(f) == 512))' "$tmp/t1"
# Buckets of flows move between workers to even their load, a moved
# bucket's frames after those queued before it (balance.h). The test hook
# moves half a worker's buckets at every batch queued: still the same report.
for t in 2 3; do
	FABPROBE_TEST_REBALANCE=1 "$FABPROBE" -v replay --json --threads "$t" "$tmp/order.pcap" \
		>"$tmp/m$t" 2>"$tmp/mv$t"
	moved=$(sed -n 's/.*replay: \([0-9]*\) buckets of flows moved.*/\1/p' "$tmp/mv$t")
	check "order.pcap, $t threads: buckets moved at every batch (${moved:-none})" \
		test "${moved:-0}" -gt 100
	check "order.pcap, $t threads, buckets moved: the same report" cmp -s "$tmp/t1" "$tmp/m$t"
done
# Read through a stdio buffer of its own (14 MB: many refills), or stdin's.
"$FABPROBE" replay --json --threads 1 - <"$tmp/order.pcap" >"$tmp/stdin" 2>/dev/null
check "order.pcap from stdin (-): the same report" cmp -s "$tmp/t1" "$tmp/stdin"
for f in "$PCAPS"/*.pcap "$PCAPS"/ext/erspan-*.pcap "$PCAPS"/ext/various_gre.pcap "$PCAPS"/ext/vxlan.pcap; do
	same "$(basename "$f")" "$f"
done
for f in "$PCAPS"/ext/sflow*.pcap; do
	same "$(basename "$f") (--sflow)" --sflow "$f"
done
# Two uplinks' captures merged in time, on two threads.
same "--path x2" --path a="$PCAPS"/nccl_ring2_node0.pcap --path b="$PCAPS"/nccl_ring2_node1.pcap

# Workers are named fp-run/N and pinned, one CPU each: the kernel's LRU
# keeps free entries per CPU, so a full table evicts by the CPU an insert
# runs on. A table of 2 flows with 3 flows in it evicts twice, however the
# reading thread moves (frames run on the reading thread evicted 9 to 49
# times here).
python3 tests/ipfix/mkpcap.py evict "$tmp/evict.pcap"
ncpu=$(nproc)
for t in 1 2; do
	"$FABPROBE" capture --pcap "$tmp/evict.pcap" --speed 1 --flows 2 --threads "$t" \
		-o "$tmp/ev$t.tar.gz" >/dev/null 2>"$tmp/ev$t.err" &
	pid=$!
	for i in $(seq 50); do # until its workers run (5 s at most)
		for task in /proc/$pid/task/*; do
			echo "$(cat "$task/comm") $(awk '/^Cpus_allowed_list/ {print $2}' "$task/status")"
		done >"$tmp/tasks$t" 2>/dev/null
		[ "$(grep -c '^fp-run/' "$tmp/tasks$t")" -ge "$t" ] && break
		sleep 0.1
	done
	n=0
	while kill -0 "$pid" 2>/dev/null; do
		taskset -p -c $((n % ncpu)) "$pid" >/dev/null 2>&1
		n=$((n + 1))
	done
	wait "$pid"
	check "--threads $t --flows 2: capture exits 0" test $? -eq 0
	want=$(for i in $(seq 0 $((t - 1))); do echo "fp-run/$i"; done)
	check "--threads $t: workers fp-run/0..$((t - 1)), each pinned to one CPU" \
		test "$(awk '$1 ~ /^fp-run/ && $2 ~ /^[0-9]+$/ {print $1}' "$tmp/tasks$t" | sort)" = "$want"
	# On two workers which flow a full table evicts depends on how they interleave.
	if [ "$t" = 1 ]; then
		ev=$(tar -xzOf "$tmp/ev$t.tar.gz" report.json | jq '.totals.flow_evictions')
		check "--threads 1 --flows 2: 2 evictions while the reader moved ($n moves; got $ev)" \
			test "$ev" = 2
	fi
done
[ "$ncpu" -ge 2 ] &&
	check "two workers on two CPUs: pinned to different ones" \
		test "$(awk '$1 ~ /^fp-run/ {print $2}' "$tmp/tasks2" | sort -u | wc -l)" -eq 2

# The default: one worker per CPU the process may use (the reader shares one).
want=$ncpu
"$FABPROBE" -v replay "$tmp/evict.pcap" >/dev/null 2>"$tmp/v"
check "default: $want worker(s) for $ncpu CPUs, each said under -v" \
	test "$(grep -c '^fabprobe: fp-run/[0-9]* runs on CPU [0-9]*$' "$tmp/v")" -eq "$want"
if [ "$ncpu" -ge 2 ]; then
	taskset -c 1 "$FABPROBE" -v replay --threads 2 "$tmp/evict.pcap" >/dev/null 2>"$tmp/v"
	check "taskset -c 1: the workers run on CPU 1 only" \
		test "$(grep -c '^fabprobe: fp-run/[01] runs on CPU 1$' "$tmp/v")" -eq 2
	taskset -c 1 "$FABPROBE" -v replay "$tmp/evict.pcap" >/dev/null 2>"$tmp/v"
	check "taskset -c 1: one worker by default (nproc counts 1)" \
		test "$(grep -c 'fp-run/' "$tmp/v")" -eq 1
fi

# On two CPUs or more, replay reads and queues frames while the first
# worker loads the program (the verifier's 50 ms); on one it loads first.
# Either way the report is the same.
if [ "$ncpu" -ge 2 ]; then
	"$FABPROBE" -v replay --json "$tmp/order.pcap" >"$tmp/ra.json" 2>"$tmp/v"
	ahead=$(sed -n 's/.*replay: \([0-9]*\) frames read while the program loaded.*/\1/p' "$tmp/v")
	check "read ahead while the program loads (${ahead:-no} frames, said under -v)" \
		test "${ahead:-0}" -gt 0
	taskset -c 0 "$FABPROBE" -v replay --json "$tmp/order.pcap" >"$tmp/one.json" 2>"$tmp/v"
	check "one CPU: no read-ahead" sh -c "! grep -q 'read while the program loaded' '$tmp/v'"
	check "read-ahead: the same report as one CPU's" cmp -s "$tmp/ra.json" "$tmp/one.json"
fi

# Bad values: one line, usage exit.
for v in 0 65 x -1; do
	"$FABPROBE" replay --threads "$v" "$tmp/order.pcap" >/dev/null 2>"$tmp/err"
	rc=$?
	check "--threads $v: usage error, one line" test "$rc" -eq 2 -a "$(wc -l <"$tmp/err")" -eq 1
done
"$FABPROBE" top --once -i lo --threads 2 >/dev/null 2>"$tmp/err"
rc=$?
check "top -i lo --threads: applies to --pcap only" \
	test "$rc" -eq 2 -a "$(cat "$tmp/err")" = "fabprobe: top: --threads applies to --pcap only"
"$FABPROBE" top --once --plain --pcap "$tmp/order.pcap" --speed 0 --threads 2 >"$tmp/top" 2>&1
check "top --pcap --threads 2 runs" test $? -eq 0 -a -s "$tmp/top"
# -T is --threads wherever --threads is taken, as on replay.
"$FABPROBE" top --once --plain --pcap "$tmp/order.pcap" --speed 0 -T 2 >"$tmp/top" 2>&1
check "top --pcap -T 2 runs" test $? -eq 0 -a -s "$tmp/top"
for c in top capture export; do
	out=()
	[ "$c" = capture ] && out=(-o "$tmp/never.tar.gz")
	"$FABPROBE" "$c" -i lo -T 2 "${out[@]}" >/dev/null 2>"$tmp/err"
	check "$c -T: --threads (applies to --pcap only)" \
		eq "$(cat "$tmp/err")" "fabprobe: $c: --threads applies to --pcap only"
	"$FABPROBE" "$c" --pcap "$tmp/order.pcap" -T 0 >/dev/null 2>"$tmp/err"
	check "$c -T 0: --threads' range" \
		eq "$(cat "$tmp/err")" "fabprobe: --threads: '0' is not a number from 1 to 64"
done

finish replay-threads
