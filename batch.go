package toolreg

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"
)

// ToolCall is one tool call as the model wrote it: its id (the
// tool_call_id), the tool's name and the raw JSON arguments.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// BatchOptions tunes [Registry.ExecuteBatch].
type BatchOptions struct {
	// Parallelism bounds how many calls run at once; 0 or less means
	// runtime.GOMAXPROCS(0).
	Parallelism int
}

// ExecuteBatch runs a turn's tool calls, at most opt.Parallelism at a time,
// and returns one [Result] per call in input order, each with its call's ID
// (or one the registry made when ID is empty). Each call runs as
// [Registry.CallJSON] with call, its CallID set to the call's ID.
//
// A call that fails, panics, times out or is refused never affects the
// others. When ctx ends, calls not yet started get a "canceled" result and
// started ones end with their own outcome. A tool registered Exclusive runs
// with no other call of the batch at the same time. ExecuteBatch returns when
// every started call has ended, or been abandoned at its deadline as
// [Registry.Execute] describes.
func (r *Registry) ExecuteBatch(ctx context.Context, calls []ToolCall, call CallContext, opt BatchOptions) []Result {
	ctx = orBackground(ctx)
	results := make([]Result, len(calls))
	limit := opt.Parallelism
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	sem := semaphore.NewWeighted(int64(limit))
	var exclusive sync.RWMutex // readers: ordinary calls; writer: an Exclusive one
	var wg sync.WaitGroup
	for i, tc := range calls {
		cc := call
		cc.CallID = tc.ID
		if ctx.Err() != nil || sem.Acquire(ctx, 1) != nil {
			results[i] = r.CallJSON(ctx, tc.Name, tc.Arguments, cc) // reads the ended ctx: canceled or refused, never run
			continue
		}
		lock, unlock := exclusive.RLock, exclusive.RUnlock
		if e := r.current().lookup(tc.Name); e != nil && e.tool.Exclusive {
			lock, unlock = exclusive.Lock, exclusive.Unlock
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sem.Release(1)
			lock()
			defer unlock()
			results[i] = r.CallJSON(ctx, tc.Name, tc.Arguments, cc)
		}()
	}
	wg.Wait()
	return results
}

// orBackground treats a nil context as context.Background().
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
