#!/usr/bin/env bash
# Runs the benchmarks in interleaved rounds (one -count=1 pass of every
# benchmark per round, so load from elsewhere hits a benchmark and its floor
# alike), then prints benchstat's summary and the per-round acceptance ratios.
# Usage: bench/run.sh [rounds]   (default 10; output kept in bench/out.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
out=bench/out.txt
go test -c -o bench/toolreg.bench.test .
: > "$out"
for _ in $(seq "$rounds"); do
  bench/toolreg.bench.test -test.run '^$' -test.bench . -test.benchmem -test.count=1 -test.cpu=1,2 >> "$out"
done
rm -f bench/toolreg.bench.test
if ! command -v benchstat >/dev/null; then
  (cd /tmp && go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
  PATH="$(go env GOPATH)/bin:$PATH"
fi
benchstat "$out"
awk -f bench/ratios.awk "$out"
