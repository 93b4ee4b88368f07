#!/usr/bin/env bash
# worktree_border.sh: what the +A −D of worktree panes' borders costs.
#
# A repository of FILES files; a session with PANES panes in one tab, each
# idle (sleep) in its own worktree with a few changed files and a new one,
# attached through tmux (200x50) so that their borders are drawn; then the
# server's CPU time over SECONDS, children included (the git runs it
# reaps), from /proc/PID/stat. The same session without worktrees is the
# baseline. It also times one `melmux diff --stat` and one `git status` in a
# worktree, for scale.
#
# It builds melmux from this checkout into a temporary directory, uses
# private socket, state and data directories and kills what it started.
#
# Usage: bench/worktree_border.sh   (environment: FILES=1000 PANES=4 SECONDS_=30)
# Needs: go, git, tmux.
set -euo pipefail

FILES=${FILES:-1000}
PANES=${PANES:-4}
SECS=${SECONDS_:-30}
for tool in go git tmux; do
	command -v "$tool" >/dev/null || {
		echo "worktree_border.sh: needs $tool" >&2
		exit 2
	}
done

src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/melmux-wtbench.XXXXXX")
mkdir -m 700 "$work/run"
M=$work/melmux
export XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
unset TMUX TMUX_PANE MELMUX_SOCKET MELMUX_PANE MELMUX_SESSION
TSOCK=$work/tmux.sock
cleanup() {
	tmux -S "$TSOCK" kill-server >/dev/null 2>&1 || true
	"$M" -s wt kill-server >/dev/null 2>&1 || true
	"$M" -s plain kill-server >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$src" && CGO_ENABLED=0 go build -o "$work/" ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server)

repo=$work/repo
git init -q -b main "$repo"
for i in $(seq "$FILES"); do
	mkdir -p "$repo/d$((i % 50))"
	echo "line $i" >"$repo/d$((i % 50))/f$i.txt"
done
git -C "$repo" add .
git -C "$repo" commit -q -m files

# ticks is the server's CPU time, children reaped included, in clock ticks.
ticks() { awk '{print $14+$15+$16+$17}' "/proc/$1/stat"; }

# measure SESSION WORKTREE: PANES idle panes (in worktrees when WORKTREE=1),
# attached; prints the server's CPU share of one core over SECS.
measure() {
	local s=$1 wt=$2 i flag=()
	[ "$wt" = 1 ] && flag=(--worktree)
	(cd "$repo" && "$M" -s "$s" new -d -x 200 -y 50 -- sleep 3600)
	for i in $(seq 2 "$PANES"); do
		(cd "$repo" && "$M" -s "$s" open-pane --layout right "${flag[@]}" -- sh -c 'for f in d1/f1.txt d2/f2.txt d3/f3.txt; do echo more >> $f 2>/dev/null; done; echo new > new.txt; exec sleep 3600' >/dev/null)
	done
	tmux -S "$TSOCK" new-session -d -s "$s" -x 200 -y 50 "$M -s $s attach"
	sleep 5 # attached, first counts done
	local pid t0 t1
	pid=$("$M" -s "$s" debug --json | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' | head -1)
	t0=$(ticks "$pid")
	sleep "$SECS"
	t1=$(ticks "$pid")
	awk -v d=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v secs="$SECS" 'BEGIN{printf "%.2f", 100*d/hz/secs}'
}

plain=$(measure plain 0)
wt=$(measure wt 1)
wtdir=$(find "$XDG_DATA_HOME/melmux/worktrees" -mindepth 2 -maxdepth 2 -type d | head -1)
start=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$M" -s wt diff -t 2 --stat >/dev/null; done
diffms=$((($(date +%s%N) - start) / 10000000))
start=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do git -C "$wtdir" status --porcelain >/dev/null; done
statusms=$((($(date +%s%N) - start) / 10000000))
echo "| files | worktree panes shown | server CPU, no worktrees | server CPU, worktrees (+A −D every 3 s) | melmux diff --stat | git status |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| $FILES | $((PANES - 1)) | $plain% | $wt% | ${diffms} ms | ${statusms} ms |"
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores)"
