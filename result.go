package toolreg

import "time"

// Result is the outcome of one call, as [Registry.Call] returns it.
type Result struct {
	Content  string        // exactly what Execute returns
	Code     string        // "" on success, else the error code (CodeNotFound, ...)
	CallID   string        // CallContext.CallID, or the id the registry made
	Tool     string        // the name as called
	Duration time.Duration // from the start of the checks to the answer
}

// IsError reports whether the call failed: the registry refused it, or the
// tool returned an error, panicked or timed out. A handler's own successful
// string is never an error, whatever it says.
func (r Result) IsError() bool { return r.Code != "" }
