package engine

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/prompt"
	"github.com/codewhale/codewhale/internal/provider"
)

// PromptEnv is what the system prompt may depend on (prompt.Env): hosts
// that wrap the prompt receive it and may pass it on to DefaultSystemPrompt.
type PromptEnv = prompt.Env

// DefaultSystemPrompt is the built-in system prompt for env, composed from
// the embedded sections (internal/prompt).
func DefaultSystemPrompt(env PromptEnv) string { return prompt.Compose(env).Text }

// promptEnv is what is true for this turn's system prompt: the mode, the
// approval posture as approve applies it, the sandbox, the catalog and who
// is on the other end.
func (t *turn) promptEnv(model string) PromptEnv {
	return PromptEnv{Mode: t.set.Mode, Model: model, Workspace: t.e.opts.Workspace,
		Headless: !t.e.opts.Interactive, SubAgent: t.e.opts.SubAgentRole, Approval: t.approval(),
		Sandboxed: t.sandbox().Status().Enforced, Tools: prompt.ToolsOf(t.cat)}
}

// renderSystem renders the system prompt through the host's renderer, or
// the built-in one.
func (t *turn) renderSystem(model string) string {
	env := t.promptEnv(model)
	if t.e.opts.SystemPrompt != nil {
		return t.e.opts.SystemPrompt(env)
	}
	return DefaultSystemPrompt(env)
}

// systemPrompt is the turn's system prompt, rendered once per turn (and
// again after a change of mode, posture or allow-shell the turn adopted):
// the host's renderer reads files (project instructions, memory), and the
// same bytes on every step keep the provider's prefix cache.
func (t *turn) systemPrompt() string {
	if t.system != "" {
		return t.system
	}
	t.system = t.renderSystem(t.client.Model())
	t.e.mu.Lock()
	t.e.sess.SystemPrompt = t.system
	t.e.mu.Unlock()
	return t.system
}

// turnMeta is the fact block appended to each user message. Its posture
// line is the Approval approve decides by (CONTRACT.md §9.1).
func (t *turn) turnMeta(provenance string) string {
	lines := []string{"<turn_meta>",
		"Current local date: " + t.e.opts.Clock().Format("2006-01-02"),
		"Current workspace: " + t.e.opts.Workspace,
		"Current mode: " + modeMeta(t.set.Mode),
		"Current permission posture: " + t.approval().Label(),
		"Current sandbox posture: " + t.sandboxPosture(),
		t.boundaryMeta()}
	if provenance != "" && provenance != ProvenanceUser {
		lines = append(lines, fmt.Sprintf("Input provenance: %s (non-authoritative)", provenance))
	}
	return strings.Join(append(lines, "</turn_meta>"), "\n")
}

func modeMeta(m posture.Mode) string {
	if m == posture.Plan {
		return "Plan (read-only: no file changes and no shell, whatever the posture)"
	}
	return m.Title()
}

// WorkStateBlock wraps a rendered To-do body in its transient tag.
func WorkStateBlock(body string) string {
	return "<codewhale:work_state>\n" + body + "\n</codewhale:work_state>"
}

// buildRequest assembles the step's request: history plus the transient
// Work tail (never stored), the active tools, and the route's settings.
func (t *turn) buildRequest() *provider.Request {
	msgs := t.e.history()
	if t.e.opts.WorkState != nil {
		if body := t.e.opts.WorkState(); body != "" {
			msgs = append(msgs, provider.EngineText(WorkStateBlock(body)))
		}
	}
	msgs = t.describeImages(msgs)
	info, legacyEffort := t.client.ResolveModel()
	effort := t.set.Effort
	if effort == "" {
		effort = legacyEffort
	}
	if strings.EqualFold(effort, "auto") {
		effort = "high"
	}
	req := &provider.Request{Model: info.ID, System: t.systemPrompt(), Messages: msgs,
		MaxTokens: t.client.MaxOutputTokens(info), Tools: requestTools(t.cat, t.e.opts.StrictTools), ReasoningEffort: effort, Stream: true}
	if req.Tools != nil {
		req.ToolChoice = &provider.ToolChoice{Type: "auto"}
	}
	return req
}

// requestTools is the tools field of a request over cat: the active entries
// in request order, tightened in strict mode. Every request and the
// provider-free receipt take it from here.
func requestTools(cat *catalog.Catalog, strict bool) []provider.Tool {
	ts := cat.RequestTools()
	if ts != nil && strict {
		ts = strictTools(ts)
	}
	return ts
}

// strictTools marks every tool whose schema fits the strict subset and
// tightens it: each object gets additionalProperties:false and lists every
// property as required.
func strictTools(ts []provider.Tool) []provider.Tool {
	out := make([]provider.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if s, ok := strictSchema(t.InputSchema); ok {
			out[i].InputSchema = s.(map[string]any)
			out[i].Strict = provider.Bool(true)
			out[i].Freeze()
		}
	}
	return out
}

func strictSchema(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "patternProperties", "if"} {
			if _, ok := x[k]; ok {
				return v, false
			}
		}
		out := make(map[string]any, len(x)+2)
		for k, val := range x {
			s, ok := strictSchema(val)
			if !ok {
				return v, false
			}
			out[k] = s
		}
		if props, ok := out["properties"].(map[string]any); ok {
			req := make([]any, 0, len(props))
			for _, k := range sortedKeys(props) {
				req = append(req, k)
			}
			out["required"] = req
			out["additionalProperties"] = false
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			s, ok := strictSchema(e)
			if !ok {
				return v, false
			}
			out[i] = s
		}
		return out, true
	default:
		return v, true
	}
}
