package toolreg

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

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

// MaxMessageBytes bounds every message the library writes for the model,
// a tool's own error text included.
const MaxMessageBytes = 2048

// failure is the JSON object a failed call returns to the model.
type failure struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// failure renders {"error":msg,"code":code}, with msg cut so that the whole
// stays within MaxMessageBytes and the registry's result bound.
func (r *Registry) failure(msg, code string) (string, string) {
	budget := MaxMessageBytes
	if n := r.cfg.maxResultBytes; n > 0 {
		budget = min(budget, n-len(`{"error":"","code":""}`)-len(code))
	}
	b, _ := json.Marshal(failure{Error: jsonCut(msg, budget), Code: code})
	return string(b), code
}

// truncated is what the model reads in place of a result over the limit.
type truncated struct {
	Result        string `json:"result"`
	Truncated     bool   `json:"truncated"`
	OriginalBytes int    `json:"original_bytes"`
}

// limit cuts out so that what the model reads, JSON escapes included, stays
// within the configured bound.
func (r *Registry) limit(out string) string {
	n := r.cfg.maxResultBytes
	if n == 0 || len(out) <= n {
		return out
	}
	empty, _ := json.Marshal(truncated{Truncated: true, OriginalBytes: len(out)})
	b, _ := json.Marshal(truncated{Result: jsonCut(out, n-len(empty)), Truncated: true, OriginalBytes: len(out)})
	return string(b)
}

// jsonCut returns the longest prefix of s, cut at a rune boundary, whose
// JSON string encoding (as json.Marshal writes it, quotes excluded) takes at
// most budget bytes.
func jsonCut(s string, budget int) string {
	used := 0
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		if used += jsonRuneLen(c, size); used > budget {
			return s[:i]
		}
		i += size
	}
	return s
}

// jsonRuneLen is how many bytes json.Marshal writes for one rune of a
// string (size bytes of input; an invalid byte becomes \ufffd).
func jsonRuneLen(c rune, size int) int {
	switch {
	case c == utf8.RuneError && size == 1:
		return 6
	case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
		return 2
	case c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029':
		return 6
	}
	return size
}
