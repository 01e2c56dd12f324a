package toolsearch

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"read_file", "read fil"},
		{"read-file", "read fil"},
		{"ReadFile", "read fil readfil"},
		{"listPullRequests", "list pull request listpullrequest"},
		{"HTTPServer", "http server httpserver"},
		{"ec2 describe-instances", "ec 2 ec2 describ instanc"},
		{"v2beta1", "v 2 beta 1 v2beta1"},
		{"GitHub", "git hub github"},
		{"Issues ISSUE issue", "issu issu issu"},
		{"creating created creates create", "creat creat creat creat"},
		{"stopped stopping", "stop stop"},
		{"process processes processing", "proces proces proces"},
		{"entries entry", "entry entry"},
		{"status analysis", "status analysis"},
		{"Send the email to a user", "send email user"},
		{"\xff\xfeabc\xc3\x28def", "abc def"},
		{"Straße ÉCOLE", "straß écol"},
		{"!!! ??? ---", ""},
		{"", ""},
		{strings.Repeat("x", maxTokenBytes+1) + " ok", "ok"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			require.Equal(t, c.want, strings.Join(appendTerms(nil, c.in), " "))
		})
	}
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"slack", "slack", 2, 0},
		{"slak", "slack", 2, 1},
		{"calender", "calendar", 2, 1},
		{"mesage", "message", 2, 1},
		{"teh", "the", 2, 1}, // adjacent swap
		{"kitten", "sitting", 2, 3},
		{"kitten", "sitting", 5, 3},
		{"a", "abcdef", 2, 3}, // length alone exceeds the limit
		{"", "ab", 2, 2},
		{"日本語", "日本", 2, 1},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, editDistance(c.a, c.b, c.limit), "%q %q", c.a, c.b)
	}
}

func TestTypoLookup(t *testing.T) {
	e := newEngine([numFields]float64{1, 1, 1, 1})
	for _, w := range []string{"calendar", "message", "slack", "kubernetes", "forecast", "weather", "get", "set"} {
		t := &term{text: stem(w)}
		e.vocab[t.text] = t
		e.typos.add(t)
	}
	lookup := func(typed string) []string {
		var out []string
		for _, q := range queryTerms(typed) {
			for _, c := range e.typoCandidates(q.text, q.typed) {
				out = append(out, c.t.text)
			}
		}
		return out
	}
	require.Equal(t, []string{"calendar"}, lookup("calender"))
	require.Equal(t, []string{"messag"}, lookup("mesage"))
	require.Equal(t, []string{"slack"}, lookup("slak"))
	require.Equal(t, []string{"kubernet"}, lookup("kubernetis"), "two edits in a long word")
	require.Equal(t, []string{"forecast"}, lookup("forcast"))
	require.Equal(t, []string{"weather"}, lookup("wether"))
	require.Empty(t, lookup("gex"), "three letters: no typo tolerance")
	require.Empty(t, lookup("xyzzy"))

	// Removing a term removes it from the typo index.
	e.typos.remove(e.vocab["slack"])
	require.Empty(t, lookup("slak"))
}

// FuzzTerms checks the tokenizer's promises on any input: it never panics,
// and every term is non-empty, valid UTF-8, letters or digits already in
// lower case, and at most maxTokenBytes long.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"listPullRequests", "HTTPServer_v2", "\xff\xfe", "ǅǈǋ ΣΑΣ", "İstanbul", "ß", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range appendTerms(nil, s) {
			if term == "" || !utf8.ValidString(term) || len(term) > maxTokenBytes {
				t.Fatalf("bad term %q from %q", term, s)
			}
			if strings.ToLower(term) != term {
				t.Fatalf("term %q from %q is not lower case", term, s)
			}
			for _, r := range term {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("term %q from %q has %q", term, s, r)
				}
			}
		}
	})
}
