package toolreg

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of the messages the library writes. Every value a caller or a model
// controls is quoted through [quote], so no message grows with its input.
const (
	// maxQuoted is how many bytes of a value a message quotes.
	maxQuoted = 96
	// maxListed is how many items (problems, names) a message lists before
	// it says how many more there are.
	maxListed = 8
)

// quote returns s quoted as Go would, cut to maxQuoted bytes at a rune
// boundary; a cut value ends in "…" and says its full length.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cut(s, maxQuoted)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// cut returns s cut to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// quoteList renders items as ["a", "b"], listing at most maxListed.
func quoteList(items []string) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, it := range items {
		if i == maxListed {
			sb.WriteString(", and " + strconv.Itoa(len(items)-i) + " more")
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(quote(it))
	}
	sb.WriteByte(']')
	return sb.String()
}

// joinBounded joins msgs with "; ", keeping at most maxListed of them and
// saying how many were left out.
func joinBounded(msgs []string) string {
	if len(msgs) <= maxListed {
		return strings.Join(msgs, "; ")
	}
	return strings.Join(msgs[:maxListed], "; ") + "; and " + strconv.Itoa(len(msgs)-maxListed) + " more"
}
