# SPDX-License-Identifier: GPL-2.0
# Shared by the dashboard tests (top_*.sh, lifecycle.sh, sanitizers.sh): drive
# `fabprobe top` in a tmux server of the test's own ($SOCK, session
# $SESSION) and look at the screen. Source it after setting both.
# TOP_TMUX_SHOW=1 prints every screen maybe_show is given.

tmx() { tmux -L "$SOCK" "$@"; }
# tmx_gone: kill the server and wait until it no longer answers. A client
# that connects while the old server exits gets "server exited
# unexpectedly" (23 of 200 quick kill-server/new-session pairs here).
# tmux 3.3 leaves its socket file behind, so the wait is for "no server
# running" (nothing listens there), and the file goes after.
tmx_gone() {
	local sock="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK" _
	tmx kill-server >/dev/null 2>&1
	for _ in $(seq 100); do
		if [ ! -S "$sock" ] || [[ $(tmx list-sessions 2>&1) == "no server running"* ]]; then
			rm -f "$sock"
			return 0
		fi
		sleep 0.05
	done
}
# start COLS ROWS ARGS...: fabprobe top in a fresh server and session, its
# stderr in $TMP/top.err and its exit status in $TMP/top.rc.
start() {
	local cols=$1 rows=$2
	shift 2
	tmx_gone
	rm -f "$TMP/top.rc" "$TMP/top.err" "$TMP/top.keys"
	KEYS_SENT=0
	tmx new-session -d -s "$SESSION" -x "$cols" -y "$rows" \
		"env LANG=C.UTF-8 FABPROBE_TEST_KEYS=$TMP/top.keys $FABPROBE top $* 2>$TMP/top.err; \
		echo \$? >$TMP/top.rc"
	tmx set-option -t "$SESSION" remain-on-exit on >/dev/null
}
# poll SECONDS CMD...: CMD every 0.1 s until it succeeds, for up to SECONDS; 0 if it did.
poll() {
	local n=$(($1 * 10)) _
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# top_rc [SECONDS]: top's exit status once it has one (up to 5 s), else "".
top_rc() {
	poll "${1:-5}" test -s "$TMP/top.rc"
	cat "$TMP/top.rc" 2>/dev/null
}
# quit_rc: press q and print top's exit status.
quit_rc() {
	keys q
	top_rc
}
# screen: the pane's text now.
screen() { tmx capture-pane -p -t "$SESSION" 2>/dev/null; }
show() {
	echo "----- screen: $1"
	screen | sed 's/[[:space:]]*$//'
	echo "-----"
}
maybe_show() { [ -z "${TOP_TMUX_SHOW:-}" ] || show "$1"; }
# selected: the first line under the tabs drawn in reverse video (the
# selection; a view with a sorted column has its title so too), escapes out.
selected() {
	tmx capture-pane -p -e -t "$SESSION" 2>/dev/null | tail -n +5 | grep -m1 -E $'\e\\[([0-9]+;)*7m' |
		sed 's/\x1b\[[0-9;]*m//g'
}
screen_has() { screen | grep -qE -- "$1"; }
line_has() { screen | sed -n "${1}p" | grep -qE -- "$2"; }
selected_has() { selected | grep -qE -- "$1"; }
# wait_screen ERE [SECONDS]: until the screen matches (polling), 0 if it did.
wait_screen() {
	poll "${2:-10}" screen_has "$1" || {
		echo "     screen never matched: $1"
		return 1
	}
}
# wait_line N ERE [SECONDS]: until the screen's line N matches (polling), 0 if it did:
# a key's effect is awaited, not assumed after keys' half second.
wait_line() {
	poll "${3:-5}" line_has "$1" "$2" || {
		echo "     line $1 never matched: $2"
		return 1
	}
}
# wait_selected ERE [SECONDS]: until the selection matches (polling), 0 if it did.
wait_selected() {
	poll "${2:-5}" selected_has "$1" || {
		echo "     the selection never matched: $1 (it is: $(selected))"
		return 1
	}
}
# keys KEY...: send the keys (tmux key names, one key each), then wait
# until top has drawn the frame after the last of them: it appends a byte
# to $TMP/top.keys for each key it read, once that frame is written
# (FABPROBE_TEST_KEYS, set by start), or until top has exited (q). No frame
# in 10 s is a failed check (FAIL, tests/lib/check.sh). A fixed half second
# was both slow and, under valgrind, a guess.
keys() { send_keys "$#" "$@"; }
# send_keys N ARGS...: tmux send-keys ARGS, which are N keys; then wait as keys does.
# The count goes on from what top has drawn, where keys went round it.
send_keys() {
	local n=$1 drawn _
	shift
	drawn=$(keys_drawn)
	[ "$drawn" -gt "$KEYS_SENT" ] && KEYS_SENT=$drawn
	KEYS_SENT=$((KEYS_SENT + n))
	tmx send-keys -t "$SESSION" "$@"
	for _ in $(seq 500); do
		if [ "$(keys_drawn)" -ge "$KEYS_SENT" ] || [ -s "$TMP/top.rc" ]; then
			sleep 0.05 # tmux reads the frame from its terminal
			return 0
		fi
		sleep 0.02
	done
	FAIL=$((FAIL + 1))
	echo "FAIL top drew no frame after keys '$*' in 10 s ($(keys_drawn) of $KEYS_SENT keys)" >&2
}
keys_drawn() { stat -c %s "$TMP/top.keys" 2>/dev/null || echo 0; }
type_filter() {
	keys /
	send_keys "${#1}" -l "$1"
	keys Enter
}
matches() { grep -qE -- "$2" <<<"$1" || { echo "     no line matches: $2"; return 1; }; }
not_matches() { ! grep -qE -- "$2" <<<"$1" || { echo "     a line matches: $2"; return 1; }; }
ge() { [ "$1" -ge "$2" ] || { echo "     $1 < $2"; return 1; }; }
one_of() {
	local want=$1
	shift
	for x in "$@"; do [ "$want" = "$x" ] && return 0; done
	echo "     '$want' is none of: $*"
	return 1
}
# widest TEXT: the widest line in characters (UTF-8 aware).
widest() { python3 -c 'import sys; print(max((len(l.rstrip("\n")) for l in sys.stdin), default=0))' <<<"$1"; }
