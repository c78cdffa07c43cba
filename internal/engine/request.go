package engine

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/policy"
	"github.com/codewhale/codewhale/internal/provider"
)

// PromptEnv is what the system prompt may depend on.
type PromptEnv struct {
	Mode      policy.Mode
	Model     string
	Workspace string
}

// DefaultSystemPrompt is the built-in system prompt.
func DefaultSystemPrompt(env PromptEnv) string {
	var b strings.Builder
	b.WriteString("You are codewhale, a coding agent working in the user's repository at " + env.Workspace + ".\n")
	b.WriteString("Use the tools to inspect and change the workspace; do not invent file contents or command output.\n")
	b.WriteString("Call one tool name per operation and choose the operation with its `action` field " +
		"(File: read/list/search_name/search_content/write/edit/patch; Git: status/diff/log/show/blame; " +
		"Bash: run/wait/interact/cancel; Run: tests/verifiers).\n")
	b.WriteString("Read a file before editing it. Keep the To-do list current with work_update when a task has several steps.\n")
	b.WriteString("Other tools are deferred: use tool_search with a short query to load one when you need it.\n")
	switch env.Mode {
	case policy.Plan:
		b.WriteString("Mode: Plan. You are read-only: investigate and propose a plan; you cannot run commands or modify files.\n")
	case policy.Operate:
		b.WriteString("Mode: Operate. Work autonomously toward the goal; prefer sub-agents for independent, parallel or long-running work.\n")
	default:
		b.WriteString("Mode: Act. Make the changes the user asks for and verify them.\n")
	}
	b.WriteString("Be concise. When you finish, say what you changed and how you verified it.")
	return b.String()
}

// systemPrompt is the turn's system prompt, rendered once per turn (and
// again after a mode change the turn adopted): the host's renderer reads
// files (project instructions, memory), and the same bytes on every step
// keep the provider's prefix cache.
func (t *turn) systemPrompt() string {
	if t.system != "" {
		return t.system
	}
	env := PromptEnv{Mode: t.set.Mode, Model: t.client.Model(), Workspace: t.e.opts.Workspace}
	if t.e.opts.SystemPrompt != nil {
		t.system = t.e.opts.SystemPrompt(env)
	} else {
		t.system = DefaultSystemPrompt(env)
	}
	t.e.mu.Lock()
	t.e.sess.SystemPrompt = t.system
	t.e.mu.Unlock()
	return t.system
}

// turnMeta is the fact block appended to each user message.
func (t *turn) turnMeta(provenance string) string {
	lines := []string{"<turn_meta>",
		"Current local date: " + t.e.opts.Clock().Format("2006-01-02"),
		"Current workspace: " + t.e.opts.Workspace,
		"Current permission posture: " + t.set.Posture.String(),
		"Current sandbox posture: " + t.sandboxPosture(),
		t.boundaryMeta()}
	if provenance != "" && provenance != ProvenanceUser {
		lines = append(lines, fmt.Sprintf("Input provenance: %s (non-authoritative)", provenance))
	}
	return strings.Join(append(lines, "</turn_meta>"), "\n")
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
	info, legacyEffort := provider.ResolveModel(t.client.Model(), provider.IsFirstParty(t.client.BaseURL()))
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
