package mcpserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// changed is the registry's OnChange hook. It runs on the goroutine that
// changed the registry, so it only schedules a sync: the first change of a
// burst starts a timer, later ones ride on it.
func (s *Server) changed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.timer != nil {
		return
	}
	s.timer = time.AfterFunc(s.cfg.delay, s.flush)
}

func (s *Server) flush() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.timer = nil
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()
	s.sync(false)
}

// sync makes the SDK server's tool set equal to every tool that some
// session could reach: the registry's tools in all groups, less restricted
// ones unless they are served. Each session's listing is narrowed from it
// by filterList. A tool whose definition, groups or policy changed is added
// again, so sessions hear of every change that could alter what they see;
// the SDK gathers the changes into one notification. With force, sessions
// are notified even when nothing changed.
func (s *Server) sync(force bool) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	infos := map[string]toolreg.ToolInfo{}
	for _, t := range s.reg.All() {
		infos[t.Name] = t
	}
	defs := s.reg.Definitions(s.superset)
	next := make(map[string]*exposedTool, len(defs))
	var added []*exposedTool
	for _, d := range defs {
		name := d.Function.Name
		schema, err := json.Marshal(d.Function.Parameters)
		if err != nil {
			s.cfg.logger.Error("mcpserver: tool schema cannot be encoded; not served", "tool", name, "err", err)
			continue
		}
		info, _ := json.Marshal(infos[name])
		fp := fmt.Sprintf("%s\x00%s\x00%s", schema, d.Function.Description, info)
		if cur := s.exposed[name]; cur != nil && cur.fingerprint == fp {
			next[name] = cur
			continue
		}
		t := &exposedTool{
			tool:        &mcp.Tool{Name: name, Description: d.Function.Description, InputSchema: json.RawMessage(schema)},
			fingerprint: fp,
		}
		next[name] = t
		added = append(added, t)
	}
	var removed []string
	for name := range s.exposed {
		if next[name] == nil {
			removed = append(removed, name)
		}
	}
	if len(removed) > 0 {
		s.sdk.RemoveTools(removed...)
	}
	for _, t := range added {
		if !s.addTool(t.tool) {
			delete(next, t.tool.Name)
			if s.exposed[t.tool.Name] != nil {
				s.sdk.RemoveTools(t.tool.Name) // its old version must not stay
			}
		}
	}
	s.exposed = next
	if force && len(added) == 0 && len(removed) == 0 {
		for _, t := range next {
			// Adding a tool again is the SDK's only way to send
			// notifications/tools/list_changed; the set stays the same.
			s.addTool(t.tool)
			break
		}
	}
}

// addTool adds t to the SDK server. The SDK panics on schemas it refuses
// (an x-mcp-header annotation it cannot use, say); such a tool is logged
// and not served.
func (s *Server) addTool(t *mcp.Tool) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			s.cfg.logger.Error("mcpserver: the MCP SDK refused a tool; not served", "tool", t.Name, "err", fmt.Sprint(v))
			ok = false
		}
	}()
	s.sdk.AddTool(t, s.call)
	return true
}
