package main

import (
	"strings"
	"testing"
)

// twoRounds is the output of two runs of a test binary, the second slower.
const twoRounds = `goos: linux
goarch: amd64
pkg: github.com/toolreg/toolreg/bench
cpu: Some CPU
BenchmarkFloor-2      	100000000	        10.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkExecute-2    	 10000000	        50.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkRegisterThenCall100k-2   	--- SKIP: BenchmarkRegisterThenCall100k-2
    scale_test.go:21: 100000 tools is more than -maxtools=10000
BenchmarkChurn1ms10k-2	  1000000	       120.0 ns/op	       950.0 changes/s	      16 B/op	       0 allocs/op
PASS
goos: linux
goarch: amd64
pkg: github.com/toolreg/toolreg/bench
cpu: Some CPU
BenchmarkFloor-2      	100000000	        20.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkExecute-2    	 10000000	        60.00 ns/op	       0 B/op	       0 allocs/op
PASS
`

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in    string
		rounds      int
		procs       []string
		bench, unit string
		round       int
		want        float64
		present     bool
	}{
		{"the first round's figure is kept", twoRounds, 2, []string{"2"}, "Floor", "ns/op", 1, 10, true},
		{"the second round's figure is kept", twoRounds, 2, []string{"2"}, "Execute", "ns/op", 2, 60, true},
		{"a custom metric is read", twoRounds, 2, []string{"2"}, "Churn1ms10k", "changes/s", 1, 950, true},
		{"a benchmark missing from a round has no figure there", twoRounds, 2, []string{"2"}, "Churn1ms10k", "ns/op", 2, 0, false},
		{"a skipped benchmark has no figure", twoRounds, 2, []string{"2"}, "RegisterThenCall100k", "ns/op", 1, 0, false},
		{"without headers the n-th line is the n-th round", "BenchmarkA 1 5 ns/op\nBenchmarkA 1 7 ns/op\n", 2, []string{""}, "A", "ns/op", 2, 7, true},
		{"GOMAXPROCS suffixes are kept apart", "BenchmarkA 1 5 ns/op\nBenchmarkA-4 1 7 ns/op\n", 1, []string{"", "4"}, "A", "ns/op", 1, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if res.rounds != tc.rounds {
				t.Errorf("rounds = %d, want %d", res.rounds, tc.rounds)
			}
			if strings.Join(res.procs, ",") != strings.Join(tc.procs, ",") {
				t.Errorf("procs = %q, want %q", res.procs, tc.procs)
			}
			got, ok := res.value(tc.procs[0], tc.bench, tc.unit, tc.round)
			if ok != tc.present || got != tc.want {
				t.Errorf("value = %v, %v; want %v, %v", got, ok, tc.want, tc.present)
			}
		})
	}
}

func TestParseRefusesMalformedValues(t *testing.T) {
	for _, in := range []string{
		"BenchmarkA-2 10 abc ns/op\n",
		"BenchmarkA-2 10 5 ns/op 7\n",
		"BenchmarkA-2 10 5 ns/op NaNx B/op\n",
	} {
		if _, err := parse(strings.NewReader(in)); err == nil {
			t.Errorf("parse(%q) accepted it", in)
		}
	}
}

func TestSplitProcs(t *testing.T) {
	for _, tc := range []struct{ in, bench, procs string }{
		{"Execute-2", "Execute", "2"},
		{"Execute", "Execute", ""},
		{"Name/case=a-b", "Name/case=a-b", ""},
		{"Trailing-", "Trailing-", ""},
		{"Sub/tools=10-16", "Sub/tools=10", "16"},
	} {
		if b, p := splitProcs(tc.in); b != tc.bench || p != tc.procs {
			t.Errorf("splitProcs(%q) = %q, %q; want %q, %q", tc.in, b, p, tc.bench, tc.procs)
		}
	}
}
