#!/usr/bin/env bash
# startup.sh: session start and an idle server, melmux against tmux, same run.
#
#   1. session start: `melmux new -d` with a pane that runs `true`, then
#      `melmux wait -t 1 --exit` (the clock stops when wait returns), as in
#      the baseline row of bench/pane_throughput.sh; tmux: `new-session -d`
#      whose pane runs `tmux wait-for -S CH`, then `tmux wait-for CH`, on a
#      tmux server that is already up (a user's usually is; melmux starts one
#      server per session by design, so its figure includes a server start),
#      and the same with no tmux server running (a first session: tmux's
#      figure then includes its server's start too, and kill-server after).
#      Wall time, median and minimum of RUNS, the binaries and tmux taking
#      turns so that the machine's other load falls on all of them alike.
#   2. one process's start: the CPU time (user+system, from perf stat when
#      perf works, else not shown) of `BINARY --version`, median of RUNS.
#   3. an idle server: a second after the session's pane ended, the daemon's
#      VmRSS with its parts (RssAnon, RssFile from /proc/PID/status; PSS
#      from /proc/PID/smaps_rollup) and its thread count, medians of 5
#      servers each measured alone (PSS divides shared pages among the
#      processes mapping them); tmux: a fresh server holding one idle
#      session.
#
# Usage: bench/startup.sh [BINARY...]
#   With no BINARY it builds melmux from this checkout (`CGO_ENABLED=0 go build`, as
#   README says); give several binaries to compare builds (for instance one
#   built at an older commit). Environment: RUNS=15.
# Needs: go, tmux, awk; perf for part 2.
set -euo pipefail

RUNS=${RUNS:-15}
case $RUNS in '' | *[!0-9]* | 0) echo "startup.sh: RUNS=$RUNS: give a whole number of runs >= 1" >&2 && exit 2 ;; esac
for tool in go tmux awk; do
	command -v "$tool" >/dev/null || {
		echo "startup.sh: needs $tool on PATH" >&2
		exit 2
	}
done

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/melmux-startup.XXXXXX")
mkdir -m 700 "$work/run" "$work/state"
export XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state
unset TMUX TMUX_PANE MELMUX_SOCKET MELMUX_PANE MELMUX_SESSION
TSOCK=$work/tmux.sock
T() { tmux -S "$TSOCK" "$@"; }

bins=()
if [ $# -eq 0 ]; then
	(cd "$repo" && CGO_ENABLED=0 go build -o "$work/" ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server)
	bins=("$work/melmux")
else
	for b in "$@"; do
		[ -x "$b" ] || {
			echo "startup.sh: $b is not an executable" >&2
			exit 2
		}
		bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")")
	done
fi

cleanup() {
	pgrep -f "__serve -s .* --socket $XDG_RUNTIME_DIR/" | xargs -r kill 2>/dev/null || true
	T kill-server >/dev/null 2>&1 || true
	local c
	for c in "$work"/cold*.sock; do
		if [ -S "$c" ]; then tmux -S "$c" kill-server >/dev/null 2>&1 || true; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Each melmux is measured from a copy made with install(1), as a package
# manager or `install` leaves a program: the Go linker writes its output
# through a memory map, and a binary fresh from it starts slower until its
# pages leave the page cache (small folios: about 0.18 ms more for
# `melmux --version` on the machine of docs/benchmarks.md), which would charge
# melmux for having just been built. tmux is the one installed on the machine.
names=("${bins[@]}")
for i in "${!bins[@]}"; do
	src=$(dirname "${bins[i]}")
	mkdir "$work/bin$i"
	for f in "$(basename "${bins[i]}")" melmux-server melmux-agent; do
		if [ -e "$src/$f" ]; then install -m 755 "$src/$f" "$work/bin$i/$f"; fi
	done
	bins[i]=$work/bin$i/$(basename "${bins[i]}")
done

now_us() { echo "${EPOCHREALTIME/./}"; }
# stats: median and minimum of the microsecond figures on stdin, in ms.
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "median %.1f ms, min %.1f ms", v[int((NR + 1) / 2)] / 1000, v[1] / 1000 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
pss_kb() { awk '$1 == "Pss:" { print $2 }' "/proc/$1/smaps_rollup"; }
server_pid() { pgrep -f "__serve -s $1 --socket $XDG_RUNTIME_DIR/"; }

echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -sr)"
echo "tmux: $(tmux -V); go: $(go env GOVERSION); melmux at $(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
for i in "${!bins[@]}"; do echo "binary ${names[i]}: $(stat -c %s "${bins[i]}") bytes"; done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

T new-session -d -s keepalive -x 20 -y 5 'sleep 100000'
declare -A start
for ((r = 1; r <= RUNS; r++)); do
	for i in "${!bins[@]}"; do
		b=${bins[i]} s=start$r-$i
		t0=$(now_us)
		"$b" -s "$s" new -d -x 200 -y 52 -- sh -c true
		"$b" -s "$s" wait -t 1 --exit --timeout 1m >/dev/null
		t1=$(now_us)
		start[$i]+=" $((t1 - t0))"
		"$b" -s "$s" kill-server >/dev/null 2>&1 || true
	done
	t0=$(now_us)
	T new-session -d -s "start$r" -x 200 -y 50 "tmux -S '$TSOCK' wait-for -S start$r-done"
	T wait-for "start$r-done"
	t1=$(now_us)
	start[tmux]+=" $((t1 - t0))"
	cold=$work/cold$r.sock
	t0=$(now_us)
	tmux -S "$cold" -f /dev/null new-session -d -s "cold$r" -x 200 -y 50 "tmux -S '$cold' wait-for -S cold$r-done; exec sleep 1000"
	tmux -S "$cold" wait-for "cold$r-done"
	t1=$(now_us)
	start[tmuxcold]+=" $((t1 - t0))"
	tmux -S "$cold" kill-server >/dev/null 2>&1 || true
done
echo
echo "== session start until the pane has ended ($RUNS runs)"
tmux_start=$(median ${start[tmux]})
tmux_cold=$(median ${start[tmuxcold]})
for i in "${!bins[@]}"; do
	m=$(median ${start[$i]})
	echo "melmux ${names[i]}: $(printf '%s\n' ${start[$i]} | stats); median $(awk -v a="$m" -v b="$tmux_start" 'BEGIN { printf "%.2f", a / b }') x tmux's with its server up, $(awk -v a="$m" -v b="$tmux_cold" 'BEGIN { printf "%.2f", a / b }') x tmux's starting its server"
done
echo "tmux (server already up): $(printf '%s\n' ${start[tmux]} | stats)"
echo "tmux (no server yet: it starts one): $(printf '%s\n' ${start[tmuxcold]} | stats)"

if perf stat -x, -e task-clock true >/dev/null 2>&1; then
	echo
	echo "== one process's start: CPU of BINARY --version ($RUNS runs)"
	cpu_us() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { printf "%d\n", $1 * 1000 }'; }
	declare -A cpu
	for ((r = 1; r <= RUNS; r++)); do
		for i in "${!bins[@]}"; do cpu[$i]+=" $(cpu_us "${bins[i]}" --version)"; done
		cpu[tmux]+=" $(cpu_us tmux -V)"
	done
	for i in "${!bins[@]}"; do echo "melmux ${names[i]}: $(printf '%s\n' ${cpu[$i]} | stats | sed 's/ ms/ ms CPU/g')"; done
	echo "tmux -V: $(printf '%s\n' ${cpu[tmux]} | stats | sed 's/ ms/ ms CPU/g')"
fi

echo
IDLE=5
echo "== an idle server, a second after its pane ended (kB, median of $IDLE)"
for i in "${!bins[@]}"; do
	b=${bins[i]}
	for ((k = 1; k <= IDLE; k++)); do
		"$b" -s "idle-$i-$k" new -d -x 200 -y 52 -- sh -c true
		"$b" -s "idle-$i-$k" wait -t 1 --exit --timeout 1m >/dev/null
		sleep 1
		# One server at a time: PSS splits the binary's shared pages among
		# the processes that map them.
		pid=$(server_pid "idle-$i-$k")
		echo "$(status_kb "$pid" VmRSS) $(status_kb "$pid" RssAnon) $(status_kb "$pid" RssFile) $(pss_kb "$pid") $(status_kb "$pid" Threads)" >"$work/idle-$i-$k"
		"$b" -s "idle-$i-$k" kill-server >/dev/null 2>&1 || true
	done
	printf 'melmux %s: ' "${names[i]}"
	cat "$work"/idle-"$i"-* | awk '{ for (c = 1; c <= 5; c++) print c, $c }' | sort -k1,1n -k2,2n |
		awk -v n="$IDLE" 'BEGIN { split("VmRSS RssAnon RssFile PSS threads", name) }
			{ v[$1, ++k[$1]] = $2 }
			END { for (c = 1; c <= 5; c++) printf "%s %s%s", name[c], v[c, int((n + 1) / 2)], c < 5 ? ", " : "\n" }'
done
T kill-server
sleep 0.2
T new-session -d -s idle -x 200 -y 50 'sleep 100000'
sleep 1
pid=$(T display-message -p '#{pid}')
echo "tmux (fresh server, one idle session): VmRSS $(status_kb "$pid" VmRSS), RssAnon $(status_kb "$pid" RssAnon), RssFile $(status_kb "$pid" RssFile), PSS $(pss_kb "$pid"), threads $(status_kb "$pid" Threads)"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
