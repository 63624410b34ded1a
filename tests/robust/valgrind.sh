#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# replay under valgrind: no invalid access, no uninitialised use, no
# definite leak, on every shared capture, an ECMP group and bad input.
# tests/valgrind/bpf.supp names the bpf(2) fields valgrind cannot judge.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
supp=tests/valgrind/bpf.supp
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# vg EXPECTED_RC NAME ARGS...: valgrind finds nothing (rc 99 if it does).
vg() {
	local want=$1 name=$2 rc
	shift 2
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions=$supp "$FABPROBE" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc, want $want"
		grep -v "unhandled eBPF command" "$tmp/err" | head -30 | sed 's/^/     /'
	fi
}
for f in "$PCAPS"/*.pcap; do
	vg 0 "replay --json $(basename "$f")" replay --json "$f"
done
vg 0 "replay table with a hash model" replay --hash-model toeplitz "$PCAPS/nccl_nccl_node0.pcap"
vg 0 "replay --path group" replay --path a="$PCAPS/nccl_nccl_node0.pcap" \
	--path b="$PCAPS/nccl_nccl_node1.pcap" --json
head -c 300 "$PCAPS/rdma_write_bw.pcap" >"$tmp/cut.pcap"
vg 3 "truncated capture: reported up to the damage" replay "$tmp/cut.pcap"
vg 1 "missing capture" replay "$tmp/none.pcap"
vg 2 "bad option" replay --flows x "$PCAPS/rdma_write_bw.pcap"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
