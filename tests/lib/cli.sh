# SPDX-License-Identifier: GPL-2.0
# Shared by the CLI tests (tests/cli/): the binary under test, the shared
# captures, a scratch directory removed at exit, and the counted checks
# (check.sh). Source it first.
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
