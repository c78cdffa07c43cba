package provider

import (
	"fmt"
	"sync"

	"github.com/codewhale/codewhale/internal/canonjson"
)

// Tool is the model-client (internal) tool definition: the value the engine
// hands to the client and that the /tools snapshot and the catalog digest are
// computed from. The DeepSeek adapter maps it to the wire shape and drops the
// transport-only fields (Type, AllowedCallers, DeferLoading, InputExamples,
// CacheControl). Absent optional fields stay nil, never a zero value.
type Tool struct {
	Type           string         `json:"type,omitempty"`
	Name           string         `json:"name"`
	Description    string         `json:"description"`
	InputSchema    map[string]any `json:"input_schema"`
	AllowedCallers []string       `json:"allowed_callers,omitempty"`
	DeferLoading   *bool          `json:"defer_loading,omitempty"`
	InputExamples  []any          `json:"input_examples,omitempty"`
	Strict         *bool          `json:"strict,omitempty"`
	CacheControl   *CacheControl  `json:"cache_control,omitempty"`
	// canon caches the canonical JSON of InputSchema (see Freeze); copies of
	// the Tool share it.
	canon *canonCell
}

// canonCell computes one schema's canonical JSON once, on first use: most
// registered tools are deferred and never sent, so their schemas are never
// serialised.
type canonCell struct {
	once   sync.Once
	schema map[string]any
	b      []byte
	s      string // b as a string, for the /tools snapshot
}

func (c *canonCell) get() []byte {
	c.once.Do(func() {
		c.b = canonicalSchema(c.schema)
		c.s = string(c.b)
	})
	return c.b
}

// CacheControl is the Anthropic-style cache marker.
type CacheControl struct {
	Type string `json:"type"`
}

// Bool returns a pointer to b, for the optional fields of Tool.
func Bool(b bool) *bool { return &b }

// ToolChoice is the internal tool_choice value.
type ToolChoice struct {
	Type string `json:"type"` // auto, none, any, tool
	Name string `json:"name,omitempty"`
}

// Request is one model call. Tools == nil means the request has no tools
// field; a non-nil empty slice is a present, empty array (CONTRACT.md §4.1).
type Request struct {
	Model           string
	System          string
	Messages        []Message
	MaxTokens       int
	Tools           []Tool
	ToolChoice      *ToolChoice
	ReasoningEffort string // tier; "" = provider default (neither field sent)
	Stream          bool
	Temperature     *float64
	TopP            *float64
}

// ToolsPresent reports whether the request carries a tools field.
func (r *Request) ToolsPresent() bool { return r.Tools != nil }

// CanonicalSchema returns the canonical JSON of the input schema
// (canonjson.Append), from the cache when the Tool is frozen. A schema that
// cannot be encoded yields a deterministic marker, never an empty string.
func (t *Tool) CanonicalSchema() []byte {
	if t.canon != nil {
		return t.canon.get()
	}
	return canonicalSchema(t.InputSchema)
}

// CanonicalSchemaString is CanonicalSchema as a string, shared by every
// request of a frozen Tool rather than copied for each.
func (t *Tool) CanonicalSchemaString() string {
	if t.canon != nil {
		t.canon.get()
		return t.canon.s
	}
	return string(canonicalSchema(t.InputSchema))
}

// Freeze makes the canonical schema computed at most once, on first use, for
// this Tool and its copies, so the per-request digest and /tools snapshot do
// not re-serialise it. Call it once a tool's schema is final; whoever replaces
// InputSchema afterwards must call Freeze again.
func (t *Tool) Freeze() { t.canon = &canonCell{schema: t.InputSchema} }

func canonicalSchema(schema map[string]any) []byte {
	out, err := canonjson.Append(make([]byte, 0, 2048), schema)
	if err != nil {
		return []byte(fmt.Sprintf("<unencodable schema: %v>", err))
	}
	return out
}
