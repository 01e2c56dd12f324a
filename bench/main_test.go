package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a benchmark or test leaves a goroutine behind:
// a peer's session not closed, or a churn writer not stopped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
