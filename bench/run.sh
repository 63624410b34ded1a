#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh - fabprobe's benchmarks, run by `make bench` (as root) after
# bench/bench.mk has built them. Every figure comes with a baseline measured
# in the same run: on a noisy VM ratios and differences hold, absolute times
# do not. Prints one table (markdown) and writes it, with the notes and raw
# logs, to $BENCH_OUT (default /tmp/fabprobe-bench). Nothing here is a test:
# a missed target is reported, never a failure.
#
#   BUILD=build bench/run.sh
#   BENCH_SKIP="live replay" bench/run.sh     skip sections (pktcost insert
#                                              replay userspace memory live
#                                              sflow)
set -euo pipefail

BUILD=${BUILD:-build}
B=$BUILD/bench
FP=$BUILD/fabprobe
OUT=${BENCH_OUT:-/tmp/fabprobe-bench}
SKIP=" ${BENCH_SKIP:-} "
FRAMES=${BENCH_FRAMES:-1000000}
LIVE_SECONDS=${BENCH_LIVE_SECONDS:-5}
TRIALS=${BENCH_TRIALS:-3}
NS_A=fpb-a
NS_B=fpb-b

ROWS=$OUT/rows
mkdir -p "$OUT"
: >"$ROWS"

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF, namespaces)" >&2
	exit 1
fi

holder_pid=
cleanup() {
	if [ -n "$holder_pid" ]; then
		kill "$holder_pid" 2>/dev/null || true
		wait "$holder_pid" 2>/dev/null || true
	fi
	ip netns del $NS_A 2>/dev/null || true
	ip netns del $NS_B 2>/dev/null || true
}
trap cleanup EXIT

skipped() { [[ $SKIP == *" $1 "* ]]; }
log() { echo "bench: $*" >&2; }
row() { echo "ROW|$1|$2|$3|$4|$5|$6|$7" >>"$ROWS"; }
note() { echo "NOTE|$*" >>"$ROWS"; }
now_ns() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# Statistics accounting adds to every program run; the figures are without it.
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled)" != 0 ]; then
	log "kernel.bpf_stats_enabled is on: per-packet figures include its overhead"
fi

# 1. Per-packet cost under BPF_PROG_TEST_RUN.
update_ns=
if ! skipped pktcost; then
	log "per-packet cost, update path (about 15 s)"
	"$B/pktcost" -e "$B/empty.bpf.o" -r 1000000 -t 7 | tee "$OUT/pktcost.log" |
		grep -E '^(ROW|NOTE)' >>"$ROWS"
	update_ns=$(awk -F'|' '/^UPDATE_NS/ {print $2}' "$OUT/pktcost.log")
fi
if ! skipped insert && [ -n "$update_ns" ]; then
	log "per-packet cost, new-flow insert path (about 45 s)"
	"$B/pktcost-newflow" -e "$B/empty.bpf.o" -r 1000000 -t 5 -u "$update_ns" |
		tee "$OUT/pktcost-newflow.log" | grep -E '^(ROW|NOTE)' >>"$ROWS"
fi

# 2. Replay throughput against tshark and tcpdump on the same capture.
if ! skipped replay; then
	pcap=$OUT/replay.pcap
	log "replay: writing $FRAMES frames to $pcap"
	"$B/genpcap" "$pcap" "$FRAMES"
	# Frames per second over the whole command, start-up included.
	pps_of() {
		local t0 t1
		t0=$(now_ns)
		"$@" >/dev/null 2>&1
		t1=$(now_ns)
		echo "$FRAMES $t0 $t1" | awk '{printf "%.0f\n", $1 / (($3 - $2) / 1e9)}'
	}
	declare -A pps
	tools="fabprobe fabprobe-n fabprobe-1 fabprobe-cpu read tcpdump tshark"
	for tool in $tools; do
		: >"$OUT/replay-$tool.pps"
	done
	cores=$(nproc)
	# The one-thread baseline: everything (reading, verifier, workers) on one CPU.
	cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
	for t in $(seq $TRIALS); do
		log "replay: trial $t of $TRIALS (fabprobe by default, on $cores workers, on 1, on one CPU; libpcap's read, tcpdump, tshark)"
		pps_of "$FP" replay "$pcap" >>"$OUT/replay-fabprobe.pps"
		pps_of "$FP" replay --threads "$cores" "$pcap" >>"$OUT/replay-fabprobe-n.pps"
		pps_of "$FP" replay --threads 1 "$pcap" >>"$OUT/replay-fabprobe-1.pps"
		pps_of taskset -c "$cpu0" "$FP" replay --threads 1 "$pcap" >>"$OUT/replay-fabprobe-cpu.pps"
		# -Z root: as root, tcpdump gives its output file to user tcpdump (/dev/null's owner!)
		pps_of tcpdump -Z root -r "$pcap" -w /dev/null >>"$OUT/replay-read.pps"
		pps_of tcpdump -n -r "$pcap" >>"$OUT/replay-tcpdump.pps"
		pps_of tshark -n -r "$pcap" >>"$OUT/replay-tshark.pps"
	done
	for tool in $tools; do
		pps[$tool]=$(median <"$OUT/replay-$tool.pps")
	done
	"$FP" replay "$pcap" >"$OUT/replay-full.txt"
	head -2 "$OUT/replay-full.txt" >"$OUT/replay-report.txt"
	fmt_pps() { awk -v v="$1" 'BEGIN {printf "%.0f k/s", v / 1000}'; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
	verdict() { awk -v r="$1" -v t="$2" -v le="$3" 'BEGIN {print ((le ? r <= t : r >= t) ? "met" : "MISSED")}'; }
	workers=$((cores > 2 ? cores - 1 : 1))
	[ "$workers" = 1 ] && workers="1 worker" || workers="$workers workers"
	r=$(ratio "${pps[fabprobe]}" "${pps[fabprobe-cpu]}")
	row "replay ($FRAMES frames)" "fabprobe replay, default ($workers + the reader)" \
		"$(fmt_pps "${pps[fabprobe]}")" "$(fmt_pps "${pps[fabprobe-cpu]}") all on CPU $cpu0" \
		"${r}x one CPU" ">= 1.8x" "$(verdict "$r" 1.8 0)"
	row "replay ($FRAMES frames)" "fabprobe replay --threads $cores" "$(fmt_pps "${pps[fabprobe-n]}")" \
		"$(fmt_pps "${pps[fabprobe]}") default" "$(ratio "${pps[fabprobe-n]}" "${pps[fabprobe]}")x default" \
		"-" "-"
	row "replay ($FRAMES frames)" "fabprobe replay --threads 1" "$(fmt_pps "${pps[fabprobe-1]}")" \
		"$(fmt_pps "${pps[fabprobe]}") default" "$(ratio "${pps[fabprobe-1]}" "${pps[fabprobe]}")x default" \
		"-" "-"
	# What threads can give at all here: the program alone on every CPU, no capture.
	log "replay: the ceiling, BPF_PROG_TEST_RUN alone on 1 and on $cores threads"
	"$B/threads" -t "$TRIALS" | tee "$OUT/threads.log" | grep -E '^(ROW|NOTE)' >>"$ROWS"
	r=$(ratio "${pps[read]}" "${pps[fabprobe]}")
	row "replay ($FRAMES frames)" "fabprobe replay, time against reading the file" "-" \
		"$(fmt_pps "${pps[read]}") tcpdump -r F -w /dev/null" "${r}x the read's time" "<= 5x" \
		"$(verdict "$r" 5 1)"
	r=$(ratio "${pps[fabprobe]}" "${pps[tshark]}")
	row "replay ($FRAMES frames)" "fabprobe replay against tshark" "-" \
		"$(fmt_pps "${pps[tshark]}") tshark -n -r" "${r}x tshark" ">= 20x tshark" "$(verdict "$r" 20 0)"
	row "replay ($FRAMES frames)" "tcpdump -n -r" "$(fmt_pps "${pps[tcpdump]}")" \
		"$(fmt_pps "${pps[tshark]}") tshark -n -r" \
		"$(ratio "${pps[tcpdump]}" "${pps[tshark]}")x tshark" "-" "-"
	row "replay ($FRAMES frames)" "tshark -n -r" "$(fmt_pps "${pps[tshark]}")" "-" "-" "-" \
		"baseline"
	note "replay: $(tr '\n' ' ' <"$OUT/replay-report.txt")"
	note "replay: frames / wall time of the whole command (start-up and BPF load included), median of $TRIALS; output to /dev/null"
fi

# 3. Userspace at scale, and 5. memory.
if ! skipped userspace; then
	log "userspace: 10k, 100k, 1M flows (about 40 s)"
	"$B/userspace" scale 10000 100000 1000000 | tee "$OUT/userspace.log" |
		grep -E '^(ROW|NOTE)' >>"$ROWS"
	"$B/userspace" par 2000 | tee -a "$OUT/userspace.log" | grep -E '^(ROW|NOTE)' >>"$ROWS"
fi
if ! skipped memory; then
	log "memory: 65536 and 1M flows"
	"$B/userspace" memory 65536 1000000 | tee "$OUT/memory.log" |
		grep -E '^(ROW|NOTE)' >>"$ROWS"
fi

# 4. Live: packets per second through a veth pair between two namespaces.
if ! skipped live; then
	log "live: veth, none / empty XDP / fabprobe, $TRIALS x ${LIVE_SECONDS}s each"
	cleanup
	ip netns add $NS_A
	ip netns add $NS_B
	ip link add fpb0 netns $NS_A type veth peer name fpb1 netns $NS_B
	ip -n $NS_A addr add 10.77.0.1/24 dev fpb0
	ip -n $NS_B addr add 10.77.0.2/24 dev fpb1
	for ns in $NS_A $NS_B; do ip -n $ns link set lo up; done
	ip -n $NS_A link set fpb0 up
	ip -n $NS_B link set fpb1 up

	rx() { ip netns exec $NS_B cat /sys/class/net/fpb1/statistics/rx_packets; }
	modes="none empty fabprobe"
	for m in $modes; do : >"$OUT/live-$m.pps"; done
	: >"$OUT/live-fabprobe.check"
	# Modes interleaved within each trial, so drift hits them alike.
	for t in $(seq $TRIALS); do
		for m in $modes; do
			coproc HOLD { exec ip netns exec $NS_B "$B/live" hold $m fpb1 "$B/empty.bpf.o"; }
			holder_pid=$HOLD_PID
			# Our own copies: bash drops HOLD[] as soon as the holder exits.
			exec {hold_out}<&"${HOLD[0]}" {hold_in}>&"${HOLD[1]}"
			read -r ready <&$hold_out
			[ "$ready" = ready ] || { log "live: $m did not attach"; exit 1; }
			r0=$(rx)
			t0=$(now_ns)
			sent=$(ip netns exec $NS_A "$B/live" send 10.77.0.2 "$LIVE_SECONDS")
			t1=$(now_ns)
			r1=$(rx)
			exec {hold_in}>&- {HOLD[1]}>&-
			out=$(cat <&$hold_out)
			exec {hold_out}<&-
			wait "$holder_pid" || true
			holder_pid=
			echo "$r0 $r1 $t0 $t1" | awk '{printf "%.0f\n", ($2 - $1) / (($4 - $3) / 1e9)}' \
				>>"$OUT/live-$m.pps"
			if [ $m = fabprobe ]; then
				echo "sent $sent rx $((r1 - r0)) fabprobe $out" >>"$OUT/live-fabprobe.check"
			fi
		done
	done
	declare -A lpps
	for m in $modes; do lpps[$m]=$(median <"$OUT/live-$m.pps"); done
	kpps() { awk -v v="$1" 'BEGIN {printf "%.0f k/s", v / 1000}'; }
	pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f%%", 100 * a / b}'; }
	row "live veth (native XDP)" "no program" "$(kpps "${lpps[none]}")" "-" \
		"$(pct "${lpps[none]}" "${lpps[empty]}") of empty" "-" "-"
	row "live veth (native XDP)" "empty XDP program" "$(kpps "${lpps[empty]}")" "-" "-" "-" \
		"baseline"
	p=$(pct "${lpps[fabprobe]}" "${lpps[empty]}")
	row "live veth (native XDP)" "fabprobe XDP" "$(kpps "${lpps[fabprobe]}")" \
		"$(kpps "${lpps[empty]}") empty" "$p of empty" ">= 95% of empty" \
		"$(awk -v a="${lpps[fabprobe]}" -v b="${lpps[empty]}" \
			'BEGIN {print (a >= 0.95 * b ? "met" : "MISSED")}')"
	note "live: received packets (fpb1 rx_packets) per second while one sendmmsg sender runs ${LIVE_SECONDS}s, median of $TRIALS, modes interleaved; fabprobe's own count: $(tail -1 "$OUT/live-fabprobe.check")"
	cleanup
fi

# 6. The sFlow decoder alone (no socket, no BPF), against memcpy of the same bytes.
if ! skipped sflow; then
	log "sflow: decoder, flow and counter mixes (about 10 s)"
	"$B/sflow" -n 1000000 -t 5 | tee "$OUT/sflow.log" | grep -E '^(ROW|NOTE)' >>"$ROWS"
fi

# 7. The sFlow source end to end: samples through the program per second, and its listener's loss.
if ! skipped sflow; then
	log "sflow source: capture and listener at 100k datagrams/s (about 20 s)"
	"$B/sflow_source" -n 200000 -r 100000 | tee "$OUT/sflow_source.log" | grep -E '^(ROW|NOTE)' >>"$ROWS"
fi

# The table.
{
	echo "| section | figure | value | baseline (same run) | vs baseline | target | verdict |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'|' '$1 == "ROW" {printf "| %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7, $8}' "$ROWS"
	echo
	awk -F'|' '$1 == "NOTE" {sub(/^NOTE\|/, ""); print "- " $0}' "$ROWS"
} >"$OUT/results.md"
{
	echo "fabprobe bench: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, kernel $(uname -r)," \
		"$(clang --version | head -1), libbpf $(dpkg-query -W -f '${Version}' libbpf-dev 2>/dev/null || echo '?')"
	echo
	cat "$OUT/results.md"
} | tee "$OUT/results.txt"
