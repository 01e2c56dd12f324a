package authority

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/toolreg/toolreg"
)

// DefaultMaxRecords bounds the records (levels, grants and requests
// together) that a [MemoryStore] or [FileStore] holds; see
// [WithMaxRecords].
const DefaultMaxRecords = 100_000

// StoreOption configures a [MemoryStore] or a [FileStore].
type StoreOption func(*storeConfig)

type storeConfig struct {
	maxRecords int
}

// WithMaxRecords bounds the records a store holds to n: levels, grants and
// requests together. When it is full, expired records are dropped first;
// a write that still does not fit fails with [ErrFull]. Levels are never
// dropped, so a ban cannot be pushed out. n <= 0 keeps
// [DefaultMaxRecords].
func WithMaxRecords(n int) StoreOption {
	return func(c *storeConfig) {
		if n > 0 {
			c.maxRecords = n
		}
	}
}

func newStoreConfig(opts []StoreOption) storeConfig {
	c := storeConfig{maxRecords: DefaultMaxRecords}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// MemoryStore is the default [Store]: state in this process only, lost when
// it exits, never shared with another replica. Create it with
// [NewMemoryStore]; it holds at most [DefaultMaxRecords] records unless
// configured otherwise. It is safe for concurrent use.
type MemoryStore struct {
	local
}

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore(opts ...StoreOption) *MemoryStore {
	return &MemoryStore{local{cfg: newStoreConfig(opts), st: newState()}}
}

// local is the state machine that the memory and file stores share. When
// persist is set, every change is made on a copy that replaces the current
// state only once persist has accepted it, so a failed write changes
// nothing.
type local struct {
	cfg     storeConfig
	persist func(*state) error

	mu   sync.Mutex // guards st and seen
	st   *state
	seen time.Time // the latest now a caller passed
}

// state is the whole content of a local store.
type state struct {
	levels   map[Identity]int
	grants   map[Key]Grant
	grantsOf map[sessionOf]map[Key]struct{}
	requests map[string]Request
	byKey    map[Key]string // live request id by its key
	reqsOf   map[sessionOf]map[string]struct{}
}

func newState() *state {
	return &state{
		levels:   map[Identity]int{},
		grants:   map[Key]Grant{},
		grantsOf: map[sessionOf]map[Key]struct{}{},
		requests: map[string]Request{},
		byKey:    map[Key]string{},
		reqsOf:   map[sessionOf]map[string]struct{}{},
	}
}

func (s *state) clone() *state {
	c := &state{
		levels:   maps.Clone(s.levels),
		grants:   maps.Clone(s.grants),
		grantsOf: make(map[sessionOf]map[Key]struct{}, len(s.grantsOf)),
		requests: maps.Clone(s.requests), // Args are never modified in place
		byKey:    maps.Clone(s.byKey),
		reqsOf:   make(map[sessionOf]map[string]struct{}, len(s.reqsOf)),
	}
	for k, v := range s.grantsOf {
		c.grantsOf[k] = maps.Clone(v)
	}
	for k, v := range s.reqsOf {
		c.reqsOf[k] = maps.Clone(v)
	}
	return c
}

func (s *state) records() int { return len(s.levels) + len(s.grants) + len(s.requests) }

func live(expires, now time.Time) bool { return now.Before(expires) }

func (s *state) addGrant(g Grant) {
	s.grants[g.Key] = g
	set := s.grantsOf[g.session()]
	if set == nil {
		set = map[Key]struct{}{}
		s.grantsOf[g.session()] = set
	}
	set[g.Key] = struct{}{}
}

func (s *state) dropGrant(k Key) {
	delete(s.grants, k)
	if set := s.grantsOf[k.session()]; set != nil {
		delete(set, k)
		if len(set) == 0 {
			delete(s.grantsOf, k.session())
		}
	}
}

func (s *state) addRequest(r Request) {
	s.requests[r.ID] = r
	s.byKey[r.Key] = r.ID
	set := s.reqsOf[r.Key.session()]
	if set == nil {
		set = map[string]struct{}{}
		s.reqsOf[r.Key.session()] = set
	}
	set[r.ID] = struct{}{}
}

func (s *state) dropRequest(r Request) {
	delete(s.requests, r.ID)
	if s.byKey[r.Key] == r.ID {
		delete(s.byKey, r.Key)
	}
	if set := s.reqsOf[r.Key.session()]; set != nil {
		delete(set, r.ID)
		if len(set) == 0 {
			delete(s.reqsOf, r.Key.session())
		}
	}
}

// purge drops every expired grant and request and reports whether it
// dropped any.
func (s *state) purge(now time.Time) bool {
	n := s.records()
	for k, g := range s.grants {
		if !live(g.Expires, now) {
			s.dropGrant(k)
		}
	}
	for _, r := range s.requests {
		if !live(r.Expires, now) {
			s.dropRequest(r)
		}
	}
	return s.records() != n
}

// purgeSession drops the expired grants and requests of one session.
func (s *state) purgeSession(sess sessionOf, now time.Time) {
	for k := range s.grantsOf[sess] {
		if !live(s.grants[k].Expires, now) {
			s.dropGrant(k)
		}
	}
	for id := range s.reqsOf[sess] {
		if r := s.requests[id]; !live(r.Expires, now) {
			s.dropRequest(r)
		}
	}
}

// read runs f on the current state under the lock.
func (l *local) read(f func(*state)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(l.st)
}

// write runs f on the state, or on a copy of it when the store persists.
// f reports whether it changed anything; a change to a copy is persisted
// and then replaces the state. A failed persist leaves the state as it was.
func (l *local) write(now time.Time, f func(*state) (bool, error)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.After(l.seen) {
		l.seen = now
	}
	st := l.st
	if l.persist != nil {
		st = st.clone()
	}
	changed, err := f(st)
	if !changed || l.persist == nil {
		return err
	}
	if perr := l.persist(st); perr != nil {
		return perr // nothing f returned is valid when the change was not kept
	}
	l.st = st
	return err
}

// Level returns id's level, [toolreg.DefaultAuthority] when none is set.
func (l *local) Level(_ context.Context, id Identity) (int, error) {
	level := toolreg.DefaultAuthority
	l.read(func(s *state) {
		if v, ok := s.levels[id]; ok {
			level = v
		}
	})
	return level, nil
}

// SetLevel sets id's level; [toolreg.DefaultAuthority] removes the record.
func (l *local) SetLevel(_ context.Context, id Identity, level int) error {
	if !validText(id.Platform, id.UserID) {
		return fmt.Errorf("%w: identity holds invalid UTF-8 or a string over %d bytes", ErrInvalid, maxTextBytes)
	}
	return l.write(time.Time{}, func(s *state) (bool, error) {
		old, had := s.levels[id]
		if level == toolreg.DefaultAuthority {
			delete(s.levels, id)
			return had, nil
		}
		if had && old == level {
			return false, nil
		}
		if had {
			s.levels[id] = level
			return true, nil
		}
		// A level carries no time: make room with the latest time the
		// store was given.
		purged := s.records() >= l.cfg.maxRecords && s.purge(l.seen)
		if s.records() >= l.cfg.maxRecords {
			return purged, fmt.Errorf("%w: the store holds its maximum of %d records", ErrFull, l.cfg.maxRecords)
		}
		s.levels[id] = level
		return true, nil
	})
}

// PutGrant stores g, replacing a grant with the same Key; see
// [GrantStore.PutGrant].
func (l *local) PutGrant(_ context.Context, g Grant, limit int, now time.Time) error {
	if err := g.Validate(); err != nil {
		return err
	}
	return l.write(now, func(s *state) (bool, error) {
		if !live(g.Expires, now) { // expired already: it only removes the grant it replaces
			_, had := s.grants[g.Key]
			s.dropGrant(g.Key)
			return had, nil
		}
		changed := false
		if _, had := s.grants[g.Key]; !had {
			sess := g.session()
			before := s.records()
			s.purgeSession(sess, now)
			changed = s.records() != before
			if limit > 0 && len(s.grantsOf[sess]) >= limit {
				return changed, fmt.Errorf("%w: the session holds its maximum of %d grants", ErrFull, limit)
			}
			if s.records() >= l.cfg.maxRecords {
				changed = s.purge(now) || changed
				if s.records() >= l.cfg.maxRecords {
					return changed, fmt.Errorf("%w: the store holds its maximum of %d records", ErrFull, l.cfg.maxRecords)
				}
			}
		}
		s.addGrant(g)
		return true, nil
	})
}

// UseGrant atomically takes one use of the live grant stored under k; see
// [GrantStore.UseGrant].
func (l *local) UseGrant(_ context.Context, k Key, now time.Time) (Grant, bool, error) {
	var got Grant
	var ok bool
	err := l.write(now, func(s *state) (bool, error) {
		g, had := s.grants[k]
		switch {
		case !had:
			return false, nil
		case !live(g.Expires, now):
			s.dropGrant(k)
			return true, nil
		}
		got, ok = g, true
		if g.UsesLeft == Unlimited {
			return false, nil
		}
		g.UsesLeft--
		if g.UsesLeft == 0 {
			s.dropGrant(k)
		} else {
			s.grants[k] = g
		}
		return true, nil
	})
	if err != nil {
		return Grant{}, false, err
	}
	return got, ok, nil
}

// Grants returns the live grants of one session, sorted by capability then
// digest.
func (l *local) Grants(_ context.Context, id Identity, sessionID string, now time.Time) ([]Grant, error) {
	var out []Grant
	l.read(func(s *state) {
		for k := range s.grantsOf[sessionOf{id, sessionID}] {
			if g := s.grants[k]; live(g.Expires, now) {
				out = append(out, g)
			}
		}
	})
	sortGrants(out)
	return out, nil
}

// sortGrants sorts grants by capability, then digest.
func sortGrants(gs []Grant) {
	slices.SortFunc(gs, func(a, b Grant) int {
		return cmp.Or(cmp.Compare(a.Capability, b.Capability), cmp.Compare(a.Digest, b.Digest))
	})
}

// DeleteGrant removes the grant stored under exactly k, if any.
func (l *local) DeleteGrant(_ context.Context, k Key) error {
	return l.write(time.Time{}, func(s *state) (bool, error) {
		if _, had := s.grants[k]; !had {
			return false, nil
		}
		s.dropGrant(k)
		return true, nil
	})
}

// OpenRequest stores r as pending unless a live request with its Key
// exists; see [RequestStore.OpenRequest].
func (l *local) OpenRequest(_ context.Context, r Request, limit int, now time.Time) (Request, error) {
	r.State = RequestPending
	if err := r.Validate(); err != nil {
		return Request{}, err
	}
	r.Args = bytes.Clone(r.Args)
	var out Request
	err := l.write(now, func(s *state) (bool, error) {
		changed := false
		if id, ok := s.byKey[r.Key]; ok {
			old := s.requests[id]
			if live(old.Expires, now) {
				out = old
				return false, nil
			}
			s.dropRequest(old)
			changed = true
		}
		if _, taken := s.requests[r.ID]; taken {
			return changed, fmt.Errorf("%w: request id %q is in use", ErrInvalid, r.ID)
		}
		sess := r.Key.session()
		before := s.records()
		s.purgeSession(sess, now)
		changed = changed || s.records() != before
		if limit > 0 && len(s.reqsOf[sess]) >= limit {
			return changed, fmt.Errorf("%w: the session holds its maximum of %d requests", ErrFull, limit)
		}
		if !live(r.Expires, now) { // expired already: nothing to keep
			out = r
			return changed, nil
		}
		if s.records() >= l.cfg.maxRecords {
			changed = s.purge(now) || changed
			if s.records() >= l.cfg.maxRecords {
				return changed, fmt.Errorf("%w: the store holds its maximum of %d records", ErrFull, l.cfg.maxRecords)
			}
		}
		s.addRequest(r)
		out = r
		return true, nil
	})
	if err != nil {
		return Request{}, err
	}
	out.Args = bytes.Clone(out.Args)
	return out, nil
}

// Request returns the live request with the given id.
func (l *local) Request(_ context.Context, id string, now time.Time) (Request, bool, error) {
	var out Request
	var ok bool
	l.read(func(s *state) {
		r, had := s.requests[id]
		if had && live(r.Expires, now) {
			out, ok = r, true
		}
	})
	out.Args = bytes.Clone(out.Args)
	return out, ok, nil
}

// ResolveRequest moves a live pending request to approved or rejected; see
// [RequestStore.ResolveRequest].
func (l *local) ResolveRequest(_ context.Context, id string, approve bool, expires, now time.Time) (Request, error) {
	var out Request
	err := l.write(now, func(s *state) (bool, error) {
		r, had := s.requests[id]
		if !had || !live(r.Expires, now) {
			return false, fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if r.State != RequestPending {
			out = r
			return false, fmt.Errorf("%w: request %q is %s", ErrResolved, id, r.State)
		}
		r.State = RequestRejected
		if approve {
			r.State = RequestApproved
		}
		r.Expires = expires
		s.requests[id] = r
		out = r
		return true, nil
	})
	out.Args = bytes.Clone(out.Args)
	return out, err
}

// TakeDecision atomically removes and returns the live decided request for
// k; see [RequestStore.TakeDecision].
func (l *local) TakeDecision(_ context.Context, k Key, now time.Time) (Request, bool, error) {
	var out Request
	var ok bool
	err := l.write(now, func(s *state) (bool, error) {
		id, had := s.byKey[k]
		if !had {
			return false, nil
		}
		r := s.requests[id]
		switch {
		case !live(r.Expires, now):
			s.dropRequest(r)
			return true, nil
		case r.State == RequestPending:
			return false, nil
		}
		s.dropRequest(r)
		out, ok = r, true
		return true, nil
	})
	if err != nil {
		return Request{}, false, err
	}
	return out, ok, nil
}
