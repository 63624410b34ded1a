#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian 12 package fabprobe's build, tests and demo need.
# Idempotent: packages already present are left alone, and apt is only
# asked when something is missing.
set -euo pipefail

PKGS=(
	make gcc clang llvm pkg-config libclang-rt-14-dev
	libbpf-dev bpftool libelf-dev zlib1g-dev
	libpcap-dev libncurses-dev libmicrohttpd-dev libcmocka-dev
	iproute2 ethtool tshark tcpdump jq tmux python3
	prometheus chromium curl valgrind systemd libcap2-bin
	libmnl-dev pmacct nfdump libfixbuf-tools
)

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: must run as root (apt-get install)" >&2
	exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# wireshark-common asks whether non-root users may capture; answer no.
echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
