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

// WithMaxResultBytes cuts handler results longer than n bytes. The model then
// reads {"result":"<first bytes>","truncated":true,"original_bytes":N}. Zero
// or a negative n means no limit.
func WithMaxResultBytes(n int) Option {
	return func(c *config) { c.maxResultBytes = max(n, 0) }
}

// WithUseNumber makes [Registry.ExecuteJSON] decode every tool's numbers as
// json.Number, exactly as the model wrote them, as
// [RegisteredTool.UseNumber] does for one tool. Without it numbers are
// float64, and an integer that float64 cannot hold exactly is refused as
// "invalid_arguments".
func WithUseNumber() Option {
	return func(c *config) { c.useNumber = true }
}
