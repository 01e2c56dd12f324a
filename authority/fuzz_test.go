package authority_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// FuzzGuard feeds the guard callers and arguments as a remote peer or a
// model could send them. The guard must answer nil or a *DecisionError,
// never panic, and refuse identities it cannot store exactly.
func FuzzGuard(f *testing.F) {
	f.Add("chat", "olivia", "s1", "rm", `{"path":"/tmp/x"}`, true)
	f.Add("", "", "", "echo", `{}`, false)
	f.Add("chat", "olivia\xff", "s", "rm", `{"a":[1,{"b":null}]}`, false)
	f.Add("web", "w", "s", "rm", `{"x":"`+strings.Repeat("a", 1000)+`"}`, true)
	f.Fuzz(func(t *testing.T, platform, user, session, tool, argsJSON string, skip bool) {
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			args = map[string]any{"raw": argsJSON}
		}
		reg := toolreg.New()
		reg.Register(toolreg.RegisteredTool{
			Definition: toolreg.Definition{Function: toolreg.Function{Name: "rm", Description: "Remove.",
				Parameters: toolreg.Parameters{Properties: map[string]any{"path": map[string]any{"type": "string", "x-sensitive": true}}}}},
			Handler: func(context.Context, map[string]any, toolreg.CallContext) (string, error) { return "", nil },
		}, "p")
		a, err := authority.New(
			authority.WithOwners(authority.Identity{Platform: "chat", UserID: "olivia"}, authority.Identity{Platform: "web", UserID: "w"}),
			authority.WithConfirmer("chat", func(_ context.Context, r authority.ConfirmRequest) (authority.Answer, error) {
				if r.Tool == "rm" && r.Args["path"] != nil && r.Args["path"] != "[redacted]" {
					t.Errorf("the confirmer saw a sensitive value: %v", r.Args["path"])
				}
				return authority.Answer{Decision: authority.Allow, Grant: authority.GrantOnce}, nil
			}),
			authority.WithDeferredApproval("web"),
			authority.WithRegistry(reg),
			authority.WithDeny("tool:*deny*"),
		)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range []toolreg.PolicyDecl{safe, sensitive, dangerous, {Confirm: toolreg.ConfirmAlways}} {
			req := guardReq(tool, decl, authority.Identity{Platform: platform, UserID: user}, session, args)
			req.SkipConfirm = skip
			err := a.Guard()(context.Background(), req)
			if err == nil {
				continue
			}
			var de *authority.DecisionError
			if !errors.As(err, &de) {
				t.Fatalf("guard returned %T: %v", err, err)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(tool) {
				t.Errorf("the model would read invalid UTF-8: %q", err.Error())
			}
			if (!utf8.ValidString(platform) || !utf8.ValidString(user) || !utf8.ValidString(session)) && de.Reason != authority.ReasonInvalidCaller {
				t.Errorf("an invalid identity got %q", de.Reason)
			}
		}
		if _, err := a.Layer(context.Background(), authority.Identity{Platform: platform, UserID: user}, session); err != nil &&
			!errors.Is(err, authority.ErrInvalid) {
			t.Errorf("Layer: %v", err)
		}
	})
}

// FuzzFileStoreLoad opens arbitrary file contents. A file either fails to
// load with ErrCorrupt, or loads into a store that saves and reloads to the
// same state.
func FuzzFileStoreLoad(f *testing.F) {
	_, good := seedFileF(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"format":"toolreg-authority","version":1,"levels":[],"grants":[],"requests":[]}`))
	f.Add([]byte(`{"format":"toolreg-authority","version":1,"levels":[{"platform":"p","user_id":"u","level":-3}],"grants":[],"requests":[]}`))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "authority.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := authority.OpenFileStore(path)
		if err != nil {
			if !errors.Is(err, authority.ErrCorrupt) {
				t.Fatalf("load failed without ErrCorrupt: %v", err)
			}
			return
		}
		// Force a write of the loaded state, then reload it.
		probe := authority.Identity{Platform: "fuzz", UserID: "probe"}
		if err := s.SetLevel(context.Background(), probe, 7); err != nil {
			t.Fatalf("saving a loaded state: %v", err)
		}
		again, err := authority.OpenFileStore(path)
		if err != nil {
			t.Fatalf("a state this store wrote does not load: %v", err)
		}
		if l, _ := again.Level(context.Background(), probe); l != 7 {
			t.Errorf("the probe level reads %d after reload", l)
		}
	})
}

// seedFileF writes a small valid store file for a fuzz corpus.
func seedFileF(f *testing.F) (string, []byte) {
	dir, err := os.MkdirTemp("", "authority-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "authority.json")
	s, err := authority.OpenFileStore(path)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	if err := s.SetLevel(ctx, authority.Identity{Platform: "chat", UserID: "alice"}, 2); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return path, data
}

// FuzzGlob checks the deny and allow glob matcher against a regular
// expression that means the same.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"tool:shell_*", "tool:shell_exec"}, {"*", ""}, {"a*b*c", "aXbYc"}, {"**", "x"}, {"a*", "b"}, {"*a*a*a*a*b", strings.Repeat("a", 50)}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 256 {
			return
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re, err := regexp.Compile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
		if err != nil || !utf8.ValidString(pattern) || !utf8.ValidString(name) {
			return // the reference works on valid UTF-8 only
		}
		a, err := authority.New(authority.WithDeny(pattern))
		if err != nil {
			return // the empty pattern
		}
		l, err := a.Layer(context.Background(), authority.Identity{UserID: "u"}, "s")
		if err != nil {
			t.Fatal(err)
		}
		// The layer hides what a deny glob matches: "tool:" + name.
		if !strings.HasPrefix(name, "tool:") {
			return
		}
		hidden := !l.Admit(toolreg.ToolInfo{Name: strings.TrimPrefix(name, "tool:")}).Allowed
		if hidden != re.MatchString(name) {
			t.Errorf("glob %q on %q: hidden %v, regexp %v", pattern, name, hidden, re.MatchString(name))
		}
	})
}
