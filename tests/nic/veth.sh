#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The NIC reader's live path on a veth pair, in a namespace of its own:
# the ethtool ioctl read of fpn-a against what `ethtool -S` prints for it
# and against its peer's ifindex, and the one line for a host without RDMA.
# Runs build/tests/test_nic inside the namespace with the pair's facts in
# its environment. Always removes the namespace.
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/tests/test_nic
ns=fpn-nic-$$

if [ "$(id -u)" -ne 0 ]; then
	echo "nic-veth: skipped, a network namespace needs root"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "nic-veth: $bin is not built (make tests-build)"
	exit 1
fi
if ! command -v ethtool >/dev/null; then
	echo "nic-veth: skipped, ethtool is not installed"
	exit 0
fi
tmp=$(mktemp -d)
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$ns" || exit 1
ip -n "$ns" link add fpn-a type veth peer name fpn-b || exit 1
ip -n "$ns" link set fpn-a up && ip -n "$ns" link set fpn-b up || exit 1
peer=$(ip netns exec "$ns" cat /sys/class/net/fpn-b/ifindex)
ip netns exec "$ns" ethtool -S fpn-a >"$tmp/ethtool" || exit 1
n=$(grep -c ': ' "$tmp/ethtool")

ip netns exec "$ns" env FP_NIC_VETH=fpn-a FP_NIC_VETH_PEER_IFINDEX="$peer" \
	FP_NIC_VETH_ETHTOOL="$tmp/ethtool" "$bin" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ $rc -ne 0 ]; then
	echo "nic-veth: test_nic failed in the namespace"
	exit 1
fi
if grep -q 'SKIPPED.*test_live_veth_against_ethtool' "$tmp/out"; then
	echo "nic-veth: the veth test was skipped"
	exit 1
fi
echo "nic-veth: fpn-a's $n ethtool statistics read through the ioctl match ethtool -S"
