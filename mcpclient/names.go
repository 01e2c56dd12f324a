package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// maxNameLen is the longest name the registry accepts.
const maxNameLen = 64

// maxPrefixLen bounds [WithPrefix], so that a sanitized name keeps room for
// some of the remote name and its hash.
const maxPrefixLen = 32

// hashLen is the number of hex digits of the remote name's hash that a
// sanitized name ends with.
const hashLen = 8

// localName maps a remote tool name to its registry name. A name that is
// valid once prefixed is kept as it is. Any other non-empty name is
// sanitized: every character outside [A-Za-z0-9_-] (every byte of invalid
// UTF-8 included) becomes '_', the result is cut to fit 64 bytes, and "_"
// plus the first 8 hex digits of the SHA-256 of the exact remote name are
// appended. The mapping is a pure function of prefix and remote, so a tool
// keeps its name across re-listings, and two remote names that sanitize
// alike still map to different names. ok is false for an empty remote name.
func localName(prefix, remote string) (name string, ok bool) {
	if remote == "" {
		return "", false
	}
	if n := prefix + remote; validName(n) {
		return n, true
	}
	room := maxNameLen - len(prefix) - 1 - hashLen
	b := make([]byte, 0, maxNameLen)
	b = append(b, prefix...)
	for i := 0; i < len(remote) && len(b)-len(prefix) < room; {
		r, size := utf8.DecodeRuneInString(remote[i:])
		if r < utf8.RuneSelf && nameByte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
		i += size
	}
	sum := sha256.Sum256([]byte(remote))
	b = append(b, '_')
	b = hex.AppendEncode(b, sum[:hashLen/2])
	return string(b), true
}

// validName reports whether s is a valid registry name:
// ^[a-zA-Z0-9_-]{1,64}$.
func validName(s string) bool {
	if len(s) == 0 || len(s) > maxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
