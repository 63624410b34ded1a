#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzing in CI: every harness first re-runs its kept corpus and every
# crasher ever found (regressions), then fuzzes for FUZZ_SECONDS (default
# 30: eight harnesses share the CI budget). A new crash is saved under tests/fuzz/crashers/HARNESS/ and fails.
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

for bin in "$build"/fuzz/fuzz_*; do
	h=$(basename "$bin")
	[[ -n ${FUZZ_ONLY:-} && ! $h =~ ${FUZZ_ONLY} ]] && continue
	corpus=tests/fuzz/corpus/$h crashers=tests/fuzz/crashers/$h
	mkdir -p "$corpus" "$crashers" "$work/$h" "$work/seeds/$h"
	kept=$(find "$corpus" "$crashers" -type f | wc -l)
	if [ "$kept" -gt 0 ] &&
		! "$bin" -runs=0 $(find "$corpus" "$crashers" -type f) >"$work/$h.regress" 2>&1; then
		fail=$((fail + 1))
		echo "FAIL $h: a kept input crashes again"
		tail -20 "$work/$h.regress" | sed 's/^/     /'
		continue
	fi
	if "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$crashers/" \
		"$work/$h" "$corpus" "$work/seeds/$h" >"$work/$h.log" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $h: $kept kept inputs pass; $(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$work/$h.log") executions in ${secs} s, no crash"
	else
		fail=$((fail + 1))
		echo "FAIL $h: crash saved in $crashers/"
		grep -E -m 10 "ERROR|invariant|runtime error|SUMMARY" "$work/$h.log" | sed 's/^/     /'
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
