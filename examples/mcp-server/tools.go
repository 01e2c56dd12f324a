package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolreg/toolreg"
)

// The tools below are those of examples/quickstart.

// folder is the only place the file tools may touch. os.Root refuses any
// path that leaves it, even through symbolic links.
type folder struct {
	*os.Root
	temp string // a folder made by openFolder, removed by Close
}

// openFolder opens dir as the tools' folder. With dir "" it makes a
// temporary folder holding two notes.
func openFolder(dir string) (*folder, error) {
	f := &folder{}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "toolreg-mcp-server-*")
		if err != nil {
			return nil, err
		}
		f.temp, dir = tmp, tmp
		files := map[string]string{
			"notes.txt": "Buy milk. Water the plants.",
			"draft.txt": "An old draft nobody needs.",
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				os.RemoveAll(tmp)
				return nil, err
			}
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		if f.temp != "" {
			os.RemoveAll(f.temp)
		}
		return nil, err
	}
	f.Root = root
	return f, nil
}

// Close closes the folder and removes it if openFolder made it.
func (f *folder) Close() error {
	err := f.Root.Close()
	if f.temp != "" {
		return errors.Join(err, os.RemoveAll(f.temp))
	}
	return err
}

// local returns the path argument of a file tool, or an error the model can
// act on when it names something outside the folder.
func local(args map[string]any) (string, error) {
	path, _ := args["path"].(string)
	if !filepath.IsLocal(path) {
		return "", fmt.Errorf("path %q is outside the folder this tool may use; give a relative path like \"notes.txt\"", path)
	}
	return path, nil
}

// pathParams is the argument schema of the file tools: one relative path.
func pathParams() toolreg.Parameters {
	return toolreg.Parameters{
		Properties: map[string]any{
			"path": map[string]any{"type": "string", "description": "File name, relative to the folder."},
		},
		Required:             []string{"path"},
		AdditionalProperties: toolreg.Bool(false),
	}
}

// registerBasics registers the "basics" plugin: add (safe, anyone),
// read_file (sensitive: restricted) and delete_file (dangerous: restricted,
// confirm once per session).
func registerBasics(s *toolreg.Scope, f *folder) error {
	tools := []toolreg.RegisteredTool{{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "add",
			Description: "Add two numbers and return the sum.",
			Parameters: toolreg.Parameters{
				Properties: map[string]any{
					"a": map[string]any{"type": "number"},
					"b": map[string]any{"type": "number"},
				},
				Required:             []string{"a", "b"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Risk:    toolreg.RiskSafe,
		Handler: add,
	}, {
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "read_file",
			Description: "Read a text file from the user's notes folder.",
			Parameters:  pathParams(),
		}},
		Risk: toolreg.RiskSensitive,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			path, err := local(args)
			if err != nil {
				return "", err
			}
			b, err := f.ReadFile(path)
			return string(b), err
		},
	}, {
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "delete_file",
			Description: "Delete a file from the user's notes folder.",
			Parameters:  pathParams(),
		}},
		Risk: toolreg.RiskDangerous,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			path, err := local(args)
			if err != nil {
				return "", err
			}
			if err := f.Remove(path); err != nil {
				return "", err
			}
			return "deleted " + path, nil
		},
	}}
	for _, t := range tools {
		if _, err := s.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// add is the handler of the add tool. The registry has checked that a and b
// are present, but it checks their types only for Strict tools (or with
// toolreg.WithSchemaValidation), so add checks them itself.
func add(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
	a, okA := args["a"].(float64)
	b, okB := args["b"].(float64)
	if !okA || !okB {
		return "", errors.New("a and b must be numbers")
	}
	return fmt.Sprint(a + b), nil
}

// registerWeb registers the "web" plugin: the group "web" with web_search in
// it, and flaky_tool, which has no group and panics.
func registerWeb(s *toolreg.Scope) error {
	if _, err := s.RegisterGroup(toolreg.GroupInfo{
		Name:        "web",
		Label:       "Web search",
		Description: "Search the web (canned results in this example).",
	}); err != nil {
		return err
	}
	_, err := s.WithGroups("web").Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "web_search",
			Description: "Search the web and return the top results.",
			Parameters: toolreg.Parameters{
				Properties:           map[string]any{"query": map[string]any{"type": "string"}},
				Required:             []string{"query"},
				AdditionalProperties: toolreg.Bool(false),
			},
		}},
		Risk: toolreg.RiskSafe,
		Handler: func(_ context.Context, args map[string]any, _ toolreg.CallContext) (string, error) {
			results := []map[string]string{
				{"title": "Go by Example", "url": "https://gobyexample.com"},
				{"title": "The Go Programming Language", "url": "https://go.dev"},
			}
			b, err := json.Marshal(map[string]any{"query": args["query"], "results": results})
			return string(b), err
		},
	})
	if err != nil {
		return err
	}
	_, err = s.Register(toolreg.RegisteredTool{
		Definition: toolreg.Definition{Function: toolreg.Function{
			Name:        "flaky_tool",
			Description: "A deliberately buggy tool: it always panics.",
		}},
		Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) {
			var m map[string]int
			//lint:ignore SA5000 the bug is the point: this tool demonstrates a contained panic
			m["boom"]++ // assignment to a nil map: a panic, as a real bug would cause
			return "unreachable", nil
		},
	})
	return err
}
