package authority

// match reports whether name matches pattern, in which '*' matches any run
// of characters (none included) and every other byte matches itself. It runs
// in O(len(pattern)·len(name)) at worst, without recursion.
func match(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0 // last '*' seen in pattern, and where name stood then
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			mark++
			p, n = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchAny reports whether name matches one of patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if match(p, name) {
			return true
		}
	}
	return false
}
