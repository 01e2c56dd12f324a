// Command ratios prints the figures by which toolreg's benchmarks are
// judged, from the output of interleaved rounds of `go test -bench` (see
// bench/run.sh): each ratio is computed round by round, from two benchmarks
// measured seconds apart, and summarized by its median, minimum and maximum
// over the rounds, next to its goal.
//
// Usage:
//
//	ratios [-strict] [file ...]
//
// With no file it reads the standard input. With -strict it exits with
// status 1 when a goal is missed or could not be judged.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	strict := flag.Bool("strict", false, "exit with status 1 when a goal is missed or not measured")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: ratios [-strict] [file ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	missed, missing, err := run(os.Stdout, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(2)
	}
	if *strict && missed+missing > 0 {
		os.Exit(1)
	}
}

// run reads the named files (the standard input when there are none), one
// after the other as one sequence of rounds, and writes the table to w.
func run(w io.Writer, files []string) (missed, missing int, err error) {
	var in io.Reader = os.Stdin
	if len(files) > 0 {
		readers := make([]io.Reader, 0, len(files))
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			readers = append(readers, f)
		}
		in = io.MultiReader(readers...)
	}
	res, err := parse(in)
	if err != nil {
		return 0, 0, err
	}
	if len(res.procs) == 0 {
		return 0, 0, fmt.Errorf("no benchmark results")
	}
	missed, missing = write(w, res, rows)
	fmt.Fprintf(w, "%d goals missed, %d not measured\n", missed, missing)
	return missed, missing, nil
}
