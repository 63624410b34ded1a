#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fabprobe export in the lab: the exporter serves inside leaf1's namespace,
# a real Prometheus scrapes it there during rocegen traffic, and what
# Prometheus stores is checked against the generator's own byte counts.
# Then promtool on live scrapes and on the shipped rules, the dashboard,
# and abuse: 200 concurrent scrapers, malformed and oversized requests, a
# slow client, 1000 idle connections, with the exporter's RSS watched.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lab_init fpx-

PORT=9469
PROM_PORT=19090
EXP=127.0.0.1:$PORT
PROM=127.0.0.1:$PROM_PORT
CHECK="python3 $TOP/tests/integration/check_export.py"
RULES=$TOP/docs/prometheus/fabprobe-alerts.yml
DASH=$TOP/docs/grafana/fabprobe-fabric.json

# promtool_clean FILE: parses, and no lint findings either.
promtool_clean() {
	local out
	out=$(promtool check metrics <"$1" 2>&1) || {
		echo "$out"
		return 1
	}
	[ -z "$out" ] || {
		echo "$out"
		return 1
	}
}

# bad_listen EXPECTED_RC LISTEN: one stderr line, that exit code, nothing attached.
bad_listen() {
	local rc
	at leaf1 "$FABPROBE" export -i up1 --listen "$2" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	[ "$rc" -eq "$1" ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] &&
		! ip -n "$(ns leaf1)" -d link show up1 | grep -q prog/xdp || {
		echo "--listen $2: exit $rc, stderr: $(cat "$TMP/bad.err")"
		return 1
	}
	echo "    --listen '$2' -> $rc: $(cat "$TMP/bad.err")"
}

echo "--- bad --listen values"
for l in 127.0.0.1 127.0.0.1: 127.0.0.1:0 127.0.0.1:70000 127.0.0.1:http localhost:9469 \
	'[::1]' '[::1]9469' ::1:9469 '[zz::1]:9469' :9469 '[fe80::1%lo]:9469' \
	'[::ffff:127.0.0.1]:9469'; do
	check "--listen '$l' is a usage error" bad_listen 2 "$l"
done
check "--listen on an address not on this host fails to bind" bad_listen 1 10.9.9.9:$PORT

echo "--- exporter and Prometheus in leaf1"
read -r E1 E2 MOUSE <<<"$(colliding_qps 2)"
SPORT=$("$ROCEGEN" sport "${E1%%:*}" "${E1##*:}")
UPLINK=$(uplink_of leaf1 "$H1" "$H3" "$SPORT")
echo "elephants $E1 $E2 on $UPLINK, mouse $MOUSE"

bg h3 "$TMP/serve.json" "$ROCEGEN" serve
serve_pid=${BG_PIDS[-1]}
bg leaf1 "$TMP/exp.out" "$FABPROBE" export -i "$UPLINKS" --uplinks "$UPLINKS" -r 1 \
	--elephant-rate 20M --listen "$EXP"
exp_pid=${BG_PIDS[-1]}
wait_attached "$TMP/exp.out.err" || exit 1

mkdir -p "$TMP/prom"
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
  - job_name: fabprobe
    static_configs:
      - targets: ['$EXP']
EOF
bg leaf1 "$TMP/prometheus.log" /usr/bin/prometheus --config.file="$TMP/prometheus.yml" \
	--storage.tsdb.path="$TMP/prom" --web.listen-address="$PROM"
prom_ready() {
	local i
	for i in $(seq 100); do
		at leaf1 curl -sf "http://$PROM/-/ready" >/dev/null && return 0
		sleep 0.2
	done
	tail -5 "$TMP/prometheus.log.err"
	return 1
}
check "Prometheus is up in leaf1" prom_ready
# Ready is not scraping: Prometheus hands targets to its scrape loop up to 5 s
# later. Traffic starts only once a scrape of the exporter has landed.
prom_scraping() {
	local i
	for i in $(seq 100); do
		at leaf1 curl -sf "http://$PROM/api/v1/query?query=up%7Bjob%3D%22fabprobe%22%7D" |
			grep -q '"value":\[[0-9.]*,"1"\]' && return 0
		sleep 0.2
	done
	return 1
}
check "Prometheus scrapes the exporter" prom_scraping
check "exporter says where it serves" grep -q "serving metrics on http://$EXP/metrics" \
	"$TMP/exp.out.err"
check "/metrics, /healthz, /, 404 (a NUL in the path too), 405, HEAD and content negotiation" at leaf1 $CHECK http "$EXP"
at leaf1 curl -sf "http://$EXP/metrics" >"$TMP/idle.prom"
check "promtool check metrics on an idle scrape (lint clean)" promtool_clean "$TMP/idle.prom"

echo "--- traffic"
# CE marks past leaf1 (no drops): h3 answers them with CNPs in DSCP 48 on the
# flows that carry its ACKs in DSCP 26, which the per-DSCP counters keep apart.
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --ce-above-mbps 100 >/dev/null 2>&1
done
bg h1 "$TMP/run.json" "$ROCEGEN" run --dst "$H3" --qp "$E1:write:150:65536" \
	--qp "$E2:write:150:65536" --qp "$MOUSE:write:2:4096" --duration 4
run_pid=${BG_PIDS[-1]}
sleep 2.5
at leaf1 curl -sf "http://$EXP/metrics" >"$TMP/live.prom"
at leaf1 curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"http://$EXP/metrics" >"$TMP/live.om"
wait "$run_pid"
sleep 1
kill -INT "$serve_pid"
wait "$serve_pid"
for s in 1 2 3 4; do
	at spine$s "$CONGEST" -i leaf2 --detach >/dev/null 2>&1
done
check "promtool check metrics on a scrape during traffic (lint clean)" promtool_clean "$TMP/live.prom"
check "the live scrape has top flows" grep -q '^fabprobe_flow_bytes_per_second{' "$TMP/live.prom"
check "the live OpenMetrics scrape ends in # EOF" sh -c "tail -n 1 $TMP/live.om | grep -qx '# EOF'"
check "Prometheus holds the generator's RoCE bytes per DSCP, elephants and the collision" \
	at leaf1 $CHECK truth "$TMP" "$EXP" "$PROM" "$UPLINK"

echo "--- shipped rules, dashboard and unit"
check "promtool check rules" promtool check rules "$RULES"
check "dashboard JSON parses" python3 -m json.tool "$DASH" /dev/null
check "dashboard uses the \${DS_PROMETHEUS} variable" python3 -c "
import json, sys
d = json.load(open('$DASH'))
names = [v['name'] for v in d['templating']['list']]
uids = {p['datasource']['uid'] for p in d['panels'] if 'datasource' in p}
sys.exit(not ('DS_PROMETHEUS' in names and uids == {'\${DS_PROMETHEUS}'}))"
check "every metric the dashboard and rules use is served" \
	at leaf1 $CHECK names "$EXP" "$DASH" "$RULES"
unit_ok() { # the binary is not installed here: that one complaint is expected
	local out
	out=$(systemd-analyze verify "$TOP/scripts/fabprobe-export.service" 2>&1 |
		grep -v '/usr/local/sbin/fabprobe is not executable')
	[ -z "$out" ] || {
		echo "$out"
		return 1
	}
}
command -v systemd-analyze >/dev/null && check "systemd-analyze verify the unit" unit_ok

echo "--- abuse"
check "port in use: one line, exit 1, nothing attached" sh -c "
	ip netns exec $(ns leaf1) $FABPROBE export -i down1 --listen $EXP 2>$TMP/inuse.err
	[ \$? -eq 1 ] && grep -q 'Address already in use' $TMP/inuse.err &&
	[ \$(wc -l <$TMP/inuse.err) -eq 1 ] &&
	! ip -n $(ns leaf1) -d link show down1 | grep -q prog/xdp"
check "200 scrapers, bad requests, slow and idle clients: no crash, bounded RSS" \
	at leaf1 $CHECK stress "$EXP" "$exp_pid"
check "exporter still running" kill -0 "$exp_pid"
at leaf1 curl -sf "http://$EXP/metrics" >"$TMP/after.prom"
check "promtool check metrics after the abuse" promtool_clean "$TMP/after.prom"

echo "--- IPv6"
V6=$(ns v6)
ip netns add "$V6"
ip -n "$V6" link set lo up
ip netns exec "$V6" sysctl -qw net.ipv6.conf.lo.disable_ipv6=0
ip netns exec "$V6" "$FABPROBE" export -i lo --hook tc -r 0.5 --listen "[::1]:$PORT" \
	>"$TMP/v6.out" 2>"$TMP/v6.err" &
v6_pid=$!
wait_attached "$TMP/v6.err"
v6_ok() {
	local i
	for i in $(seq 50); do
		ip netns exec "$V6" curl -sfg "http://[::1]:$PORT/metrics" >"$TMP/v6.prom" && break
		sleep 0.2
	done
	promtool_clean "$TMP/v6.prom" &&
		ip netns exec "$V6" curl -sfg "http://[::1]:$PORT/healthz" | grep -qx ok
}
check "serves on [::1]:$PORT" v6_ok
kill -TERM "$v6_pid"
wait "$v6_pid"
check "SIGTERM: exit 0" test $? -eq 0
ip netns del "$V6"

echo "--- shutdown"
kill -TERM "$exp_pid"
wait "$exp_pid"
check "SIGTERM: exit 0" test $? -eq 0
check "nothing attached after exit" sh -c "! ip -n $(ns leaf1) -d link show | grep -q prog/xdp"

finish export-lab
