# SPDX-License-Identifier: GPL-2.0
# Shared by the lab integration tests: bring the lab up under a prefix of
# the test's own, always tear it down, count checks. Source it, then call
# lab_init PREFIX.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FABPROBE=${FABPROBE:-$TOP/build/fabprobe}
ROCEGEN=$TOP/build/lab/rocegen
CONGEST=$TOP/build/lab/congest
LAB=$TOP/scripts/lab/lab.sh
H1=10.77.1.11
H3=10.77.2.13
UPLINKS=up1,up2,up3,up4
BG_PIDS=()
# check, finish
. "$TOP/tests/lib/check.sh"

lab_cleanup() {
	local pid

	for pid in "${BG_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	"$LAB" down >/dev/null 2>&1
	[ -n "${KEEP_TMP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"
}

# lab_init PREFIX [lab.sh up options]
lab_init() {
	export FP_LAB_PREFIX=$1
	shift
	TMP=$(mktemp -d "/tmp/${FP_LAB_PREFIX}XXXXXX")
	trap lab_cleanup EXIT
	trap 'exit 130' INT TERM
	"$LAB" up "$@" >"$TMP/lab-up.log" 2>&1 || {
		cat "$TMP/lab-up.log"
		echo "lab did not come up"
		exit 1
	}
}

ns() {
	echo "${FP_LAB_PREFIX}$1"
}

# at NODE CMD...: run in the lab node's namespace.
at() {
	local node=$1
	shift
	ip netns exec "$(ns "$node")" "$@"
}

# bg NODE OUTFILE CMD...: run in the background, remember the pid.
bg() {
	local node=$1 out=$2
	shift 2
	ip netns exec "$(ns "$node")" "$@" >"$out" 2>"$out.err" &
	BG_PIDS+=($!)
}

# wait_attached ERRFILE...: until each fabprobe says it is attached (20 s at most).
wait_attached() {
	local f i
	for f in "$@"; do
		for i in $(seq 200); do
			grep -q "attached to" "$f" 2>/dev/null && break
			sleep 0.1
		done
		grep -q "attached to" "$f" 2>/dev/null || {
			echo "fabprobe did not attach: $(cat "$f")"
			return 1
		}
	done
}


# uplink_of LEAF SRC DST SPORT: the uplink the leaf's kernel picks.
uplink_of() {
	"$LAB" path "$1" "$2" "$3" "$4" 4791
}

# colliding_qps N: N "LQP:RQP" pairs h1->h3 on one leaf1 uplink, then a mouse elsewhere.
colliding_qps() {
	"$TOP/scripts/lab/qps.sh" collide "$1" "$H1" "$H3"
}

