package toolreg_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// batchRegistry holds tools that succeed, fail, panic, sleep and block.
func batchRegistry(t *testing.T, running *atomic.Int32, maxRunning *atomic.Int32) *toolreg.Registry {
	t.Helper()
	r := toolreg.New()
	track := func(h toolreg.Handler) toolreg.Handler {
		return func(ctx context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := maxRunning.Load()
				if n <= m || maxRunning.CompareAndSwap(m, n) {
					break
				}
			}
			return h(ctx, args, call)
		}
	}
	reg := func(name string, exclusive bool, timeout time.Duration, h toolreg.Handler) {
		tool := newTool(name, "", nil)
		tool.Handler, tool.Exclusive, tool.Timeout = track(h), exclusive, timeout
		mustRegister(t, r, tool, "p")
	}
	sleep := func(d time.Duration, out string) toolreg.Handler {
		return func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
			select {
			case <-time.After(d):
				return out, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
	}
	reg("ok", false, 0, sleep(5*time.Millisecond, "ok"))
	reg("fail", false, 0, func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
		return "", errors.New("broken")
	})
	reg("boom", false, 0, func(context.Context, map[string]any, toolreg.CallContext) (string, error) { panic("bug") })
	reg("slow", false, 10*time.Millisecond, sleep(time.Second, "late"))
	reg("excl", true, 0, sleep(5*time.Millisecond, "excl"))
	return r
}

func TestExecuteBatchKeepsOrderIDsAndIsolation(t *testing.T) {
	var running, maxRunning atomic.Int32
	r := batchRegistry(t, &running, &maxRunning)
	calls := []toolreg.ToolCall{
		{ID: "c1", Name: "ok"}, {ID: "c2", Name: "fail"}, {ID: "c3", Name: "boom"},
		{ID: "c4", Name: "slow"}, {ID: "c5", Name: "nope"}, {ID: "c6", Name: "ok", Arguments: "{"}, {ID: "", Name: "ok"},
	}
	res := r.ExecuteBatch(context.Background(), calls, toolreg.CallContext{}, toolreg.BatchOptions{Parallelism: 4})
	require.Len(t, res, len(calls))
	want := []string{"", toolreg.CodeToolError, toolreg.CodePanic, toolreg.CodeTimeout, toolreg.CodeNotFound, toolreg.CodeInvalidArguments, ""}
	for i, c := range calls {
		assert.Equal(t, want[i], res[i].Code, "call %d (%s)", i, c.Name)
		assert.Equal(t, c.Name, res[i].Tool)
		if c.ID != "" {
			assert.Equal(t, c.ID, res[i].CallID)
		} else {
			assert.NotEmpty(t, res[i].CallID)
		}
	}
	assert.Equal(t, "ok", res[0].Content)
	assert.LessOrEqual(t, maxRunning.Load(), int32(4))
}

func TestExecuteBatchNeverOverlapsAnExclusiveTool(t *testing.T) {
	r := toolreg.New()
	var running, exclusiveSeenWithOthers atomic.Int32
	var exclRunning atomic.Bool
	h := func(excl bool) toolreg.Handler {
		return func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			n := running.Add(1)
			if excl {
				exclRunning.Store(true)
				if n != 1 {
					exclusiveSeenWithOthers.Add(1)
				}
			} else if exclRunning.Load() {
				exclusiveSeenWithOthers.Add(1)
			}
			time.Sleep(2 * time.Millisecond)
			if excl {
				exclRunning.Store(false)
			}
			running.Add(-1)
			return "ok", nil
		}
	}
	for _, excl := range []bool{false, true} {
		tool := newTool(fmt.Sprintf("t_%v", excl), "", nil)
		tool.Handler, tool.Exclusive = h(excl), excl
		mustRegister(t, r, tool, "p")
	}
	var calls []toolreg.ToolCall
	for i := range 40 {
		calls = append(calls, toolreg.ToolCall{ID: fmt.Sprint(i), Name: fmt.Sprintf("t_%v", i%5 == 0)})
	}
	res := r.ExecuteBatch(context.Background(), calls, toolreg.CallContext{}, toolreg.BatchOptions{Parallelism: 8})
	for _, x := range res {
		require.Equal(t, "ok", x.Content)
	}
	assert.Zero(t, exclusiveSeenWithOthers.Load())
}

func TestExecuteBatchCancelsCallsNotYetStarted(t *testing.T) {
	r := toolreg.New()
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	block := newTool("block", "", nil)
	block.Handler = func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
		started <- struct{}{}
		<-release
		return "finished", nil
	}
	mustRegister(t, r, block, "p")
	ctx, cancel := context.WithCancel(context.Background())
	calls := []toolreg.ToolCall{{ID: "a", Name: "block"}, {ID: "b", Name: "block"}, {ID: "c", Name: "block"}}
	var res []toolreg.Result
	var wg sync.WaitGroup
	wg.Go(func() { res = r.ExecuteBatch(ctx, calls, toolreg.CallContext{}, toolreg.BatchOptions{Parallelism: 1}) })
	<-started
	cancel()
	wg.Wait() // the started call is abandoned at cancel: its handler ignores ctx
	close(release)
	assert.Equal(t, toolreg.CodeCanceled, res[0].Code, "the started call was abandoned when ctx ended")
	for _, x := range res[1:] {
		assert.Equal(t, toolreg.CodeCanceled, x.Code, "%s never started", x.CallID)
	}
	assert.Len(t, started, 0, "no other call started")
}

func TestExecuteBatchRunsUpToParallelismCallsAtOnce(t *testing.T) {
	r := toolreg.New()
	const n = 8
	var arrived sync.WaitGroup
	arrived.Add(n)
	allIn := make(chan struct{})
	go func() { arrived.Wait(); close(allIn) }()
	tool := newTool("meet", "", nil)
	tool.Handler = func(ctx context.Context, _ map[string]any, _ toolreg.CallContext) (string, error) {
		arrived.Done()
		select { // returns only once all eight run at the same time
		case <-allIn:
			return "ok", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	tool.Timeout = 10 * time.Second
	mustRegister(t, r, tool, "p")
	calls := make([]toolreg.ToolCall, n)
	for i := range calls {
		calls[i] = toolreg.ToolCall{ID: fmt.Sprint(i), Name: "meet"}
	}
	for _, x := range r.ExecuteBatch(context.Background(), calls, toolreg.CallContext{}, toolreg.BatchOptions{Parallelism: n}) {
		require.Equal(t, "ok", x.Content)
	}
}
