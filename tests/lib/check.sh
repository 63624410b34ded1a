# SPDX-License-Identifier: GPL-2.0
# Counted checks for the shell tests: source it, `check WHAT CMD...` runs
# CMD and prints "ok   WHAT" or "FAIL WHAT"; `finish NAME` prints the
# suite's closing line "NAME: N passed, N failed" (tests/run.sh shows it)
# and returns non-zero if any check failed.
PASS=0
FAIL=0

check() {
	local what=$1
	shift
	if "$@"; then
		PASS=$((PASS + 1))
		echo "ok   $what"
	else
		FAIL=$((FAIL + 1))
		echo "FAIL $what"
	fi
}

# eq GOT WANT: equal, else say both (for check).
eq() {
	[ "$1" = "$2" ] || {
		echo "     '$1' != '$2'"
		return 1
	}
}

finish() {
	echo "$1: $PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}
