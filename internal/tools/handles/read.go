package handles

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// Source serves the texts of the handles it owns: ok is false for a
// session_id that is not its own.
type Source interface {
	Prefixes() []string
	Text(sessionID, name string) (text string, ok bool, err error)
}

// Prefixes are the session_id prefixes a store serves.
var storePrefixes = []string{"web", "github", "rlm"}

// Prefixes implements Source.
func (s *Store) Prefixes() []string { return storePrefixes }

// Text implements Source.
func (s *Store) Text(sessionID, name string) (string, bool, error) {
	if !Owns(sessionID, storePrefixes...) {
		return "", false, nil
	}
	if name == "" {
		name = s.defaultName(sessionID)
	}
	text, ok := s.Get(sessionID, name)
	if !ok {
		return "", true, fmt.Errorf("handle %s (%s) is no longer held: handles live for this session only and the "+
			"oldest are dropped beyond %d MB; run the call that produced it again", sessionID, name, s.limit>>20)
	}
	return text, true, nil
}

func (s *Store) defaultName(sessionID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range s.order {
		if sid, name, _ := strings.Cut(key, "\x00"); sid == sessionID {
			return name
		}
	}
	return ""
}

// Read is the deferred handle_read tool over its sources.
type Read struct {
	tools.Spec
	sources []Source
}

const (
	defaultReadLimit = 8000
	maxReadLimit     = 50000
)

// NewRead returns handle_read over sources (nil ones are skipped).
func NewRead(sources ...Source) *Read {
	var kept []Source
	for _, s := range sources {
		if s != nil {
			kept = append(kept, s)
		}
	}
	return &Read{sources: kept, Spec: tools.Spec{
		ToolName: "handle_read",
		Desc: "Read a slice of a var handle: a sub-agent transcript_handle, a fetched page or issue thread " +
			"kept out of the transcript, or an rlm value.",
		Schema: map[string]any{"type": "object", "properties": map[string]any{
			"session_id": map[string]any{"type": "string", "description": "The handle's session_id, e.g. agent:agent_3f9a1c2e or web:3."},
			"handle":     map[string]any{"type": "object", "description": "The whole handle object, instead of session_id."},
			"name":       map[string]any{"type": "string", "description": "Handle name (default: the handle's only name)."},
			"offset":     map[string]any{"type": "integer", "minimum": 0, "description": "First character to return."},
			"limit":      map[string]any{"type": "integer", "minimum": 1, "maximum": maxReadLimit, "default": defaultReadLimit},
		}},
		Caps:     []tools.Capability{tools.CapReadOnly},
		Deferred: true, Approve: tools.Auto, ReadOnly: true, Parallel: true,
	}}
}

// Execute returns the requested slice with a receipt line saying where it
// sits in the whole and how to read on.
func (t *Read) Execute(_ context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return tools.Result{}, err
	}
	sid, name, err := target(args)
	if err != nil {
		return tools.Result{}, err
	}
	offset, _, err := args.Uint("offset")
	if err != nil {
		return tools.Result{}, err
	}
	limit, ok, err := args.Uint("limit")
	if err != nil {
		return tools.Result{}, err
	}
	if !ok || limit == 0 {
		limit = defaultReadLimit
	}
	limit = min(limit, maxReadLimit, tc.ResultBudget()-200)
	text, err := t.text(sid, name)
	if err != nil {
		return tools.Result{}, err
	}
	r := []rune(text)
	offset = min(offset, len(r))
	end := min(len(r), offset+limit)
	note := fmt.Sprintf("[%s characters %d-%d of %d]", sid, offset, end, len(r))
	if end < len(r) {
		note += fmt.Sprintf(" — more remains; call handle_read with offset=%d", end)
	}
	return tools.OK(note + "\n" + string(r[offset:end])), nil
}

func target(args tools.Args) (sid, name string, err error) {
	if sid, _, err = args.String("session_id"); err != nil {
		return "", "", err
	}
	if name, _, err = args.String("name"); err != nil {
		return "", "", err
	}
	if raw, ok := args["handle"]; ok && sid == "" {
		var h Handle
		if json.Unmarshal(raw, &h) != nil || h.SessionID == "" {
			return "", "", tools.InvalidInput("handle must be the handle object a tool returned (with session_id)")
		}
		sid = h.SessionID
		if name == "" {
			name = h.Name
		}
	}
	if sid == "" {
		return "", "", args.Missing("session_id")
	}
	return sid, name, nil
}

func (t *Read) text(sid, name string) (string, error) {
	var prefixes []string
	for _, s := range t.sources {
		text, ok, err := s.Text(sid, name)
		if err != nil {
			return "", tools.ExecutionFailed("%v", err)
		}
		if ok {
			return text, nil
		}
		prefixes = append(prefixes, s.Prefixes()...)
	}
	sort.Strings(prefixes)
	for i := range prefixes {
		prefixes[i] += ":<id>"
	}
	return "", tools.InvalidInput("unknown handle session `%s`; expected one of %s", sid, strings.Join(prefixes, ", "))
}
