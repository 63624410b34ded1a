#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The live clock (docs/design.md): a live command measures the kernel tick
# at load and says so with -v; --precise-clock reaches the probe, which
# then reads the precise clock and measures nothing. Recordings carry
# their own time: a replay measures no tick.
set -u
. "$(dirname "$0")/../lib/cli.sh"

live() { # stderr file, extra options...
	local out=$1
	shift
	timeout 30 "$FABPROBE" -v top --once -r 0.1 -i lo "$@" >/dev/null 2>"$out" </dev/null
}

check "top -i lo runs" live "$tmp/tick.err"
check "without --precise-clock: the tick is measured (or the fallback said)" \
	grep -Eq "clock: the kernel ticks at [0-9]+ Hz|clock: cannot measure" "$tmp/tick.err"
check "top -i lo --precise-clock runs" live "$tmp/precise.err" --precise-clock
check "--precise-clock reaches the probe" grep -q "clock: --precise-clock" "$tmp/precise.err"
check "--precise-clock: no tick measured" sh -c "! grep -q 'ticks at' '$tmp/precise.err'"
"$FABPROBE" -v replay "$PCAPS/rdma_write_bw.pcap" >/dev/null 2>"$tmp/replay.err"
check "replay measures no tick" sh -c "! grep -q 'clock:' '$tmp/replay.err'"

finish live-clock
