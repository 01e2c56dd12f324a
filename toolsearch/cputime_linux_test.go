package toolsearch_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs body like b.Loop and also reports the CPU time per call of
// the benchmark's thread as "cpu-ns/op": on a shared machine the wall-clock
// ns/op counts the time other processes held the CPU, this does not.
func loopCPU(b *testing.B, body func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if used := threadCPU() - start; used > 0 && n > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}
