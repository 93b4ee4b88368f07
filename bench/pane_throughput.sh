#!/usr/bin/env bash
# pane_throughput.sh: melmux against tmux, same machine, same run.
#
#   1. one headless 200x50 pane cats a SIZE_MB file of each stream of
#      bench/streams (plain text, SGR-coloured words, a cursor-heavy redraw,
#      an Ink-style agent UI; and everyday shapes: a watch-style status line
#      and clear that never homes, clear-and-redraw, log lines and a clear,
#      a log in a scroll region, reverse index at the top): time from session start until the pane's
#      process has ended AND the emulator shows the stream's last line on
#      screen; MB/s and the ratio melmux/tmux, median of RUNS;
#   2. FLOOD panes (tabs / windows) each cat the plain file at once: total
#      MB/s until all have ended and show their last line;
#   3. CLEARS times "clear the screen, line feed" in one pane, until the last
#      line shows;
#   4. ten 200x50 panes (tabs / windows) each print 2000 lines: time until all
#      ten have ended and show their last line, median of RUNS; then the
#      server's resident memory (VmRSS, once it stopped falling) while the
#      ten panes hold their 2000 lines of history, and a check that no line
#      was lost; the same RSS for
#      twenty panes holding 10,000 SGR-coloured lines each. Both memory tests
#      run once for each way of holding the panes in HOLD: "ended" (the
#      program has ended; tmux keeps the pane with remain-on-exit) and "live"
#      (the program prints its lines and then waits, `exec sleep`, as a shell
#      at its prompt or an agent CLI waiting for its next message does).
#   Each test also reports the server process's CPU time (/proc/PID/stat),
#   which the machine's other load disturbs far less than wall time, and a
#   baseline: session start with a silent pane, and an idle server's RSS.
#
# It builds melmux from this checkout into a temporary directory, runs every
# server in private directories (XDG_RUNTIME_DIR for melmux, a socket path for
# tmux) and kills them all on exit. The last thing it prints is a markdown
# summary for docs/benchmarks.md.
#
# Usage: bench/pane_throughput.sh
#   environment: RUNS=3 SIZE_MB=20
#   KINDS="plain sgr cursor ink watch homeclear logclear region ri" FLOOD=8
#   CLEARS=1000000 HOLD="ended live" KEEP=0 (KEEP=1 keeps the temporary
#   directory)
#   MELMUX_BIN=PATH (measure that binary, with the melmux-server and
#   melmux-agent beside it, instead of building this checkout,
#   e.g. an older commit's, for bench/changes.sh); a test is
#   left out with FLOOD=0 or CLEARS=0 or KINDS="", the memory tests with
#   HOLD=""
# Needs: go, tmux, awk, seq. Exit status 1 if a correctness check failed.
set -euo pipefail

RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-20}
KINDS=${KINDS-plain sgr cursor ink watch homeclear logclear region ri}
FLOOD=${FLOOD:-8}
CLEARS=${CLEARS:-1000000}
HOLD=${HOLD-ended live}
KEEP=${KEEP:-0}
COLS=200
ROWS=50
PANES=10
LINES_PER_PANE=2000
SGR_PANES=20
SGR_LINES=10000
HISTORY=10000 # melmux's default scrollback; tmux is given the same limit

die() {
	echo "pane_throughput.sh: $*" >&2
	exit 2
}
case $RUNS in '' | *[!0-9]* | 0) die "RUNS=$RUNS: give a whole number of runs >= 1" ;; esac
case $SIZE_MB in '' | *[!0-9]* | 0) die "SIZE_MB=$SIZE_MB: give a whole number of megabytes >= 1" ;; esac
case $FLOOD in '' | *[!0-9]*) die "FLOOD=$FLOOD: give a whole number of panes (0 leaves the test out)" ;; esac
case $CLEARS in '' | *[!0-9]*) die "CLEARS=$CLEARS: give a whole number of clears (0 leaves the test out)" ;; esac
for h in $HOLD; do
	case $h in ended | live) ;;
	*) die "HOLD: no way $h to hold the memory tests' panes (the ways are ended and live)" ;;
	esac
done
for kind in $KINDS; do
	case $kind in plain | sgr | cursor | ink | watch | homeclear | logclear | region | ri) ;;
	*) die "KINDS: no stream $kind (the streams are plain sgr cursor ink watch homeclear logclear region ri)" ;;
	esac
done
for tool in go tmux awk seq; do
	command -v "$tool" >/dev/null || die "needs $tool on PATH"
done

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/melmux-bench.XXXXXX")
mkdir -m 700 "$work/run" "$work/state"
# Private melmux socket and log directories; a pane started from inside tmux or
# melmux must not talk to the caller's server.
export XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state
unset TMUX TMUX_PANE MELMUX_SOCKET MELMUX_PANE
M=$work/melmux
TSOCK=$work/tmux.sock
T() { tmux -S "$TSOCK" "$@"; }

started=() # melmux sessions this script started
cleanup() {
	local s
	for s in "${started[@]+"${started[@]}"}"; do
		"$M" -s "$s" kill-server >/dev/null 2>&1 || true
	done
	# A daemon that did not answer kill-server still lives under our private
	# runtime directory; end it by its pid.
	pgrep -f "__serve -s .* --socket $XDG_RUNTIME_DIR/" | xargs -r kill 2>/dev/null || true
	T kill-server >/dev/null 2>&1 || true
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
	echo "CORRECTNESS: $*" >&2
	failures=$((failures + 1))
}

# dump_err: the first failed screen dump's error, if it printed one.
dump_err() { [ ! -s "$work/dump.err" ] || printf '; first read error: %s' "$(head -c 300 "$work/dump.err")"; }
now_ns() { date +%s%N; }
# secs START END: elapsed seconds with millisecond precision.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
# median of the numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }
mbps() { awk -v n="$1" -v s="$2" 'BEGIN { if (s == 0) print "n/a"; else printf "%.1f", n / s / 1e6 }'; }
# cpu_ticks PID: user+system CPU the process has used, in clock ticks. The
# name field may hold spaces ("tmux: server"), so count fields after it.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
HZ=$(getconf CLK_TCK)
cpu_secs() { awk -v a="$1" -v b="$2" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# melmux_server_pid NAME: the daemon of session NAME (exactly one).
melmux_server_pid() {
	local pids
	pids=$(pgrep -f "__serve -s $1 --socket $XDG_RUNTIME_DIR/" || true)
	[ "$(printf '%s\n' "$pids" | grep -c .)" = 1 ] || die "cannot find the one melmux server of session $1 (found: ${pids:-none})"
	echo "$pids"
}

# until_screen_shows WANT CMD...: run CMD (a screen dump) until one of its lines
# is exactly WANT; print how many dumps that took. Gives up after 60 s. The
# first failed dump's error output is kept in $work/dump.err for the report.
until_screen_shows() {
	local want=$1 n=0 out deadline=$((SECONDS + 60))
	shift
	: >"$work/dump.err"
	while :; do
		n=$((n + 1))
		# Read the whole dump before matching: grep -q would stop reading at
		# the match and the dumper's next write would fail, which pipefail
		# turns into a miss.
		if out=$("$@" 2>"$work/dump.try") && grep -xF -- "$want" <<<"$out" >/dev/null; then
			echo "$n"
			return 0
		fi
		[ -s "$work/dump.err" ] || cp "$work/dump.try" "$work/dump.err"
		[ $SECONDS -lt $deadline ] || {
			echo "$n"
			return 1
		}
		sleep 0.005
	done
}

echo "== setup"
if [ -n "${MELMUX_BIN:-}" ]; then
	[ -x "$MELMUX_BIN" ] || die "MELMUX_BIN=$MELMUX_BIN: not an executable file"
	echo "melmux: $MELMUX_BIN"
	cp "$MELMUX_BIN" "$M"
	# The binaries melmux runs (its session server, its agent verbs) come
	# from beside it; a build from before the split has none.
	for sibling in melmux-server melmux-agent; do
		if [ -x "$(dirname "$MELMUX_BIN")/$sibling" ]; then cp "$(dirname "$MELMUX_BIN")/$sibling" "$work/"; fi
	done
else
	echo "building melmux from $repo"
	(cd "$repo" && CGO_ENABLED=0 go build -o "$work/" ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server)
fi
echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -sr)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews both tools alike only if it stays steady)"
echo "tmux: $(tmux -V); go: $(go env GOVERSION); melmux at ${MELMUX_REV:-$(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

# tmux gets the same pane content size (a detached tmux window is exactly
# -x by -y: the status line belongs to a client, and there is none), the
# same history depth as melmux, and keeps dead panes so their screen and
# history stay readable, as melmux does.
cat >"$work/tmux.conf" <<EOF
set -g history-limit $HISTORY
set -g remain-on-exit on
EOF

bytes=$((SIZE_MB * 1000 * 1000))
(cd "$repo" && go build -o "$work/gen" ./bench/streams/gen)
declare -A file last size
# stream KIND BYTES FILE: writes the stream, sets file, last (the line the
# screen shows last) and size for KIND.
stream() {
	"$work/gen" "$1" "$2" >"$3"
	file[$1]=$3
	last[$1]=$("$work/gen" -last "$1")
	size[$1]=$(wc -c <"$3")
	echo "$1 stream: ${size[$1]} bytes, $(wc -l <"$3") lines"
}
for kind in $KINDS; do
	stream "$kind" "$bytes" "$work/$kind.txt"
done
[ "$FLOOD" = 0 ] || [ -n "${file[plain]:-}" ] || stream plain "$bytes" "$work/plain.txt"
# "\e[2J\n" is 5 bytes; the PTY makes it 6.
[ "$CLEARS" = 0 ] || stream clears $((CLEARS * 5)) "$work/clears.txt"
"$work/gen" sgr $((SGR_LINES * 200)) | awk -v n="$SGR_LINES" 'NR <= n' >"$work/sgr10k.txt"
sgr10k_last=$(tail -n 1 "$work/sgr10k.txt" | sed 's/\x1b\[[0-9;]*m//g; s/ *$//')

# kill_melmux NAME: end the session and make sure its daemon is gone. A
# kill-server that reports an error but did end the server is noted, not
# fatal: see kill_notes in the summary.
kill_notes=0
kill_melmux() {
	local pid i
	pid=$(melmux_server_pid "$1")
	if ! "$M" -s "$1" kill-server >/dev/null 2>"$work/kill.err"; then
		echo "note: melmux -s $1 kill-server failed: $(cat "$work/kill.err")" >&2
		kill_notes=$((kill_notes + 1))
	fi
	for ((i = 0; i < 500; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.01
	done
	fail "melmux session $1: server $pid still running 5 s after kill-server"
}

# check_geometry_melmux NAME: every pane of the session is COLSxROWS.
check_geometry_melmux() {
	local bad
	bad=$("$M" -s "$1" list-panes --json | awk -v c="$COLS" -v r="$ROWS" '
		/"cols":/ { gsub(/[^0-9]/, ""); col = $0 }
		/"rows":/ { gsub(/[^0-9]/, ""); if (col != c || $0 != r) print col "x" $0 }')
	[ -z "$bad" ] || fail "melmux session $1 has panes of ${bad//$'\n'/, }, want ${COLS}x$ROWS"
}
check_geometry_tmux() {
	local bad
	bad=$(T list-panes -s -t "=$1" -F '#{pane_width}x#{pane_height}' | grep -vx "${COLS}x$ROWS" || true)
	[ -z "$bad" ] || fail "tmux session $1 has panes of ${bad//$'\n'/, }, want ${COLS}x$ROWS"
}

# hold: how the panes of multi_melmux and multi_tmux end: "ended" (CMD's
# end ends the pane's program) or "live" (the program waits after CMD, as a
# shell at its prompt would, and the panes count as done once they show
# LAST). The memory tests set it; the rest run ended.
hold=ended
# live_tail: what a live pane's program runs after CMD.
live_tail='exec sleep 1000000'

# multi_melmux NAME N CMD LAST: a session of N panes (the first from new,
# the others tabs), each running CMD; sets elapsed to the seconds until every
# pane ended and shows LAST (none when LAST is empty; a live pane: until it
# shows LAST), cpu to the daemon's CPU seconds since it started, melmux_rss
# to its RSS in kB. (Results go through globals, not $(...), so that started
# and failures, kept by the caller's shell, see what happened.)
multi_melmux() {
	local s=$1 n=$2 cmd=$3 want=$4 t0 t1 i tries pid
	[ "$hold" = ended ] || cmd="$cmd; $live_tail"
	t0=$(now_ns)
	"$M" -s "$s" new -d -x "$COLS" -y $((ROWS + 2)) -- sh -c "$cmd"
	started+=("$s")
	for ((i = 2; i <= n; i++)); do
		"$M" -s "$s" open-pane --layout tab -- sh -c "$cmd" >/dev/null
	done
	for ((i = 1; i <= n; i++)); do
		if [ "$hold" = live ]; then
			until_screen_shows "$want" "$M" -s "$s" read-pane -t "$i" >/dev/null || fail "melmux $s pane $i: the last line never showed$(dump_err)"
			continue
		fi
		"$M" -s "$s" wait -t "$i" --exit --timeout 10m >/dev/null
		[ -n "$want" ] || continue
		tries=$(until_screen_shows "$want" "$M" -s "$s" read-pane -t "$i") || fail "melmux $s pane $i: the last line never showed after wait --exit"
		[ "$tries" = 1 ] || fail "melmux $s pane $i: wait --exit returned before the emulator had the last line (read-pane needed $tries tries$(dump_err))"
	done
	t1=$(now_ns)
	pid=$(melmux_server_pid "$s")
	cpu=$(cpu_secs 0 "$(cpu_ticks "$pid")")
	melmux_rss=$(rss_kb "$pid")
	check_geometry_melmux "$s"
	elapsed=$(secs "$t0" "$t1")
}

# multi_tmux NAME N CMD LAST: the same in a detached tmux session (windows),
# cpu being what the shared server used meanwhile; leaves the session up.
multi_tmux() {
	local s=$1 n=$2 cmd=$3 want=$4 t0 t1 c0 i after=
	[ "$hold" = ended ] || after="; $live_tail"
	tids=()
	c0=$(cpu_ticks "$tpid")
	t0=$(now_ns)
	tids+=("$(T -f "$work/tmux.conf" new-session -d -P -F '#{pane_id}' -s "$s" -x "$COLS" -y "$ROWS" \
		"$cmd; tmux -S '$TSOCK' wait-for -S $s-1$after")")
	for ((i = 2; i <= n; i++)); do
		tids+=("$(T new-window -d -P -F '#{pane_id}' -t "=$s:" "$cmd; tmux -S '$TSOCK' wait-for -S $s-$i$after")")
	done
	for ((i = 1; i <= n; i++)); do
		T wait-for "$s-$i"
		# wait-for only says the command ended; the server may still be
		# reading the PTY's tail, so the time runs until the last line shows.
		until_screen_shows "$want" T capture-pane -p -t "${tids[i - 1]}" >/dev/null || fail "tmux $s pane $i: the last line never showed"
	done
	t1=$(now_ns)
	cpu=$(cpu_secs "$c0" "$(cpu_ticks "$tpid")")
	check_geometry_tmux "$s"
	elapsed=$(secs "$t0" "$t1")
}

# compare TITLE N CMD LAST BYTES KEY: RUNS rounds of multi_melmux and
# multi_tmux; records the medians under KEY (wall and CPU seconds, bytes).
declare -A med_m med_t med_mc med_tc med_bytes med_title
keys=()
compare() {
	local title=$1 n=$2 cmd=$3 want=$4 nbytes=$5 key=$6 r ms=() ts=() msc=() tsc=()
	echo
	echo "== $title ($RUNS runs)"
	for ((r = 1; r <= RUNS; r++)); do
		multi_melmux "$key-$r" "$n" "$cmd" "$want"
		kill_melmux "$key-$r"
		ms+=("$elapsed") msc+=("$cpu")
		multi_tmux "$key-$r" "$n" "$cmd" "$want"
		T kill-session -t "=$key-$r"
		ts+=("$elapsed") tsc+=("$cpu")
		echo "run $r: melmux ${ms[r - 1]} s ($(mbps "$nbytes" "${ms[r - 1]}") MB/s, server CPU ${msc[r - 1]} s), tmux ${ts[r - 1]} s ($(mbps "$nbytes" "${ts[r - 1]}") MB/s, server CPU ${tsc[r - 1]} s)"
	done
	med_m[$key]=$(median "${ms[@]}")
	med_t[$key]=$(median "${ts[@]}")
	med_mc[$key]=$(median "${msc[@]}")
	med_tc[$key]=$(median "${tsc[@]}")
	med_bytes[$key]=$nbytes
	med_title[$key]=$title
	keys+=("$key")
}

seqfmt='line %g of some text for the pane throughput benchmark, padded a little'
panes_last=$(seq -f "$seqfmt" "$LINES_PER_PANE" "$LINES_PER_PANE")

# count_lines: how many of 1..LINES_PER_PANE appear, each once and in order.
count_lines() {
	awk '/^line [0-9]+ of some text/ { if ($2 == want + 1) want++; else bad++ }
		END { if (bad) print want "+" bad " out of order"; else print want }'
}

# settled_rss PID: the process's RSS in kB once it has stopped falling: half
# a second after the panes showed their last line, then every quarter of a
# second while it fell by more than 1%, for at most 5 s more. melmux gives
# memory back once output has been quiet for 200 ms (history deflated,
# emulators retired, free pages returned), which on a loaded machine can
# take longer than the half second; tmux's does not change.
settled_rss() {
	local prev cur i
	sleep 0.5
	cur=$(rss_kb "$1")
	for ((i = 0; i < 20; i++)); do
		prev=$cur
		sleep 0.25
		cur=$(rss_kb "$1")
		[ "$((cur * 100))" -lt "$((prev * 99))" ] || break
	done
	echo "$cur"
}

# held_melmux NAME N CMD LAST: N panes run CMD, then the server's RSS in kB
# (melmux_rss, settled_rss) while the panes hold their history; panes_secs
# and cpu as multi_melmux's. The session is left up for the caller's checks.
held_melmux() {
	multi_melmux "$@"
	melmux_rss=$(settled_rss "$(melmux_server_pid "$1")")
	panes_secs=$elapsed
}
held_tmux() {
	multi_tmux "$@"
	tmux_rss=$(settled_rss "$tpid") # the keepalive session is in it too: one small pane
	panes_secs=$elapsed
}

# tmux's server stays up between tests (as a user's would); start it with a
# session that only holds it open, so the first timed run does not pay for it
# alone. melmux starts one server per session by design, so each melmux run
# includes a server start; the baseline row below shows what that costs.
# Before a memory test the tmux server starts afresh: it keeps the memory an
# earlier test made it take.
fresh_tmux() {
	local i
	if [ -n "${tpid:-}" ]; then
		T kill-server >/dev/null 2>&1 || true
		for ((i = 0; i < 500; i++)); do
			kill -0 "$tpid" 2>/dev/null || break
			sleep 0.01
		done
		rm -f "$TSOCK"
	fi
	T -f "$work/tmux.conf" new-session -d -s keepalive -x 20 -y 5 'sleep 100000'
	tpid=$(T display-message -p '#{pid}')
}
fresh_tmux

echo
echo "== baseline: start a session whose pane prints nothing, until it has ended ($RUNS runs)"
mb=() tb=() mbc=() tbc=() mbr=() tbr=()
for ((r = 1; r <= RUNS; r++)); do
	multi_melmux "base-$r" 1 true ""
	kill_melmux "base-$r"
	mb+=("$elapsed") mbc+=("$cpu") mbr+=("$melmux_rss")
	c0=$(cpu_ticks "$tpid")
	t0=$(now_ns)
	T new-session -d -s "base-$r" -x "$COLS" -y "$ROWS" "tmux -S '$TSOCK' wait-for -S base-$r-done"
	T wait-for "base-$r-done"
	t1=$(now_ns)
	tbc+=("$(cpu_secs "$c0" "$(cpu_ticks "$tpid")")")
	T kill-session -t "=base-$r"
	tb+=("$(secs "$t0" "$t1")")
	tbr+=("$(rss_kb "$tpid")")
	echo "run $r: melmux ${mb[r - 1]} s (server CPU ${mbc[r - 1]} s, RSS $(mib "${mbr[r - 1]}") MiB), tmux ${tb[r - 1]} s (server CPU ${tbc[r - 1]} s, RSS $(mib "${tbr[r - 1]}") MiB)"
done
base_m=$(median "${mb[@]}")
base_t=$(median "${tb[@]}")
base_mr=$(median "${mbr[@]}")
base_tr=$(median "${tbr[@]}")

for kind in $KINDS; do
	compare "cat of the $SIZE_MB MB $kind stream in one ${COLS}x$ROWS pane" 1 "cat '${file[$kind]}'" "${last[$kind]}" "${size[$kind]}" "$kind"
done
if [ "$FLOOD" != 0 ]; then
	compare "$FLOOD panes each cat the $SIZE_MB MB plain stream at once" "$FLOOD" "cat '${file[plain]}'" "${last[plain]}" $((FLOOD * ${size[plain]})) "flood"
fi
if [ "$CLEARS" != 0 ]; then
	compare "$CLEARS times clear the screen and a line feed, in one pane" 1 "cat '${file[clears]}'" "${last[clears]}" "${size[clears]}" "clears"
fi

seqfmt='line %g of some text for the pane throughput benchmark, padded a little'
panes_last=$(seq -f "$seqfmt" "$LINES_PER_PANE" "$LINES_PER_PANE")
# count_lines: how many of 1..LINES_PER_PANE appear, each once and in order.
count_lines() {
	awk '/^line [0-9]+ of some text/ { if ($2 == want + 1) want++; else bad++ }
		END { if (bad) print want "+" bad " out of order"; else print want }'
}

# The memory tests, once for each way of holding the panes.
declare -A pan_m pan_t pan_mc pan_tc rss_m rss_t sgr_rss_m sgr_rss_t
held_what() {
	case $1 in
	ended) echo "panes ended (tmux: remain-on-exit)" ;;
	live) echo "panes live and quiet (the program waits after its output)" ;;
	esac
}
for hold in $HOLD; do
	echo
	echo "== $PANES panes x $LINES_PER_PANE lines, ${COLS}x$ROWS each, $(held_what "$hold") ($RUNS runs)"
	ps_m=() ps_t=() rs_m=() rs_t=() pc_m=() pc_t=()
	for ((r = 1; r <= RUNS; r++)); do
		s="panes-$hold-$r"
		fresh_tmux
		held_melmux "$s" "$PANES" "seq -f '$seqfmt' $LINES_PER_PANE" "$panes_last"
		for ((i = 1; i <= PANES; i++)); do
			got=$("$M" -s "$s" read-pane -t "$i" --all | count_lines)
			[ "$got" = "$LINES_PER_PANE" ] || fail "melmux $s pane $i: history and screen hold $got of $LINES_PER_PANE lines"
		done
		kill_melmux "$s"
		ps_m+=("$panes_secs") rs_m+=("$melmux_rss") pc_m+=("$cpu")
		held_tmux "$s" "$PANES" "seq -f '$seqfmt' $LINES_PER_PANE" "$panes_last"
		for ((i = 1; i <= PANES; i++)); do
			got=$(T capture-pane -p -S - -E - -t "${tids[i - 1]}" | count_lines)
			[ "$got" = "$LINES_PER_PANE" ] || fail "tmux $s pane $i: history and screen hold $got of $LINES_PER_PANE lines"
		done
		T kill-session -t "=$s"
		ps_t+=("$panes_secs") rs_t+=("$tmux_rss") pc_t+=("$cpu")
		echo "run $r: melmux ${ps_m[r - 1]} s (server CPU ${pc_m[r - 1]} s), RSS $(mib "${rs_m[r - 1]}") MiB; tmux ${ps_t[r - 1]} s (server CPU ${pc_t[r - 1]} s), RSS $(mib "$tmux_rss") MiB"
	done
	pan_m[$hold]=$(median "${ps_m[@]}")
	pan_t[$hold]=$(median "${ps_t[@]}")
	pan_mc[$hold]=$(median "${pc_m[@]}")
	pan_tc[$hold]=$(median "${pc_t[@]}")
	rss_m[$hold]=$(median "${rs_m[@]}")
	rss_t[$hold]=$(median "${rs_t[@]}")

	echo
	echo "== $SGR_PANES panes x $SGR_LINES SGR lines, ${COLS}x$ROWS each, $(held_what "$hold"): resident memory ($RUNS runs)"
	sr_m=() sr_t=()
	for ((r = 1; r <= RUNS; r++)); do
		fresh_tmux
		held_melmux "sgrmem-$hold-$r" "$SGR_PANES" "cat '$work/sgr10k.txt'" "$sgr10k_last"
		kill_melmux "sgrmem-$hold-$r"
		sr_m+=("$melmux_rss")
		held_tmux "sgrmem-$hold-$r" "$SGR_PANES" "cat '$work/sgr10k.txt'" "$sgr10k_last"
		T kill-session -t "=sgrmem-$hold-$r"
		sr_t+=("$tmux_rss")
		echo "run $r: melmux RSS $(mib "${sr_m[r - 1]}") MiB; tmux RSS $(mib "$tmux_rss") MiB"
	done
	sgr_rss_m[$hold]=$(median "${sr_m[@]}")
	sgr_rss_t[$hold]=$(median "${sr_t[@]}")
done
hold=ended

echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== summary (medians of $RUNS runs)"
echo
echo "Wall time runs from the first command until every pane has ended and shows its last line (a live pane: until it"
echo "shows its last line). Server CPU is the user+system time of the server process over the same span (melmux: its"
echo "own daemon; tmux: the shared server), which other load on the machine disturbs far less than wall time. Ratios"
echo "are melmux / tmux: above 1 means melmux is faster for MB/s, slower for seconds, bigger for memory."
echo
echo "| test | melmux | tmux | melmux/tmux |"
echo "|---|---|---|---|"
echo "| session start, pane prints nothing: wall | ${base_m} s | ${base_t} s | $(ratio "$base_m" "$base_t") (s) |"
echo "| same: server RSS after it (tmux: its one idle session) | $(mib "$base_mr") MiB | $(mib "$base_tr") MiB | $(ratio "$base_mr" "$base_tr") |"
for key in "${keys[@]}"; do
	nb=${med_bytes[$key]}
	mm=$(mbps "$nb" "${med_m[$key]}")
	tt=$(mbps "$nb" "${med_t[$key]}")
	mc=$(mbps "$nb" "${med_mc[$key]}")
	tc=$(mbps "$nb" "${med_tc[$key]}")
	echo "| ${med_title[$key]}: wall | ${med_m[$key]} s = $mm MB/s | ${med_t[$key]} s = $tt MB/s | $(ratio "$mm" "$tt") (MB/s) |"
	echo "| same: MB per server CPU second | ${med_mc[$key]} s = $mc MB/s | ${med_tc[$key]} s = $tc MB/s | $(ratio "$mc" "$tc") (MB/s) |"
done
for h in $HOLD; do
	what=$(held_what "$h")
	echo "| $PANES panes x $LINES_PER_PANE lines, $what: wall | ${pan_m[$h]} s | ${pan_t[$h]} s | $(ratio "${pan_m[$h]}" "${pan_t[$h]}") (s) |"
	echo "| same: server CPU | ${pan_mc[$h]} s | ${pan_tc[$h]} s | $(ratio "${pan_mc[$h]}" "${pan_tc[$h]}") (s) |"
	echo "| server RSS holding those $PANES panes' history, $what | $(mib "${rss_m[$h]}") MiB | $(mib "${rss_t[$h]}") MiB | $(ratio "${rss_m[$h]}" "${rss_t[$h]}") |"
	echo "| server RSS holding $SGR_PANES panes x $SGR_LINES SGR lines, $what | $(mib "${sgr_rss_m[$h]}") MiB | $(mib "${sgr_rss_t[$h]}") MiB | $(ratio "${sgr_rss_m[$h]}" "${sgr_rss_t[$h]}") |"
done
echo
if [ "$failures" -gt 0 ]; then
	echo "$failures correctness check(s) failed; see CORRECTNESS lines above" >&2
	exit 1
fi
[ "$kill_notes" = 0 ] || echo "note: melmux kill-server reported an error $kill_notes time(s) although the server ended"
echo "all correctness checks passed (last line on screen after exit, pane sizes, $LINES_PER_PANE of $LINES_PER_PANE lines kept per pane)"
