#!/usr/bin/env bash
# fuzz.sh - runs every go fuzz target of the repository for a bounded time
# (FUZZTIME each, default 10s), one after another, from the repository root.
# `go test ./...` already runs each target's seed corpus; this adds new
# inputs. A finding fails the run and leaves the crashing input under the
# package's testdata/fuzz/ for `go test` to replay.
#
# usage: .ci/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-${FUZZTIME:-10s}}

targets=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	echo "== fuzz $pkg $name ($fuzztime)"
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
	targets=$((targets + 1))
done < <(grep -rl --include='*_test.go' -e '^func Fuzz' . | sort | while read -r f; do
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |${f#./}:|"
done)
echo "fuzz: $targets targets, $fuzztime each, no finding"
