package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	res, err := parse(strings.NewReader(twoRounds))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		r    row
		want summary
		ok   bool
	}{
		{"a ratio is paired round by round", row{num: "Execute", den: "Floor"}, summary{median: 4, min: 3, max: 5, n: 2}, true},
		{"a figure alone is summarized over the rounds", row{num: "Execute"}, summary{median: 55, min: 50, max: 60, n: 2}, true},
		{"a round lacking a figure is left out", row{num: "Churn1ms10k", den: "Floor"}, summary{median: 12, min: 12, max: 12, n: 1}, true},
		{"another unit is read", row{num: "Churn1ms10k", unit: "changes/s"}, summary{median: 950, min: 950, max: 950, n: 1}, true},
		{"a ratio over a zero is left out", row{num: "Execute", den: "Floor", unit: "B/op"}, summary{}, false},
		{"a benchmark that never ran has no summary", row{num: "RegisterThenCall100k"}, summary{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := summarize(res, "2", tc.r)
			if ok != tc.ok || got != tc.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestGoals(t *testing.T) {
	for _, tc := range []struct {
		g    goal
		v    float64
		want bool
	}{
		{atMost(4, ""), 4, true},
		{atMost(4, ""), 4.01, false},
		{atLeast(0.9, ""), 0.9, true},
		{atLeast(0.9, ""), 0.89, false},
		{above(1, ""), 1, false},
		{above(1, ""), 1.01, true},
	} {
		if got := tc.g.met(tc.v); got != tc.want {
			t.Errorf("%s %v met by %v = %v, want %v", tc.g.op, tc.g.limit, tc.v, got, tc.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		r    row
		v    float64
		want string
	}{
		{row{den: "x"}, 3.14159, "3.14×"},
		{row{den: "x"}, 31.4159, "31.4×"},
		{row{den: "x"}, 314.159, "314×"},
		{row{}, 12.34, "12.3 ns"},
		{row{}, 1234, "1.23 µs"},
		{row{}, 2.5e6, "2.5 ms"},
		{row{unit: "ns/tool"}, 4.2e9, "4.2 s"},
		{row{unit: "B/op"}, 512, "512 B"},
		{row{unit: "B/op"}, 30 << 20, "30 MiB"},
		{row{unit: "changes/s"}, 987.6, "988/s"},
		{row{unit: "allocs/op"}, 12, "12 allocs/op"},
	} {
		if got := format(tc.r, tc.v); got != tc.want {
			t.Errorf("format(%+v, %v) = %q, want %q", tc.r, tc.v, got, tc.want)
		}
	}
}

func TestRunJudgesEveryGoal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(file, []byte(twoRounds), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	missed, missing, err := run(&out, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	goals := 0
	for _, r := range rows {
		if r.goal.op != "" {
			goals++
		}
	}
	// Execute / floor is 4× at the median, within its goal; every other goal
	// lacks a benchmark in this file.
	if missed != 0 || missing != goals-1 {
		t.Errorf("missed %d and missing %d, want 0 and %d:\n%s", missed, missing, goals-1, out.String())
	}
	for _, want := range []string{"Execute / floor", "4.00×", "GOMAXPROCS=2, 2 rounds", "not measured"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunRefusesAnEmptyOrMissingFile(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, files := range [][]string{{empty}, {filepath.Join(t.TempDir(), "absent.txt")}} {
		if _, _, err := run(&bytes.Buffer{}, files); err == nil {
			t.Errorf("run(%q) succeeded", files)
		}
	}
}
