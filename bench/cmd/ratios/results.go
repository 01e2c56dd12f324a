package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// results holds the figures of a file of interleaved rounds: for each
// GOMAXPROCS suffix ("" when the names carry none), benchmark (without the
// "Benchmark" prefix and the suffix) and unit, the value of each round.
type results struct {
	procs  []string // in order of first appearance
	values map[string]map[string]map[string]map[int]float64
	rounds int
}

// value returns the figure of one round, if that round has it.
func (r *results) value(procs, bench, unit string, round int) (float64, bool) {
	v, ok := r.values[procs][bench][unit][round]
	return v, ok
}

// parse reads the output of rounds of `go test -bench`. A round starts at
// each "goos:" header line, which every run of a test binary prints; a file
// without headers counts the n-th line of a benchmark as its n-th round.
// Lines that are not results are skipped; a result whose values do not
// parse is an error.
func parse(in io.Reader) (*results, error) {
	r := &results{values: map[string]map[string]map[string]map[int]float64{}}
	headers := false
	seen := map[string]int{} // lines per procs and benchmark, for files without headers
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "goos:") {
			headers = true
			r.rounds++
			continue
		}
		if !strings.HasPrefix(text, "Benchmark") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) < 4 {
			continue // a name alone, or a name and "--- SKIP": no figure
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: a value without its unit: %q", line, text)
		}
		bench, procs := splitProcs(strings.TrimPrefix(fields[0], "Benchmark"))
		round := r.rounds
		if !headers {
			seen[procs+"\x00"+bench]++
			round = seen[procs+"\x00"+bench]
			r.rounds = max(r.rounds, round)
		}
		byBench := r.values[procs]
		if byBench == nil {
			byBench = map[string]map[string]map[int]float64{}
			r.values[procs] = byBench
			r.procs = append(r.procs, procs)
		}
		byUnit := byBench[bench]
		if byUnit == nil {
			byUnit = map[string]map[int]float64{}
			byBench[bench] = byUnit
		}
		for i := 2; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q: %v", line, fields[i], err)
			}
			unit := fields[i+1]
			if byUnit[unit] == nil {
				byUnit[unit] = map[int]float64{}
			}
			byUnit[unit][round] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// splitProcs splits "Execute-2" into "Execute" and "2". A name without a
// numeric suffix is returned whole, with procs "".
func splitProcs(name string) (bench, procs string) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name, ""
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name, ""
	}
	return name[:i], name[i+1:]
}
