package mcpclient

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestLocalName(t *testing.T) {
	long := strings.Repeat("a", 70)
	cases := []struct {
		name, prefix, remote string
		want                 string // exact, or a regexp when it starts with ^
	}{
		{"a valid name is kept, prefixed", "gh_", "create_issue", "gh_create_issue"},
		{"no prefix", "", "create_issue", "create_issue"},
		{"dots become underscores, with a hash", "gh_", "issues.create", `^gh_issues_create_[0-9a-f]{8}$`},
		{"a multi-byte character is one underscore", "", "café", `^caf__[0-9a-f]{8}$`},
		{"each invalid byte is one underscore", "", "a\xff\xfeb", `^a__b_[0-9a-f]{8}$`},
		{"a long valid name is cut to fit, with a hash", "p_", long, `^p_a{53}_[0-9a-f]{8}$`},
		{"a name of only invalid characters", "", "...", `^____[0-9a-f]{8}$`},
		{"the longest prefix still leaves room", strings.Repeat("p", 32), "x.y", `^p{32}x_y_[0-9a-f]{8}$`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := localName(tc.prefix, tc.remote)
			assert.True(t, ok)
			assert.Regexp(t, nameRule, got)
			if strings.HasPrefix(tc.want, "^") {
				assert.Regexp(t, tc.want, got)
			} else {
				assert.Equal(t, tc.want, got)
			}
		})
	}
	_, ok := localName("p_", "")
	assert.False(t, ok, "an empty remote name has no registry name")

	a, _ := localName("", "a.b")
	b, _ := localName("", "a,b")
	assert.NotEqual(t, a, b, "names that sanitize alike stay apart")
	again, _ := localName("", "a.b")
	assert.Equal(t, a, again, "the mapping is stable")
}
