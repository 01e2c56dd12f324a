//go:build !linux

package toolsearch_test

import "testing"

// loopCPU runs body like b.Loop; only on Linux does it also report the CPU
// time per call.
func loopCPU(b *testing.B, body func()) {
	for b.Loop() {
		body()
	}
}
