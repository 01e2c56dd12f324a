package toolreg

import (
	"log/slog"
	"time"
)

// Option configures a [Registry] at construction; see [New].
type Option func(*config)

type config struct {
	logger          *slog.Logger
	failClosed      bool
	defaultTimeout  time.Duration
	validateAll     bool
	rejectDuplicate bool
	maxResultBytes  int
	useNumber       bool
	inline          bool
	maxAbandoned    int
	maxArgBytes     int
	panicValues     bool
	schema          SchemaLimits
	listingCache    int
}

// WithLogger sends the registry's log lines to l. The default discards them;
// a nil l keeps the default. No line carries argument values.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithFailClosed makes the registry deny every restricted tool and every tool
// that needs confirmation while no [ExecutionGuard] is installed. Without it
// the registry is fail-open: no guard means allow.
func WithFailClosed() Option {
	return func(c *config) { c.failClosed = true }
}

// WithDefaultTimeout bounds every call of a tool whose Timeout is zero. A zero
// or negative d means no default timeout.
func WithDefaultTimeout(d time.Duration) Option {
	return func(c *config) { c.defaultTimeout = max(d, 0) }
}

// WithSchemaValidation validates the arguments of every tool against its full
// JSON Schema, not only those of Strict tools. Schemas are then compiled at
// Register, where an invalid one is an error.
func WithSchemaValidation() Option {
	return func(c *config) { c.validateAll = true }
}

// WithRejectDuplicates makes Register fail with [ErrDuplicate] when the name
// is taken, instead of replacing the existing tool.
func WithRejectDuplicates() Option {
	return func(c *config) { c.rejectDuplicate = true }
}

// WithMaxResultBytes bounds every result the model reads to n bytes. A
// longer handler result is cut and reads
// {"result":"<first bytes>","truncated":true,"original_bytes":N}; a longer
// failure message is cut. The bound holds after JSON encoding. Zero or a
// negative n means no limit; a positive n below [MinResultBytes] is raised
// to it.
func WithMaxResultBytes(n int) Option {
	return func(c *config) {
		c.maxResultBytes = max(n, 0)
		if n > 0 {
			c.maxResultBytes = max(n, MinResultBytes)
		}
	}
}

// MinResultBytes is the smallest bound [WithMaxResultBytes] takes: room for
// a failure object and a short message.
const MinResultBytes = 128

// WithInlineHandlers runs every tool's handler on the caller's goroutine, as
// [RegisteredTool.Inline] does for one tool. Use it only when every handler
// returns promptly once its context is done and never calls runtime.Goexit.
func WithInlineHandlers() Option {
	return func(c *config) { c.inline = true }
}

// WithMaxAbandoned bounds, per tool, the calls that may still be running
// after Execute returned because their timeout passed or their caller's
// context ended (default [DefaultMaxAbandoned]). While a tool has n such
// calls, new calls of it fail at once with code "timeout" and a message that
// says why, instead of piling up goroutines. n below 1 means 1.
func WithMaxAbandoned(n int) Option {
	return func(c *config) { c.maxAbandoned = max(n, 1) }
}

// WithMaxArgumentBytes bounds the raw arguments string that
// [Registry.ExecuteJSON] parses (default [DefaultMaxArgumentBytes]); a
// longer one is refused as "invalid_arguments" without being parsed. n below
// 1 means the default.
func WithMaxArgumentBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxArgBytes = n
		}
	}
}

// WithPanicValues logs the whole rendering of a recovered panic's value,
// for debugging. By default the log holds its type, its first 200 bytes with
// the call's sensitive argument values replaced, and the stack: a panic
// value often carries argument data.
func WithPanicValues() Option {
	return func(c *config) { c.panicValues = true }
}

// WithUseNumber makes [Registry.ExecuteJSON] decode every tool's numbers as
// json.Number, exactly as the model wrote them, as
// [RegisteredTool.UseNumber] does for one tool. Without it numbers are
// float64, and an integer that float64 cannot hold exactly is refused as
// "invalid_arguments".
func WithUseNumber() Option {
	return func(c *config) { c.useNumber = true }
}

// WithListingCache bounds how many listings the registry keeps, one per
// [Access] (default [DefaultListingCache]): the least recently used is
// dropped first, so a product with an Access per session keeps caching its
// busiest sessions. n below 1 means 1.
func WithListingCache(n int) Option {
	return func(c *config) { c.listingCache = max(n, 1) }
}
