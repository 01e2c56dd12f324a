package toolsearch_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

type searchAnswer struct {
	Tools []toolreg.Definition `json:"tools"`
	Note  string               `json:"note"`
}

func TestSearchToolAnswersWithFullDefinitions(t *testing.T) {
	reg := catalogRegistry(t, nil)
	ix := toolsearch.New(reg)
	_, err := reg.Register(ix.Tool(), "toolsearch")
	require.NoError(t, err)
	ctx := context.Background()

	res := reg.CallJSON(ctx, "search_tools", `{"query":"create a github issue","limit":2}`, toolreg.CallContext{SessionID: "s"})
	require.Empty(t, res.Code, res.Content)
	var ans searchAnswer
	require.NoError(t, json.Unmarshal([]byte(res.Content), &ans))
	require.Len(t, ans.Tools, 2)
	require.Empty(t, ans.Note)
	first := ans.Tools[0]
	require.Equal(t, "github_create_issue", first.Function.Name)
	want, ok := findDef(reg.Definitions(toolreg.Access{}), "github_create_issue")
	require.True(t, ok)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(first)
	require.NoError(t, err)
	require.JSONEq(t, string(wantJSON), string(gotJSON), "the full definition, as the registry lists it")
	require.True(t, strings.HasPrefix(res.Content, `{"tools":[{"type":"function","function":{"name":"github_create_issue"`), res.Content)

	t.Run("nothing found says so", func(t *testing.T) {
		res := reg.CallJSON(ctx, "search_tools", `{"query":"qqqq zzzz"}`, toolreg.CallContext{})
		require.Equal(t, `{"tools":[],"note":"no tool matched; try other words, or fewer of them"}`, res.Content)
	})
	t.Run("the Access of the call limits the answer", func(t *testing.T) {
		a := toolreg.Access{Layers: []toolreg.Layer{toolreg.AllowList("agent", []string{"search_tools", "gitlab_create_issue"})}}
		res := reg.CallJSON(ctx, "search_tools", `{"query":"create a github issue"}`, toolreg.CallContext{Access: a})
		require.Empty(t, res.Code, res.Content)
		var ans searchAnswer
		require.NoError(t, json.Unmarshal([]byte(res.Content), &ans))
		require.Equal(t, []string{"gitlab_create_issue"}, defNames(ans.Tools))
	})
}

func findDef(defs []toolreg.Definition, name string) (toolreg.Definition, bool) {
	for _, d := range defs {
		if d.Function.Name == name {
			return d, true
		}
	}
	return toolreg.Definition{}, false
}

func TestSearchToolRefusesBadArguments(t *testing.T) {
	for _, useNumber := range []bool{false, true} {
		var opts []toolreg.Option
		if useNumber {
			opts = append(opts, toolreg.WithUseNumber())
		}
		reg := toolreg.New(opts...)
		_, err := reg.Register(tool("read_file", "read a file"), "p")
		require.NoError(t, err)
		ix := toolsearch.New(reg, toolsearch.WithLimits(2, 3))
		_, err = reg.Register(ix.Tool(), "toolsearch")
		require.NoError(t, err)
		cases := []struct {
			args, code string
		}{
			{`{"query":"file"}`, ""},
			{`{"query":"file","limit":3}`, ""},
			{`{"query":"file","limit":3.0}`, ""},
			{`{"query":"file","limit":null}`, ""},
			{`{"query":"file","limit":1e300}`, ""},                                             // capped at the maximum
			{`{"query":"file","limit":99999999999999999999999}`, toolreg.CodeInvalidArguments}, // the registry refuses an inexact integer
			{`{"query":"file","limit":0}`, toolreg.CodeToolError},
			{`{"query":"file","limit":-1}`, toolreg.CodeToolError},
			{`{"query":"file","limit":1.5}`, toolreg.CodeToolError},
			{`{"query":"file","limit":"3"}`, toolreg.CodeToolError},
			{`{"query":42}`, toolreg.CodeToolError},
			{`{"query":null}`, toolreg.CodeToolError},
			{`{"query":["file"]}`, toolreg.CodeToolError},
			{`{}`, toolreg.CodeInvalidArguments},
			{`{"query":"file","extra":1}`, toolreg.CodeInvalidArguments},
			{`{"query":"fi`, toolreg.CodeInvalidArguments},
			{`[]`, toolreg.CodeInvalidArguments},
		}
		for _, c := range cases {
			if useNumber && c.code == toolreg.CodeInvalidArguments && strings.Contains(c.args, "9999") {
				c.code = "" // exact as a json.Number: capped at the maximum
			}
			res := reg.CallJSON(context.Background(), "search_tools", c.args, toolreg.CallContext{})
			require.Equalf(t, c.code, res.Code, "args %s (UseNumber %v): %s", c.args, useNumber, res.Content)
			if c.code == "" {
				var ans searchAnswer
				require.NoError(t, json.Unmarshal([]byte(res.Content), &ans))
				require.Equal(t, []string{"read_file"}, defNames(ans.Tools))
			}
		}
	}
}

func TestSearchToolDefinition(t *testing.T) {
	ix := toolsearch.New(toolreg.New(), toolsearch.WithToolName("find_tools"), toolsearch.WithLimits(4, 9))
	rt := ix.Tool()
	require.Equal(t, "find_tools", rt.Definition.Function.Name)
	require.Empty(t, rt.Groups, "ungrouped: the zero Access reaches it")
	b, err := json.Marshal(rt.Definition)
	require.NoError(t, err)
	require.Contains(t, string(b), `"maximum":9`)
	require.Contains(t, string(b), `4 when omitted`)
	b2, err := json.Marshal(toolsearch.New(toolreg.New(), toolsearch.WithToolName("find_tools"), toolsearch.WithLimits(4, 9)).Tool().Definition)
	require.NoError(t, err)
	require.Equal(t, string(b), string(b2), "the same definition, byte for byte, every time")
	_, err = toolreg.New(toolreg.WithSchemaValidation()).Register(rt, "toolsearch")
	require.NoError(t, err, "a valid JSON Schema")
}
