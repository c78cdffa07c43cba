package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/codewhale/codewhale/internal/provider"
)

// NotRegistered is the exact text of an unknown or removed name.
func NotRegistered(name string) string { return fmt.Sprintf("tool '%s' is not registered", name) }

// Registry maps exact names to tools, hidden aliases included. Resolution is
// byte-for-byte: there is no case folding and no fuzzy step, so a
// hallucinated name fails and never dispatches (CONTRACT.md §15.12).
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	api   []provider.Tool // memoised APITools; nil after a change
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]Tool{}} }

// Register stores t under its name, replacing (and logging) a previous tool.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name()]; dup {
		slog.Warn("tool re-registered; the new definition replaces the old", "tool", t.Name())
	}
	r.tools[t.Name()] = t
	r.api = nil
}

// Remove deletes name and reports whether it was registered.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tools[name]
	delete(r.tools, name)
	r.api = nil
	return ok
}

// Get returns the tool registered under exactly name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Contains reports whether exactly name is registered.
func (r *Registry) Contains(name string) bool { _, ok := r.Get(name); return ok }

// Resolve returns name when it is registered. It never guesses.
func (r *Registry) Resolve(name string) (string, bool) {
	if r.Contains(name) {
		return name, true
	}
	return "", false
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Tools returns every registered tool sorted by name.
func (r *Registry) Tools() []Tool {
	names := r.Names()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		out = append(out, r.tools[n])
	}
	return out
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// APITools returns the model-visible tools sorted by name in byte order,
// each with allowed_callers ["direct"] and the tool's own defer_loading. The
// result is memoised until the next Register or Remove so description and
// schema bytes stay stable across turns; each schema's canonical JSON is
// computed here once for the per-request digest. Callers must not modify it.
func (r *Registry) APITools() []provider.Tool {
	r.mu.RLock()
	if r.api != nil {
		defer r.mu.RUnlock()
		return r.api
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.api != nil {
		return r.api
	}
	api := make([]provider.Tool, 0, len(r.tools))
	for _, t := range r.tools {
		if !t.ModelVisible() {
			continue
		}
		pt := provider.Tool{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema(),
			AllowedCallers: []string{"direct"}, DeferLoading: provider.Bool(t.DeferLoading())}
		pt.Freeze()
		api = append(api, pt)
	}
	sort.Slice(api, func(i, j int) bool { return api[i].Name < api[j].Name })
	r.api = api
	return api
}

// Prepare resolves name and decodes in once for the tool (PrepareCall),
// without running anything. An unknown name is NotAvailable with the exact
// text `tool '<name>' is not registered`; malformed input is refused here
// with the contract's text.
func (r *Registry) Prepare(name string, in json.RawMessage) (*Call, error) {
	t, ok := r.Get(name)
	if !ok {
		return nil, NotAvailable("%s", NotRegistered(name))
	}
	return PrepareCall(t, in)
}

// Execute prepares and runs the tool registered under exactly name; invalid
// input is refused before the tool runs; a panicking tool becomes
// ExecutionFailed.
func (r *Registry) Execute(ctx context.Context, tc *Context, name string, in json.RawMessage) (Result, error) {
	c, err := r.Prepare(name, in)
	if err != nil {
		return Result{}, err
	}
	return c.Run(ctx, tc)
}
