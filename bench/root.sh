#!/usr/bin/env bash
# Runs the root package's benchmarks (the registry's own hot paths) in
# interleaved rounds: each round is one -count=1 pass of every benchmark by
# the same compiled test binary, at -cpu=1,2, so that a burst of load from
# elsewhere hits a benchmark and the one it is compared with alike. Then
# prints benchstat's summary and the ratios, paired round by round.
#
# Usage: bench/root.sh [rounds]   (default 10; raw output: bench/root.txt)
# The peers and the scale cases are in this directory's module: bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
out=bench/root.txt
bin=$(mktemp -d)/toolreg.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" .
: > "$out"
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  "$bin" -test.run '^$' -test.bench . -test.benchmem -test.count=1 -test.cpu=1,2 >> "$out"
done
PATH="$(go env GOPATH)/bin:$PATH"
if ! command -v benchstat >/dev/null; then
  (cd /tmp && go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
fi
benchstat "$out"
awk -f bench/root-ratios.awk "$out"
