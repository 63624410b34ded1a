#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One exit-code table for every command, as docs/fabprobe.8 (EXIT STATUS)
# and each --help say: 0 done, 1 failure, 2 usage error, 3 a capture cut
# short (reported up to the damage). Each case also prints one stderr line
# at most, so that a script can tell what happened.
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
good=$PCAPS/rdma_write_bw.pcap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
head -c 3000 "$good" >"$tmp/cut.pcap"

# expect CODE NAME CMD...
expect() {
	local want=$1 name=$2 rc lines
	shift 2
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	lines=$(grep -vc '^fabprobe: attached to\|^fabprobe: serving\|^fabprobe: reading NIC counters: \|^capture: ' "$tmp/err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -le 1 ]; then
		pass=$((pass + 1))
		echo "ok   $want $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc (want $want), $lines stderr lines"
		sed 's/^/     stderr: /' "$tmp/err" | head -5
	fi
}

# Usage errors: 2, whichever command.
for c in top capture export replay nic; do
	expect 2 "$c --bogus" "$FABPROBE" "$c" --bogus
	expect 2 "$c with a stray argument" "$FABPROBE" "$c" stray -i lo
done
expect 2 "top with nothing to watch" "$FABPROBE" top
expect 2 "top --once with nothing to watch" "$FABPROBE" top --once -r 1
expect 2 "capture -o without an input" "$FABPROBE" capture -o "$tmp/x.tar.gz"
expect 2 "capture without -o" "$FABPROBE" capture -i lo
expect 2 "export with nothing to watch" "$FABPROBE" export
expect 2 "export --listen without a port" "$FABPROBE" export -i lo --listen 127.0.0.1
expect 2 "top -i and --pcap together" "$FABPROBE" top -i lo --pcap "$good"
expect 2 "top --speed without --pcap" "$FABPROBE" top -i lo --speed 2
# Flags only XDP honours, with --hook tc: a usage error before the interface is looked up.
expect 2 "top --hook tc --mirror-port-drop" "$FABPROBE" top -i nosuch0 --hook tc --mirror-port-drop
expect 2 "capture --hook tc --mirror-port-drop" "$FABPROBE" capture -i nosuch0 -o "$tmp/h.tar.gz" \
	--hook tc --mirror-port-drop
expect 2 "export --hook tc --xdp-mode generic" "$FABPROBE" export -i nosuch0 --listen 127.0.0.1:19981 \
	--hook tc --xdp-mode generic
expect 2 "top --json without --once" "$FABPROBE" top --pcap "$good" --json
# --view is the dashboard's: --plain and --once print every section, and took it silently.
expect 2 "top --view with --plain" "$FABPROBE" top --pcap "$good" --view paths --plain
expect 2 "top --view with --once" "$FABPROBE" top --pcap "$good" --view alerts --once
expect 2 "replay without a capture" "$FABPROBE" replay
expect 2 "bad --flows" "$FABPROBE" top --pcap "$good" --flows 0
expect 2 "unknown command" "$FABPROBE" frobnicate
expect 2 "no command" "$FABPROBE"
# Failures: 1.
expect 1 "top on a missing interface" "$FABPROBE" top -i nosuch0 --once -r 0.1
expect 1 "capture on a missing interface" "$FABPROBE" capture -i nosuch0 -d 1 -o "$tmp/m.tar.gz"
expect 1 "export on a missing interface" "$FABPROBE" export -i nosuch0 --listen 127.0.0.1:19981
expect 1 "replay of a missing file" "$FABPROBE" replay "$tmp/nosuch.pcap"
expect 1 "top --pcap of a missing file" "$FABPROBE" top --pcap "$tmp/nosuch.pcap" --once
expect 1 "nic --nic-root of a missing directory" "$FABPROBE" nic --nic-root "$tmp/nosuch"
expect 1 "top --nic-root of a missing directory" "$FABPROBE" top --nic-root "$tmp/nosuch" --once
# A tree without RDMA devices as the whole input: nothing to export, said at once.
mkdir -p "$tmp/nordma/class/infiniband"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect 1 "export --nic-root of a tree without RDMA devices" "$FABPROBE" export --nic-root "$tmp/nordma" \
	--listen "127.0.0.1:$port"
grep -qx "fabprobe: export: --nic-root: no RDMA devices found in $tmp/nordma: nothing to export .*" "$tmp/err" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL export --nic-root without RDMA says why"; }
expect 1 "capture into a missing directory" "$FABPROBE" capture --pcap "$good" -o "$tmp/no/dir.tar.gz"
# NIC counters alone, every RDMA port read gone before the end (a tree
# removed here; a driver unloaded, a device reset or unplugged live): the
# input was cut short, as a live command's when its last interface goes,
# and one line names the ports. It exited 0. One port left: done, 0.
gone_line="fabprobe: no RDMA devices found (RDMA ports gone since an earlier read: mlx5_0/1 (ens1f0np0), mlx5_1/1 (ens1f1np1))"
cp -r tests/fixtures/nic/mlx5 "$tmp/gone"
(sleep 0.5 && rm -rf "$tmp/gone") &
expect 3 "nic: every RDMA port gone during the interval" "$FABPROBE" nic --nic-root "$tmp/gone" -r 1.5
wait
grep -qxF "$gone_line" "$tmp/err" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL nic, every RDMA port gone: the line naming them"; }
cp -r tests/fixtures/nic/mlx5 "$tmp/gone"
(sleep 0.5 && rm -rf "$tmp/gone") &
expect 3 "nic --json: every RDMA port gone during the interval" "$FABPROBE" nic --nic-root "$tmp/gone" -r 1.5 --json
wait
cp -r tests/fixtures/nic/mlx5 "$tmp/gone"
(sleep 0.5 && rm -rf "$tmp/gone") &
expect 3 "capture --nic-root: every RDMA port gone during the run" "$FABPROBE" capture --nic-root "$tmp/gone" \
	-d 1.5 -o "$tmp/gone.tar.gz"
wait
grep -qxF "$gone_line" "$tmp/err" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL capture, every RDMA port gone: the line naming them"; }
mkdir "$tmp/gone.b" && tar -xzf "$tmp/gone.tar.gz" -C "$tmp/gone.b" &&
	grep -qxF "partial: ${gone_line#fabprobe: }; the bundle covers the NIC reads before it" "$tmp/gone.b/summary.txt" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL capture, every RDMA port gone: the bundle's partial line"; }
cp -r tests/fixtures/nic/mlx5 "$tmp/half"
(sleep 0.5 && rm -rf "$tmp/half/class/infiniband/mlx5_1") &
expect 0 "nic: one RDMA port gone, one left" "$FABPROBE" nic --nic-root "$tmp/half" -r 1.5
wait
# Done: 0.
expect 0 "replay" "$FABPROBE" replay "$good"
expect 0 "top --once over a capture" "$FABPROBE" top --pcap "$good" --once
# One report of a whole recording reads it as fast as it can, not at its recorded pace.
grep -q '^fabprobe top: .*(capture, as fast as it reads, ended)' "$tmp/out" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL top --once reads a capture as fast as it can"; }
expect 0 "nic over a recorded tree" "$FABPROBE" nic --nic-root tests/fixtures/nic/mlx5 -r 0.2
expect 0 "capture from a capture" "$FABPROBE" capture --pcap "$good" -o "$tmp/ok.tar.gz"
for c in top capture export replay nic; do
	expect 0 "$c --help" "$FABPROBE" "$c" --help
done
# An interface that is down is attached and counted once it comes up (one
# line says so): done, 0, and the man page's failures do not list it.
down=fpe-d$$
if ip link add "$down" type veth peer name "fpe-e$$" 2>/dev/null; then
	expect 0 "top --once on a down interface" "$FABPROBE" top -i "$down" --once -r 0.2
	grep -qx "fabprobe: interface $down is down: attached, counted once it comes up" "$tmp/err" &&
		pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL top says the interface is down"; }
	ip link del "$down"
else
	fail=$((fail + 1))
	echo "FAIL cannot make a veth pair"
fi
sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' docs/fabprobe.8 | grep -q 'missing or down interface' &&
	{ fail=$((fail + 1)); echo "FAIL docs/fabprobe.8 calls a down interface a failure (exit 1)"; } ||
	pass=$((pass + 1))
# A capture cut short: the report, one line, 3.
expect 3 "replay of a capture cut short" "$FABPROBE" replay "$tmp/cut.pcap"
check_report() { grep -q '^frames 21 ' "$tmp/out"; }
check_report && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL the cut capture's 21 frames are reported"; }
expect 3 "top --once over a capture cut short" "$FABPROBE" top --pcap "$tmp/cut.pcap" --once --json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["totals"]["frames"] == 21' "$tmp/out" &&
	pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL top --once --json reports the 21 frames"; }
expect 3 "capture from a capture cut short" "$FABPROBE" capture --pcap "$tmp/cut.pcap" -o "$tmp/cut.tar.gz"
[ -s "$tmp/cut.tar.gz" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL the bundle of a cut capture is written"; }

echo "exit-codes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
