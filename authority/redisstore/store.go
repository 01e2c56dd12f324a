package redisstore

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/authority"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "{toolreg-authority}:"

// Store is an [authority.Store] in Redis. Create it with [New]. It holds no
// state of its own: every method is a round trip to the server, and it is
// safe for concurrent use by any number of processes.
type Store struct {
	c      redis.UniversalClient
	prefix string
}

var _ authority.Store = (*Store)(nil)

// Option configures a [Store].
type Option func(*Store)

// WithPrefix starts every key with prefix instead of [DefaultPrefix], so
// that several authorities can share one Redis. On Redis Cluster the prefix
// must hold a hash tag ("{...}"). An empty prefix keeps the default.
func WithPrefix(prefix string) Option {
	return func(s *Store) {
		if prefix != "" {
			s.prefix = prefix
		}
	}
}

// New returns a store that keeps its records through c. The store does not
// own c: closing it is the caller's business.
func New(c redis.UniversalClient, opts ...Option) *Store {
	s := &Store{c: c, prefix: DefaultPrefix}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// enc encodes each part losslessly and joins them with '.', which the
// encoding never produces: different tuples never share a key.
func enc(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(base64.RawURLEncoding.EncodeToString([]byte(p)))
	}
	return b.String()
}

func (s *Store) levelKey(id authority.Identity) string {
	return s.prefix + "level:" + enc(id.Platform, id.UserID)
}

func sessionPart(k authority.Key) string { return enc(k.Platform, k.UserID, k.SessionID) }

func (s *Store) grantKey(k authority.Key) string {
	return s.prefix + "grant:" + sessionPart(k) + "." + enc(k.Capability, k.Digest)
}

func (s *Store) grantIndex(k authority.Key) string { return s.prefix + "grants:" + sessionPart(k) }

func (s *Store) requestKey(k authority.Key) string {
	return s.prefix + "req:" + sessionPart(k) + "." + enc(k.Capability, k.Digest)
}

func (s *Store) requestIndex(k authority.Key) string { return s.prefix + "reqs:" + sessionPart(k) }

func (s *Store) requestID(id string) string { return s.prefix + "rid:" + enc(id) }

// keySuffix is what a request id points to: the key's parts, encoded.
func keySuffix(k authority.Key) string {
	return enc(k.Platform, k.UserID, k.SessionID, k.Capability, k.Digest)
}

func parseSuffix(s string) (authority.Key, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 5 {
		return authority.Key{}, false
	}
	dec := make([]string, 5)
	for i, p := range parts {
		b, err := base64.RawURLEncoding.DecodeString(p)
		if err != nil {
			return authority.Key{}, false
		}
		dec[i] = string(b)
	}
	return authority.Key{Identity: authority.Identity{Platform: dec[0], UserID: dec[1]},
		SessionID: dec[2], Capability: dec[3], Digest: dec[4]}, true
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fail(op string, err error) error { return fmt.Errorf("redisstore: %s: %w", op, err) }

// Level returns id's level, [toolreg.DefaultAuthority] when none is set.
func (s *Store) Level(ctx context.Context, id authority.Identity) (int, error) {
	v, err := s.c.Get(ctx, s.levelKey(id)).Result()
	if errors.Is(err, redis.Nil) {
		return toolreg.DefaultAuthority, nil
	}
	if err != nil {
		return 0, fail("level", err)
	}
	level, err := strconv.Atoi(v)
	if err != nil {
		return 0, fail("level", fmt.Errorf("stored level %q is not a number", v))
	}
	return level, nil
}

// SetLevel sets id's level; [toolreg.DefaultAuthority] removes the record.
func (s *Store) SetLevel(ctx context.Context, id authority.Identity, level int) error {
	if err := (authority.Key{Identity: id}).Validate(); err != nil {
		return err
	}
	var err error
	if level == toolreg.DefaultAuthority {
		err = s.c.Del(ctx, s.levelKey(id)).Err()
	} else {
		err = s.c.Set(ctx, s.levelKey(id), level, 0).Err()
	}
	if err != nil {
		return fail("set level", err)
	}
	return nil
}

// PutGrant stores g, replacing a grant with the same Key; see
// [authority.GrantStore].
func (s *Store) PutGrant(ctx context.Context, g authority.Grant, limit int, now time.Time) error {
	if err := g.Validate(); err != nil {
		return err
	}
	auth := 0
	if g.Authorizes {
		auth = 1
	}
	err := putGrant.Run(ctx, s.c, []string{s.grantKey(g.Key), s.grantIndex(g.Key)},
		enc(g.Capability, g.Digest), g.UsesLeft, ms(g.Expires), auth, max(limit, 0), ms(now)).Err()
	if err != nil {
		if isFull(err) {
			return fmt.Errorf("%w: the session holds its maximum of %d grants", authority.ErrFull, limit)
		}
		return fail("put grant", err)
	}
	return nil
}

// UseGrant atomically takes one use of the live grant stored under k; see
// [authority.GrantStore].
func (s *Store) UseGrant(ctx context.Context, k authority.Key, now time.Time) (authority.Grant, bool, error) {
	v, err := useGrant.Run(ctx, s.c, []string{s.grantKey(k), s.grantIndex(k)}, enc(k.Capability, k.Digest), ms(now)).StringSlice()
	if errors.Is(err, redis.Nil) {
		return authority.Grant{}, false, nil
	}
	if err != nil {
		return authority.Grant{}, false, fail("use grant", err)
	}
	g, err := grantFrom(k, v)
	if err != nil {
		return authority.Grant{}, false, fail("use grant", err)
	}
	return g, true, nil
}

// grantFrom reads a grant's hash fields: uses, exp, auth.
func grantFrom(k authority.Key, v []string) (authority.Grant, error) {
	if len(v) != 3 {
		return authority.Grant{}, fmt.Errorf("grant record has %d fields", len(v))
	}
	uses, err1 := strconv.Atoi(v[0])
	exp, err2 := strconv.ParseInt(v[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return authority.Grant{}, fmt.Errorf("grant record: %w", err)
	}
	return authority.Grant{Key: k, UsesLeft: uses, Expires: time.UnixMilli(exp), Authorizes: v[2] == "1"}, nil
}

// Grants returns the live grants of one session, sorted by capability then
// digest.
func (s *Store) Grants(ctx context.Context, id authority.Identity, sessionID string, now time.Time) ([]authority.Grant, error) {
	sess := authority.Key{Identity: id, SessionID: sessionID}
	members, err := s.c.ZRangeByScore(ctx, s.grantIndex(sess), &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(ms(now), 10), Max: "+inf"}).Result()
	if err != nil {
		return nil, fail("grants", err)
	}
	keys := make([]authority.Key, 0, len(members))
	cmds := make([]*redis.SliceCmd, 0, len(members))
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, m := range members {
			k, ok := parseSuffix(sessionPart(sess) + "." + m)
			if !ok {
				continue
			}
			keys = append(keys, k)
			cmds = append(cmds, p.HMGet(ctx, s.grantKey(k), "uses", "exp", "auth"))
		}
		return nil
	})
	if err != nil {
		return nil, fail("grants", err)
	}
	var out []authority.Grant
	for i, cmd := range cmds {
		vals := cmd.Val()
		fields := make([]string, 0, 3)
		for _, v := range vals {
			if str, ok := v.(string); ok {
				fields = append(fields, str)
			}
		}
		if len(fields) != 3 {
			continue // gone since the index was read
		}
		g, err := grantFrom(keys[i], fields)
		if err != nil {
			return nil, fail("grants", err)
		}
		if now.UnixMilli() < g.Expires.UnixMilli() {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b authority.Grant) int {
		return cmp.Or(cmp.Compare(a.Capability, b.Capability), cmp.Compare(a.Digest, b.Digest))
	})
	return out, nil
}

// DeleteGrant removes the grant stored under exactly k, if any.
func (s *Store) DeleteGrant(ctx context.Context, k authority.Key) error {
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.grantKey(k))
		p.ZRem(ctx, s.grantIndex(k), enc(k.Capability, k.Digest))
		return nil
	})
	if err != nil {
		return fail("delete grant", err)
	}
	return nil
}

// OpenRequest stores r as pending unless a live request with its Key
// exists; see [authority.RequestStore].
func (s *Store) OpenRequest(ctx context.Context, r authority.Request, limit int, now time.Time) (authority.Request, error) {
	r.State = authority.RequestPending
	if err := r.Validate(); err != nil {
		return authority.Request{}, err
	}
	v, err := openRequest.Run(ctx, s.c, []string{s.requestKey(r.Key), s.requestIndex(r.Key), s.requestID(r.ID)},
		r.ID, r.Tool, string(r.Args), ms(r.Created), ms(r.Expires), max(limit, 0), ms(now), keySuffix(r.Key)).StringSlice()
	if err != nil {
		if isFull(err) {
			return authority.Request{}, fmt.Errorf("%w: the session holds its maximum of %d requests", authority.ErrFull, limit)
		}
		return authority.Request{}, fail("open request", err)
	}
	out, err := requestFrom(r.Key, v)
	if err != nil {
		return authority.Request{}, fail("open request", err)
	}
	return out, nil
}

// requestFrom reads a request's hash fields: id, tool, args, state,
// created, exp.
func requestFrom(k authority.Key, v []string) (authority.Request, error) {
	if len(v) != 6 {
		return authority.Request{}, fmt.Errorf("request record has %d fields", len(v))
	}
	created, err1 := strconv.ParseInt(v[4], 10, 64)
	exp, err2 := strconv.ParseInt(v[5], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return authority.Request{}, fmt.Errorf("request record: %w", err)
	}
	r := authority.Request{ID: v[0], Key: k, Tool: v[1], State: authority.RequestState(v[3]),
		Created: time.UnixMilli(created), Expires: time.UnixMilli(exp)}
	if v[2] != "" {
		r.Args = []byte(v[2])
	}
	return r, nil
}

// lookup finds the key a request id points to.
func (s *Store) lookup(ctx context.Context, id string) (authority.Key, bool, error) {
	suffix, err := s.c.Get(ctx, s.requestID(id)).Result()
	if errors.Is(err, redis.Nil) {
		return authority.Key{}, false, nil
	}
	if err != nil {
		return authority.Key{}, false, err
	}
	k, ok := parseSuffix(suffix)
	return k, ok, nil
}

// Request returns the live request with the given id.
func (s *Store) Request(ctx context.Context, id string, now time.Time) (authority.Request, bool, error) {
	k, ok, err := s.lookup(ctx, id)
	if err != nil {
		return authority.Request{}, false, fail("request", err)
	}
	if !ok {
		return authority.Request{}, false, nil
	}
	vals, err := s.c.HMGet(ctx, s.requestKey(k), "id", "tool", "args", "state", "created", "exp").Result()
	if err != nil {
		return authority.Request{}, false, fail("request", err)
	}
	fields := make([]string, 0, 6)
	for _, v := range vals {
		if str, ok := v.(string); ok {
			fields = append(fields, str)
		}
	}
	if len(fields) != 6 || fields[0] != id {
		return authority.Request{}, false, nil // taken, or replaced by a newer request
	}
	r, err := requestFrom(k, fields)
	if err != nil {
		return authority.Request{}, false, fail("request", err)
	}
	if ms(now) >= ms(r.Expires) {
		return authority.Request{}, false, nil
	}
	return r, true, nil
}

// ResolveRequest moves a live pending request to approved or rejected; see
// [authority.RequestStore].
func (s *Store) ResolveRequest(ctx context.Context, id string, approve bool, expires, now time.Time) (authority.Request, error) {
	k, ok, err := s.lookup(ctx, id)
	if err != nil {
		return authority.Request{}, fail("resolve request", err)
	}
	if !ok {
		return authority.Request{}, fmt.Errorf("%w: %q", authority.ErrNotFound, id)
	}
	state := authority.RequestRejected
	if approve {
		state = authority.RequestApproved
	}
	v, err := resolveRequest.Run(ctx, s.c, []string{s.requestKey(k), s.requestIndex(k), s.requestID(id)},
		id, string(state), ms(expires), ms(now)).StringSlice()
	switch {
	case errors.Is(err, redis.Nil):
		return authority.Request{}, fmt.Errorf("%w: %q", authority.ErrNotFound, id)
	case err != nil:
		return authority.Request{}, fail("resolve request", err)
	case len(v) != 7:
		return authority.Request{}, fail("resolve request", fmt.Errorf("reply has %d fields", len(v)))
	}
	r, err := requestFrom(k, v[1:])
	if err != nil {
		return authority.Request{}, fail("resolve request", err)
	}
	if v[0] == "RESOLVED" {
		return r, fmt.Errorf("%w: request %q is %s", authority.ErrResolved, id, r.State)
	}
	return r, nil
}

// TakeDecision atomically removes and returns the live decided request for
// k; see [authority.RequestStore].
func (s *Store) TakeDecision(ctx context.Context, k authority.Key, now time.Time) (authority.Request, bool, error) {
	v, err := takeDecision.Run(ctx, s.c, []string{s.requestKey(k), s.requestIndex(k)}, ms(now)).StringSlice()
	if errors.Is(err, redis.Nil) {
		return authority.Request{}, false, nil
	}
	if err != nil {
		return authority.Request{}, false, fail("take decision", err)
	}
	r, err := requestFrom(k, v)
	if err != nil {
		return authority.Request{}, false, fail("take decision", err)
	}
	return r, true, nil
}

// isFull reports the error reply of a script that found a session's bound
// reached.
func isFull(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.Contains(re.Error(), "TOOLREG_FULL")
}
