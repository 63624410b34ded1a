#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzing in CI: every harness first re-runs its kept corpus and every
# crasher ever found (regressions), then fuzzes for FUZZ_SECONDS (default
# 30: eight harnesses share the CI budget), as many harnesses at a time as
# there are CPUs (libFuzzer runs on one). A new crash is saved under
# tests/fuzz/crashers/HARNESS/ and fails.
# FUZZ_ONLY=pattern runs only the harnesses whose name matches (fuzz_sflow).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=${FUZZ_SECONDS:-30}
pcaps=${PCAPS:-../shared/pcaps}
build=${BUILD:-build}
work=$(mktemp -d /tmp/fp-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

make -s -j"$(nproc)" fuzz-build BUILD="$build" >/dev/null || {
	echo "fuzz: build failed"
	exit 1
}
python3 tests/fuzz/seeds.py "$pcaps" "$work/seeds"

# harness BIN: its verdict in $work/NAME.verdict ("ok ..." or "FAIL ..." lines).
harness() {
	local bin=$1 h corpus crashers kept
	h=$(basename "$bin")
	corpus=tests/fuzz/corpus/$h crashers=tests/fuzz/crashers/$h
	mkdir -p "$corpus" "$crashers" "$work/$h" "$work/seeds/$h"
	kept=$(find "$corpus" "$crashers" -type f | wc -l)
	if [ "$kept" -gt 0 ] &&
		! "$bin" -runs=0 $(find "$corpus" "$crashers" -type f) >"$work/$h.regress" 2>&1; then
		echo "FAIL $h: a kept input crashes again"
		tail -20 "$work/$h.regress" | sed 's/^/     /'
	elif "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$crashers/" \
		"$work/$h" "$corpus" "$work/seeds/$h" >"$work/$h.log" 2>&1; then
		echo "ok   $h: $kept kept inputs pass; $(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$work/$h.log") executions in ${secs} s, no crash"
	else
		echo "FAIL $h: crash saved in $crashers/"
		grep -E -m 10 "ERROR|invariant|runtime error|SUMMARY" "$work/$h.log" | sed 's/^/     /'
	fi >"$work/$h.verdict"
}

cpus=$(nproc)
ran=()
for bin in "$build"/fuzz/fuzz_*; do
	h=$(basename "$bin")
	[[ -n ${FUZZ_ONLY:-} && ! $h =~ ${FUZZ_ONLY} ]] && continue
	while [ "$(jobs -rp | wc -l)" -ge "$cpus" ]; do
		wait -n
	done
	harness "$bin" &
	ran+=("$h")
done
wait
for h in "${ran[@]}"; do
	if grep -q '^ok ' "$work/$h.verdict" 2>/dev/null; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		[ -s "$work/$h.verdict" ] || echo "FAIL $h: no verdict" >"$work/$h.verdict"
	fi
	cat "$work/$h.verdict"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
