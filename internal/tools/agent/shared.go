package agent

import (
	"slices"

	"github.com/codewhale/codewhale/internal/provider"
)

// What the children of one session share lives on the root manager (the
// top-level session's): the launch bucket, the cost by model, the child
// managers below it, the git lock of worktree changes, the memoised schema.

// root is the manager of the top-level session.
func (m *Manager) root() *Manager {
	for m.opts.Parent != nil {
		m = m.opts.Parent
	}
	return m
}

// Admission is the session's launch bucket.
func (m *Manager) Admission() *Admission {
	if r := m.root(); r.admission != nil {
		return r.admission
	}
	return m.admission
}

// types is the session's defined types now (nil: none).
func (m *Manager) types() *Types {
	if m.opts.Types == nil {
		return nil
	}
	return m.opts.Types()
}

// UsageByModel is what every child of the session used, by model (nil
// on a nil manager: a session without sub-agents).
func (m *Manager) UsageByModel() map[string]provider.Usage {
	if m == nil {
		return nil
	}
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]provider.Usage, len(r.usage))
	for model, u := range r.usage {
		var c provider.Usage
		c.Add(&u)
		out[model] = c
	}
	return out
}

func (m *Manager) addUsage(model string, u provider.Usage) {
	r := m.root()
	r.mu.Lock()
	sum := r.usage[model]
	sum.Add(&u)
	r.usage[model] = sum
	r.mu.Unlock()
}

// allChildren is every child of this manager and of the child managers
// below it.
func (m *Manager) allChildren() []*Child {
	m.mu.Lock()
	out := make([]*Child, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.children[id])
	}
	kids := slices.Clone(m.kids)
	m.mu.Unlock()
	for _, k := range kids {
		out = append(out, k.allChildren()...)
	}
	return out
}
