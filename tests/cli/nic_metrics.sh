#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# export --nic-root: the fabprobe_nic_* metrics over the recorded mlx5 tree
# (tests/fixtures/nic), whose values are known. Pause time is in seconds,
# Prometheus' base unit, and its HELP says so: it said "counted in
# microseconds" on a _seconds_total series whose values are seconds.
set -u
. "$(dirname "$0")/../lib/cli.sh"
TREE=$(dirname "$0")/../fixtures/nic/mlx5
PORT=19477

"$FABPROBE" export --nic-root "$TREE" --listen "127.0.0.1:$PORT" -r 0.5 >/dev/null 2>"$tmp/err" &
pid=$!
for i in $(seq 100); do
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$tmp/m.prom" 2>/dev/null && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
check "export --nic-root serves metrics" grep -q '^fabprobe_nic_' "$tmp/m.prom"
# The tree: ens1f0np0 priority 3, rx_prio3_pause_duration 30000 (us).
check "rx pause time of priority 3 in seconds: 30000 us is 0.03" \
	grep -qx 'fabprobe_nic_pfc_rx_pause_seconds_total{netdev="ens1f0np0",priority="3"} 0.03' \
	"$tmp/m.prom"
# Every NIC family in seconds says seconds, not only another unit.
bad=$(awk '$1 == "#" && $2 == "HELP" && $3 ~ /^fabprobe_nic_.*_seconds(_total)?$/ {
	help = $0; sub(/^# HELP [^ ]+ /, "", help)
	if (help !~ /(^|[^o])seconds/ || help ~ /counted in/) print $3 }' "$tmp/m.prom")
check "the HELP of each _seconds metric says seconds (none left: '$bad')" eq "$bad" ""
check "there are such metrics" grep -q '^# HELP fabprobe_nic_pfc_tx_pause_seconds_total ' "$tmp/m.prom"

finish nic-metrics
