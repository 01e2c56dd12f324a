package mcpclient_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/mcpclient"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// hostile imports from the test binary run as a hostile server.
func hostile(t *testing.T, mode string, opts ...mcpclient.Option) (*toolreg.Registry, *mcpclient.Client) {
	t.Helper()
	reg := toolreg.New()
	c, err := mcpclient.New(t.Context(), reg.Scope("hostile"), hostileCommand(mode), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return reg, c
}

func TestAHostileListingImportsWhatIsSafeAndReportsTheRest(t *testing.T) {
	reg, c := hostile(t, "hostile", mcpclient.WithTimeout(2*time.Second))

	reasons := map[string]error{}
	for _, s := range c.Skipped() {
		reasons[s.Remote] = s.Err
	}
	cases := []struct {
		remote string
		want   error
	}{
		{"", mcpclient.ErrNoName},
		{"huge", mcpclient.ErrTooLarge},
		{"deep", mcpclient.ErrTooLarge},
		{"any_of", mcpclient.ErrUnsupportedSchema},
		{"array", mcpclient.ErrUnsupportedSchema},
		{"required_unknown", toolreg.ErrInvalidSchema},
		{"ok", mcpclient.ErrNameClash}, // listed twice: the second is refused
	}
	for _, tc := range cases {
		assert.ErrorIs(t, reasons[tc.remote], tc.want, "remote tool %q", tc.remote)
	}
	assert.Len(t, reasons, len(cases))

	imported := map[string]string{}
	for _, tl := range c.Tools() {
		assert.Regexp(t, validName, tl.Name)
		imported[tl.Remote] = tl.Name
	}
	assert.Equal(t, "mcp_ok", imported["ok"])
	assert.Equal(t, "mcp_no_schema", imported["no_schema"])
	assert.Regexp(t, `^mcp_files_read_[0-9a-f]{8}$`, imported["files.read"])
	var sanitized int
	for remote, name := range imported {
		if strings.HasPrefix(remote, "bad") {
			sanitized++
			assert.Regexp(t, `^mcp_bad_+name_[0-9a-f]{8}$`, name)
		}
	}
	assert.Equal(t, 1, sanitized, "the name with invalid UTF-8 is imported once, sanitized")

	for _, d := range reg.Definitions(toolreg.Access{}) {
		b, err := json.Marshal(d)
		require.NoError(t, err)
		assert.Less(t, len(b), mcpclient.DefaultMaxToolBytes+1024)
	}
	assert.Equal(t, "fine", reg.ExecuteJSON(t.Context(), "mcp_ok", `{"x":"y"}`, toolreg.CallContext{}))
}

func TestAToolThatNeverAnswersTimesOut(t *testing.T) {
	reg, _ := hostile(t, "hostile", mcpclient.WithTimeout(200*time.Millisecond))
	start := time.Now()
	res := reg.CallJSON(t.Context(), "mcp_hang", `{}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeTimeout, res.Code, res.Content)
	assert.Less(t, time.Since(start), 5*time.Second)
	// The session still works after the abandoned call.
	assert.Equal(t, "fine", reg.ExecuteJSON(t.Context(), "mcp_ok", `{}`, toolreg.CallContext{}))
}

func TestAServerThatDiesMidCall(t *testing.T) {
	reg, c := hostile(t, "hostile")
	res := reg.CallJSON(t.Context(), "mcp_die", `{}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeToolError, res.Code, res.Content)
	assert.Contains(t, res.Content, `remote tool \"die\" could not be called`)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not notice that the server died")
	}
	eventually(t, "the dead server's tools are removed", func() bool { return len(reg.All()) == 0 })
	res = reg.CallJSON(t.Context(), "mcp_ok", `{}`, toolreg.CallContext{})
	assert.Equal(t, toolreg.CodeNotFound, res.Code)
}

func TestAHugeResultIsCut(t *testing.T) {
	reg, _ := hostile(t, "hostile", mcpclient.WithMaxResultBytes(1000))
	res := reg.CallJSON(t.Context(), "mcp_huge_result", `{}`, toolreg.CallContext{})
	assert.Empty(t, res.Code)
	assert.LessOrEqual(t, len(res.Content), 1000)
	assert.Contains(t, res.Content, "[cut: the remote tool returned 2097152 bytes]")
}

func TestAFloodOfListChangedCostsFewListings(t *testing.T) {
	reg, _ := hostile(t, "flood", mcpclient.WithRefreshDelay(50*time.Millisecond))
	time.Sleep(500 * time.Millisecond) // let the flood arrive and the client catch up
	res := reg.CallJSON(t.Context(), "mcp_lists", `{}`, toolreg.CallContext{})
	require.Empty(t, res.Code, res.Content)
	n, err := strconv.Atoi(res.Content)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 2, "the notifications were followed")
	assert.LessOrEqual(t, n, 5, "500 notifications coalesced into a few listings")
}

func TestAListingNestedTooDeepFailsNew(t *testing.T) {
	reg := toolreg.New()
	c, err := mcpclient.New(t.Context(), reg.Scope("hostile"), hostileCommand("abyss"))
	require.Error(t, err)
	assert.Nil(t, c)
	assert.Empty(t, reg.All())
}
