package projectctx

import "fmt"

// shadowing admits the definitions of one kind (commands, skills, sub-agent
// types) source by source, by the one rule they share: a name found in an
// earlier source shadows later ones, which are reported; a source holds at
// most limit; a definition with a problem is reported and not admitted.
type shadowing[T any] struct {
	named    func(name string) string // the name as a problem says it: "/x", "skill x"
	plural   string                   // "commands", as a source's limit says it
	limit    int
	seen     map[string]string // name → the path that won
	n        int               // admitted from the current source
	admitted []T
	problems []string
}

func newShadowing[T any](named func(string) string, plural string, limit int) *shadowing[T] {
	return &shadowing[T]{named: named, plural: plural, limit: limit, seen: map[string]string{}}
}

// next starts the next source: its limit counts afresh.
func (s *shadowing[T]) next() { s.n = 0 }

// offer admits v (name, at path, from the source labelled label) unless
// problem says it is broken, an earlier source has the name, or the source
// is full.
func (s *shadowing[T]) offer(label, name, path string, v T, problem string) {
	switch {
	case problem != "":
		s.problems = append(s.problems, problem)
	case s.seen[name] != "":
		s.problems = append(s.problems, fmt.Sprintf("%s in %s is shadowed by the one in %s", s.named(name), path, s.seen[name]))
	case s.n >= s.limit:
		s.problems = append(s.problems, fmt.Sprintf("%s: more than %d %s; %s was not loaded", label, s.limit, s.plural, path))
	default:
		s.n++
		s.seen[name] = path
		s.admitted = append(s.admitted, v)
	}
}
