#!/usr/bin/env bash
# toolexec_grep.sh: melmux's grep and find_files against ripgrep, same
# machine, same run, over Go's own source tree ($(go env GOROOT)/src).
#
# Each case runs `melmux tool grep|find_files` and the matching `rg` command
# as whole processes (start-up included), alternately, RUNS times after one
# untimed warm-up each (so both read from the page cache). It prints the
# median wall time and the median CPU time (user+sys, which the machine's
# other load disturbs far less) of each, and the ratio melmux/rg. Both tools
# use two threads (the machine has 2 cores). The match counts are checked to
# agree, so the two do the same work: rg prints every match, melmux counts
# every match and shows the first 250.
#
# Usage: bench/toolexec_grep.sh     (environment: RUNS=7 TREE=$(go env GOROOT)/src)
# Needs: go, rg (apt-get install -y ripgrep), /usr/bin/time, awk.
# Exit status 1 if a count differs.
set -euo pipefail

RUNS=${RUNS:-7}
TREE=${TREE:-$(go env GOROOT)/src}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v rg >/dev/null || { echo "toolexec_grep.sh: rg not found (apt-get install -y ripgrep)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "toolexec_grep.sh: /usr/bin/time not found (apt-get install -y time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && CGO_ENABLED=0 go build -o "$tmp/" ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server)
export XDG_DATA_HOME="$tmp/data" MELMUX_SOCKET=""

# timed CMD...: run once, append "wall cpu" seconds to $tmp/times.
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/one" "$@" >"$tmp/out" 2>/dev/null || true
	awk '{printf "%s %.3f\n", $1, $2 + $3}' "$tmp/one" >>"$tmp/times"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

status=0
printf '%-34s %10s %10s %10s %10s %8s %8s %8s\n' case "rg wall" "mx wall" "rg cpu" "mx cpu" "wall x" "cpu x" matches
run_case() { # name, melmux tool args..., --, rg args...
	local name=$1; shift
	local mx=() rgc=()
	while [ "$1" != "--" ]; do mx+=("$1"); shift; done; shift
	rgc=("$@")
	cd "$TREE"
	"$tmp/melmux" tool "${mx[@]}" >"$tmp/mx.out" 2>&1 || true
	rg "${rgc[@]}" >"$tmp/rg.out" 2>/dev/null || true
	local rgn mxn
	rgn=$(wc -l <"$tmp/rg.out")
	# melmux shows 250 lines and the total in its note, or every line.
	mxn=$(grep -oE '(showing [0-9]+ of |^\[)[0-9]+ matching' "$tmp/mx.out" | grep -oE '[0-9]+ matching' | grep -oE '[0-9]+' || true)
	[ -n "$mxn" ] || mxn=$(grep -vc '^\[' "$tmp/mx.out" || true)
	if [ "$rgn" != "$mxn" ]; then
		echo "MISMATCH in $name: rg $rgn, melmux $mxn" >&2
		status=1
	fi
	: >"$tmp/rg.t"; : >"$tmp/mx.t"
	for _ in $(seq "$RUNS"); do
		: >"$tmp/times"; timed rg "${rgc[@]}"; cat "$tmp/times" >>"$tmp/rg.t"
		: >"$tmp/times"; timed "$tmp/melmux" tool "${mx[@]}"; cat "$tmp/times" >>"$tmp/mx.t"
	done
	local rw mw rc mc
	rw=$(cut -d' ' -f1 "$tmp/rg.t" | median); mw=$(cut -d' ' -f1 "$tmp/mx.t" | median)
	rc=$(cut -d' ' -f2 "$tmp/rg.t" | median); mc=$(cut -d' ' -f2 "$tmp/mx.t" | median)
	awk -v n="$name" -v rw="$rw" -v mw="$mw" -v rc="$rc" -v mc="$mc" -v m="$rgn" 'BEGIN {
		printf "%-34s %9.3fs %9.3fs %9.3fs %9.3fs %7.2fx %7.2fx %8d\n", n, rw, mw, rc, mc,
			(rw > 0 ? mw / rw : 0), (rc > 0 ? mc / rc : 0), m }'
}

run_case 'grep TODO (literal)' grep '{"pattern":"TODO"}' -- -n --no-heading -j2 'TODO'
run_case 'grep func \w+Error\( (literal+re)' grep '{"pattern":"func \\w+Error\\("}' -- -n --no-heading -j2 'func \w+Error\('
run_case 'grep [A-Z][a-z]+[0-9]{3} (no lit)' grep '{"pattern":"[A-Z][a-z]+[0-9]{3}"}' -- -n --no-heading -j2 '[A-Z][a-z]+[0-9]{3}'
run_case 'grep (?i)deadline (case-fold)' grep '{"pattern":"(?i)deadline"}' -- -n --no-heading -j2 '(?i)deadline'
run_case 'find_files *_test.go' find_files '{"pattern":"*_test.go"}' -- --files -j2 -g '*_test.go'
echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files); runs: $RUNS; rg: $(rg --version | head -1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
