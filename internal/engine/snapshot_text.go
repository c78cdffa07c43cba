package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/canonjson"
)

func jstr(s string) string { return string(canonjson.AppendString(nil, s)) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func jlist(items []BoundedString) string {
	vals := make([]string, len(items))
	for i, it := range items {
		vals[i] = it.Value
	}
	b, _ := canonjson.Append(nil, vals)
	return string(b)
}

func anyTruncated(items []BoundedString) bool {
	for _, it := range items {
		if it.Truncated {
			return true
		}
	}
	return false
}

// Text renders the snapshot line by line as /tools shows it (CONTRACT.md §11.5).
func (s *ToolSnapshot) Text() string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("Prepared Model-Client Tool Request (read-only)")
	line("Capture source: %s", s.CaptureSource)
	line("Delivery: %s", s.DeliveryStatus)
	line("Turn: %s", jstr(s.TurnID.Value))
	line("Turn truncated: %s", yesNo(s.TurnID.Truncated))
	line("Step: %d", s.Step)
	if s.ToolsFieldPresent {
		line("Tools field: present")
	} else {
		line("Tools field: absent")
	}
	line("Tool count: %d", s.ToolCount)
	line("Rendered tools: %d; omitted by render bound: %d", s.RenderedToolCount, s.OmittedToolCount)
	line("Model-client payload measurement: %s", s.PayloadMeasurementStatus)
	if s.PayloadJSONBytes != nil {
		line("Model-client tool JSON bytes: %d", *s.PayloadJSONBytes)
	} else {
		line("Model-client tool JSON bytes: unavailable")
	}
	if s.ActiveToolCatalogSHA256 != nil {
		line("Active tool catalog digest (same digest as the request manifest): %s", *s.ActiveToolCatalogSHA256)
	} else {
		line("Active tool catalog digest (same digest as the request manifest): unavailable")
	}
	line("Provider-wire tool payload: unavailable (the provider adapter may transform or omit model-client fields)")
	switch s.Provider.Status {
	case "available":
		line("Provider: %s (resolved model client)", jstr(s.Provider.Provider))
		line("Model: %s", jstr(s.Provider.Model))
	case "unavailable":
		line("Provider: unavailable (%s)", s.Provider.Reason)
	default:
		line("Provider: unknown (no model-client receipt captured)")
	}
	if s.RegistryFactsPresent {
		line("Registry facts: captured")
	} else {
		line("Registry facts: not captured")
	}
	if s.RegistryToolCount.Known {
		line("Registered tools: %d", s.RegistryToolCount.Value)
	} else {
		line("Registered tools: unknown (%s)", s.RegistryToolCount.Reason)
	}
	if r := s.RegistryOnlyTools; r.Known {
		line("Model-visible tools not in this request: %d", r.Value.Count)
		line("  names: %s", jlist(r.Value.Rendered))
		line("  omitted by render bound: %d", r.Value.Omitted)
	} else {
		line("Model-visible tools not in this request: unknown (%s)", r.Reason)
	}
	line("Unavailable for this request: %s", strings.Join(s.UnavailableForRequest, ", "))
	for i := range s.Tools {
		b.WriteString("\n")
		s.Tools[i].text(&b)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (p *ToolProjection) text(b *strings.Builder) {
	line := func(format string, a ...any) { fmt.Fprintf(b, "   "+format+"\n", a...) }
	fmt.Fprintf(b, "%d. %s\n", p.Ordinal, jstr(p.Name.Value))
	line("name truncated: %s", yesNo(p.Name.Truncated))
	boundedEvidence(line, "type", p.ToolType)
	line("description: %s", jstr(p.Description.Value))
	line("description truncated: %s", yesNo(p.Description.Truncated))
	line("input schema JSON: %s", p.InputSchemaJSON.Value)
	line("input schema truncated: %s", yesNo(p.InputSchemaJSON.Truncated))
	if a := p.AllowedCallers; a.Known {
		line("allowed callers: %s", jlist(a.Value.Rendered))
		line("allowed callers count: %d", a.Value.Count)
		line("allowed callers omitted: %d", a.Value.Omitted)
		line("allowed callers truncated: %s", yesNo(anyTruncated(a.Value.Rendered)))
	} else {
		line("allowed callers: unknown (%s)", a.Reason)
	}
	line("deferred loading: %s", boolEvidence(p.DeferLoading))
	line("strict: %s", boolEvidence(p.Strict))
	if e := p.InputExamples; e.Known {
		line("input examples: present (%d value(s), values omitted from bounded projection)", e.Value.Count)
	} else {
		line("input examples: unknown (%s)", e.Reason)
	}
	boundedEvidence(line, "cache control type", p.CacheControlType)
	state := map[string]string{"active": "active", "deferred": "deferred", "in_request": "in-request"}[p.Visibility]
	line("request state: %s", state)
	line("in request: yes")
	if p.Provenance.Known {
		line("provenance: %s", p.Provenance.Value)
	} else {
		line("provenance: unknown (%s)", p.Provenance.Reason)
	}
	if m := p.MCPServer; m.Known {
		line("MCP server: %s", jstr(m.Value.Value))
		line("MCP server truncated: %s", yesNo(m.Value.Truncated))
	} else {
		line("MCP server: unknown (%s)", m.Reason)
	}
	if c := p.Capabilities; c.Known {
		line("capabilities: %s", jlist(c.Value.Rendered))
		line("capabilities count: %d", c.Value.Count)
		line("capabilities omitted: %d", c.Value.Omitted)
	} else {
		line("capabilities: unknown (%s)", c.Reason)
	}
	boundedEvidence(line, "approval", p.Approval)
	line("model visible: %s", boolEvidence(p.ModelVisible))
}

func boundedEvidence(line func(string, ...any), label string, e Evidence[BoundedString]) {
	if !e.Known {
		line("%s: unknown (%s)", label, e.Reason)
		return
	}
	line("%s: %s", label, jstr(e.Value.Value))
	line("%s truncated: %s", label, yesNo(e.Value.Truncated))
}

func boolEvidence(e Evidence[bool]) string {
	if !e.Known {
		return "unknown (" + e.Reason + ")"
	}
	b, _ := json.Marshal(e.Value)
	return string(b)
}
