#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate vmlinux/<arch>/vmlinux.h from the running kernel's BTF.
# Usage: scripts/gen-vmlinux.sh [BTF_FILE]   (default /sys/kernel/btf/vmlinux)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
btf=${1:-/sys/kernel/btf/vmlinux}
case "$(uname -m)" in
x86_64) arch=x86 ;;
aarch64) arch=arm64 ;;
*) arch=$(uname -m) ;;
esac
[ -r "$btf" ] || { echo "gen-vmlinux: cannot read $btf (kernel built without CONFIG_DEBUG_INFO_BTF?)" >&2; exit 1; }
mkdir -p "$top/vmlinux/$arch"
bpftool btf dump file "$btf" format c >"$top/vmlinux/$arch/vmlinux.h.tmp"
mv "$top/vmlinux/$arch/vmlinux.h.tmp" "$top/vmlinux/$arch/vmlinux.h"
echo "gen-vmlinux: wrote vmlinux/$arch/vmlinux.h from $btf ($(uname -r))"
