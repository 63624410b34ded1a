# SPDX-License-Identifier: GPL-2.0
# Shared by the CLI tests (tests/cli/): the binary under test, the shared
# captures, a scratch directory removed at exit, and the counted checks
# (check.sh). Source it first.
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# veth_up A B: a veth pair A-B, both ends up, or the test ends (exit 1).
veth_up() {
	ip link add "$1" type veth peer name "$2" && ip link set "$1" up && ip link set "$2" up || {
		echo "cannot make a veth pair"
		exit 1
	}
}
