#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A recording read as fast as it runs hands control back every quarter
# second of wall time (progress, Ctrl-C); the front ends that refresh once
# an interval of the recording's own time must go on reading until the
# interval has passed. They took each hand-back for a whole interval: top
# --plain printed a table at each ("every 0.7 s", "at 1 s" twice), -d
# stopped early, and capture's series had a sample at 0.725, 1.667, ...
# FABPROBE_TEST_PCAP_BUDGET (a test hook) hands back every 1024 frames.
# Then a recording stopped before its end, which must say so.
set -u
. "$(dirname "$0")/../lib/cli.sh"

python3 tests/ipfix/mkpcap.py many 6000 "$tmp/many.pcap" # 12,000 frames in 0.5 s

tables() { # tables [ENV...]: top --plain's tables over the capture, one header line each
	env "$@" "$FABPROBE" top --plain --pcap "$tmp/many.pcap" --speed 0 -r 0.1 -n 0 2>/dev/null |
		grep '^fabprobe top'
}
tables >"$tmp/whole"
tables FABPROBE_TEST_PCAP_BUDGET=1 >"$tmp/handed"
check "top --plain: a table every 0.1 s of the capture, and the whole run's (6)" \
	eq "$(wc -l <"$tmp/whole")" 6
check "top --plain: the same tables when the read hands back every 1024 frames" \
	cmp -s "$tmp/whole" "$tmp/handed"

check "top --plain -r 0.2: each table's time to a tenth where not on a second (was 'at 0 s' for all)" \
	eq "$("$FABPROBE" top --plain --pcap "$tmp/many.pcap" --speed 0 -r 0.2 -n 0 2>/dev/null |
		grep '^fabprobe top' | grep -oE 'at [0-9.]+ s' | tr '\n' ' ')" "at 0.2 s at 0.4 s at 0.5 s "
check "top --plain: rows past -n point at -n 0 (its --json is --once's)" \
	bash -c "'$FABPROBE' top --plain --pcap '$tmp/many.pcap' --speed 0 -n 3 2>/dev/null |
		 grep -q '^\.\.\. 5997 more flows (-n 0 shows all)\$'"

FABPROBE_TEST_PCAP_BUDGET=1 "$FABPROBE" top --plain --pcap "$tmp/many.pcap" --speed 0 -r 0.1 \
	-d 0.3 -n 0 2>/dev/null | grep '^fabprobe top' >"$tmp/d"
check "top --plain -d 0.3: three tables, as -d counts the capture's time" eq "$(wc -l <"$tmp/d")" 3
# -d not a whole number of intervals: the last table covers less, and says
# so ("over the last 0.1 s"), not "every 0.1 s" of a -r 0.2 run.
check "top --plain -r 0.2 -d 0.5: the short last table says 'over the last', not 'every'" \
	eq "$("$FABPROBE" top --plain --pcap "$tmp/many.pcap" --speed 0 -r 0.2 -d 0.5 -n 0 2>/dev/null |
		grep '^fabprobe top' | grep -oE '(every|over the last) [0-9.]+ s' | tr '\n' ' ')" \
	"every 0.2 s every 0.2 s over the last 0.1 s "

series() { # series [ENV...]: the times of capture's series over the capture
	rm -rf "$tmp/b" && mkdir "$tmp/b"
	env "$@" "$FABPROBE" capture --pcap "$tmp/many.pcap" -o "$tmp/b/b.tar.gz" 2>/dev/null &&
		tar -xzf "$tmp/b/b.tar.gz" -C "$tmp/b" && jq -c '[.series[].t]' "$tmp/b/report.json"
}
check "capture: one sample in its series for the capture's 0.5 s (a refresh a second, the last at its end)" \
	eq "$(series | jq length)" 1
check "capture: the same series when the read hands back every 1024 frames" \
	eq "$(series FABPROBE_TEST_PCAP_BUDGET=1)" "$(series)"

# Stopped before the end (Ctrl-C): replay and capture say the report covers
# a part, and an interrupted read is no damaged capture. A FIFO holds the
# read: its writer sends 2,000,000 bytes (5,780 frames) and waits.
stopped() { # stopped CMD...: run CMD on the FIFO, SIGINT it after 1 s; its stderr in $tmp/err
	rm -f "$tmp/fifo" && mkfifo "$tmp/fifo"
	{ head -c 2000000 "$tmp/many.pcap"; sleep 3; } >"$tmp/fifo" &
	local w=$! p
	"$@" >"$tmp/out" 2>"$tmp/err" &
	p=$!
	sleep 1
	kill -INT "$p"
	wait "$p"
	echo "$?" >"$tmp/rc"
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}
stopped "$FABPROBE" replay "$tmp/fifo"
check "replay stopped: exit 0, one line says the report covers the first 5780 frames" \
	bash -c "[ \$(cat '$tmp/rc') = 0 ] && [ \$(wc -l <'$tmp/err') = 1 ] &&
		 grep -qx 'fabprobe: replay: stopped before the end of the capture: the report covers its first 5780 frames' '$tmp/err'"
check "... and its report covers them" grep -q '^frames 5780 ' "$tmp/out"
stopped "$FABPROBE" capture --pcap "$tmp/fifo" -o "$tmp/stopped.tar.gz"
check "capture stopped: exit 0, says the bundle covers a part, and writes it" \
	bash -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q '^capture: stopped before the end of the capture: the bundle covers its first .* (5780 frames)' '$tmp/err' &&
		 ! grep -q 'cut short or corrupt' '$tmp/err' && [ -s '$tmp/stopped.tar.gz' ]"

# The bundle says so itself: one reading the ticket sees no stderr (its
# summary said "no RoCE" of a capture whose RoCE came later, and no more).
mkdir -p "$tmp/sb" && tar -xzf "$tmp/stopped.tar.gz" -C "$tmp/sb"
check "capture stopped: summary.txt, report.html and report.json say the bundle covers a part" \
	bash -c "grep -qx 'partial: stopped before the end of the capture: the bundle covers its first .* s (5780 frames)' '$tmp/sb/summary.txt' &&
		 grep -q \"^<p class='warning'><b>Partial</b>: stopped before the end of the capture: \" '$tmp/sb/report.html' &&
		 jq -e '.provenance.partial | startswith(\"stopped before the end of the capture\")' '$tmp/sb/report.json' >/dev/null"

finish pace
