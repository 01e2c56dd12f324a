package toolsearch

// DefaultSynonyms returns the synonym groups an [Index] uses unless
// [WithSynonyms] replaces them: general words of tool catalogs whose
// members name the same action or thing ("delete", "remove", "erase"), and
// common abbreviations ("repo", "pr", "k8s"). Each call returns a new copy,
// so a caller may extend it:
//
//	groups := append(toolsearch.DefaultSynonyms(), []string{"invoice", "bill"})
//	ix := toolsearch.New(reg, toolsearch.WithSynonyms(groups))
func DefaultSynonyms() [][]string {
	out := make([][]string, len(defaultSynonyms))
	for i, g := range defaultSynonyms {
		out[i] = append([]string(nil), g...)
	}
	return out
}

var defaultSynonyms = [][]string{
	{"delete", "remove", "erase", "drop", "destroy", "trash"},
	{"create", "make", "add", "new"},
	{"get", "fetch", "retrieve", "obtain", "download"},
	{"read", "view", "show", "display"},
	{"list", "enumerate", "browse"},
	{"search", "find", "lookup", "look", "query"},
	{"regex", "regexp", "regular expression", "pattern"},
	{"update", "edit", "modify", "change", "alter"},
	{"send", "post", "deliver", "publish"},
	{"run", "execute", "exec", "invoke", "launch", "trigger"},
	{"stop", "halt", "terminate", "kill"},
	{"start", "begin", "resume"},
	{"close", "complete", "finish"},
	{"rename", "move"},
	{"copy", "duplicate", "clone"},
	{"save", "store"},
	{"approve", "accept"},
	{"reply", "respond", "answer"},
	{"email", "mail"},
	{"message", "msg", "chat"},
	{"directory", "folder", "dir"},
	{"repository", "repo"},
	{"pull request", "pr"},
	{"merge request", "mr"},
	{"issue", "ticket", "bug"},
	{"meeting", "event", "appointment"},
	{"calendar", "schedule", "agenda"},
	{"image", "picture", "photo", "pic"},
	{"virtual machine", "vm", "instance"},
	{"kubernetes", "k8s", "kube"},
	{"database", "db"},
	{"configuration", "config", "settings"},
	{"document", "doc"},
	{"error", "exception", "crash", "failure"},
	{"url", "link", "webpage", "website"},
	{"cost", "spend", "billing"},
	{"customer", "client"},
	{"phone", "mobile", "cell"},
	{"shell", "terminal", "bash", "command line"},
	{"javascript", "js"},
	{"python", "py"},
	{"typescript", "ts"},
	{"organization", "org"},
	{"information", "info"},
	{"authentication", "auth", "login"},
	{"password", "secret", "credential"},
	{"metric", "stat", "statistic"},
	{"notification", "notify", "alert"},
}

// synonymTable maps a term to the term sequences it may stand for.
type synonymTable map[string][][]string

// newSynonymTable reads groups: every one-word member maps to each other
// member of its group, and a member of several words ("pull request") is
// only ever an expansion. Terms go through the same analysis as documents.
func newSynonymTable(groups [][]string) synonymTable {
	table := synonymTable{}
	for _, g := range groups {
		analyzed := make([][]string, 0, len(g))
		for _, member := range g {
			if terms := appendTerms(nil, member); len(terms) > 0 {
				analyzed = append(analyzed, terms)
			}
		}
		for i, key := range analyzed {
			if len(key) != 1 {
				continue
			}
			for j, other := range analyzed {
				if i != j && !(len(other) == 1 && other[0] == key[0]) {
					table[key[0]] = append(table[key[0]], other)
				}
			}
		}
	}
	return table
}
