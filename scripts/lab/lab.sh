#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabprobe lab: a 2-leaf / 4-spine fabric of network namespaces.
# See scripts/lab/README.md for the topology and addressing.

set -euo pipefail

P=${FP_LAB_PREFIX:-fpl-}
SPINES="1 2 3 4"
LEAVES="1 2"
HOSTS="1 2 3 4"
VNI=100
UNDERLAY_MTU=1500
OVERLAY_MTU=1450

usage()
{
	cat >&2 <<EOF
usage: lab.sh up [--vxlan] | down | status
       lab.sh path LEAF SRC DST SPORT DPORT
       lab.sh exec NODE CMD...
NODE is leaf1..2, spine1..4 or h1..h4; namespaces are named ${P}NODE.
EOF
	exit 2
}

# Host n hangs off leaf (n+1)/2, port down((n-1)%2+1).
host_leaf() { echo $(( ($1 + 1) / 2 )); }
host_port() { echo "down$(( ($1 - 1) % 2 + 1 ))"; }
host_ip() { echo "10.77.$(host_leaf "$1").1$1"; }
overlay_ip() { echo "10.78.0.1$1"; }
overlay_mac() { echo "02:fa:78:00:00:1$1"; }

# Leaf L <-> spine S is 10.76.LS.0/24: leaf end .1, spine end .2.
link_net() { echo "10.76.$1$2"; }

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

lab_namespaces()
{
	ip netns list 2>/dev/null | awk -v p="$P" 'index($1, p) == 1 { print $1 }' | sort
}

ns_init()
{
	local ns=$1

	ip netns add "$ns"
	# Defaults are set before any device exists so every later veth
	# inherits them; rp_filter would drop ECMP-asymmetric return traffic.
	nsx "$ns" sysctl -qw net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv6.conf.default.disable_ipv6=1 \
		net.ipv6.conf.all.disable_ipv6=1
	ip -n "$ns" link set lo up
}

# Forwarded UDP leaves the sender with CHECKSUM_PARTIAL; with tx offload
# off every veth computes the full checksum, so captures and BPF programs
# at any hop see valid checksums.
veth_no_offload()
{
	nsx "$1" ethtool -K "$2" tx off >/dev/null
	ip -n "$1" link set "$2" mtu "$UNDERLAY_MTU" up
}

veth_pair()
{
	local ns_a=$1 dev_a=$2 ns_b=$3 dev_b=$4

	ip -n "$ns_a" link add "$dev_a" type veth peer name "$dev_b" netns "$ns_b"
	veth_no_offload "$ns_a" "$dev_a"
	veth_no_offload "$ns_b" "$dev_b"
}

router_init()
{
	nsx "$1" sysctl -qw net.ipv4.ip_forward=1
}

leaf_spine_links()
{
	local l s net

	for l in $LEAVES; do
		for s in $SPINES; do
			net=$(link_net "$l" "$s")
			veth_pair "${P}leaf$l" "up$s" "${P}spine$s" "leaf$l"
			ip -n "${P}leaf$l" addr add "$net.1/24" dev "up$s"
			ip -n "${P}spine$s" addr add "$net.2/24" dev "leaf$l"
		done
	done
}

# Each host is routed on its own port: the leaf owns 10.77.L.1/32 on
# both down ports and answers ARP for the sibling host (proxy_arp), so
# h1 <-> h2 also goes through the leaf like everything else.
host_link()
{
	local h=$1 l port ip

	l=$(host_leaf "$h")
	port=$(host_port "$h")
	ip=$(host_ip "$h")
	veth_pair "${P}leaf$l" "$port" "${P}h$h" eth0
	ip -n "${P}h$h" addr add "$ip/24" dev eth0
	ip -n "${P}h$h" route add default via "10.77.$l.1" dev eth0
	ip -n "${P}leaf$l" addr add "10.77.$l.1/32" dev "$port"
	ip -n "${P}leaf$l" route add "$ip/32" dev "$port" src "10.77.$l.1"
	nsx "${P}leaf$l" sysctl -qw "net.ipv4.conf.$port.proxy_arp=1"
}

leaf_routes()
{
	local l=$1 other=$(( 3 - $1 )) s hops=()

	for s in $SPINES; do
		hops+=(nexthop via "$(link_net "$l" "$s").2" dev "up$s")
	done
	ip -n "${P}leaf$l" route add "10.77.$other.0/24" "${hops[@]}"
	# Policy 1 hashes the L4 5-tuple, so the UDP source port (the RoCE
	# entropy field) picks the spine.
	nsx "${P}leaf$l" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
	# Unset (0), the hash's seed is drawn at boot: which ports share an
	# uplink changes from boot to boot. FP_LAB_HASH_SEED pins it (the
	# sysctl exists from Linux 6.11), to replay another boot's placement.
	if [ -n "${FP_LAB_HASH_SEED:-}" ]; then
		nsx "${P}leaf$l" sysctl -qw \
			net.ipv4.fib_multipath_hash_seed="$FP_LAB_HASH_SEED"
	fi
}

spine_routes()
{
	local s=$1 l

	for l in $LEAVES; do
		ip -n "${P}spine$s" route add "10.77.$l.0/24" \
			via "$(link_net "$l" "$s").1" dev "leaf$l"
	done
}

# Static head-end replication: every peer's MAC is pinned in the FDB and
# its overlay address in the neighbour table, so no multicast and no
# flooding is needed (RFC 7348 section 4 without the learning part).
vxlan_host()
{
	local h=$1 ns="${P}h$1" peer

	ip -n "$ns" link add vx0 type vxlan id "$VNI" dstport 4789 \
		local "$(host_ip "$h")" dev eth0 nolearning tos inherit ttl 64
	ip -n "$ns" link set vx0 address "$(overlay_mac "$h")" \
		mtu "$OVERLAY_MTU" up
	ip -n "$ns" addr add "$(overlay_ip "$h")/24" dev vx0
	for peer in $HOSTS; do
		[ "$peer" = "$h" ] && continue
		bridge -n "$ns" fdb append "$(overlay_mac "$peer")" dev vx0 \
			dst "$(host_ip "$peer")" self permanent
		ip -n "$ns" neigh replace "$(overlay_ip "$peer")" \
			lladdr "$(overlay_mac "$peer")" dev vx0 nud permanent
	done
}

lab_up()
{
	local vxlan=0 n

	[ "${1:-}" = "--vxlan" ] && vxlan=1
	lab_down
	for n in $LEAVES; do ns_init "${P}leaf$n"; router_init "${P}leaf$n"; done
	for n in $SPINES; do ns_init "${P}spine$n"; router_init "${P}spine$n"; done
	for n in $HOSTS; do ns_init "${P}h$n"; done
	leaf_spine_links
	for n in $HOSTS; do host_link "$n"; done
	for n in $LEAVES; do leaf_routes "$n"; done
	for n in $SPINES; do spine_routes "$n"; done
	if [ "$vxlan" = 1 ]; then
		for n in $HOSTS; do vxlan_host "$n"; done
	fi
	echo "lab: up (prefix $P, vxlan=$vxlan)"
}

lab_down()
{
	local ns

	for ns in $(lab_namespaces); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "$ns"
	done
}

lab_status()
{
	local ns

	for ns in $(lab_namespaces); do
		echo "== $ns"
		ip -n "$ns" -br addr show | grep -v '^lo '
		case "$ns" in
		"${P}leaf"*) ip -n "$ns" route show | grep -A4 nexthop || true ;;
		esac
	done
}

# The leaf port the source host hangs off, so the lookup is an input
# (forwarding) lookup exactly like a real packet's.
iif_for()
{
	ip -n "$1" route get "$2" | sed -n 's/.* dev \([^ ]*\).*/\1/p'
}

lab_path()
{
	[ $# -eq 5 ] || usage
	local ns="${P}${1#"$P"}" src=$2 dst=$3 sport=$4 dport=$5 iif

	iif=$(iif_for "$ns" "$src")
	ip -n "$ns" route get "$dst" from "$src" iif "$iif" \
		ipproto udp sport "$sport" dport "$dport" |
		sed -n 's/.* dev \([^ ]*\).*/\1/p'
}

lab_exec()
{
	[ $# -ge 2 ] || usage
	local ns="${P}${1#"$P"}"

	shift
	exec ip netns exec "$ns" "$@"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
up) lab_up "$@" ;;
down) lab_down ;;
status) lab_status ;;
path) lab_path "$@" ;;
exec) lab_exec "$@" ;;
*) usage ;;
esac
