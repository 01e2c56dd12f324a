#!/usr/bin/env bash
# Runs the benchmarks of this module in interleaved rounds: each round is one
# -count=1 run of every benchmark by the same compiled test binary, so that a
# burst of load from elsewhere hits a benchmark and the one it is compared
# with alike. Then prints benchstat's summary and, with cmd/ratios, every
# ratio the benchmarks are judged by, paired round by round.
#
# Usage: bench/run.sh [rounds] [test binary flags...]
#   rounds defaults to 10; flags go to every run, for example
#   bench/run.sh 5 -test.bench 'Execute|Floor'   (only these benchmarks)
#   bench/run.sh 5 -test.skip 'RegisterThenCall100k'   (skip a slow case)
# Works from any directory. Raw output: bench/out.txt.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-10}
shift || true
out=out.txt
bin=$(mktemp -d)/bench.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" .
: > "$out"
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  "$bin" -test.run '^$' -test.bench . -test.benchmem -test.count=1 "$@" >> "$out"
done
if ! command -v benchstat >/dev/null; then
  PATH="$(go env GOPATH)/bin:$PATH"
  if ! command -v benchstat >/dev/null; then
    (cd /tmp && go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
  fi
fi
benchstat "$out"
go run ./cmd/ratios "$out"
