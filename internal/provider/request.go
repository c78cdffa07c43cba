package provider

import (
	"fmt"

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
	// SchemaCanon caches the canonical JSON of InputSchema (see Freeze).
	SchemaCanon []byte `json:"-"`
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
// field; a non-nil empty slice is a present, empty array (engine.md §2.2.1).
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
// (canonjson.Append), from the cache when Freeze filled it. A schema that
// cannot be encoded yields a deterministic marker, never an empty string.
func (t *Tool) CanonicalSchema() []byte {
	if t.SchemaCanon != nil {
		return t.SchemaCanon
	}
	return canonicalSchema(t.InputSchema)
}

// Freeze caches the canonical schema so the per-request digest and /tools
// snapshot do not re-serialise it. Call it once a tool's schema is final;
// whoever replaces InputSchema afterwards must call Freeze again.
func (t *Tool) Freeze() { t.SchemaCanon = canonicalSchema(t.InputSchema) }

func canonicalSchema(schema map[string]any) []byte {
	out, err := canonjson.Append(nil, schema)
	if err != nil {
		return []byte(fmt.Sprintf("<unencodable schema: %v>", err))
	}
	return out
}
