#!/usr/bin/env bash
# faults.sh: the slow part of the fault suite (issue 9). Against one real
# session it runs the churn and exhaustion attacks and prints the server's
# open fds, goroutines and resident memory before and after each, from
# `melmux debug` (the debug_stats method):
#
#   1. PANES open_pane/kill_pane cycles (default 1,000), a connection each;
#   2. ATTACHES attach/detach cycles (default 500): half detached by the
#      server, half by the client closing its connection;
#   3. 20 connections x 64 waits that never come true, then closed (9.3);
#   4. 200 clients of 300x100 that never read, against the default
#      max_clients (16), then closed (9.7); and one claiming 65535x65535;
#   5. the fd limit reached: the daemon's soft RLIMIT_NOFILE lowered to 40
#      (prlimit), 60 raw connections at once; the session must live and
#      serve afterwards (9.1);
#   6. `melmux mcp` fed one 95 MiB line, six of them pipelined, a 200 MiB
#      line (over its limit) and a legitimate 32 MiB write_file, each in a
#      fresh process, with its peak resident memory (VmHWM) once it has
#      answered (issue 19.16): six lines must cost about what one does, and
#      a line over the limit less than one under it;
#   7. the third round's attacks (bench/faults/third.go): a 120 KB title,
#      a 6 MB history read whole, a paste rebuilding its end marker, a
#      forged agent report; each must be refused or arrive whole;
#   8. with FUZZTIME set (e.g. FUZZTIME=5m), every fuzz target of the repo
#      for that long each, one worker, and its execution count.
#
# It builds melmux and the driver (bench/faults) from this checkout into a
# temporary directory, runs the session in private runtime, state and config
# directories, and kills what it started on exit. Exit status 1 if a check
# failed (a fd or goroutine count that did not come back, a session that did
# not survive, a melmux mcp answer or peak out of bounds, a fuzz failure).
#
# Usage: bench/faults.sh        (environment: PANES=1000 ATTACHES=500
#                                FUZZTIME= (no fuzzing) KEEP=0)
# Needs: go, prlimit (util-linux), awk.
set -euo pipefail

PANES=${PANES:-1000}
ATTACHES=${ATTACHES:-500}
FUZZTIME=${FUZZTIME:-}
KEEP=${KEEP:-0}

die() {
	echo "faults.sh: $*" >&2
	exit 2
}
case $PANES in '' | *[!0-9]* | 0) die "PANES=$PANES: give a whole number of cycles >= 1" ;; esac
case $ATTACHES in '' | *[!0-9]* | 0) die "ATTACHES=$ATTACHES: give a whole number of cycles >= 1" ;; esac
for tool in go prlimit awk; do
	command -v "$tool" >/dev/null || die "needs $tool on PATH"
done

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/melmux-faults.XXXXXX")
mkdir -m 700 "$work/run" "$work/state" "$work/config"
export XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
unset MELMUX_SOCKET MELMUX_SESSION MELMUX_PANE TMUX TMUX_PANE
M=$work/melmux
F=$work/faults
server_pid=

cleanup() {
	"$M" kill-server >/dev/null 2>&1 || true
	# A daemon that did not answer kill-server: end it by the pid it gave.
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
	if [ "$KEEP" = 1 ]; then
		echo "kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failures=0
fail() {
	echo "FAILED: $*" >&2
	failures=$((failures + 1))
}

# field KEY LINE: the value after KEY in a driver line (`label fds 14 ...`).
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

rows=() # the summary table
# row TEST BEFORE AFTER [WITH]: one line of the summary from driver lines.
row() {
	local with=${4:-}
	local w_fds=- w_gor=- w_rss=-
	if [ -n "$with" ]; then
		w_fds=$(field fds "$with") w_gor=$(field goroutines "$with") w_rss=$(mib "$(field rss_kib "$with")")
	fi
	rows+=("| $1 | $(field fds "$2") / $w_fds / $(field fds "$3") | $(field goroutines "$2") / $w_gor / $(field goroutines "$3") | $(mib "$(field rss_kib "$2")") / $w_rss / $(mib "$(field rss_kib "$3")") |")
}
# back TEST BEFORE AFTER: the fds and goroutines came back to where they were.
back() {
	local f0 f1 g0 g1
	f0=$(field fds "$2") f1=$(field fds "$3") g0=$(field goroutines "$2") g1=$(field goroutines "$3")
	[ "$f1" -le "$f0" ] || fail "$1: fds $f0 before, $f1 after"
	[ "$g1" -le $((g0 + 2)) ] || fail "$1: goroutines $g0 before, $g1 after"
}

echo "== setup"
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/" ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server && go build -o "$F" ./bench/faults)
echo "machine: $(nproc) cores, $(uname -sr); go: $(go env GOVERSION); melmux at $(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$M" new -d -x 200 -y 50 -- sleep 100000
server_pid=$("$M" debug --json | awk -F'[:,]' '/"pid"/ { gsub(/ /, "", $2); print $2 }')
start=$("$F" stats)
echo "$start"

echo "== $PANES open_pane/kill_pane cycles"
before=$("$F" stats)
"$F" panes "$PANES"
after=$("$F" stats)
echo "$before"
echo "$after"
row "$PANES open/kill pane cycles" "$before" "$after"
back "open/kill" "$before" "$after"

echo "== $ATTACHES attach/detach cycles"
before=$("$F" stats)
"$F" attach "$ATTACHES"
after=$("$F" stats)
echo "$before"
echo "$after"
row "$ATTACHES attach/detach cycles" "$before" "$after"
back "attach/detach" "$before" "$after"

echo "== 20 connections x 64 waits that never come true, then closed"
before=$("$F" stats)
out=$("$F" waits 20 64)
echo "$out"
with=$(grep '^waiting ' <<<"$out")
after=$(grep '^closed ' <<<"$out")
row "20 conns x 64 waits, closed" "$before" "$after" "$with"
back "abandoned waits" "$before" "$after"

echo "== 200 clients of 300x100 that never read, then closed"
before=$("$F" stats)
out=$("$F" clients 200 300x100)
echo "$out"
with=$(grep '^attached fds' <<<"$out")
after=$(grep '^closed ' <<<"$out")
row "200 silent 300x100 clients ($(grep '^attached [0-9]' <<<"$out")), closed" "$before" "$after" "$with"
back "silent clients" "$before" "$after"

echo "== one client claiming 65535x65535"
before=$("$F" stats)
out=$("$F" hugesize)
echo "$out"
row "a 65535x65535 client, closed" "$before" "$(grep '^closed ' <<<"$out")" "$(grep '^huge ' <<<"$out")"

echo "== the fd limit reached: RLIMIT_NOFILE 40 and 60 connections at once"
# Only the soft limit is lowered: raising a hard limit back needs
# CAP_SYS_RESOURCE, and the server does not raise its soft limit again.
read -r soft hard < <(prlimit --pid "$server_pid" --nofile --output SOFT,HARD --noheadings)
limit=$soft:$hard
before=$("$F" stats)
prlimit --pid "$server_pid" --nofile="40:$hard"
"$F" conns 60
if ! panes=$("$M" list-panes 2>&1); then
	fail "the session did not serve after the fd limit was reached: $panes"
fi
kill -0 "$server_pid" 2>/dev/null || fail "the server died when the fd limit was reached"
after=$("$F" stats)
prlimit --pid "$server_pid" --nofile="$limit"
# The server logs a failed accept at most once a second.
refused=$(grep -c 'accept failed' "$XDG_STATE_HOME/melmux/main.log" || true)
echo "failed accepts logged: $refused ($(grep -m1 'accept failed' "$XDG_STATE_HOME/melmux/main.log" | grep -o 'err="[^"]*"' || true))"
[ "$refused" -gt 0 ] || fail "fd limit: no accept failed, so the limit was not reached"
echo "$before"
echo "$after"
row "fd limit 40, 60 connections at once" "$before" "$after"
back "fd limit" "$before" "$after"

echo "== melmux mcp: one 95 MiB line, six pipelined, a 200 MiB line, a 32 MiB write_file"
mcp_rows=()
if out=$("$F" mcp "$M"); then
	echo "$out"
	while read -r label _ lines _ size _ hwm _ answer; do
		mcp_rows+=("| ${label#mcp_} | $lines x $size MiB | $(mib "$hwm") | ${answer:--} |")
	done <<<"$out"
	one=$(field hwm_kib "$(grep '^mcp_line ' <<<"$out")")
	six=$(field hwm_kib "$(grep '^mcp_pipelined ' <<<"$out")")
	over=$(field hwm_kib "$(grep '^mcp_overlong ' <<<"$out")")
	# Bounded means six lines cost about one, and a line over the limit,
	# dropped as it goes over, less than one read whole.
	[ "$six" -le $((one * 3 / 2)) ] || fail "melmux mcp: six pipelined lines peaked at $(mib "$six") MiB, one at $(mib "$one") MiB"
	[ "$over" -lt "$one" ] || fail "melmux mcp: a line over the limit peaked at $(mib "$over") MiB, one under it at $(mib "$one") MiB"
else
	fail "melmux mcp attack (see above)"
fi

echo "== third round: a 120 KB title, a 6 MB history read whole, a paste that rebuilds its end marker, a forged agent report"
before=$("$F" stats)
mkdir -p "$work/third"
if out=$("$F" third "$work/third"); then
	echo "$out"
else
	echo "$out"
	fail "third-round attacks (see above)"
fi
after=$("$F" stats)
row "third-round attacks" "$before" "$after"

end=$("$F" stats)
echo "== whole run"
echo "$start"
echo "$end"
row "the whole run" "$start" "$end"

fuzz_rows=()
if [ -n "$FUZZTIME" ]; then
	echo "== fuzzing, $FUZZTIME per target, one worker"
	while read -r pkg target; do
		log="$work/fuzz-${target}.log"
		echo "-- $pkg $target"
		if (cd "$repo" && go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" -parallel 1) >"$log" 2>&1; then
			execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{ print $2 }')
			fuzz_rows+=("| \`$pkg\` \`$target\` | ${execs:-?} | none |")
			echo "ok: ${execs:-?} executions"
		else
			fuzz_rows+=("| \`$pkg\` \`$target\` | - | FAILED (see $log) |")
			fail "fuzz $pkg $target (log: $log)"
			KEEP=1
		fi
	done < <(cd "$repo" && grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
		grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |./$(dirname "${f#./}") |"
	done | sort)
fi

echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| test | fds before / with / after | goroutines before / with / after | RSS MiB before / with / after |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ ${#mcp_rows[@]} -gt 0 ]; then
	echo
	echo "| melmux mcp fed | lines | peak RSS MiB (VmHWM) | first answer |"
	echo "|---|---|---|---|"
	printf '%s\n' "${mcp_rows[@]}"
fi
if [ ${#fuzz_rows[@]} -gt 0 ]; then
	echo
	echo "| fuzz target ($FUZZTIME) | executions | failures |"
	echo "|---|---|---|"
	printf '%s\n' "${fuzz_rows[@]}"
fi
[ "$failures" = 0 ] || exit 1
