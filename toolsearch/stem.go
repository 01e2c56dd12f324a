package toolsearch

import "strings"

// stem reduces a lower-case English word to a stem, so that the forms a
// model writes ("files", "listing", "created") meet the forms a definition
// uses ("file", "list", "create"). It is a light suffix stripper, not a full
// Porter stemmer: it only has to map the forms of one word to one string,
// the same way for definitions and queries, and never to a real word.
// Words of three letters or fewer, and words that do not end in an ASCII
// letter, are returned unchanged.
func stem(w string) string {
	if len(w) <= 3 || !asciiLetter(w[len(w)-1]) {
		return w
	}
	// Plurals and third person: entries→entry, classes→class, files→file;
	// status and analysis keep their s.
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	// Verb forms: listing→list, created→creat(e), stopped→stop.
	for _, suffix := range []string{"ing", "ed"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
			w = undouble(w[:len(w)-len(suffix)])
			break
		}
	}
	// A double s loses one, so that process, processes and processing
	// meet.
	if strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	// A final e: create, created and creating all become "creat".
	if len(w) >= 4 && w[len(w)-1] == 'e' && w[len(w)-2] != 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops the second of two equal final consonants left by a removed
// suffix (stopp→stop, runn→run), except l, s and z (install, process, buzz).
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && asciiLetter(w[n-1]) && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' }
