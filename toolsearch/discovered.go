package toolsearch

import (
	"container/list"
	"slices"
	"sync"
)

// sessions remembers, per session, the tools a search discovered. Both the
// number of sessions and the tools per session are bounded; past a bound,
// the least recently used is forgotten.
type sessions struct {
	mu       sync.Mutex
	max      int
	perSess  int
	byID     map[string]*list.Element // of *session
	lru      *list.List               // front: most recently used
	clockSeq uint64
}

type session struct {
	id    string
	tools map[string]uint64 // name -> when it was last discovered
}

func newSessions(maxSessions, perSession int) *sessions {
	return &sessions{max: maxSessions, perSess: perSession, byID: map[string]*list.Element{}, lru: list.New()}
}

// add records names as discovered in session id and reports whether the set
// gained a tool it did not hold.
func (s *sessions) add(id string, names []string) bool {
	if len(names) == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var sess *session
	if el, ok := s.byID[id]; ok {
		s.lru.MoveToFront(el)
		sess = el.Value.(*session)
	} else {
		sess = &session{id: id, tools: map[string]uint64{}}
		s.byID[id] = s.lru.PushFront(sess)
		for s.lru.Len() > s.max {
			oldest := s.lru.Back()
			s.lru.Remove(oldest)
			delete(s.byID, oldest.Value.(*session).id)
		}
	}
	grew := false
	for _, name := range names {
		s.clockSeq++
		if _, ok := sess.tools[name]; !ok {
			grew = true
		}
		sess.tools[name] = s.clockSeq
		if len(sess.tools) > s.perSess {
			sess.evictOldest()
		}
	}
	return grew
}

// evictOldest forgets the tool discovered least recently.
func (sess *session) evictOldest() {
	var oldest string
	var when uint64
	first := true
	for name, t := range sess.tools {
		if first || t < when {
			oldest, when, first = name, t, false
		}
	}
	delete(sess.tools, oldest)
}

// names returns the tools discovered in session id, sorted, and counts as
// a use of the session.
func (s *sessions) names(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byID[id]
	if !ok {
		return nil
	}
	s.lru.MoveToFront(el)
	sess := el.Value.(*session)
	out := make([]string, 0, len(sess.tools))
	for name := range sess.tools {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func (s *sessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		s.lru.Remove(el)
		delete(s.byID, id)
	}
}

// Discover records names as discovered in session sessionID, as the search
// tool does with the tools it returns: [Index.Offer] offers them from then
// on (when the caller's Access reaches them). It reports whether the
// session gained a tool, that is, whether its offered list may change. An
// empty sessionID or no names records nothing.
//
// Bounds: a session remembers at most [WithMaxDiscovered] tools (64), and
// at most [WithMaxSessions] sessions (4096) are remembered; past either,
// the least recently used is forgotten. Names are not checked against the
// registry: Offer lists only tools the caller's Access reaches anyway.
func (ix *Index) Discover(sessionID string, names ...string) bool {
	if sessionID == "" {
		return false
	}
	return ix.sessions.add(sessionID, names)
}

// Discovered returns the tools recorded as discovered in sessionID, sorted
// by name; nil for an unknown session.
func (ix *Index) Discovered(sessionID string) []string {
	return ix.sessions.names(sessionID)
}

// Forget drops what sessionID discovered, for a conversation that ended.
func (ix *Index) Forget(sessionID string) {
	ix.sessions.forget(sessionID)
}
