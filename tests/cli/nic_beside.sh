#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# NIC counters beside a packet feed (docs/nic.md): "fabprobe top -i mirror0
# --nic" is a mirror feed and this host's NICs together. The -i interfaces
# choose the RDMA ports read; when none of them has one (a mirror port, a
# veth), every RDMA port is read. It read none and said "no RDMA devices
# found" of a tree (the recorded mlx5 one, tests/fixtures/nic) that has
# two. fabprobe nic -i of a netdev without RDMA still reads only that
# netdev, and says the devices are on other netdevs, not that none exist.
set -u
. "$(dirname "$0")/../lib/cli.sh"
TREE=$(dirname "$0")/../fixtures/nic/mlx5

a=fpnb$$a b=fpnb$$b
cleanup() {
	ip link del "$a" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
veth_up "$a" "$b"

"$FABPROBE" top -i "$a" --once -r 0.3 --json --nic-root "$TREE" >"$tmp/top.json" 2>"$tmp/top.err"
check "top -i VETH --nic-root: exit 0" test $? -eq 0
check "... reads the tree's two RDMA ports beside the veth" \
	eq "$(python3 -I -c 'import json, sys; print(sorted(p["device"] for p in json.load(open(sys.argv[1]))["nics"]))' "$tmp/top.json")" \
	"['mlx5_0', 'mlx5_1']"
check "... and says so, not 'no RDMA devices found'" \
	sh -c "grep -q 'reading NIC counters: 2 RDMA ports' '$tmp/top.err' && ! grep -q 'no RDMA' '$tmp/top.err'"

# The tree with mlx5_1's netdev renamed to the other end of the veth, to be named.
cp -r "$TREE" "$tmp/renamed"
for f in "$tmp"/renamed/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/*; do echo "$b" >"$f"; done
mv "$tmp/renamed/class/infiniband/mlx5_1/device/net/ens1f1np1" "$tmp/renamed/class/infiniband/mlx5_1/device/net/$b"
mv "$tmp/renamed/class/net/ens1f1np1" "$tmp/renamed/class/net/$b"
mv "$tmp/renamed/ethtool/ens1f1np1" "$tmp/renamed/ethtool/$b"
"$FABPROBE" top -i "$a,$b" --once -r 0.3 --json --nic-root "$tmp/renamed" \
	>"$tmp/one.json" 2>"$tmp/one.err"
check "an RDMA netdev among the named ones: only its port" \
	eq "$(python3 -I -c 'import json, sys; print([p["device"] for p in json.load(open(sys.argv[1]))["nics"]])' "$tmp/one.json")" \
	"['mlx5_1']"

cp -r "$TREE" "$tmp/tree"
mkdir -p "$tmp/tree/class/net/veth9"
printf 'NIC statistics:\n     rx_packets: 5\n' >"$tmp/tree/ethtool/veth9"
"$FABPROBE" nic --nic-root "$tmp/tree" -i veth9 -r 0.1 >"$tmp/nic.txt" 2>"$tmp/nic.err"
check "nic -i of a netdev without RDMA: exit 0, no RDMA port read" \
	sh -c "[ $? -eq 0 ] && ! grep -q '^RDMA ' '$tmp/nic.txt'"
check "... and the devices are on other netdevs, not missing" \
	grep -q '; no RDMA port on the netdevs named (2 RDMA devices on others)$' "$tmp/nic.err"

finish nic-beside
