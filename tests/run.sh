#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test suite; print each suite's verdict and one closing line
# "tests: N passed, N failed". Run from the repository top as root, after
# `make tests-build lab` (make test does both).
# FP_TESTS=pattern runs only the suites whose name matches.
set -u
cd "$(dirname "$0")/.."
export FABPROBE=${FABPROBE:-$PWD/build/fabprobe}
export PCAPS=${PCAPS:-$(cd .. && pwd)/shared/pcaps}

pass=0 fail=0 failed=()
log_dir=build/test-logs
mkdir -p "$log_dir"

run_suite() {
	local name=$1 start rc
	shift
	[[ -n ${FP_TESTS:-} && ! $name =~ ${FP_TESTS} ]] && return 0
	start=$(date +%s)
	echo "=== $name"
	"$@" >"$log_dir/$name.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "--- PASS $name ($(($(date +%s) - start)) s): $(tail -n 1 "$log_dir/$name.log")"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "--- FAIL $name (exit $rc); last lines of $log_dir/$name.log:"
		tail -n 40 "$log_dir/$name.log" | sed 's/^/    /'
	fi
}

if [ "$(id -u)" -ne 0 ]; then
	echo "tests/run.sh: the BPF and network-namespace tests need root" >&2
	exit 1
fi
if [ ! -d "$PCAPS" ]; then
	echo "tests/run.sh: shared captures not found at $PCAPS (set PCAPS=...)" >&2
	exit 1
fi

for t in build/tests/test_*; do
	case "$t" in
	*test_parser* | *test_mirror*) ;; # BPF fixtures, below
	*) run_suite "unit-$(basename "$t" | sed 's/^test_//')" "$t" ;;
	esac
done
# The NIC reader's live ethtool path on a veth pair in a namespace.
[ -x build/tests/test_nic ] && run_suite nic-veth bash tests/nic/veth.sh
[ -x build/tests/test_parser ] && run_suite bpf-parser build/tests/test_parser
[ -x build/tests/test_mirror ] && run_suite bpf-mirror build/tests/test_mirror
run_suite replay-tshark python3 tests/replay/tshark_check.py "$FABPROBE" "$PCAPS"/*.pcap
# The sFlow decoder against tshark's dissector, on real and crafted datagrams.
run_suite replay-sflow-tshark python3 tests/replay/sflow_tshark.py build/tools "$PCAPS"/ext/sflow*.pcap
# Mirror copies: the crafted fixtures' bytes and tcpdump's real captures, against tshark.
run_suite mirror-tshark python3 tests/mirror/tshark_mirror.py build/tests/test_mirror
run_suite mirror-ext python3 tests/mirror/ext_check.py "$FABPROBE" build/tests/test_mirror \
	"$PCAPS"/ext/erspan-*.pcap "$PCAPS"/ext/various_gre.pcap
# The sFlow source: crafted fabric, the shared captures, a real agent (pmacct).
for t in tests/sflow/*.sh tests/sflow/*.py; do
	[ -e "$t" ] || continue
	case "$t" in
	*.py) run_suite "sflow-$(basename "$t" .py | tr _ -)" python3 "$t" "$FABPROBE" build/tools ;;
	*) run_suite "sflow-$(basename "$t" .sh | tr _ -)" bash "$t" ;;
	esac
done
for t in tests/cli/*.sh; do
	run_suite "cli-$(basename "$t" .sh | tr _ -)" bash "$t"
done
# The IPFIX exporter against real collectors (ipfixDump, nfcapd/nfdump, tshark) on
# loopback (interop), and `export --ipfix` end to end (export).
for t in tests/ipfix/*.sh; do
	case "$t" in
	*/lib.sh) ;;
	*) run_suite "ipfix-$(basename "$t" .sh)" bash "$t" ;;
	esac
done
# The lab's own check: the generator's ground truth against tshark and the emulator.
run_suite lab-smoke bash scripts/lab/smoke.sh
for t in tests/integration/*.sh; do
	case "$t" in
	*/lib.sh) ;;
	*) run_suite "integration-$(basename "$t" .sh)" bash "$t" ;;
	esac
done
run_suite robust-valgrind bash tests/robust/valgrind.sh
run_suite robust-sanitizers bash tests/robust/sanitizers.sh
for t in tests/fuzz/run.sh; do
	[ -e "$t" ] && run_suite robust-fuzz bash "$t"
done

echo
[ $fail -eq 0 ] || echo "failed suites: ${failed[*]}"
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
