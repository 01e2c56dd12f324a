package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/toolreg/toolreg"
)

// searchDescription is the search tool's description. It does not list the
// tools, so it stays the same while tools come and go, and with it the
// prompt prefix.
const searchDescription = "Search the available tools and load the ones you need. " +
	"Many tools are not listed until a search finds them. Describe what you want to do in a few words " +
	`("create github issue", "send slack message"); the result holds the full definitions ` +
	"of the best matches, and those tools can be called from then on. " +
	`To load tools whose names you know, use "select:name1,name2".`

// Tool returns the search tool, ready to register (ungrouped, so the zero
// Access reaches it):
//
//	unregister, err := reg.Register(ix.Tool(), "toolsearch")
//
// The model calls it with {"query": "...", "limit": n}; limit is optional
// (default and maximum as set by [WithLimits]). It searches within the
// caller's [toolreg.CallContext.Access], records the tools it returns as
// discovered in [toolreg.CallContext.SessionID] (see [Index.Discover]; a
// call with no session records nothing) and answers
//
//	{"tools":[<definition>, ...]}
//
// with the definitions in the OpenAI wire format, best match first. When
// nothing matches, "tools" is empty and "note" says so. Its name is
// [DefaultToolName] unless [WithToolName] sets another.
func (ix *Index) Tool() toolreg.RegisteredTool {
	return toolreg.RegisteredTool{
		Definition: toolreg.Definition{Type: "function", Function: toolreg.Function{
			Name:        ix.cfg.toolName,
			Description: searchDescription,
			Parameters: toolreg.Parameters{
				Type: "object",
				Properties: map[string]any{
					"query": map[string]any{
						"type":        "string",
						"description": `What the tool should do, in a few words, or "select:" and exact tool names separated by commas`,
					},
					"limit": map[string]any{
						"type":        "integer",
						"minimum":     1,
						"maximum":     ix.cfg.maxLimit,
						"description": fmt.Sprintf("How many tools to return; %d when omitted", ix.cfg.defaultLimit),
					},
				},
				Required:             []string{"query"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Handler: ix.handle,
		Risk:    toolreg.RiskSafe,
	}
}

// searchResult is the search tool's answer.
type searchResult struct {
	Tools []toolreg.Definition `json:"tools"`
	Note  string               `json:"note,omitempty"`
}

func (ix *Index) handle(ctx context.Context, args map[string]any, call toolreg.CallContext) (string, error) {
	query, ok := args["query"].(string)
	if !ok {
		return "", errors.New("toolsearch: query must be a string")
	}
	limit, err := limitArg(args["limit"])
	if err != nil {
		return "", err
	}
	matches := ix.Search(ctx, call.Access, query, limit)
	res := searchResult{Tools: make([]toolreg.Definition, len(matches))}
	names := make([]string, len(matches))
	for i, m := range matches {
		res.Tools[i] = m.Definition
		names[i] = m.Name
	}
	if len(matches) == 0 {
		res.Note = "no tool matched; try other words, or fewer of them"
	}
	ix.Discover(call.SessionID, names...)
	b, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("toolsearch: encoding the result: %w", err)
	}
	return string(b), nil
}

// limitArg reads the optional limit as the registry may pass it: a JSON
// number decoded as float64 or json.Number, or a Go integer. Absent or null
// means the default (0). A whole number too large for an int is the
// maximum, as the search caps the limit anyway.
func limitArg(v any) (int, error) {
	bad := errors.New("toolsearch: limit must be a positive integer")
	var f float64
	switch n := v.(type) {
	case nil:
		return 0, nil
	case float64:
		f = n
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			f = float64(i)
		} else if f, err = strconv.ParseFloat(string(n), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, bad
		}
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	default:
		return 0, bad
	}
	if f != math.Trunc(f) || f < 1 { // NaN fails the first test
		return 0, bad
	}
	return int(min(f, math.MaxInt32)), nil
}
