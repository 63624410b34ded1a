#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`'s run (scripts/demo.sh) without a terminal, as README's
# first command shows it: the lab comes up, fabprobe top --plain prints
# its tables, the lab goes down. The closing notes tell a new user what
# the tables showed; each claim is checked against the last tables
# printed: the two elephant QP pairs the script names share one uplink
# (PATH's ELEPHANTS 2, their FLOW rows end [elephant], the data's QP
# column is h3's QP and the ACKs' h1's), the alerts the notes name were
# raised, resends counted, and every column the notes cite is a column of
# the table printed. Nothing of the lab is left behind.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/check.sh"
export FP_LAB_PREFIX=fpd-
TMP=$(mktemp -d /tmp/fp-demo-XXXXXX)
trap '"$TOP/scripts/lab/lab.sh" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT

cat >"$TMP/checks.py" <<'EOF'
import re, sys

text = open(sys.argv[1]).read()
lines = text.splitlines()
fails = []

def expect(what, ok):
    print(("ok   " if ok else "FAIL ") + what)

# The QP pairs the script names (h1's QP:h3's QP) and the last tables printed.
m = re.search(r"QP pairs \(h1's QP:h3's QP\) (\d+):(\d+) and (\d+):(\d+) are elephants", text)
expect("the demo names its two elephant QP pairs", m is not None)
pairs = [(m.group(1), m.group(2)), (m.group(3), m.group(4))] if m else []
last = max(i for i, l in enumerate(lines) if l.startswith("fabprobe top:"))
notes = lines.index("demo: what was shown")
frame = lines[last:notes]

# PATH table: one uplink with both elephants.
paths = [l.split() for l in frame if re.match(r"^up\d+\s+\d+\s+\d+\s", l)]
expect("PATH table printed for four uplinks", len(paths) == 4)
expect("one uplink carries 2 ELEPHANTS", sum(1 for p in paths if p[2] == "2") == 1)

# FLOW table: the header's columns, and the elephants' rows.
hdr = next((l for l in frame if l.startswith("FLOW (src:sport > dst)")), "")
cols = hdr.replace("FLOW (src:sport > dst)", "").replace("LAST OPCODE", "LAST_OPCODE").split()
rows = [l for l in frame if re.match(r"^10\.77\.\d+\.\d+:\d+ > ", l)]
expect("FLOW table printed", bool(cols) and bool(rows))

def cell(row, col):
    parts = row.split()
    # "src:sport > dst" is three words, then one cell a column (values with units two).
    vals, rest = [], parts[3:]
    i = 0
    for c in cols:
        if c == "LAST_OPCODE":
            vals.append(" ".join(rest[i:]))
            break
        if i + 1 < len(rest) and re.match(r"^[kMGT]?(b/s|B)$", rest[i + 1]):
            vals.append(rest[i] + " " + rest[i + 1]); i += 2
        else:
            vals.append(rest[i]); i += 1
    return dict(zip(cols, vals)).get(col)

for h1qp, h3qp in pairs:
    data = [r for r in rows if r.startswith("10.77.1.11:") and cell(r, "QP") == h3qp]
    acks = [r for r in rows if r.startswith("10.77.2.13:") and cell(r, "QP") == h1qp]
    expect("elephant %s:%s: h1's data sent to QP %s, ends [elephant]" % (h1qp, h3qp, h3qp),
           len(data) == 1 and data[0].endswith("[elephant]"))
    expect("elephant %s:%s: h3's answers sent to QP %s" % (h1qp, h3qp, h1qp), len(acks) == 1)
crowded = [p[0] for p in paths if p[2] == "2"]
on = [cell(r, "PATH") for r in rows
      if r.startswith("10.77.1.11:") and cell(r, "QP") in [h3 for _, h3 in pairs]]
expect("both elephants on the uplink with 2 ELEPHANTS", len(on) == 2 and on == crowded * 2)
expect("resends counted (RTX)", sum(int(cell(r, "RTX") or 0) for r in rows) > 0)

# The alerts the notes name.
for alert in ("elephant_collision", "cnp_without_ce", "retransmits"):
    expect("alert %s raised" % alert, any(re.match(r"^\s+\w+\s+%s\s" % alert, l) for l in frame))

# Every column the notes cite is one the tables printed.
cited = []
for l in lines[notes:]:
    for group in re.findall(r"\(([A-Z/%, ]+)\)", l):
        cited += [c.strip() for c in group.split(",")]
    m = re.search(r"^\s+(?:windows\s+rates.*;|)\s*([A-Z%/]+(?: to [A-Z%/]+| and [A-Z%/]+)?) count", l)
    if m:
        cited += re.split(r" to | and ", m.group(1))
printed = set(cols) | {"ELEPHANTS"}
expect("the notes cite columns", len(cited) >= 3)
for c in cited:
    expect("the notes' column %s is printed" % c, c in printed)
EOF

# demo_run WHAT: run the demo, check it and what it printed.
demo_run() {
	echo "--- $1"
	DEMO_SECONDS=10 bash "$TOP/scripts/demo.sh" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	check "demo exits 0" eq "$rc" 0
	check "demo tears the lab down" eq "$(ip netns list | grep -c "^$FP_LAB_PREFIX")" 0
	check "demo says so" grep -q '^demo: lab torn down' "$TMP/out"
	check "demo's stderr says where it attached, nothing failed" \
		eq "$(grep -cv '^fabprobe: attached to 4 interfaces' "$TMP/err")" 0

	python3 -I "$TMP/checks.py" "$TMP/out" >"$TMP/checks" 2>&1 ||
		echo "FAIL the checks ran to their end" >>"$TMP/checks"
	cat "$TMP/checks"
	PASS=$((PASS + $(grep -c '^ok ' "$TMP/checks")))
	FAIL=$((FAIL + $(grep -c '^FAIL' "$TMP/checks")))
	[ "$(grep -c '^FAIL' "$TMP/checks")" -eq 0 ] || { echo "--- demo's output"; cat "$TMP/out" "$TMP/err"; }
}

demo_run "make demo's run on this boot's ECMP hash"

# Linux seeds the multipath hash at boot (fib_multipath_hash_seed 0), so
# which QPs share an uplink differs from boot to boot. Another boot's
# placement, replayed with a seed: one under which h2's first pair 50:70
# (80 Mb/s, an elephant too) hashes onto the uplink of the collision. The
# notes still have to hold: two elephants on that uplink, not three.
export FP_LAB_HASH_SEED=
if FP_LAB_HASH_SEED=1 "$TOP/scripts/lab/lab.sh" up >"$TMP/up" 2>&1; then
	gen=$TOP/build/lab/rocegen lab=$TOP/scripts/lab/lab.sh
	for seed in $(seq 1 64); do
		ip netns exec "${FP_LAB_PREFIX}leaf1" sysctl -qw net.ipv4.fib_multipath_hash_seed="$seed"
		read -r e1 _ <<<"$("$TOP/scripts/lab/qps.sh" collide 2)"
		crowded=$("$lab" path leaf1 10.77.1.11 10.77.2.13 "$("$gen" sport ${e1/:/ })" 4791)
		h2=$("$lab" path leaf1 10.77.1.12 10.77.2.14 "$("$gen" sport 50 70)" 4791)
		[ "$h2" = "$crowded" ] && { FP_LAB_HASH_SEED=$seed; break; }
	done
	"$lab" down >/dev/null
	check "a seed puts 50:70 on the collision's uplink" test -n "$FP_LAB_HASH_SEED"
	[ -n "$FP_LAB_HASH_SEED" ] && demo_run "another boot's hash: seed $FP_LAB_HASH_SEED"
else
	"$TOP/scripts/lab/lab.sh" down >/dev/null 2>&1
	echo "skip another boot's hash: no net.ipv4.fib_multipath_hash_seed (Linux < 6.11)"
fi
finish demo
