package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes bounds one token: longer runs of letters are not words a
// person or a model would search for, and capping them bounds the typo
// search.
const maxTokenBytes = 48

// appendTerms splits s into search terms and appends them to dst.
//
// Words are runs of letters and digits; everything else separates them
// (spaces, "_", "-", punctuation, invalid UTF-8). A word is split again at
// case changes ("listPullRequests", "HTTPServer") and between letters and
// digits ("ec2"); when it splits, the whole word is kept as a term too, so
// "GitHub" matches both "github" and "git hub". Terms are lower-cased and
// reduced to a stem ("issues" and "issue" are one term); stop words are
// dropped. The same function reads tool definitions and queries, so both
// sides always agree.
func appendTerms(dst []string, s string) []string {
	eachTerm(s, func(t string, _ int) { dst = append(dst, t) })
	return dst
}

// queryTerm is a term of a query and the length, in runes, of what was
// typed for it: typo tolerance goes by the latter, as stemming may have
// shortened the word ("isue" is stemmed to "isu", one edit from "issu").
type queryTerm struct {
	text  string
	typed int
}

// queryTerms returns the terms of a query, as [appendTerms] reads them.
func queryTerms(s string) []queryTerm {
	var out []queryTerm
	eachTerm(s, func(t string, typed int) { out = append(out, queryTerm{t, typed}) })
	return out
}

// eachTerm calls fn with each term of s and the number of runes it was
// made from.
func eachTerm(s string, fn func(term string, typed int)) {
	var word []rune
	flush := func() {
		if len(word) > 0 {
			eachPart(word, fn)
			word = word[:0]
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if (r == utf8.RuneError && size <= 1) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			flush()
			continue
		}
		word = append(word, r)
	}
	flush()
}

// eachPart calls fn with the terms of one word (letters and digits only).
func eachPart(word []rune, fn func(term string, typed int)) {
	start, parts := 0, 0
	for i := 1; i <= len(word); i++ {
		if i < len(word) && !boundary(word, i) {
			continue
		}
		emitTerm(word[start:i], fn)
		start = i
		parts++
	}
	if parts > 1 {
		emitTerm(word, fn)
	}
}

// boundary reports whether a new part of a word starts at word[i]: after a
// lower-case letter or digit before an upper-case one ("listPull"), at the
// last capital of an acronym followed by lower case ("HTTPServer"), and
// between letters and digits ("ec2", "v2beta").
func boundary(word []rune, i int) bool {
	prev, cur := word[i-1], word[i]
	switch {
	case unicode.IsDigit(prev) != unicode.IsDigit(cur):
		return true
	case unicode.IsUpper(cur) && !unicode.IsUpper(prev):
		return true
	case unicode.IsUpper(cur) && unicode.IsUpper(prev) && i+1 < len(word) && unicode.IsLower(word[i+1]):
		return true
	}
	return false
}

// emitTerm lower-cases and stems one part and passes it to fn unless it
// is a stop word or too long to be a word.
func emitTerm(part []rune, fn func(term string, typed int)) {
	if len(part) > maxTokenBytes {
		return
	}
	t := strings.ToLower(string(part))
	if len(t) > maxTokenBytes || stopWords[t] {
		return
	}
	fn(stem(t), len(part))
}

// stopWords are words that say nothing about what a tool does. Queries are
// often sentences ("I need a tool to send an email"), so the list includes
// the words such sentences are made of.
var stopWords = wordSet(`a an the and or not no nor of to in on at by for from with into onto
		about as is are was were be been being am it its this that these those there here
		i me my mine we us our ours you your yours he she they them their
		what which who whom whose when where why how
		do does did done can could would should will shall may might must
		please want need like some any all each every just also then than so very
		s t d ll re ve m
		tool tools function functions`)

// wordSet returns the set of the space-separated words in s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}
