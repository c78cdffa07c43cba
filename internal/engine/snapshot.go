package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// Bounds of the /tools snapshot (CONTRACT.md §11.2).
const (
	MaxRenderedTools           = 32
	MaxNameChars               = 256
	MaxDescriptionChars        = 512
	MaxSchemaBytes             = 2048
	MaxAuxiliaryChars          = 512
	MaxAllowedCallers          = 16
	MaxAllowedCallerChars      = 128
	MaxPayloadMeasurementBytes = 1 << 20
)

// Exact strings of the snapshot.
const (
	captureSource      = "prepared model-client request"
	deliveryUnknown    = "unknown (capture does not prove provider delivery)"
	reasonFieldAbsent  = "request field absent"
	reasonNoContext    = "surface context not captured for this request"
	reasonNotInReg     = "tool is not in the registry"
	reasonNotAttrib    = "the MCP pool did not attribute this tool name"
	reasonNoRegistry   = "registry facts not captured for this request"
	reasonNoClient     = "no model client resolved for this turn"
	payloadAbsent      = "unavailable (tools field absent)"
	payloadTooLarge    = "unavailable (payload exceeds 1048576-byte measurement bound)"
	payloadSerialFail  = "unavailable (serialization failed)"
	payloadExactStatus = "exact (within 1048576-byte measurement bound)"
)

// BoundedString is a value cut to a bound, with a receipt.
type BoundedString struct {
	Value     string `json:"value"`
	Truncated bool   `json:"truncated"`
}

// boundRunes keeps the first n Unicode scalars of s.
func boundRunes(s string, n int) BoundedString {
	if utf8.RuneCountInString(s) <= n {
		return BoundedString{Value: s}
	}
	i, k := 0, 0
	for k < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return BoundedString{Value: s[:i], Truncated: true}
}

// boundBytes keeps the first n bytes of b, decoding lossily.
func boundBytes(b []byte, n int) BoundedString {
	if len(b) <= n {
		return BoundedString{Value: string(b)}
	}
	return BoundedString{Value: strings.ToValidUTF8(string(b[:n]), "\uFFFD"), Truncated: true}
}

// BoundedList is a list cut to a bound.
type BoundedList struct {
	Count    int             `json:"count"`
	Rendered []BoundedString `json:"rendered"`
	Omitted  int             `json:"omitted"`
}

func boundList(items []string, maxItems, maxChars int) BoundedList {
	l := BoundedList{Count: len(items), Rendered: []BoundedString{}}
	for i, s := range items {
		if i == maxItems {
			break
		}
		l.Rendered = append(l.Rendered, boundRunes(s, maxChars))
	}
	l.Omitted = l.Count - len(l.Rendered)
	return l
}

// Evidence is a fact that is either known or unknown with a reason.
type Evidence[T any] struct {
	Known  bool
	Value  T
	Reason string
}

func known[T any](v T) Evidence[T]             { return Evidence[T]{Known: true, Value: v} }
func unknown[T any](reason string) Evidence[T] { return Evidence[T]{Reason: reason} }

func (e Evidence[T]) MarshalJSON() ([]byte, error) {
	if e.Known {
		return json.Marshal(struct {
			Status string `json:"status"`
			Value  T      `json:"value"`
		}{"known", e.Value})
	}
	return json.Marshal(struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}{"unknown", e.Reason})
}

// InputExamples is the bounded receipt of a tool's input_examples.
type InputExamples struct {
	Count  int    `json:"count"`
	Values string `json:"values"`
}

// ProviderReceipt says which model client the turn resolved.
type ProviderReceipt struct {
	Status   string `json:"status"` // unknown | available | unavailable
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// RegistryFact is one flattened registry entry of the surface context.
type RegistryFact struct {
	Name         string
	Description  string
	ModelVisible bool
	Capabilities []string
	Approval     string
	Plugin       bool
}

// SurfaceContext is the per-turn data the snapshot joins against, computed
// once at turn start so the per-step seam never touches live state.
type SurfaceContext struct {
	Registry   []RegistryFact    // sorted by name
	MCPServers map[string]string // model tool name -> server, only names the pool attributed
	Synthetic  []string
	Provider   ProviderReceipt
	byName     map[string]*RegistryFact
}

// NewSurfaceContext flattens reg and takes the MCP attribution and the
// provider receipt. client may be nil (no model client resolved).
func NewSurfaceContext(reg *tools.Registry, mcp map[string]string, providerName, model string, haveClient bool) *SurfaceContext {
	sc := &SurfaceContext{MCPServers: mcp, Synthetic: catalog.SyntheticNames}
	for _, t := range reg.Tools() {
		caps := make([]string, 0, len(t.Capabilities()))
		for _, c := range t.Capabilities() {
			caps = append(caps, string(c))
		}
		sc.Registry = append(sc.Registry, RegistryFact{Name: t.Name(), Description: t.Description(),
			ModelVisible: t.ModelVisible(), Capabilities: caps, Approval: declaredApproval(t).String()})
	}
	if haveClient {
		sc.Provider = ProviderReceipt{Status: "available", Provider: providerName, Model: model}
	} else {
		sc.Provider = ProviderReceipt{Status: "unavailable", Reason: reasonNoClient}
	}
	sc.index()
	return sc
}

func (sc *SurfaceContext) index() {
	sc.byName = make(map[string]*RegistryFact, len(sc.Registry))
	for i := range sc.Registry {
		sc.byName[sc.Registry[i].Name] = &sc.Registry[i]
	}
}

func declaredApproval(t tools.Tool) tools.Approval {
	if d, ok := t.(interface{ DeclaredApproval() tools.Approval }); ok {
		return d.DeclaredApproval()
	}
	return tools.Required
}

// ToolProjection is one tool of the snapshot (CONTRACT.md §11.4).
type ToolProjection struct {
	Ordinal          int                      `json:"ordinal"`
	Name             BoundedString            `json:"name"`
	ToolType         Evidence[BoundedString]  `json:"tool_type"`
	Description      BoundedString            `json:"description"`
	InputSchemaJSON  BoundedString            `json:"input_schema_json"`
	AllowedCallers   Evidence[BoundedList]    `json:"allowed_callers"`
	DeferLoading     Evidence[bool]           `json:"defer_loading"`
	InputExamples    Evidence[InputExamples]  `json:"input_examples"`
	Strict           Evidence[bool]           `json:"strict"`
	CacheControlType Evidence[BoundedString]  `json:"cache_control_type"`
	Provenance       Evidence[catalog.Origin] `json:"provenance"`
	MCPServer        Evidence[BoundedString]  `json:"mcp_server"`
	Capabilities     Evidence[BoundedList]    `json:"capabilities"`
	Approval         Evidence[BoundedString]  `json:"approval"`
	ModelVisible     Evidence[bool]           `json:"model_visible"`
	Visibility       string                   `json:"visibility"`
}

// ToolSnapshot is the bounded /tools projection of one prepared request's
// tools field. It lives beside the transcript, never in the history.
type ToolSnapshot struct {
	SchemaVersion            int                   `json:"schema_version"`
	CaptureSource            string                `json:"capture_source"`
	DeliveryStatus           string                `json:"delivery_status"`
	TurnID                   BoundedString         `json:"turn_id"`
	Step                     int                   `json:"step"`
	ToolsFieldPresent        bool                  `json:"tools_field_present"`
	ToolCount                int                   `json:"tool_count"`
	RenderedToolCount        int                   `json:"rendered_tool_count"`
	OmittedToolCount         int                   `json:"omitted_tool_count"`
	PayloadJSONBytes         *int                  `json:"payload_json_bytes"`
	PayloadMeasurementStatus string                `json:"payload_measurement_status"`
	ActiveToolCatalogSHA256  *string               `json:"active_tool_catalog_sha256"`
	UnavailableForRequest    []string              `json:"unavailable_for_this_request"`
	Provider                 ProviderReceipt       `json:"provider"`
	RegistryFactsPresent     bool                  `json:"registry_facts_present"`
	RegistryToolCount        Evidence[int]         `json:"registry_tool_count"`
	RegistryOnlyTools        Evidence[BoundedList] `json:"registry_only_tools"`
	Tools                    []ToolProjection      `json:"tools"`
}

// CaptureSnapshot projects the tools field of a prepared request. It is
// inert: it reads only its arguments. sc may be nil.
func CaptureSnapshot(turnID string, step int, reqTools []provider.Tool, sc *SurfaceContext) *ToolSnapshot {
	s := &ToolSnapshot{SchemaVersion: 1, CaptureSource: captureSource, DeliveryStatus: deliveryUnknown,
		TurnID: boundRunes(turnID, MaxAuxiliaryChars), Step: step, ToolsFieldPresent: reqTools != nil,
		ToolCount: len(reqTools)}
	s.RenderedToolCount = min(s.ToolCount, MaxRenderedTools)
	s.OmittedToolCount = s.ToolCount - s.RenderedToolCount
	s.PayloadJSONBytes, s.PayloadMeasurementStatus = measurePayload(reqTools)
	if d, ok := ActiveToolCatalogSHA256(reqTools); ok {
		s.ActiveToolCatalogSHA256 = &d
	}
	s.UnavailableForRequest = []string{"provider_wire_payload"}
	switch {
	case sc == nil:
		s.UnavailableForRequest = append(s.UnavailableForRequest, "provider", "model", "approval", "provenance", "capabilities")
		s.Provider = ProviderReceipt{Status: "unknown", Reason: reasonNoContext} // unknown always says why (CONTRACT.md §11.4)
		s.RegistryToolCount = unknown[int](reasonNoRegistry)
		s.RegistryOnlyTools = unknown[BoundedList](reasonNoRegistry)
	default:
		if sc.Provider.Status != "available" {
			s.UnavailableForRequest = append(s.UnavailableForRequest, "provider", "model")
		}
		s.Provider = sc.Provider
		s.RegistryFactsPresent = true
		s.RegistryToolCount = known(len(sc.Registry))
		inRequest := make(map[string]bool, len(reqTools))
		for _, t := range reqTools {
			inRequest[t.Name] = true
		}
		var only []string
		for _, f := range sc.Registry {
			if f.ModelVisible && !inRequest[f.Name] {
				only = append(only, f.Name)
			}
		}
		s.RegistryOnlyTools = known(boundList(only, MaxRenderedTools, MaxNameChars))
	}
	s.Tools = make([]ToolProjection, 0, s.RenderedToolCount)
	for i := 0; i < s.RenderedToolCount; i++ {
		s.Tools = append(s.Tools, project(i+1, &reqTools[i], sc))
	}
	return s
}

func project(ordinal int, t *provider.Tool, sc *SurfaceContext) ToolProjection {
	p := ToolProjection{Ordinal: ordinal, Name: boundRunes(t.Name, MaxNameChars),
		Description: boundRunes(t.Description, MaxDescriptionChars)}
	p.InputSchemaJSON = boundSchema(t)
	p.ToolType = unknown[BoundedString](reasonFieldAbsent)
	if t.Type != "" {
		p.ToolType = known(boundRunes(t.Type, MaxAuxiliaryChars))
	}
	p.AllowedCallers = unknown[BoundedList](reasonFieldAbsent)
	if t.AllowedCallers != nil {
		p.AllowedCallers = known(boundList(t.AllowedCallers, MaxAllowedCallers, MaxAllowedCallerChars))
	}
	p.DeferLoading = unknown[bool](reasonFieldAbsent)
	p.Visibility = "in_request"
	if t.DeferLoading != nil {
		p.DeferLoading = known(*t.DeferLoading)
		p.Visibility = "active"
		if *t.DeferLoading {
			p.Visibility = "deferred"
		}
	}
	p.InputExamples = unknown[InputExamples](reasonFieldAbsent)
	if t.InputExamples != nil {
		p.InputExamples = known(InputExamples{Count: len(t.InputExamples), Values: "values omitted from bounded projection"})
	}
	p.Strict = unknown[bool](reasonFieldAbsent)
	if t.Strict != nil {
		p.Strict = known(*t.Strict)
	}
	p.CacheControlType = unknown[BoundedString](reasonFieldAbsent)
	if t.CacheControl != nil {
		p.CacheControlType = known(boundRunes(t.CacheControl.Type, MaxAuxiliaryChars))
	}
	if sc == nil {
		p.Provenance = unknown[catalog.Origin](reasonNoContext)
		p.MCPServer = unknown[BoundedString](reasonNoContext)
		p.Capabilities = unknown[BoundedList](reasonNoContext)
		p.Approval = unknown[BoundedString](reasonNoContext)
		p.ModelVisible = unknown[bool](reasonNoContext)
		return p
	}
	fact, inReg := sc.byName[t.Name]
	server, attributed := sc.MCPServers[t.Name]
	switch {
	case inReg && fact.Plugin:
		p.Provenance = known(catalog.OriginPlugin)
	case attributed:
		p.Provenance = known(catalog.OriginMCP)
	case inReg:
		p.Provenance = known(catalog.OriginBuiltin)
	case slices.Contains(sc.Synthetic, t.Name):
		p.Provenance = known(catalog.OriginSynthetic)
	default:
		p.Provenance = known(catalog.Origin("unknown"))
	}
	p.MCPServer = unknown[BoundedString](reasonNotAttrib)
	if attributed {
		p.MCPServer = known(boundRunes(server, MaxAuxiliaryChars))
	}
	if !inReg {
		p.Capabilities = unknown[BoundedList](reasonNotInReg)
		p.Approval = unknown[BoundedString](reasonNotInReg)
		p.ModelVisible = unknown[bool](reasonNotInReg)
		return p
	}
	p.Capabilities = known(boundList(fact.Capabilities, MaxAllowedCallers, MaxAllowedCallerChars))
	p.Approval = known(boundRunes(fact.Approval, MaxAuxiliaryChars))
	p.ModelVisible = known(fact.ModelVisible)
	return p
}

// boundSchema is goSchemaJSON bounded. The usual schema needs no Go-only
// escape, and then the frozen tool's shared canonical string is used as is.
func boundSchema(t *provider.Tool) BoundedString {
	if canon := t.CanonicalSchema(); len(canon) <= MaxSchemaBytes && !needsGoEscape(canon) {
		return BoundedString{Value: t.CanonicalSchemaString()}
	}
	return boundBytes(goSchemaJSON(t), MaxSchemaBytes)
}

// goSchemaJSON is the schema as encoding/json writes it (CONTRACT.md §11.2).
// That equals the canonical form unless a string holds <, >, & or
// U+2028/U+2029, which encoding/json escapes; only then re-serialise.
func goSchemaJSON(t *provider.Tool) []byte {
	canon := t.CanonicalSchema()
	if !needsGoEscape(canon) {
		return canon
	}
	out, err := canonjson.AppendGo(nil, t.InputSchema)
	if err != nil {
		out, _ = json.Marshal(t.InputSchema)
	}
	return out
}

// needsGoEscape reports whether b holds a character encoding/json escapes
// and the canonical form does not: <, >, &, U+2028 or U+2029.
func needsGoEscape(b []byte) bool {
	for i, c := range b {
		switch c {
		case '<', '>', '&':
			return true
		case 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
				return true
			}
		}
	}
	return false
}

// measurePayload sizes the internal tools array serialised with the
// canonical rules, stopping once the measurement bound is passed.
func measurePayload(ts []provider.Tool) (*int, string) {
	if ts == nil {
		return nil, payloadAbsent
	}
	total := 2 // [ ]
	buf := make([]byte, 0, 512)
	for i := range ts {
		if i > 0 {
			total++
		}
		buf = appendToolEnvelope(buf[:0], &ts[i])
		total += len(buf) + len(`,"input_schema":`) + len(ts[i].CanonicalSchema())
		if total > MaxPayloadMeasurementBytes {
			return nil, payloadTooLarge
		}
	}
	return &total, payloadExactStatus
}

// appendToolEnvelope writes the internal Tool object without its
// input_schema member: type?, name, description, allowed_callers?,
// defer_loading?, input_examples?, strict?, cache_control?. Key order does
// not change the measured length.
func appendToolEnvelope(dst []byte, t *provider.Tool) []byte {
	dst = append(dst, '{')
	if t.Type != "" {
		dst = append(dst, `"type":`...)
		dst = canonjson.AppendString(dst, t.Type)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = canonjson.AppendString(dst, t.Name)
	dst = append(dst, `,"description":`...)
	dst = canonjson.AppendString(dst, t.Description)
	if t.AllowedCallers != nil {
		dst = append(dst, `,"allowed_callers":`...)
		dst, _ = canonjson.Append(dst, t.AllowedCallers)
	}
	if t.DeferLoading != nil {
		dst = append(dst, `,"defer_loading":`...)
		dst = strconv.AppendBool(dst, *t.DeferLoading)
	}
	if t.InputExamples != nil {
		dst = append(dst, `,"input_examples":`...)
		var err error
		if dst, err = canonjson.Append(dst, t.InputExamples); err != nil {
			dst = append(dst, "null"...)
		}
	}
	if t.Strict != nil {
		dst = append(dst, `,"strict":`...)
		dst = strconv.AppendBool(dst, *t.Strict)
	}
	if t.CacheControl != nil {
		dst = append(dst, `,"cache_control":{"type":`...)
		dst = canonjson.AppendString(dst, t.CacheControl.Type)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// JSON is the snapshot pretty-printed with two-space indentation, as
// `/tools json` shows it.
func (s *ToolSnapshot) JSON() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
