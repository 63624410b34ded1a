#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Progress on a terminal (script(1) gives the commands one, 80 columns):
# replay and top --once say how far through the capture the read is, in
# percent of the file's size, up to 100% at its end, with the frames the
# generator wrote; a pipe has no size, so no percent. What runs after the
# read (the analysis, the report) is named on a line cleared when done.
# None of it is on stdout, which stays byte for byte what it is without a
# terminal, and none of it is on stderr when that is not a terminal.
# FABPROBE_TEST_PCAP_BUDGET (a test hook) hands back every 1024 frames: a
# line each, past the frames read while the program loads (32 MB at most).
set -u
. "$(dirname "$0")/../lib/cli.sh"

python3 tests/ipfix/mkpcap.py many 100000 "$tmp/many.pcap" # 200,000 frames, 69 MB
# A name longer than the terminal is wide: the line must still fit.
long=$tmp/$(printf 'incident-%.0s' {1..12}).pcap
ln -s "$tmp/many.pcap" "$long"

# on_tty CMD: run CMD (a shell command line) with a terminal for its stderr;
# what the terminal got in $tmp/raw, and in $tmp/tty each line redrawn with \r
# on a line of its own, without the escapes that clear the rest of a line.
on_tty() {
	FABPROBE_TEST_PCAP_BUDGET=1 script -qec "stty cols 80 rows 24; $1" /dev/null </dev/null >"$tmp/raw"
	tr '\r' '\n' <"$tmp/raw" | sed 's/\x1b\[K//g' >"$tmp/tty"
}
pcts() { grep -oE '^(replay|top): .*: [0-9]+% of' "$tmp/tty" | grep -oE '[0-9]+% of' | tr -d '% of'; }
rising() { # the percentages never fall, show the read on its way, and end at 100
	local p
	p=$(pcts)
	[ "$(sort -n <<<"$p")" = "$p" ] && [ "$(sort -un <<<"$p" | wc -l)" -ge 3 ] &&
		[ "$(tail -1 <<<"$p")" = 100 ] || {
		echo "     percentages: $(echo $p)"
		return 1
	}
}

"$FABPROBE" replay --flows 262144 --json "$tmp/many.pcap" >"$tmp/plain.json" 2>"$tmp/plain.err"
check "replay, stderr not a terminal: nothing on it, as before" test ! -s "$tmp/plain.err"

on_tty "'$FABPROBE' replay --flows 262144 --json '$tmp/many.pcap' >'$tmp/tty.json'"
check "replay on a terminal: the percent of the file rises to 100" rising
check "... the last line has the generator's 200000 frames, the size, a rate and the time taken" \
	grep -qE '^replay: .*many.pcap: 100% of 69.[0-9] MB, 200000 frames in [0-9]+s \([0-9.]+[kMG]?/s\)' "$tmp/tty"
check "... it names the analysis, then the report with its flows" \
	bash -c "grep -qx 'replay: analysing the flows...' '$tmp/tty' &&
		 grep -qx 'replay: writing the report of 100000 flows...' '$tmp/tty'"
check "... and clears that line at the end" eq "$(tail -c 4 "$tmp/raw" | od -An -tx1)" " 0d 1b 5b 4b"
check "... stdout byte for byte as without a terminal" cmp "$tmp/plain.json" "$tmp/tty.json"

on_tty "'$FABPROBE' replay '$long' >/dev/null"
check "replay, a name wider than the terminal: every line fits in 80 columns" \
	bash -c "[ \$(LC_ALL=C.UTF-8 wc -L <'$tmp/tty') -le 79 ]"
check "... the name shortened, not the figures" \
	grep -qE '^replay: .*….*\.pcap: 100% of 69.[0-9] MB, 200000 frames' "$tmp/tty"

on_tty "'$FABPROBE' replay '$tmp/many.pcap'"
check "replay, the report on the terminal too: no line over it says it is writing" \
	bash -c "grep -q '^frames 200000 ' '$tmp/tty' && ! grep -q 'writing the report' '$tmp/tty'"

on_tty "cat '$tmp/many.pcap' | '$FABPROBE' replay - >/dev/null"
check "replay from a pipe: frames and a rate, no percent (the size is unknown)" \
	bash -c "grep -qE '^replay: -: 200000 frames in [0-9]+s' '$tmp/tty' && ! grep -q '% of' '$tmp/tty'"

"$FABPROBE" top --once --json --flows 262144 --pcap "$tmp/many.pcap" >"$tmp/plain.json" 2>"$tmp/plain.err"
check "top --once, stderr not a terminal: nothing on it, as before" test ! -s "$tmp/plain.err"
on_tty "'$FABPROBE' top --once --json --flows 262144 --pcap '$tmp/many.pcap' >'$tmp/tty.json'"
check "top --once --pcap on a terminal: the percent of the file rises to 100 (it said nothing)" rising
check "... and names the analysis and the report" \
	bash -c "grep -qx 'top: analysing the flows...' '$tmp/tty' &&
		 grep -qx 'top: writing the report of 100000 flows...' '$tmp/tty'"
check "... stdout byte for byte as without a terminal" cmp "$tmp/plain.json" "$tmp/tty.json"

"$FABPROBE" capture --pcap "$tmp/many.pcap" -o "$tmp/log.tar.gz" 2>"$tmp/plain.err"
check "capture, stderr a log: its progress line says the percent of the file" \
	grep -qE '^capture: +[0-9]+ s of the capture \(100% of 69.[0-9] MB\), 200000 frames' "$tmp/plain.err"
check "... and no line for each step" bash -c "! grep -q 'analysing\|\.\.\.' '$tmp/plain.err'"
on_tty "'$FABPROBE' capture --pcap '$tmp/many.pcap' -o '$tmp/tty.tar.gz'"
check "capture on a terminal: the read's percent between refreshes, rising" \
	bash -c "p=\$(grep -oE '^capture: .*: [0-9]+% of' '$tmp/tty' | grep -oE '[0-9]+% of' | tr -d '% of');
		 [ \"\$(sort -n <<<\"\$p\")\" = \"\$p\" ] && [ \$(sort -un <<<\"\$p\" | wc -l) -ge 3 ]"
check "capture on a terminal: names the analyses and report.json, then clears the line before 'wrote'" \
	bash -c "grep -qx 'capture: reading the flows...' '$tmp/tty' &&
		 grep -qx 'capture: analysing the whole run...' '$tmp/tty' &&
		 grep -q '^capture: writing report.json...' '$tmp/tty' &&
		 grep -q \$'\\r\\e\\[Kcapture: wrote ' '$tmp/raw'"
on_tty "'$FABPROBE' capture --pcap '$long' -o '$tmp/long.tar.gz'"
check "capture, a name wider than the terminal: every redrawn line fits in 80 columns" \
	bash -c "[ \$(grep -E ' now\$|% of' '$tmp/tty' | LC_ALL=C.UTF-8 wc -L) -le 79 ]"

# A damaged capture's event, printed at the read's end, on a line of its own
# (it was glued to "top: analysing the flows...").
head -c 15000 "$PCAPS/rdma_read_bw.pcap" >"$tmp/cut.pcap"
on_tty "'$FABPROBE' top --once --pcap '$tmp/cut.pcap' >/dev/null"
check "top --once on a terminal: a damaged capture's line stands alone" \
	bash -c "grep -q '^fabprobe: .*cut short or corrupt' '$tmp/tty' && ! grep -q '\.\.\.fabprobe' '$tmp/tty'"

finish progress
