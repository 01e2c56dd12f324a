package authority

import (
	"fmt"
	"unicode/utf8"
)

// UnknownPlatform is the platform of a caller that named none; the registry
// reports such callers to the guard with this platform too.
const UnknownPlatform = "unknown"

// Identity is a caller: a user on a platform. Two callers with the same
// UserID on different platforms are different identities. An empty UserID is
// an anonymous caller: every anonymous caller of a platform shares one
// level, and none is an owner. An empty Platform reads as [UnknownPlatform].
type Identity struct {
	Platform string
	UserID   string
}

// normalized returns id with an empty platform named [UnknownPlatform], the
// form in which identities are compared and stored.
func (id Identity) normalized() Identity {
	if id.Platform == "" {
		id.Platform = UnknownPlatform
	}
	return id
}

// String returns "platform/user" for logs and messages.
func (id Identity) String() string {
	id = id.normalized()
	return fmt.Sprintf("%s/%s", id.Platform, id.UserID)
}

// validText reports whether every string is valid UTF-8 and at most
// maxTextBytes long: the strings that stores can keep and compare exactly.
func validText(ss ...string) bool {
	for _, s := range ss {
		if len(s) > maxTextBytes || !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// maxTextBytes bounds each platform, user id, session id, capability and
// digest that reaches a store.
const maxTextBytes = 1024
