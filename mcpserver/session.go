package mcpserver

import (
	"crypto/rand"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session describes the MCP session a request comes from, for
// [WithAccessFor] and [WithPermissionsFor].
type Session struct {
	// ID is the transport's session id (Mcp-Session-Id on streamable HTTP),
	// or, for transports without one (stdio, in-memory), an id the server
	// makes for the session: "mcp-" and 26 random characters.
	ID string
	// UserID is the user of the request's bearer token (auth.TokenInfo's
	// UserID), "" without one.
	UserID string
	// Token is the request's bearer token information, nil without one.
	// The SDK sets it when the HTTP handler is wrapped in
	// auth.RequireBearerToken.
	Token *auth.TokenInfo
	// Client is the name and version the client gave at initialization; it
	// is the client's claim, not an identity. nil when unknown.
	Client *mcp.Implementation
	// MCP is the SDK session.
	MCP *mcp.ServerSession
}

// session describes the session of req.
func (s *Server) session(req mcp.Request) Session {
	var sess Session
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		sess.MCP = ss
		sess.ID = s.sessions.id(ss, s.sdk)
		if p := ss.InitializeParams(); p != nil {
			sess.Client = p.ClientInfo
		}
	}
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		sess.Token = extra.TokenInfo
		sess.UserID = extra.TokenInfo.UserID
	}
	return sess
}

// sessionIDs holds the ids made for sessions whose transport has none. It
// forgets ended sessions whenever it has grown to twice the live ones, so
// it holds at most about twice as many ids as there are open sessions.
type sessionIDs struct {
	mu      sync.Mutex
	ids     map[*mcp.ServerSession]string
	pruneAt int
}

func (m *sessionIDs) id(ss *mcp.ServerSession, srv *mcp.Server) string {
	if id := ss.ID(); id != "" {
		return id
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.ids[ss]; ok {
		return id
	}
	if m.ids == nil {
		m.ids = map[*mcp.ServerSession]string{}
	}
	if len(m.ids) >= m.pruneAt {
		live := map[*mcp.ServerSession]bool{}
		for l := range srv.Sessions() {
			live[l] = true
		}
		for k := range m.ids {
			if !live[k] {
				delete(m.ids, k)
			}
		}
		m.pruneAt = max(2*len(m.ids), 16)
	}
	id := "mcp-" + rand.Text()
	m.ids[ss] = id
	return id
}
