#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pick RoCE queue pairs for a deliberate ECMP collision in the lab.
#   qps.sh collide N [SRC DST]: N "LQP:RQP" pairs whose UDP source ports
#   (derived as mlx5 does) leaf1 hashes onto one uplink, then one pair that
#   it hashes elsewhere (a mouse on another path). Needs the lab up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rocegen=${ROCEGEN:-$here/../../build/lab/rocegen}
want=${2:?usage: qps.sh collide N [SRC DST]}
src=${3:-10.77.1.11}
dst=${4:-10.77.2.13}
target="" mouse=""
declare -A by_up=()

for lqp in $(seq 17 80); do
	rqp=$((lqp + 16))
	sport=$("$rocegen" sport "$lqp" "$rqp")
	up=$("$here/lab.sh" path leaf1 "$src" "$dst" "$sport" 4791)
	by_up[$up]="${by_up[$up]:-} $lqp:$rqp"
	if [ -z "$target" ] && [ "$(echo ${by_up[$up]} | wc -w)" -ge "$want" ]; then
		target=$up
	fi
	if [ -n "$target" ] && [ "$up" != "$target" ] && [ -z "$mouse" ]; then
		mouse=$lqp:$rqp
	fi
	[ -n "$target" ] && [ -n "$mouse" ] && break
done
[ -n "$target" ] && [ -n "$mouse" ] || { echo "qps.sh: no collision found" >&2; exit 1; }
echo $(echo ${by_up[$target]} | cut -d' ' -f1-"$want") "$mouse"
