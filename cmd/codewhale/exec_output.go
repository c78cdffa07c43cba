package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// execReport is what the printers need once the turn is over.
type execReport struct {
	cfg      *config.Config
	opts     *execOptions
	done     engine.TurnComplete
	sess     engine.Session
	duration time.Duration
	posture  engine.Options
	running  []jobs.Snapshot // background jobs still running at the end; they are stopped on exit
	// lateHooks are the failures of hooks that ran in the background (a
	// turn_done notification), waited for at the end (CONTRACT.md §17.4).
	lateHooks []string
	// cancelled are the sub-agents still live at the end that exec cancelled.
	cancelled []agent.Cancelled
	// subagents is what the run's children did: their launch pace and
	// their usage by model (nil without children).
	subagents map[string]any
	saved     bool // the session journal holds the run
	// schema is set under --json-schema; structured is the validated
	// final answer (nil when it failed).
	schema     bool
	structured any
}

// execPrinter renders engine events for one output format.
//
// A request the provider re-sends after it had streamed part of an answer
// retracts that part (engine.Retract). stream-json passes the retraction on
// as a "retract" line; text mode prints each assistant message only once it
// is complete, so stdout never holds a discarded attempt; the --json output
// and visible_final_answer_chars count what remains.
type execPrinter struct {
	mu      sync.Mutex // orders stream-json lines from the turn and from children (admission)
	ios     IO
	o       *execOptions
	output  []rune          // visible assistant text of the turn, retractions applied
	pending strings.Builder // text mode: the message being streamed, printed when complete
	tools   []toolRecord
	errs    []string
	wrote   bool
}

type toolRecord struct {
	Name    string `json:"name"`
	Success bool   `json:"success"`
	Output  string `json:"output"`
}

func newExecPrinter(ios IO, o *execOptions) *execPrinter { return &execPrinter{ios: ios, o: o} }

func (p *execPrinter) streamJSON() bool { return p.o.outputFormat == "stream-json" }

// line writes one stream-json object: type, the type's fields, then the
// schema tail.
func (p *execPrinter) line(typ string, fields ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	b.WriteString(`{"type":`)
	writeJSON(&b, typ)
	for i := 0; i+1 < len(fields); i += 2 {
		b.WriteByte(',')
		writeJSON(&b, fields[i])
		b.WriteByte(':')
		writeJSON(&b, fields[i+1])
	}
	b.WriteString(`,"schema_version":1,"schema":"codewhale.exec-stream"}` + "\n")
	fmt.Fprint(p.ios.Out, b.String())
}

func writeJSON(b *strings.Builder, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte("null")
	}
	b.Write(raw)
}

func (p *execPrinter) event(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.MessageDelta:
		p.output = append(p.output, []rune(ev.Content)...)
		switch {
		case p.streamJSON():
			p.line("content", "content", ev.Content)
		case !p.o.json && p.o.jsonSchema == "": // under --json-schema text mode prints the value at the end
			p.pending.WriteString(ev.Content)
		}
	case engine.MessageComplete:
		p.flushText()
	case engine.Retract:
		p.output = p.output[:max(0, len(p.output)-ev.TextChars)]
		p.pending.Reset()
		if p.streamJSON() {
			ids := ev.ToolIDs
			if ids == nil {
				ids = []string{}
			}
			p.line("retract", "content_chars", ev.TextChars, "tool_ids", ids, "reason", ev.Reason)
		}
	case engine.CompactionCompleted:
		if p.streamJSON() {
			p.line("compaction", "replaced", ev.Replaced, "kept", ev.Kept, "auto", ev.Auto,
				"estimate_before", ev.BeforeEstimate, "estimate_after", ev.AfterEstimate)
		} else {
			p.newline()
			fmt.Fprintf(p.ios.Err, "Compacted context: summarised %d message(s), kept %d; the originals stay in the session file.\n", ev.Replaced, ev.Kept)
		}
	case engine.Retry:
		if p.streamJSON() {
			p.line("retry", "attempt", ev.Attempt, "max", ev.Max, "reason", ev.Reason, "wait_ms", ev.Wait.Milliseconds())
		} else {
			p.newline()
			fmt.Fprintln(p.ios.Err, ev.Line())
		}
	case engine.ToolCallStarted:
		if p.streamJSON() {
			p.line("tool_use", "name", ev.Name, "id", ev.ID, "input", ev.Input, "started_at", time.Now().UTC().Format(time.RFC3339))
		} else if !p.o.json {
			p.newline()
			fmt.Fprintf(p.ios.Err, "tool: %s (%s)\n", ev.Name, engine.Describe(ev.Name, ev.Input))
		}
	case engine.ToolCallComplete:
		p.toolDone(ev)
	case engine.TurnUsage:
		if p.streamJSON() && !ev.Unreported { // no fabricated zeros (CONTRACT.md §10.8)
			fields := usageFields(ev.Step, &ev.Usage, ev.DurationMS)
			if ev.Child {
				fields = append(fields, "child", true) // a tool's own model requests (rlm child queries)
			}
			p.line("turn_usage", fields...)
		}
	case engine.Error:
		p.errs = append(p.errs, ev.Message)
		if p.streamJSON() {
			p.line("error", "error", ev.Message)
		} else {
			p.newline()
			fmt.Fprintln(p.ios.Err, "error:", ev.Message)
		}
	case engine.Status:
		if !p.streamJSON() && notableStatus(ev) {
			p.newline()
			fmt.Fprintln(p.ios.Err, ev.Message)
		}
	}
}

// notableStatus is a status a headless run prints on stderr: every notice
// the engine marks Keep (hooks, user commands, the project context) and a
// few transient ones worth a line.
func notableStatus(ev engine.Status) bool {
	return ev.Keep || ev.Message == "Reached maximum steps" || strings.HasPrefix(ev.Message, "Auto-loaded")
}

// flushText prints a completed assistant message (text mode).
func (p *execPrinter) flushText() {
	if p.pending.Len() == 0 {
		return
	}
	s := p.pending.String()
	p.pending.Reset()
	fmt.Fprint(p.ios.Out, s)
	p.wrote = !strings.HasSuffix(s, "\n")
}

// newline ends a partial line of printed text before stderr output.
func (p *execPrinter) newline() {
	if p.wrote {
		fmt.Fprintln(p.ios.Out)
	}
	p.wrote = false
}

func (p *execPrinter) toolDone(ev engine.ToolCallComplete) {
	r := ev.Result
	p.tools = append(p.tools, toolRecord{Name: ev.Name, Success: r.Success, Output: r.Content})
	switch {
	case p.streamJSON():
		status, side := "success", "completed"
		if !r.Success {
			status = "error"
		}
		if r.IsError {
			side = "not_started_or_unknown"
		}
		fields := []any{"id", ev.ID, "name", ev.Name, "output", r.Content, "status", status,
			"started_at", ev.StartedAt.UTC().Format(time.RFC3339), "completed_at", ev.CompletedAt.UTC().Format(time.RFC3339),
			"duration_ms", ev.CompletedAt.Sub(ev.StartedAt).Milliseconds(), "side_effect_status", side}
		if r.Category != "" {
			fields = append(fields, "error_category", r.Category)
		}
		if len(r.Metadata) > 0 {
			fields = append(fields, "result_metadata", r.Metadata)
		}
		p.line("tool_result", fields...)
		if d, ok := r.Metadata["sandbox_denied"].(map[string]any); ok {
			p.line("sandbox_denied", "tool_id", ev.ID, "tool_name", ev.Name, "reason", d["reason"], "path", d["path"],
				"outcome", "failed")
		}
	case !p.o.json:
		if r.Success {
			fmt.Fprintf(p.ios.Err, "tool %s completed: %s\n", ev.Name, summary(r.Content))
		} else {
			fmt.Fprintf(p.ios.Err, "tool %s failed: %s\n", ev.Name, summary(r.Content))
		}
		if d, ok := r.Metadata["sandbox_denied"].(map[string]any); ok {
			fmt.Fprintf(p.ios.Err, "sandbox: refused %v (%v)\n", orNetwork(d["path"]), d["reason"])
		}
	}
}

// orNetwork names a refused path, or the network for a path-less refusal.
func orNetwork(path any) any {
	if s, _ := path.(string); s != "" {
		return s
	}
	return "a network connection"
}

// summary is the first line of s, at most 120 characters.
func summary(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	if s == "" {
		return "(no output)"
	}
	return s
}

func usageFields(turn int, u *provider.Usage, durationMS int64) []any {
	f := []any{"turn", turn, "input_tokens", u.InputTokens, "output_tokens", u.OutputTokens}
	opt := func(k string, v *int) {
		if v != nil {
			f = append(f, k, *v)
		}
	}
	opt("reasoning_tokens", u.ReasoningTokens)
	opt("prompt_cache_hit_tokens", u.PromptCacheHitTokens)
	opt("prompt_cache_miss_tokens", u.PromptCacheMissTokens)
	opt("prompt_cache_write_tokens", u.PromptCacheWriteTok)
	opt("reasoning_replay_tokens", u.ReasoningReplayTokens)
	return append(f, "duration_ms", durationMS)
}

// terminationReason maps a turn's end onto the reported reason.
func terminationReason(d engine.TurnComplete) string {
	switch d.Status {
	case engine.TurnCompleted:
		switch {
		case d.ApprovalRequired:
			return "approval_required"
		case d.MaxStepsReached:
			return "budget_exhausted"
		}
		return "resolved"
	case engine.TurnInterrupted:
		return "canceled"
	}
	switch d.ErrorCategory {
	case "network", "timeout", "internal":
		return "infrastructure_error"
	case "tool":
		return "tool_error"
	}
	return "model_error"
}

func (p *execPrinter) finish(r execReport) {
	d := r.done
	p.flushText()
	if len(r.lateHooks) > 0 {
		p.newline()
		p.hookNotices(r.lateHooks)
	}
	p.cancelledReceipt(r.cancelled)
	if len(r.running) > 0 && !p.streamJSON() && !p.o.json {
		p.newline()
		fmt.Fprintf(p.ios.Err, "%d background job(s) still running; they are stopped as codewhale exits:\n", len(r.running))
		for _, j := range r.running {
			fmt.Fprintf(p.ios.Err, "  %s  %s  (%s)\n", j.ID, j.Command, time.Duration(j.ElapsedMS)*time.Millisecond)
		}
	}
	switch {
	case p.streamJSON():
		if r.saved {
			p.line("session_capture", "content", "session:"+r.sess.ID)
		}
		p.line("metadata", "meta", p.metadata(r))
		p.line("done")
	case p.o.json:
		enc := json.NewEncoder(p.ios.Out)
		enc.SetIndent("", "  ")
		tools := p.tools
		if tools == nil {
			tools = []toolRecord{}
		}
		m := map[string]any{"mode": "agent", "provider": config.ProviderDisplayName(r.cfg.Provider),
			"model": r.sess.Model, "prompt": r.opts.prompt, "output": string(p.output), "tools": tools,
			"outcomes":         []any{map[string]any{"turn_id": d.TurnID, "status": d.Status, "steps": d.Steps}},
			"cancelled_agents": cancelledList(r.cancelled),
			"status":           d.Status, "termination_reason": terminationReason(d), "error_category": nullable(d.ErrorCategory),
			"error": nullable(d.Error), "sandbox_posture": r.sandbox().Label()}
		r.accounting(m)
		_ = enc.Encode(m)
	case r.schema && r.structured != nil:
		p.newline()
		raw, _ := json.MarshalIndent(r.structured, "", "  ")
		fmt.Fprintln(p.ios.Out, string(raw))
	default:
		p.newline()
	}
}

// accounting adds what CI reads from a run's final object and stream-json
// metadata alike (docs/exec-output.schema.json): the session id, the usage,
// the cost in USD (null when the model has no price), the wall time and
// the model steps; under --json-schema the validated answer.
func (r execReport) accounting(m map[string]any) {
	u := r.done.Usage
	cached := 0
	if u.PromptCacheHitTokens != nil {
		cached = *u.PromptCacheHitTokens
	}
	m["session_id"] = r.sess.ID
	m["usage"] = map[string]any{"prompt_tokens": u.InputTokens, "cached_tokens": cached, "completion_tokens": u.OutputTokens}
	m["cost"] = nil
	if price, ok := session.PriceFor(r.sess.Model, r.cfg.File.Pricing); ok {
		m["cost"] = session.CostAt(price, u)
	}
	m["duration_ms"] = r.duration.Milliseconds()
	m["num_turns"] = r.done.Steps
	if r.schema {
		m["structured_output"] = r.structured
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sandbox is the posture of the run's commands, as the engine applied it.
func (r execReport) sandbox() sandbox.Status {
	return engine.SandboxFor(r.posture.Sandbox, r.posture.Mode).Status()
}

// metadata is the terminal receipt of a stream-json run.
func (p *execPrinter) metadata(r execReport) map[string]any {
	d := r.done
	sum := sha256.Sum256([]byte(r.opts.prompt))
	posture := "ask"
	if r.posture.AutoApprove {
		posture = "auto_tools"
	}
	m := map[string]any{"receipt_kind": "terminal", "provider": config.ProviderDisplayName(r.cfg.Provider),
		"provider_id": r.cfg.Provider, "model": r.sess.Model, "route_source": r.cfg.BaseSource,
		"input_tokens": d.Usage.InputTokens, "output_tokens": d.Usage.OutputTokens,
		"duration_ms": r.duration.Milliseconds(), "approval_posture": posture, "sandbox_posture": r.sandbox().Label(),
		"sandbox":       r.sandbox(),
		"prompt_sha256": "sha256:" + hex.EncodeToString(sum[:]), "visible_final_answer_chars": len(p.output),
		"session_id": r.sess.ID, "resume_command": "codewhale exec --resume " + r.sess.ID + " PROMPT", "workspace": r.cfg.Workspace, "message_count": len(r.sess.Messages),
		"status": d.Status, "termination_reason": terminationReason(d), "mode": r.opts.mode, "steps": d.Steps,
		"running_jobs": runningJobs(r.running), "cancelled_agents": cancelledList(r.cancelled)}
	r.accounting(m)
	if r.subagents != nil {
		m["subagents"] = r.subagents
	}
	if d.ToolCatalogSHA != "" {
		m["tool_catalog_sha256"] = d.ToolCatalogSHA
	}
	if d.ErrorCategory != "" {
		m["error_category"] = d.ErrorCategory
	}
	opt := func(k string, v *int) {
		if v != nil {
			m[k] = *v
		}
	}
	opt("prompt_cache_hit_tokens", d.Usage.PromptCacheHitTokens)
	opt("prompt_cache_miss_tokens", d.Usage.PromptCacheMissTokens)
	opt("prompt_cache_write_tokens", d.Usage.PromptCacheWriteTok)
	opt("reasoning_tokens", d.Usage.ReasoningTokens)
	return m
}

// runningJobs lists jobs still running at the end of an exec run.
func runningJobs(js []jobs.Snapshot) []map[string]any {
	out := []map[string]any{}
	for _, j := range js {
		out = append(out, map[string]any{"id": j.ID, "command": j.Command, "elapsed_ms": j.ElapsedMS})
	}
	return out
}
