#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Help is complete and true: every long option the sources define is in
# some command's --help, every option a --help shows is accepted by that
# command, and the man page names every command and describes every option
# a --help shows, with its short form, and the range and the meaning of 0
# --help gives an option.
set -u
FABPROBE=${FABPROBE:-build/fabprobe}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# The man page's words with its markup undone: \-\-rows, ".BI \-n ", " \-\-rows"
# and ".BR \-o " (" \-\-output )" read as --rows, -n, --rows and -o (--output.
man_text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g; s/"//g; s/ *, */, /g; s/ *( */ (/g' docs/fabprobe.8)
# in_man CMD HELP: each option HELP shows is in the man page, as given there.
in_man() {
	local c=$1 help=$2 o s l
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
		grep -qE -- "$o([^a-z0-9-]|\$)" <<<"$man_text" && ok ||
			bad "${c:-fabprobe} --help shows $o; docs/fabprobe.8 does not describe it"
	done
	while read -r s l; do
		[ -n "$s" ] || continue
		grep -qE -- "${s%,}(, | \()$l([^a-z0-9-]|\$)" <<<"$man_text" && ok ||
			bad "${c:-fabprobe} --help shows $s $l; docs/fabprobe.8 never pairs them"
	done < <(grep -oE -- '^ +-[a-zA-Z], --[a-z][a-z0-9-]*' <<<"$help")
}
# help_limits HELP: "--OPTION<TAB>LIMIT" for each range ("0.1 to 3600") and
# meaning of 0 ("0 = none", as "0 none") an option's --help lines give.
help_limits() {
	awk '/^  (-[a-zA-Z], )?--[a-z]/ || /^      --[a-z]/ {
		match($0, /--[a-z][a-z0-9-]*/); opt = substr($0, RSTART, RLENGTH) }
	/^[^ ]/ || /^$/ { opt = "" }
	opt != "" {
		t = $0
		while (match(t, /[0-9][0-9.]* to [0-9][0-9.]*( s)?([,;)]| \(|$)/)) {
			r = substr(t, RSTART, RLENGTH); sub(/( s)?([,;)]| \()$/, "", r)
			print opt "\t" r; t = substr(t, RSTART + RLENGTH)
		}
		t = $0
		while (match(t, /[ (]0 = [a-z]+/)) {
			r = substr(t, RSTART + 1, RLENGTH - 1); sub(/ = /, " ", r)
			print opt "\t" r; t = substr(t, RSTART + RLENGTH)
		}
	}' <<<"$1"
}
# man_paragraphs: the man page's paragraphs, one a line (.TP, .SH, .SS, .PP start one).
man_paragraphs=$(awk '/^\.(TP|SH|SS|PP)/ { if (p != "") print p; p = ""; next } { p = p " " $0 }
	END { if (p != "") print p }' <<<"$man_text" | sed 's/ = / /g')
# limits_in_man CMD HELP: what --help says an option's range and 0 are, the
# man page says too: in each entry the option heads (EXPORT OPTIONS' -r),
# else somewhere it is described (a command's paragraph under COMMANDS).
limits_in_man() {
	local c=$1 o l heads
	while IFS=$'\t' read -r o l; do
		[ -n "$o" ] || continue
		heads=$(grep -E -- "^ \.B[IR]? (-[a-zA-Z], )?$o([^a-z0-9-]|\$)" <<<"$man_paragraphs")
		if [ -n "$heads" ]; then
			grep -vqF -- "$l" <<<"$heads" &&
				bad "$c --help gives $o '$l'; its entry in docs/fabprobe.8 does not" || ok
		else
			grep -E -- "$o([^a-z0-9-]|\$)" <<<"$man_paragraphs" | grep -qF -- "$l" && ok ||
				bad "$c --help gives $o '$l'; docs/fabprobe.8 does not"
		fi
	done < <(help_limits "$2")
}
in_man "" "$("$FABPROBE" --help)"
commands=$("$FABPROBE" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} /^$/ {if (on) exit}')
[ -n "$commands" ] || bad "no commands in fabprobe --help"
all_help=""
for c in $commands; do
	help=$("$FABPROBE" "$c" --help) || bad "$c --help exits non-zero"
	all_help+="$help"$'\n'
	grep -q "^Usage: fabprobe $c" <<<"$help" && ok || bad "$c --help has no usage line"
	grep -q -- "^\.B $c\$" docs/fabprobe.8 && ok || bad "the man page does not describe $c"
	in_man "$c" "$help"
	limits_in_man "$c" "$help"
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
		# Accepted means anything but "unknown option" (a missing value is fine).
		# timeout: an option alone can be a whole valid command (top --nic runs on).
		if timeout 5 "$FABPROBE" "$c" "$o" 2>&1 </dev/null | grep -q "unknown option '$o'"; then
			bad "$c --help shows $o, which $c refuses"
		else
			ok
		fi
	done
done
for o in $(grep -ho '{"[a-z][a-z-]*", \(no\|required\)_argument' user/*/*.c user/*/*.h | cut -d'"' -f2 | sort -u); do
	grep -q -- "--$o\b" <<<"$all_help" && ok || bad "--$o is defined but in no --help"
done
# make install: the binary, the man page, and every file the docs and the unit name.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if make -s install DESTDIR="$tmp" PREFIX=/usr/local BUILD="$(dirname "$FABPROBE")" >/dev/null; then
	d=$tmp/usr/local/share/doc/fabprobe
	for f in sbin/fabprobe share/man/man8/fabprobe.8; do
		[ -s "$tmp/usr/local/$f" ] && ok || bad "make install leaves out $f"
	done
	for f in README.md metrics.md fabprobe-export.service grafana/fabprobe-fabric.json \
		prometheus/fabprobe-alerts.yml ipfix/fabprobe-elements.xml; do
		[ -s "$d/$f" ] && ok || bad "make install leaves out share/doc/fabprobe/$f"
	done
	doc=$(grep -o 'file:///usr/local/share/doc/fabprobe/[^ ]*' scripts/fabprobe-export.service)
	[ -s "$tmp${doc#file://}" ] && ok || bad "the unit's Documentation= ($doc) is not installed"
else
	bad "make install DESTDIR=$tmp failed"
fi
# `make` alone builds build/fabprobe, as the README says: not the first rule the
# Makefile happens to read (a version-stamp dependency once made it capture.o).
make -n BUILD="$tmp/goal" 2>/dev/null | grep -q -- "-o $tmp/goal/fabprobe " &&
	ok || bad "make alone does not build \$(BUILD)/fabprobe (the README says it does)"
# --uplinks attaches its interfaces whether -i names them or not (live.c); each command says so.
for c in top capture export; do
	"$FABPROBE" $c --help | tr '\n' ' ' | grep -q "report their \"path\"; attached *too, whether -i names them or not" &&
		ok || bad "$c --help does not say --uplinks interfaces are attached too"
done
# An option with a default is optional on the usage lines (capture showed -d SECONDS as required).
"$FABPROBE" capture --help | sed -n '/^Usage:/,/^$/p' | grep -- '-d SECONDS' | grep -qv -- '\[-d SECONDS\]' &&
	bad "capture --help's usage shows -d SECONDS as required; it defaults to 30" || ok
echo "help: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
