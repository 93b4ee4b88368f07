#!/usr/bin/env bash
# changes.sh: what each change bought — bench/pane_throughput.sh run against
# melmux built at several commits, one after another, each beside tmux in
# its own run (so every row has a ratio taken at the same moment).
#
# Usage: bench/changes.sh COMMIT[=LABEL] ...
#   With no arguments it measures the commits of issue 10's speed work (the
#   parent of the scroll-off fast path, then each change in turn) and main.
#   Environment is passed on to pane_throughput.sh (RUNS, SIZE_MB, KINDS,
#   FLOOD, CLEARS); the defaults here are RUNS=3 and the four single-pane
#   streams, the flood and the clears.
# Each commit is checked out into a temporary git worktree and built there;
# the worktrees are removed on exit. The output ends with each commit's
# summary table, headed by its label.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
script=$repo/bench/pane_throughput.sh
if [ $# -eq 0 ]; then
	set -- \
		7f00b54^=before \
		7f00b54="scroll-off fast path" \
		c128cce="FIONREAD drain" \
		e2dbc95="plain rows as text, SGR cache (capture in bulk)" \
		0e1ffbc="cursor movement and dead frames" \
		main=main
fi
export RUNS=${RUNS:-3}

work=$(mktemp -d "${TMPDIR:-/tmp}/melmux-changes.XXXXXX")
trees=()
cleanup() {
	local t
	for t in "${trees[@]+"${trees[@]}"}"; do
		git -C "$repo" worktree remove --force "$t" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

labels=()
for arg in "$@"; do
	commit=${arg%%=*}
	label=${arg#*=}
	rev=$(git -C "$repo" rev-parse --short "$commit^{commit}") ||
		{ echo "changes.sh: $commit: not a commit of $repo" >&2; exit 2; }
	tree=$work/tree-$rev
	git -C "$repo" worktree add --detach "$tree" "$rev" >/dev/null 2>&1
	trees+=("$tree")
	echo "== building $rev ($label)"
	(cd "$tree" && CGO_ENABLED=0 go build -o "$work/bin-$rev/" ./cmd/...)
	labels+=("$rev=$label")
done

failed=0
for entry in "${labels[@]}"; do
	rev=${entry%%=*}
	label=${entry#*=}
	echo "== $rev ($label)"
	if ! MELMUX_BIN=$work/bin-$rev/melmux MELMUX_REV=$rev "$script" >"$work/out-$rev" 2>&1; then
		failed=$((failed + 1))
		echo "   pane_throughput.sh failed for $rev; the end of its output:"
		tail -n 20 "$work/out-$rev" | sed 's/^/   /'
	fi
	sed -n '/^== summary/,$p' "$work/out-$rev" >"$work/summary-$rev"
	grep -E '^(load average|machine|tmux:)' "$work/out-$rev" || true
done

echo
for entry in "${labels[@]}"; do
	rev=${entry%%=*}
	echo "### $rev: ${entry#*=}"
	grep '^|' "$work/summary-$rev" || echo "(no summary: the run failed)"
	echo
done
[ "$failed" -eq 0 ] || { echo "changes.sh: $failed run(s) failed" >&2; exit 1; }
