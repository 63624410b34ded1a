# SPDX-License-Identifier: GPL-2.0
# Shared by the NIC tests (nic_report.sh, top_nic.sh): a recorded NIC tree
# (tests/fixtures/nic) whose counters change between a running fabprobe's
# reads. --nic-root is a symlink to one generation of the tree; the test
# edits a copy (nic_next, then the setters on "$NEXT", as slowly as it
# likes) and swaps the link in one rename (nic_swap), so a read sees one
# generation or the next, never half an edit. Source after lib.sh.

NIC_FIXTURES=$TOP/tests/fixtures/nic

# nic_tree NAME LINK: LINK -> a fresh copy of fixture NAME (mlx5, bnxt).
nic_tree() { nic_copy "$NIC_FIXTURES/$1" "$2"; }
# nic_copy TREE LINK: LINK -> a fresh copy of TREE (or of the tree a link TREE shows).
nic_copy() {
	NIC_LINK=$2
	NIC_GEN=0
	rm -rf "$2" "$2".gen*
	cp -r "$(readlink -f "$1")" "$2.gen0"
	ln -s "$(basename "$2").gen0" "$2"
	NEXT=$2.gen0
}
# nic_next: NEXT is a copy of the tree LINK shows now, to edit.
nic_next() {
	NIC_GEN=$((NIC_GEN + 1))
	NEXT=$NIC_LINK.gen$NIC_GEN
	cp -r "$(readlink -f "$NIC_LINK")" "$NEXT"
}
# nic_swap: LINK shows NEXT (rename(2) of a symlink: atomic).
nic_swap() {
	ln -sfn "$(basename "$NEXT")" "$NIC_LINK.tmp" && mv -T "$NIC_LINK.tmp" "$NIC_LINK"
}

_put() { printf '%s\n' "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }

# hw_get DIR DEV NAME, hw_set DIR DEV NAME VALUE, hw_add DIR DEV NAME DELTA: port 1's hw_counters.
hw_path() { echo "$1/class/infiniband/$2/ports/1/hw_counters/$3"; }
hw_get() { cat "$(hw_path "$1" "$2" "$3")"; }
hw_set() { _put "$(hw_path "$1" "$2" "$3")" "$4"; }
hw_add() { hw_set "$1" "$2" "$3" $(($(hw_get "$1" "$2" "$3") + $4)); }
# pma_set DIR DEV NAME VALUE: port 1's counters/ (the IB PMA set).
pma_set() { _put "$1/class/infiniband/$2/ports/1/counters/$3" "$4"; }

# A line "   NAME: VALUE" of ethtool -S text set or moved (names compared trimmed).
_eth() {
	awk -v n="$2" -v op="$3" -v v="$4" '
		{ k = $0; sub(/:.*/, "", k); gsub(/^ +| +$/, "", k) }
		k == n && !done {
			key = $0; sub(/:[^:]*$/, "", key)
			val = $0; sub(/.*: */, "", val)
			printf "%s: %.0f\n", key, op == "set" ? v : val + v
			done = 1
			next
		}
		{ print }
		END { exit !done }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}
# eth_add DIR NETDEV NAME DELTA, eth_set DIR NETDEV NAME VALUE, eth_get DIR NETDEV NAME.
eth_add() { _eth "$1/ethtool/$2" "$3" add "$4"; }
eth_set() { _eth "$1/ethtool/$2" "$3" set "$4"; }
eth_get() { awk -F: -v n="$3" '{k=$1; gsub(/^ +| +$/, "", k)} k == n {gsub(/ /, "", $2); print $2}' "$1/ethtool/$2"; }

# nic_bg OUT CMD...: CMD in the background (stdout OUT, stderr OUT.err) until it has
# read the NIC once ("reading NIC counters"); its pid is NIC_PID.
nic_bg() {
	local out=$1 i
	shift
	rm -f "$out" "$out.err" # a previous run's line must not count
	"$@" >"$out" 2>"$out.err" &
	NIC_PID=$!
	for i in $(seq 400); do
		grep -q "reading NIC counters" "$out.err" 2>/dev/null && return 0
		kill -0 "$NIC_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "     fabprobe never read the NIC: $(cat "$out.err")"
	return 1
}
# nic_done: wait for it; its exit code.
nic_done() { wait "$NIC_PID"; }

# q FILE EXPR: a Python expression over the JSON document r of FILE.
q() { python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print(($2))" "$1"; }

# The assertion of tmux.bash, for tests that do not source it (eq is check.sh's).
declare -F matches >/dev/null ||
	matches() { grep -qE -- "$2" <<<"$1" || { echo "     no line matches: $2"; return 1; }; }
