package authority

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"
)

// FileStore is a [Store] kept in one JSON file, for a single process that
// must keep its levels, grants and pending requests across restarts. Every
// change rewrites the file atomically: a temporary file in the same folder
// is written, synced and renamed over the old one, and the folder is synced,
// so a crash leaves either the old state or the new one, never a mix. A
// write that fails changes nothing, in the file or in memory.
//
// Each change costs a write of the whole file and an fsync: the store suits
// thousands of records and modest call rates. It holds at most
// [DefaultMaxRecords] records unless configured otherwise. Two processes
// must not open the same file; replicas share a networked store instead.
// It is safe for concurrent use within one process.
type FileStore struct {
	local
	path string
}

// fileFormat names the file's content, so that another JSON file given by
// mistake fails to load instead of reading as an empty state.
const (
	fileFormat  = "toolreg-authority"
	fileVersion = 1
)

type fileState struct {
	Format   string        `json:"format"`
	Version  int           `json:"version"`
	Levels   []fileLevel   `json:"levels"`
	Grants   []fileGrant   `json:"grants"`
	Requests []fileRequest `json:"requests"`
}

type fileLevel struct {
	Platform string `json:"platform"`
	UserID   string `json:"user_id"`
	Level    int    `json:"level"`
}

type fileKey struct {
	Platform   string `json:"platform"`
	UserID     string `json:"user_id"`
	SessionID  string `json:"session_id"`
	Capability string `json:"capability"`
	Digest     string `json:"digest"`
}

type fileGrant struct {
	fileKey
	UsesLeft   int       `json:"uses_left"`
	Expires    time.Time `json:"expires"`
	Authorizes bool      `json:"authorizes"`
}

type fileRequest struct {
	ID      string          `json:"id"`
	Key     fileKey         `json:"key"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	State   RequestState    `json:"state"`
	Created time.Time       `json:"created"`
	Expires time.Time       `json:"expires"`
}

func toFileKey(k Key) fileKey {
	return fileKey{k.Platform, k.UserID, k.SessionID, k.Capability, k.Digest}
}

func (k fileKey) key() Key {
	return Key{Identity{k.Platform, k.UserID}, k.SessionID, k.Capability, k.Digest}
}

// OpenFileStore loads the store kept at path, or starts an empty one when
// no file exists there yet (its folder must exist). A file that is empty,
// truncated, not JSON, of another format or version, or holding an invalid
// or duplicate record fails with an error wrapping [ErrCorrupt] that names
// the file: a damaged file never reads as an empty state. Records that
// expired while the process was down are dropped at the next write.
func OpenFileStore(path string, opts ...StoreOption) (*FileStore, error) {
	s := &FileStore{local: local{cfg: newStoreConfig(opts)}, path: path}
	st, err := loadFile(path, s.cfg.maxRecords)
	if err != nil {
		return nil, err
	}
	s.st = st
	s.persist = s.save
	return s, nil
}

// Path returns the file the store is kept in.
func (f *FileStore) Path() string { return f.path }

func loadFile(path string, maxRecords int) (*state, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("authority: load file store %q: %w", path, err)
	}
	st, err := decodeState(data, maxRecords)
	if err != nil {
		return nil, fmt.Errorf("authority: load file store %q: %w: %w", path, ErrCorrupt, err)
	}
	return st, nil
}

// decodeState parses a store file strictly: one JSON object, no unknown
// fields, nothing after it, every record valid and unique.
func decodeState(data []byte, maxRecords int) (*state, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	if !utf8.Valid(data) {
		return nil, errors.New("the file is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileState
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the file is truncated: %w", err)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data follows the state object")
	}
	if f.Format != fileFormat || f.Version != fileVersion {
		return nil, fmt.Errorf("format %q version %d, want %q version %d", f.Format, f.Version, fileFormat, fileVersion)
	}
	if n := len(f.Levels) + len(f.Grants) + len(f.Requests); n > maxRecords {
		return nil, fmt.Errorf("%d records, over the maximum of %d", n, maxRecords)
	}
	st := newState()
	for _, l := range f.Levels {
		id := Identity{l.Platform, l.UserID}
		if !validText(id.Platform, id.UserID) {
			return nil, fmt.Errorf("level of %q: invalid identity", id)
		}
		if _, dup := st.levels[id]; dup {
			return nil, fmt.Errorf("level of %q: duplicate", id)
		}
		if l.Level == 0 {
			return nil, fmt.Errorf("level of %q: a default level is never stored", id)
		}
		st.levels[id] = l.Level
	}
	for _, fg := range f.Grants {
		g := Grant{Key: fg.key(), UsesLeft: fg.UsesLeft, Expires: fg.Expires, Authorizes: fg.Authorizes}
		if err := g.Validate(); err != nil {
			return nil, fmt.Errorf("grant for %q: %w", g.Capability, err)
		}
		if _, dup := st.grants[g.Key]; dup {
			return nil, fmt.Errorf("grant for %q: duplicate", g.Capability)
		}
		st.addGrant(g)
	}
	for _, fr := range f.Requests {
		r := Request{ID: fr.ID, Key: fr.Key.key(), Tool: fr.Tool, Args: fr.Args, State: fr.State, Created: fr.Created, Expires: fr.Expires}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("request %q: %w", r.ID, err)
		}
		if _, dup := st.requests[r.ID]; dup {
			return nil, fmt.Errorf("request %q: duplicate id", r.ID)
		}
		if _, dup := st.byKey[r.Key]; dup {
			return nil, fmt.Errorf("request %q: duplicate key", r.ID)
		}
		st.addRequest(r)
	}
	return st, nil
}

// encodeState renders st with every list sorted, so equal states give equal
// files.
func encodeState(st *state) ([]byte, error) {
	f := fileState{Format: fileFormat, Version: fileVersion,
		Levels: []fileLevel{}, Grants: []fileGrant{}, Requests: []fileRequest{}}
	for id, level := range st.levels {
		f.Levels = append(f.Levels, fileLevel{id.Platform, id.UserID, level})
	}
	slices.SortFunc(f.Levels, func(a, b fileLevel) int {
		return cmp.Or(cmp.Compare(a.Platform, b.Platform), cmp.Compare(a.UserID, b.UserID))
	})
	for _, g := range st.grants {
		f.Grants = append(f.Grants, fileGrant{toFileKey(g.Key), g.UsesLeft, g.Expires, g.Authorizes})
	}
	slices.SortFunc(f.Grants, func(a, b fileGrant) int { return compareFileKeys(a.fileKey, b.fileKey) })
	for _, r := range st.requests {
		f.Requests = append(f.Requests, fileRequest{r.ID, toFileKey(r.Key), r.Tool, r.Args, r.State, r.Created, r.Expires})
	}
	slices.SortFunc(f.Requests, func(a, b fileRequest) int { return cmp.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func compareFileKeys(a, b fileKey) int {
	return cmp.Or(cmp.Compare(a.Platform, b.Platform), cmp.Compare(a.UserID, b.UserID),
		cmp.Compare(a.SessionID, b.SessionID), cmp.Compare(a.Capability, b.Capability), cmp.Compare(a.Digest, b.Digest))
}

// save writes st to the file atomically: temporary file, fsync, rename,
// fsync of the folder.
func (f *FileStore) save(st *state) error {
	data, err := encodeState(st)
	if err != nil {
		return fmt.Errorf("authority: save file store %q: %w", f.path, err)
	}
	if err := writeAtomic(f.path, data); err != nil {
		return fmt.Errorf("authority: save file store %q: %w", f.path, err)
	}
	return nil
}

func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The file now holds the new state, so the change counts as made even
	// if the folder cannot be synced (some file systems refuse): reporting
	// a failure here would leave memory behind the file.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
