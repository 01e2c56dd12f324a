package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// row is one line of the table: a figure of one benchmark, or the ratio of
// two benchmarks' figures paired round by round, and the goal it is judged
// by, if any.
type row struct {
	label string
	num   string // benchmark, without "Benchmark"
	den   string // "" for a figure of num alone
	unit  string // "" means ns/op
	goal  goal
}

// goal is a bound on a row's median; the zero goal is none.
type goal struct {
	op    string // "<=", ">=" or ">"; "" for no goal
	limit float64
	text  string // as people read it: "≤ 4×", "≤ 1 ms"
}

func atMost(limit float64, text string) goal  { return goal{"<=", limit, text} }
func atLeast(limit float64, text string) goal { return goal{">=", limit, text} }
func above(limit float64, text string) goal   { return goal{">", limit, text} }

// met reports whether v meets g.
func (g goal) met(v float64) bool {
	switch g.op {
	case "<=":
		return v <= g.limit
	case ">=":
		return v >= g.limit
	default:
		return v > g.limit
	}
}

const (
	microsecond = 1e3
	millisecond = 1e6
	second      = 1e9
)

// rows are the figures by which the benchmarks are judged, in the order of
// the table of goals, then the comparisons with the peers, then figures that
// explain the others.
var rows = []row{
	{label: "Execute / floor", num: "Execute", den: "Floor", goal: atMost(4, "≤ 4×")},
	{label: "Execute, cancelable ctx / Background", num: "ExecuteCancelable", den: "Execute", goal: atMost(2, "≤ 2×")},
	{label: "Execute, one listener / none", num: "ExecuteListener", den: "Execute", goal: atMost(1.5, "≤ 1.5×")},
	{label: "Execute, full validation / light", num: "ExecuteFullValidation", den: "Execute", goal: atMost(6, "≤ 6×")},
	{label: "DefinitionsJSON 1k, cached", num: "DefinitionsJSONCached", goal: atMost(1*microsecond, "≤ 1 µs")},
	{label: "DefinitionsJSON 1k, after one change", num: "DefinitionsJSONAfterChange", goal: atMost(1*millisecond, "≤ 1 ms")},
	{label: "register 100k tools, a call after each", num: "RegisterThenCall100k", goal: atMost(5*second, "≤ 5 s")},
	{label: "Execute throughput, 1 change/ms / none (10k)", num: "ChurnNone10k", den: "Churn1ms10k", goal: atLeast(0.9, "≥ 0.9×")},
	{label: "unknown-name call at 100k", num: "UnknownName100k", goal: atMost(1*millisecond, "≤ 1 ms")},
	{label: "unknown-name call at 100k, memory", num: "UnknownName100k", unit: "B/op"},
	{label: "UnregisterByPlugin 1k of 100k", num: "UnregisterByPlugin1kOf100k"},
	{label: "UnregisterByPlugin 1k: of 100k / of 10k", num: "UnregisterByPlugin1kOf100k", den: "UnregisterByPlugin1kOf10k", goal: atMost(2, "≤ 2× (∝ removed)")},
	{label: "Execute rotating, 100k names / 1k", num: "Rotate100k", den: "Rotate1k", goal: atMost(2, "≤ 2×")},
	{label: "mcp-go tools/call / ExecuteJSON", num: "MCPGoCall", den: "ExecuteJSON", goal: atLeast(4, "≥ 4×")},
	{label: "go-sdk CallTool / ExecuteJSON", num: "GoSDKCall", den: "ExecuteJSON", goal: atLeast(50, "≥ 50×")},
	{label: "mcp-go tools/list / DefinitionsJSON cached", num: "MCPGoList", den: "DefinitionsJSONCached", goal: above(1, "> 1×")},
	{label: "mcp-go tools/list / DefinitionsJSON changed", num: "MCPGoList", den: "DefinitionsJSONAfterChange", goal: above(1, "> 1×")},
	{label: "go-sdk ListTools / DefinitionsJSON cached", num: "GoSDKList", den: "DefinitionsJSONCached", goal: above(1, "> 1×")},
	{label: "go-sdk ListTools / DefinitionsJSON changed", num: "GoSDKList", den: "DefinitionsJSONAfterChange", goal: above(1, "> 1×")},
	{label: "Execute, isolated (default) / inline", num: "ExecuteIsolated", den: "Execute"},
	{label: "Execute, isolated (default) / floor", num: "ExecuteIsolated", den: "Floor"},
	{label: "the change alone (Register of one tool)", num: "ToolChange"},
	{label: "register 100k, per tool", num: "RegisterThenCall100k", unit: "ns/tool"},
	{label: "register: 100k / 10k (linear: 10×)", num: "RegisterThenCall100k", den: "RegisterThenCall10k"},
	{label: "changes made per second (1 change/ms)", num: "Churn1ms10k", unit: "changes/s"},
	{label: "ExecuteJSON / unmarshal floor", num: "ExecuteJSON", den: "UnmarshalFloor"},
	{label: "CallJSON / ExecuteJSON", num: "CallJSON", den: "ExecuteJSON"},
	{label: "Call / Execute", num: "Call", den: "Execute"},
	{label: "Execute", num: "Execute"},
	{label: "ExecuteJSON", num: "ExecuteJSON"},
	{label: "mcp-go tools/call", num: "MCPGoCall"},
	{label: "go-sdk CallTool", num: "GoSDKCall"},
	{label: "mcp-go tools/list + marshal", num: "MCPGoList"},
	{label: "go-sdk ListTools", num: "GoSDKList"},
}

// summary is a row's median, minimum and maximum over the rounds that have
// every figure it needs.
type summary struct {
	median, min, max float64
	n                int
}

// summarize computes r over the rounds of res for one GOMAXPROCS suffix.
func summarize(res *results, procs string, r row) (summary, bool) {
	unit := r.unit
	if unit == "" {
		unit = "ns/op"
	}
	var vs []float64
	for round := 0; round <= res.rounds; round++ {
		v, ok := res.value(procs, r.num, unit, round)
		if !ok {
			continue
		}
		if r.den != "" {
			d, ok := res.value(procs, r.den, unit, round)
			if !ok || d == 0 {
				continue
			}
			v /= d
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return summary{}, false
	}
	slices.Sort(vs)
	m := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
	}
	return summary{median: m, min: vs[0], max: vs[len(vs)-1], n: len(vs)}, true
}

// format writes v as a ratio, or in r's unit.
func format(r row, v float64) string {
	if r.den != "" {
		switch {
		case v >= 100:
			return fmt.Sprintf("%.0f×", v)
		case v >= 10:
			return fmt.Sprintf("%.1f×", v)
		}
		return fmt.Sprintf("%.2f×", v)
	}
	switch r.unit {
	case "", "ns/op", "ns/tool":
		return duration(v)
	case "B/op":
		return bytesize(v)
	case "changes/s":
		return fmt.Sprintf("%.0f/s", v)
	}
	return fmt.Sprintf("%.4g %s", v, r.unit)
}

// duration writes ns nanoseconds with three significant digits.
func duration(ns float64) string {
	switch {
	case ns >= second:
		return fmt.Sprintf("%.3g s", ns/second)
	case ns >= millisecond:
		return fmt.Sprintf("%.3g ms", ns/millisecond)
	case ns >= microsecond:
		return fmt.Sprintf("%.3g µs", ns/microsecond)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// bytesize writes b bytes with three significant digits.
func bytesize(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// write prints the table of rows for every GOMAXPROCS suffix in res, and
// reports how many goals were missed or could not be judged.
func write(w io.Writer, res *results, rows []row) (missed, missing int) {
	labelWidth := 0
	for _, r := range rows {
		labelWidth = max(labelWidth, len([]rune(r.label)))
	}
	for _, procs := range res.procs {
		name := "GOMAXPROCS=" + procs
		if procs == "" {
			name = "no GOMAXPROCS suffix"
		}
		fmt.Fprintf(w, "%s, %d rounds; median, min and max over the rounds, ratios paired round by round\n", name, res.rounds)
		fmt.Fprintf(w, "%-*s  %-18s %10s %10s %10s %3s  %s\n", labelWidth, "", "goal", "median", "min", "max", "n", "met")
		for _, r := range rows {
			pad := strings.Repeat(" ", labelWidth-len([]rune(r.label)))
			s, ok := summarize(res, procs, r)
			if !ok {
				verdict := ""
				if r.goal.op != "" {
					verdict = "not measured"
					missing++
				}
				fmt.Fprintf(w, "%s%s  %-18s %10s %10s %10s %3s  %s\n", r.label, pad, r.goal.text, "-", "-", "-", "0", verdict)
				continue
			}
			verdict := ""
			if r.goal.op != "" {
				verdict = "yes"
				if !r.goal.met(s.median) || math.IsNaN(s.median) {
					verdict = "NO"
					missed++
				}
			}
			fmt.Fprintf(w, "%s%s  %-18s %10s %10s %10s %3d  %s\n", r.label, pad, r.goal.text,
				format(r, s.median), format(r, s.min), format(r, s.max), s.n, verdict)
		}
		fmt.Fprintln(w)
	}
	return missed, missing
}
