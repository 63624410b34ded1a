#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input to `fabprobe replay` and the command line: one clear line on
# stderr, a non-zero exit, nothing on stdout, never a crash. A capture cut
# short is not refused: what was read is reported, then one line, exit 3.
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
PCAPS=${PCAPS:-../shared/pcaps}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect_error NAME PATTERN CMD...: exit != 0, exactly one stderr line matching PATTERN.
expect_error() {
	local name=$1 pattern=$2 rc lines
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		grep -qE -- "$pattern" "$tmp/err"; then
		pass=$((pass + 1))
		echo "ok   $name: $(cat "$tmp/err")"
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc stderr lines=$lines"
		sed 's/^/     stderr: /' "$tmp/err"
		head -c 300 "$tmp/out" | sed 's/^/     stdout: /'
	fi
}

# expect_damaged NAME FRAMES CMD...: a capture cut short: the report of what was
# read on stdout (FRAMES frames), one line on stderr saying where, exit 3.
expect_damaged() {
	local name=$1 frames=$2 rc lines
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 3 ] && [ "$lines" -eq 1 ] && grep -qE "cut short or corrupt after frame $frames:" "$tmp/err" &&
		grep -qE "^frames $frames " "$tmp/out"; then
		pass=$((pass + 1))
		echo "ok   $name: $(cat "$tmp/err")"
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc stderr lines=$lines"
		sed 's/^/     stderr: /' "$tmp/err"
		head -c 300 "$tmp/out" | sed 's/^/     stdout: /'
	fi
}

expect_ok() {
	local name=$1 rc
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc"
		sed 's/^/     stderr: /' "$tmp/err"
	fi
}

good=$PCAPS/rdma_write_bw.pcap
head -c 1000 /dev/urandom >"$tmp/garbage.pcap"
# A valid header and first record, cut inside the second record.
head -c 200 "$good" >"$tmp/truncated.pcap"
# pcap header, link type 105 (IEEE 802.11), one 4-byte record.
python3 - "$tmp/wifi.pcap" "$tmp/empty.pcap" <<'PY'
import struct, sys
hdr = lambda dlt: struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, dlt)
open(sys.argv[1], "wb").write(hdr(105) + struct.pack("<IIII", 0, 0, 4, 4) + b"\0" * 4)
open(sys.argv[2], "wb").write(hdr(1))
PY
: >"$tmp/zero.pcap"
chmod 000 "$tmp/zero.pcap"

expect_error "missing capture" "nosuch.pcap: cannot read capture: No such file or directory$" "$FABPROBE" replay "$tmp/nosuch.pcap"
expect_error "corrupt capture" "garbage.pcap" "$FABPROBE" replay "$tmp/garbage.pcap"
expect_damaged "truncated capture" 1 "$FABPROBE" replay "$tmp/truncated.pcap"
expect_error "unsupported link type" "unsupported link type" "$FABPROBE" replay "$tmp/wifi.pcap"
expect_error "empty file" "zero.pcap" "$FABPROBE" replay "$tmp/zero.pcap"
# Compressors other than gzip (which is read): named, with what to do.
zstd -q -c "$good" >"$tmp/write.pcap.zst"
expect_error "zstd-compressed capture" "write.pcap.zst: cannot read capture: compressed with zstd, which fabprobe does not read: decompress it first$" \
	"$FABPROBE" replay "$tmp/write.pcap.zst"
expect_error "no capture given" "no capture" "$FABPROBE" replay
expect_error "two files" "one FILE" "$FABPROBE" replay "$good" "$good"
expect_error "unknown option" "unknown option" "$FABPROBE" replay --bogus "$good"
expect_error "option without value" "needs a value" "$FABPROBE" replay "$good" --rows
expect_error "unknown short option" "unknown option '-x'" "$FABPROBE" replay -x "$good"
# getopt_long would take an abbreviation for the option it begins, and the
# error would then name the value: "--sflow-port-map: cannot read 6343".
expect_error "abbreviated option, value apart" "unknown option '--sflow-port' \\(did you mean --sflow-port-map\\?\\)" \
	"$FABPROBE" top --sflow 127.0.0.1:16343 --sflow-port 6343
expect_error "abbreviated option, no value" "nic: unknown option '--nic' \\(did you mean --nic-root\\?\\)" \
	"$FABPROBE" nic --nic
expect_error "abbreviated option, value joined" "unknown option '--flow' \\(did you mean --flows\\?\\)" \
	"$FABPROBE" replay --flow=10 "$good"
expect_error "a value to an option without one" "option '--json' takes no value" \
	"$FABPROBE" replay --json=1 "$good"
expect_error "unknown command" "unknown command" "$FABPROBE" frobnicate
expect_error "--elephant-rate 0" "--elephant-rate: '0' is not a rate above 0" \
	"$FABPROBE" replay --elephant-rate 0 "$good"
expect_error "bad --speed" "--speed: '-1' is not a number \\(times the recorded pace\\) from 0 to 1000000" \
	"$FABPROBE" top --pcap "$good" --speed -1
expect_error "--hook with --pcap" "top: --hook applies to interfaces \\(-i, --uplinks\\), not to --pcap" \
	"$FABPROBE" top --pcap "$good" --hook xdp
# Only XDP drops a frame or has a mode: with --hook tc either flag would do
# nothing. Refused before the interface is looked up (nosuch0 is not there).
for c in top capture export; do
	extra=()
	[ "$c" = capture ] && extra=(-o "$tmp/hook.tar.gz")
	[ "$c" = export ] && extra=(--listen 127.0.0.1:19981)
	expect_error "$c --hook tc --mirror-port-drop" "^fabprobe: $c: --mirror-port-drop needs XDP, which --hook tc does not attach" \
		"$FABPROBE" "$c" -i nosuch0 "${extra[@]}" --hook tc --mirror-port-drop
	expect_error "$c --xdp-mode generic --hook tc" "^fabprobe: $c: --xdp-mode needs XDP, which --hook tc does not attach" \
		"$FABPROBE" "$c" -i nosuch0 "${extra[@]}" --xdp-mode generic --hook tc
done
expect_error "--nic-root of a file" "--nic-root .*: not a directory" \
	"$FABPROBE" nic --nic-root "$good"
# The input is said before the port: a bad --nic-root with a --listen port
# taken was reported as the port (export bound it before reading the tree).
coproc TAKEN { python3 -I -c 'import socket, sys; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); sys.stdin.read()'; }
taken_pid=$TAKEN_PID taken_in=${TAKEN[1]}
read -r taken <&"${TAKEN[0]}"
expect_error "export: a missing --nic-root and a taken port: the tree is said" \
	"^fabprobe: --nic-root $tmp/nosuch: No such file or directory$" \
	"$FABPROBE" export --nic-root "$tmp/nosuch" --listen "127.0.0.1:$taken"
expect_error "export: --nic-root of no recorded tree and a taken port: the tree is said" \
	"^fabprobe: --nic-root $tmp: not a recorded NIC tree" \
	"$FABPROBE" export --nic-root "$tmp" --listen "127.0.0.1:$taken"
eval "exec $taken_in>&-"
wait "$taken_pid"
# And before the netdevs of -i, which are looked for in it.
expect_error "nic: -i with a missing --nic-root: the tree is said, not the netdev" \
	"^fabprobe: --nic-root $tmp/nosuch: No such file or directory$" \
	"$FABPROBE" nic --nic-root "$tmp/nosuch" -i nosuch0
expect_error "one --path name twice" "--path: the name 'up1' is given twice" \
	"$FABPROBE" replay --path "up1=$good" --path "up1=$good"
expect_error "one --pcap name twice" "--pcap: the name 'up1' is given twice" \
	"$FABPROBE" top --plain --pcap "up1=$good" --pcap "up1=$good"
# An option of one value given twice would keep the last silently (--ipfix A
# --ipfix B sent to B alone). -i and --uplinks add up: -i lo -i eth1 watches both.
expect_error "export: --ipfix twice" "^fabprobe: export: option '--ipfix' is given twice \('127.0.0.1:4739', then '127.0.0.1:4740'\); it takes one value" \
	"$FABPROBE" export --pcap "$good" --listen none --ipfix 127.0.0.1:4739 --ipfix 127.0.0.1:4740
expect_error "top: -i twice adds to the list (the second's interface is checked)" \
	"^fabprobe: interface nosuch0 does not exist$" \
	"$FABPROBE" top --once -i lo --interfaces=nosuch0
expect_error "capture: --uplinks twice adds to the list" "^fabprobe: interface nosuch0 does not exist$" \
	"$FABPROBE" capture -o "$tmp/never.tar.gz" -i lo --uplinks lo --uplinks nosuch0
expect_error "nic: -i twice adds to the list" "^fabprobe: interface nosuch0 does not exist$" \
	"$FABPROBE" nic -i lo -i nosuch0
expect_error "top: --sflow twice" "option '--sflow' is given twice \('16001', then '16002'\)" \
	"$FABPROBE" top --once --sflow 16001 --sflow=16002
expect_error "replay: -n twice" "option '-n' is given twice \('5', then '7'\)" \
	"$FABPROBE" replay -n 5 -n 7 "$good"
expect_error "replay: -n5 -n7, values attached" "option '-n' is given twice \('5', then '7'\)" \
	"$FABPROBE" replay -n5 -n7 "$good"
# Two unnamed captures would be one point: a packet both saw counted twice,
# the second copy taken for a retransmission.
for c in top export capture; do
	out=()
	[ "$c" = capture ] && out=(-o "$tmp/never.tar.gz")
	expect_error "$c: two unnamed --pcap" "--pcap: several captures need a name each" \
		"$FABPROBE" "$c" "${out[@]}" --pcap "$good" --pcap "$good"
	expect_error "$c: a named --pcap beside an unnamed one" "--pcap: several captures need a name each" \
		"$FABPROBE" "$c" "${out[@]}" --pcap "up1=$good" --pcap "$good"
done
expect_error "replay: a --path beside another without a name" "--path: .* is not NAME=FILE" \
	"$FABPROBE" replay --path "up1=$good" --path "$good"
expect_error "replay: a --mirror-session NAME a --path has" "--mirror-session: the name 'up2' \\(session 101\\) is also given by --path" \
	"$FABPROBE" replay --mirror-session 101=up2 --path "up1=$good" --path "up2=$good"
expect_error "one mirror session named twice" "session 101 is named twice \('a' and 'b'\)" \
	"$FABPROBE" replay --mirror-session 101=a,102=c --mirror-session 101=b "$good"
# A name is one path's (docs/mirror.md): one series, one column.
expect_error "one name for two mirror sessions" "the name 'a' is given to sessions 101 and 102" \
	"$FABPROBE" replay --mirror-session 101=a --mirror-session 102=a "$good"
expect_error "a mirror session named as a --pcap" "the name 'up2' \(session 101\) is also given by --pcap" \
	"$FABPROBE" export --pcap "up2=$good" --mirror-session 101=up2
expect_error "a --pcap named as a mirror session" "the name 'up2' \(session 101\) is also given by --pcap" \
	"$FABPROBE" top --plain --mirror-session 101=up2 --pcap "up1=$good" --pcap "up2=$good"
expect_error "a mirror session named as an uplink" "the name 'lo' \(session 7\) is also given by --uplinks" \
	"$FABPROBE" top --plain --uplinks lo --mirror-session 7=lo
expect_error "RoCE on the VXLAN port" "--roce-port and --vxlan-port are both 4789" \
	"$FABPROBE" replay --roce-port 4789 "$good"
expect_error "an elephant rate past any link" "--elephant-rate: '1e20T' is not a rate above 0 and at most 1000T" \
	"$FABPROBE" replay --elephant-rate 1e20T "$good"
expect_error "nic -i of a netdev not in the tree" "interface nosuch0 is not in .*fixtures/nic/mlx5" \
	"$FABPROBE" nic --nic-root tests/fixtures/nic/mlx5 -i nosuch0
# A capture of sFlow given where a listening port goes: say where a capture is read.
expect_error "export --sflow FILE (a capture)" "--sflow: '.*sflow-print-v6.pcap' is a file: here --sflow listens on \\[ADDR:\\]PORT; fabprobe replay --sflow FILE reads a capture" \
	"$FABPROBE" export --sflow "$PCAPS/ext/sflow-print-v6.pcap" --listen none
expect_error "--sflow with an address and no port" "--sflow: '1.2.3.4' needs a port" \
	"$FABPROBE" top --sflow 1.2.3.4 --once
expect_error "--sflow with IPv6 in brackets and no port" "--sflow: '\[::1\]' needs a port" \
	"$FABPROBE" top --sflow '[::1]' --once
expect_error "--sflow with IPv6 out of brackets" "an IPv6 address goes in brackets" \
	"$FABPROBE" top --sflow '::1:6343' --once
expect_error "--sflow-rcvbuf past what the kernel grants" "--sflow-rcvbuf: '1G' is not a size from 4096 to 536870912 bytes" \
	"$FABPROBE" top --sflow 16343 --sflow-rcvbuf 1G --once
mkfifo "$tmp/fifo"
expect_error "capture --force onto a FIFO" "fifo is not a regular file" \
	"$FABPROBE" capture --pcap "$good" -o "$tmp/fifo" --force
# Both found before the run, not after it.
expect_error "capture -o ''" "no output file" "$FABPROBE" capture --pcap "$good" -o ""
mkdir -p "$tmp/adir"
expect_error "capture -o DIR --force" "adir is a directory" \
	"$FABPROBE" capture --pcap "$good" -o "$tmp/adir" --force
expect_error "bad --flows" "--flows: '0'" "$FABPROBE" replay --flows 0 "$good"
expect_error "bad --flows6" "--flows6: '0'" "$FABPROBE" replay --flows6 0 "$good"
expect_error "--flows6 too large" "--flows6: '99999999'" "$FABPROBE" replay --flows6 99999999 "$good"
expect_error "--flows6 past 16M" "--flows6: '17M' is not a count from 1 to 16777216" \
	"$FABPROBE" replay --flows6 17M "$good"
expect_error "--flows with a unit it does not take" "--flows: '12x' is not a count .*256k, 1M" \
	"$FABPROBE" replay --flows 12x "$good"
expect_error "--flows in bytes" "--flows: '1MB' is not a count" "$FABPROBE" top --pcap "$good" --flows 1MB
expect_error "--hash-seed with a second 0x" "--hash-seed: '0x0x10'" "$FABPROBE" replay --hash-model crc32-lo --hash-seed 0x0x10 "$good"
expect_error "--hash-seed past 32 bits" "--hash-seed: '0x100000000'" "$FABPROBE" replay --hash-model crc32-lo --hash-seed 0x100000000 "$good"
expect_error "bad --roce-port" "--roce-port: '70000'" "$FABPROBE" replay --roce-port 70000 "$good"
expect_error "bad --path" "--path: 'up1' is not NAME=FILE" "$FABPROBE" replay --path up1
expect_error "not root" "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$(realpath "$FABPROBE")" replay "$(realpath "$good")"
# Root with every capability dropped cannot load either: said before trying, and what is missing.
expect_error "root without capabilities" "root without the capabilities to load BPF programs \\(missing: CAP_BPF CAP_NET_ADMIN CAP_PERFMON\\)" \
	setpriv --bounding-set=-all "$(realpath "$FABPROBE")" replay "$(realpath "$good")"
expect_ok "CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON" setpriv --bounding-set=-all,+sys_admin,+net_admin \
	--inh-caps=-all "$(realpath "$FABPROBE")" replay "$(realpath "$good")"
expect_error "CAP_SYS_ADMIN without CAP_NET_ADMIN" "missing: CAP_NET_ADMIN\\)" \
	setpriv --bounding-set=-all,+sys_admin --inh-caps=-all "$(realpath "$FABPROBE")" replay "$(realpath "$good")"
# Capabilities instead of root: the same binary with file capabilities, run as nobody.
cp "$FABPROBE" "$tmp/fabprobe-caps"
chmod 755 "$tmp" "$tmp/fabprobe-caps"
setcap cap_bpf,cap_net_admin,cap_perfmon+ep "$tmp/fabprobe-caps"
expect_ok "not root, with CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON" setpriv --reuid=65534 \
	--regid=65534 --clear-groups "$tmp/fabprobe-caps" replay "$(realpath "$good")"
# NIC counters alone load no BPF (README, "Commands"): any user who can read them.
cp -r tests/fixtures/nic/mlx5 "$tmp/nicroot" && chmod -R a+rX "$tmp/nicroot"
cp "$FABPROBE" "$tmp/fabprobe-plain" && chmod 755 "$tmp/fabprobe-plain"
expect_ok "top reading only --nic-root runs as nobody" setpriv --reuid=65534 --regid=65534 \
	--clear-groups "$tmp/fabprobe-plain" top --nic-root "$tmp/nicroot" --once -r 0.2
expect_ok "header-only capture" "$FABPROBE" replay --json "$tmp/empty.pcap"
expect_ok "--help" "$FABPROBE" replay --help
expect_ok "global --help" "$FABPROBE" --help
expect_ok "--version" "$FABPROBE" --version

echo "bad-input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
