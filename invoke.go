package toolreg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// DefaultMaxAbandoned is the default bound on the calls of one tool that may
// still be running after Execute returned; see [WithMaxAbandoned].
const DefaultMaxAbandoned = 32

// errToolTimeout is the cause of a context ended by a tool's timeout.
var errToolTimeout = errors.New("toolreg: tool timeout")

func (r *Registry) timeout(e *entry) time.Duration {
	if e.tool.Timeout > 0 {
		return e.tool.Timeout
	}
	return r.cfg.defaultTimeout
}

// invoke calls the handler: on the caller's goroutine for an inline tool,
// else on a goroutine of its own, which the caller stops waiting for when
// ctx is done or the timeout passes.
func (r *Registry) invoke(q *request) (string, string) {
	ctx, e := q.ctx, q.e
	timeout := r.timeout(e)
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errToolTimeout)
		defer cancel()
	}
	if e.tool.Inline || r.cfg.inline {
		return r.callHandler(ctx, q)
	}
	if n := e.abandoned.Load(); n >= int64(r.cfg.maxAbandoned) {
		r.stats.failedFast.Add(1)
		return r.failure(fmt.Sprintf("tool %s was not started: %d earlier calls are still running past their deadline", quote(q.name), n), CodeTimeout)
	}
	c := &isolated{done: make(chan struct{})}
	r.stats.running.Add(1)
	go r.runIsolated(ctx, *q, c)
	select {
	case <-c.done:
		return c.res, c.code
	case <-ctx.Done(): // nil, so never ready, for a Background context and no timeout
		if !c.state.CompareAndSwap(stateRunning, stateAbandoned) {
			<-c.done // it finished in the same instant
			return c.res, c.code
		}
		e.abandoned.Add(1)
		r.stats.abandoned.Add(1)
		return r.contextFailure(ctx, e)
	}
}

// isolated is one handler call on a goroutine of its own.
type isolated struct {
	state     atomic.Int32 // stateRunning, then stateDelivered or stateAbandoned
	done      chan struct{}
	res, code string // written before done is closed
}

const (
	stateRunning int32 = iota
	stateDelivered
	stateAbandoned
)

// runIsolated runs the handler and hands its outcome to the waiting caller,
// or counts it as late when the caller gave up. The outcome is "panic"
// unless the handler returns: runtime.Goexit skips the rest of the function
// but not the deferred delivery.
func (r *Registry) runIsolated(ctx context.Context, q request, c *isolated) {
	returned := false
	defer func() {
		if !returned { // runtime.Goexit: callHandler logged it
			c.res, c.code = r.failure(fmt.Sprintf("tool %s failed unexpectedly", quote(q.name)), CodePanic)
		}
		r.stats.running.Add(-1)
		if c.state.CompareAndSwap(stateRunning, stateDelivered) {
			close(c.done)
			return
		}
		q.e.abandoned.Add(-1)
		r.stats.abandoned.Add(-1)
		r.noteLate(q.name, c.code)
	}()
	c.res, c.code = r.callHandler(ctx, &q)
	returned = true
}

// callHandler runs the handler and contains it: a panic, panic(nil) and
// runtime.Goexit all end as code "panic", with the value and stack in the
// log only.
func (r *Registry) callHandler(ctx context.Context, q *request) (res, code string) {
	done := false
	defer func() {
		if !done {
			r.logPanic("handler", q.name, recover(), q.secrets()...)
			res, code = r.failure(fmt.Sprintf("tool %s failed unexpectedly", quote(q.name)), CodePanic)
		}
	}()
	out, err := q.e.tool.Handler(ctx, q.args, q.call)
	if err != nil {
		res, code = r.handlerError(ctx, q, err)
	} else {
		res, code = r.limit(out), ""
	}
	done = true
	return res, code
}

// handlerError turns a handler's error into the model's answer: the
// context's failure when the context ended, else the error's text.
func (r *Registry) handlerError(ctx context.Context, q *request, err error) (string, string) {
	if ctx.Err() != nil {
		return r.contextFailure(ctx, q.e)
	}
	msg, ok := errorText(err)
	if !ok || msg == "" {
		msg = fmt.Sprintf("tool %s failed", quote(q.name))
	}
	if wraps(err, ErrInvalidArguments) {
		return r.invalidArguments(q.name, msg)
	}
	return r.failure(msg, CodeToolError)
}

// contextFailure reports a call ended by its context: "timeout" for the
// tool's timeout or a passed deadline, "canceled" otherwise.
func (r *Registry) contextFailure(ctx context.Context, e *entry) (string, string) {
	switch {
	case errors.Is(context.Cause(ctx), errToolTimeout):
		return r.failure(fmt.Sprintf("tool %s timed out after %v", quote(e.name()), r.timeout(e)), CodeTimeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return r.failure(fmt.Sprintf("tool %s timed out: the caller's deadline passed", quote(e.name())), CodeTimeout)
	}
	return r.failure(fmt.Sprintf("call of tool %s was canceled", quote(e.name())), CodeCanceled)
}

// noteLate counts a result that arrived after its caller gave up, and logs
// at most one warning a second, with the running total.
func (r *Registry) noteLate(tool, code string) {
	total := r.stats.late.Add(1)
	now := time.Now().UnixNano()
	last := r.lateLogged.Load()
	if now-last < int64(time.Second) || !r.lateLogged.CompareAndSwap(last, now) {
		return
	}
	r.logAt(context.Background(), slog.LevelWarn, "toolreg: late results dropped", "tool", tool, "code", code, "total", total)
}

// Stats counts what the registry's handlers are doing, for monitoring.
type Stats struct {
	// Running is how many handler calls are in flight on goroutines of
	// their own, abandoned ones included.
	Running int64
	// Abandoned is how many handler calls are still running after Execute
	// returned (their timeout passed, or the caller's context ended).
	Abandoned int64
	// AbandonedByTool breaks Abandoned down by tool name.
	AbandonedByTool map[string]int64
	// LateResults counts results dropped because they arrived after
	// Execute returned.
	LateResults uint64
	// FailedFast counts calls refused with code "timeout" because their
	// tool already had as many abandoned calls as [WithMaxAbandoned] allows.
	FailedFast uint64
}

// Stats returns the registry's counters. AbandonedByTool looks at every
// tool, so Stats costs time in proportion to the registry's size.
func (r *Registry) Stats() Stats {
	st := Stats{
		Running:     r.stats.running.Load(),
		Abandoned:   r.stats.abandoned.Load(),
		LateResults: r.stats.late.Load(),
		FailedFast:  r.stats.failedFast.Load(),
	}
	r.current().each(func(e *entry) bool {
		if n := e.abandoned.Load(); n > 0 {
			if st.AbandonedByTool == nil {
				st.AbandonedByTool = map[string]int64{}
			}
			st.AbandonedByTool[e.name()] = n
		}
		return true
	})
	return st
}

type counters struct {
	running, abandoned atomic.Int64
	late, failedFast   atomic.Uint64
}

// newCallID makes a call id for a call that came without one: "call_<n>",
// n counting this registry's calls. Ids are cut from 4 KiB slabs that are
// only ever appended to, so a string never sees its bytes change, and one
// allocation serves a few hundred ids.
func (r *Registry) newCallID() string {
	n := r.callSeq.Add(1)
	sl, _ := idSlabs.Get().(*idSlab)
	if sl == nil || cap(sl.buf)-len(sl.buf) < len("call_")+20 {
		sl = &idSlab{buf: make([]byte, 0, 4096)}
	}
	start := len(sl.buf)
	sl.buf = strconv.AppendUint(append(sl.buf, "call_"...), n, 10)
	id := unsafe.String(&sl.buf[start], len(sl.buf)-start)
	idSlabs.Put(sl)
	return id
}

// idSlab holds the bytes of call ids; see newCallID.
type idSlab struct{ buf []byte }

var idSlabs sync.Pool

// logAt logs through the configured logger, containing a panic in the
// user's handler (a logger is user code too). Hot paths ask enabled first,
// so that building the attributes costs nothing when the level is off.
func (r *Registry) logAt(ctx context.Context, level slog.Level, msg string, args ...any) {
	defer func() { _ = recover() }()
	if r.cfg.logger.Enabled(ctx, level) {
		r.cfg.logger.Log(ctx, level, msg, args...)
	}
}

// enabled reports whether the logger takes level, containing a panic.
func (r *Registry) enabled(ctx context.Context, level slog.Level) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	return r.cfg.logger.Enabled(ctx, level)
}
