package handles

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

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
		SchemaFunc: readParams.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
		Parallel:   true,
	}}
}

// readInput is handle_read's parameter contract (docs/ARCHITECTURE.md §6):
// the published schema and the decoding come from this type. Handle is the
// handle object a tool returned, read by target.
type readInput struct {
	SessionID string      `json:"session_id,omitempty" jsonschema:"The handle's session_id, e.g. agent:agent_3f9a1c2e or web:3."`
	Handle    tools.Raw   `json:"handle,omitempty" jsonschema:"The whole handle object, instead of session_id."`
	Name      string      `json:"name,omitempty" jsonschema:"Handle name (default: the handle's only name)."`
	Offset    uint        `json:"offset,omitempty" jsonschema:"First character to return."`
	Limit     tools.Count `json:"limit,omitempty"`
}

// readParams is shared, read-only, by every registry; the schema is built
// once.
var readParams = tools.NewParams[readInput]("handle_read", tools.ParamOptions[readInput]{
	Bounds: map[string]tools.Bound{"limit": {Min: 1, Max: maxReadLimit}},
	Shape: func(s *jsonschema.Schema, _ []string) {
		s.Properties["handle"].Type = "object"
		s.Properties["limit"].Default = json.RawMessage(strconv.Itoa(defaultReadLimit))
	},
	Check: func(d *tools.Decoded[readInput]) error {
		if d.Has("handle") && tools.JSONType(d.Raw("handle")) != "object" {
			// The schema's type check, in the validator's words.
			return tools.Validate("handle_read", map[string]any{"type": "object", "properties": map[string]any{
				"handle": map[string]any{"type": "object"}}}, d.Input())
		}
		return nil
	},
})

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3). The schema
// requires neither session_id nor handle, so a call with neither is refused
// by the run, as before the type existed.
func (t *Read) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := readParams.Decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(raw, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		sid, name, err := target(d)
		if err != nil {
			return tools.Result{}, err
		}
		return t.read(tc, sid, name, int(d.In.Offset), int(d.In.Limit))
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Read) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// read returns the requested slice with a receipt line saying where it sits
// in the whole and how to read on.
func (t *Read) read(tc *tools.Context, sid, name string, offset, limit int) (tools.Result, error) {
	if limit == 0 {
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

// target is the session and name a call reads: session_id, or the handle
// object's.
func target(d *tools.Decoded[readInput]) (sid, name string, err error) {
	sid, name = d.In.SessionID, d.In.Name
	if d.Has("handle") && sid == "" {
		var h Handle
		if json.Unmarshal(d.In.Handle, &h) != nil || h.SessionID == "" {
			return "", "", tools.InvalidInput("handle must be the handle object a tool returned (with session_id)")
		}
		sid = h.SessionID
		if name == "" {
			name = h.Name
		}
	}
	if sid == "" {
		return "", "", d.Missing("session_id")
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
