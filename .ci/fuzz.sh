#!/usr/bin/env bash
# fuzz.sh - runs every go fuzz target of the repository for a bounded time
# (FUZZTIME each, default 10s), one after another, from the repository root.
# `go test ./...` already runs each target's seed corpus; this adds new
# inputs. A finding fails the run and leaves the crashing input under the
# package's testdata/fuzz/ for `go test` to replay.
#
# Go's fuzz coordinator (go1.26 and earlier, go.dev/issue/75804) can end a
# duration-bounded run with a bare "context deadline exceeded" failure at
# the -fuzztime boundary when a worker misses the stop deadline on a busy
# machine; it writes no input and there is nothing to reproduce. Such a run
# counts as passed only when it wrote no failing input and the target's
# corpus (seeds plus testdata/fuzz) replays clean; any other failure fails.
#
# usage: .ci/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-${FUZZTIME:-10s}}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# deadline_race FILE: the output in FILE is a failed run whose only
# complaint is the coordinator's bare deadline error.
deadline_race() {
	! grep -q -e 'Failing input written to' -e '^panic:' "$1" &&
		grep -q -x -e '    context deadline exceeded' "$1" &&
		[ "$(grep -c -e '^    ' "$1" || true)" = 1 ]
}

targets=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	echo "== fuzz $pkg $name ($fuzztime)"
	set +e
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" != 0 ]; then
		if ! deadline_race "$out"; then
			echo "fuzz: $name failed" >&2
			exit 1
		fi
		echo "fuzz: $name ended on the coordinator's deadline race (go.dev/issue/75804); replaying its corpus"
		go test -run "^${name}\$" -count=1 "$pkg"
	fi
	targets=$((targets + 1))
done < <(grep -rl --include='*_test.go' -e '^func Fuzz' . | sort | while read -r f; do
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |${f#./}:|"
done)
echo "fuzz: $targets targets, $fuzztime each, no finding"
