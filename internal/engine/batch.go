package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
)

// Exact texts of the dispatch path.
const (
	notExecutedText = "Tool not executed: the request was cancelled before this tool ran."
	notSavedText    = "Tool not executed: the session could not be saved, so nothing more runs that could not be recorded."
	maxParallel     = 8
)

// planned is one tool call after the gates of CONTRACT.md §9.7.
type planned struct {
	call      pendingCall
	tool      tools.Tool // nil for tool_search or a blocked call
	search    bool       // the synthetic tool_search
	input     json.RawMessage
	prepared  *tools.Call // the call decoded once by the registry; nil until Prepare succeeded
	blocked   *tools.Error
	parallel  bool
	approval  tools.Approval
	need      posture.Need // how strongly a call with approval != Auto needs a person
	reason    string       // why an Explicit call needs one
	readOnly  bool
	done      bool
	outcome   ToolOutcome
	started   time.Time
	completed time.Time
	result    provider.Message // the history message of the outcome, saved when the call completed
	event     ToolCallComplete // what complete announced (or, for a host call, will announce)
}

// runBatch plans, approves and runs the step's calls, then appends one
// result per call in call order. It returns false when the turn was
// cancelled.
func (t *turn) runBatch(ctx context.Context, calls []pendingCall) bool {
	plans := make([]*planned, len(calls))
	for i, c := range calls {
		plans[i] = t.plan(c)
	}
	t.batchStatus(plans)
	t.e.setState(RunningTools)
	t.budget = t.resultBudget()
	for i := 0; i < len(plans); {
		j := i + 1
		if plans[i].parallel {
			for j < len(plans) && plans[j].parallel {
				j++
			}
		}
		if ctx.Err() != nil || t.e.saveFailing() {
			break
		}
		t.runGroup(ctx, plans[i:j])
		i = j
	}
	notRun := ToolOutcome{Content: notExecutedText, Category: "cancelled"}
	if ctx.Err() == nil && t.e.saveFailing() {
		notRun = ToolOutcome{Content: notSavedText, Category: "state"}
	}
	for _, p := range plans {
		if !p.done {
			p.finish(notRun, t.e.opts.Clock())
			t.complete(p)
		}
	}
	// Each result was saved as its call completed; the history takes them
	// in call order.
	for _, p := range plans {
		t.e.addMessage(p.result)
	}
	t.drainSteers()
	return ctx.Err() == nil
}

func (t *turn) batchStatus(plans []*planned) {
	par, groups := 0, 0
	for i, p := range plans {
		if p.parallel {
			par++
			if i == 0 || !plans[i-1].parallel {
				groups++
			}
		}
	}
	switch {
	case par > 1:
		t.e.emit(Status{Message: fmt.Sprintf("Executing %d read-only tools in %d parallel chunk(s)", par, groups)})
	case len(plans) > 1:
		t.e.emit(Status{Message: "Executing tools sequentially (writes, approvals, or non-parallel tools detected)"})
	}
}

// runGroup runs plans concurrently when they form a parallel group, else
// the single plan serially.
func (t *turn) runGroup(ctx context.Context, group []*planned) {
	if len(group) == 1 {
		t.execute(ctx, group[0])
		return
	}
	sem := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for _, p := range group {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.execute(ctx, p)
		}()
	}
	wg.Wait()
}

// plan resolves a call and applies the gates that need no user (CONTRACT.md §9.7).
func (t *turn) plan(c pendingCall) *planned {
	p := &planned{call: c, input: c.input}
	name := c.name
	switch {
	case catalog.IsToolSearch(name) && t.hasToolSearch():
		p.search = true
	default:
		tool, ok := t.toolset.Registry.Get(name)
		if !ok {
			p.blocked = tools.NotAvailable("%s", unknownToolMessage(name, t.cat))
			return p
		}
		p.tool = tool
	}
	if c.badInput != nil {
		p.blocked = tools.AsError(c.badInput)
		return p
	}
	names := ruleNames(name, p.tool)
	if matchesAny(t.e.opts.DenyTools, names) {
		p.blocked = tools.PermissionDenied("Tool '%s' is in the disallowed-tools list", name)
		return p
	}
	if len(t.e.opts.AllowTools) > 0 && !matchesAny(t.e.opts.AllowTools, names) {
		p.blocked = tools.PermissionDenied("Tool '%s' is not in the allowed-tools list for the current command", name)
		return p
	}
	if p.blocked = t.scopeRefusal(name, names); p.blocked != nil {
		return p
	}
	if p.search {
		p.readOnly = true
		return p
	}
	call, err := t.toolset.Registry.Prepare(name, c.input)
	if err != nil {
		p.blocked = tools.AsError(err)
		return p
	}
	p.prepared, p.input = call, call.Input
	pol := call.Policy
	p.readOnly, p.approval, p.need = pol.ReadOnly, pol.Approval, needOf(pol.Approval)
	if p.approval == tools.Explicit {
		p.reason = pol.Reason
	}
	if _, mcp := t.toolset.MCP.Servers[name]; mcp && t.set.Mode == posture.Plan && !p.readOnly {
		p.blocked = tools.PermissionDenied("'%s' is not available in Plan mode - switch to Act mode (`/mode act`) to modify files or run write-capable tools.", name)
		return p
	}
	if t.applyRules(p) {
		return p
	}
	if e, ok := t.cat.Lookup(name); ok && e.Deferred() && !t.cat.IsActive(name) {
		t.cat.Activate(name)
		t.e.emit(Status{Message: fmt.Sprintf("Auto-loaded deferred tool '%s' and retrying the pending call in the same turn.", name)})
	}
	p.parallel = (p.readOnly && pol.Parallel || pol.Detached) && p.approval == tools.Auto
	return p
}

// resultBudget is the characters one tool result may take on this turn's
// route.
func (t *turn) resultBudget() int {
	return resultBudget(t.e.contextWindow(t.client))
}

// applyRules applies the persistent permission rules (README, "Permission
// rules"): deny refuses the call in every posture; a protected path
// (Explicit) stays for a person whatever the rules say; ask holds the call
// for a person (Full Access blocks it, it opens no prompts); allow skips
// ordinary approval. It reports whether the call is now blocked.
func (t *turn) applyRules(p *planned) bool {
	d, r := t.e.opts.Permissions.Decide(p.call.name, p.input)
	switch {
	case d == permissions.Deny:
		p.blocked = tools.PermissionDenied("Tool '%s' is denied by the permission rule %s (%s); nothing was run. "+
			"Do not retry it; ask the user if the rule should change.", p.call.name, r.Source(), r.String())
		return true
	case p.approval == tools.Explicit:
	case d == permissions.Ask:
		p.approval, p.need = tools.Required, posture.NeedHold
		p.reason = "the permission rule " + r.Source() + " (" + r.String() + ") asks for a person's approval"
	case d == permissions.Allow && p.approval != tools.Auto:
		p.approval = tools.Auto
	}
	return false
}

// needOf maps a tool's approval requirement onto the posture decision.
func needOf(a tools.Approval) posture.Need {
	switch a {
	case tools.Suggest:
		return posture.NeedSuggest
	case tools.Explicit:
		return posture.NeedExplicit
	}
	return posture.NeedRequired
}

func (t *turn) hasToolSearch() bool { _, ok := t.cat.Lookup(catalog.ToolSearchName); return ok }

// execute runs one planned call, asking for approval first when needed.
func (t *turn) execute(ctx context.Context, p *planned) {
	start := t.e.opts.Clock()
	p.started = start
	if p.blocked != nil {
		p.finish(errorOutcome(p.call.name, p.blocked, t.schemaOf(p)), t.e.opts.Clock())
		t.complete(p)
		return
	}
	if ctx.Err() != nil {
		return // left for the not-executed result
	}
	if t.beforeHooks(ctx, p) {
		p.finish(errorOutcome(p.call.name, p.blocked, nil), t.e.opts.Clock())
		t.complete(p)
		return
	}
	if p.approval != tools.Auto {
		if err := t.approve(ctx, p); err != nil {
			if ctx.Err() != nil && err.Kind == tools.KindCancelled {
				p.finish(errorOutcome(p.call.name, err, nil), t.e.opts.Clock())
				t.complete(p)
				return
			}
			p.finish(errorOutcome(p.call.name, err, nil), t.e.opts.Clock())
			t.complete(p)
			return
		}
	}
	if p.search {
		res, err := t.cat.Search(p.call.name, p.input)
		if err != nil {
			p.finish(errorOutcome(p.call.name, tools.AsError(err), catalog.ToolSearchTool().InputSchema), t.e.opts.Clock())
		} else {
			p.finish(ToolOutcome{Content: res.Content(), Success: true, Metadata: res.Metadata()}, t.e.opts.Clock())
		}
		t.complete(p)
		return
	}
	report, stopProgress := t.progress(p)
	tc := &tools.Context{Workspace: t.e.opts.Workspace, Mode: t.set.Mode, TrustedRoots: t.trustedRoots(), Approval: p.approval,
		TurnID: t.id, CallID: p.call.id, Budget: t.budget, Progress: report,
		Sandbox: t.sandbox(), NoVision: t.noVision}
	t.checkpointBefore(ctx, p)
	res, err := p.prepared.Run(ctx, tc)
	if err == nil {
		res = t.offerRerun(ctx, p, tc, res)
	}
	stopProgress()
	t.checkpointAfter(ctx, p, res.Metadata, err)
	if res.ChildUsage.Reported() {
		t.usageMu.Lock()
		t.usage.Add(&res.ChildUsage)
		t.usageMu.Unlock()
		t.e.emit(TurnUsage{Usage: res.ChildUsage, Step: t.step + 1, Child: true})
	}
	if err != nil {
		p.finish(errorOutcome(p.call.name, tools.AsError(err), t.schemaOf(p)), t.e.opts.Clock())
	} else {
		o := ToolOutcome{Content: res.Content, Success: res.Success, Metadata: res.Metadata, images: res.Images}
		if !res.Success {
			o.Category = "tool_reported_failure"
		}
		p.finish(o, t.e.opts.Clock())
	}
	t.afterHooks(ctx, p)
	t.complete(p)
}

func (t *turn) schemaOf(p *planned) map[string]any {
	if p.tool != nil {
		return p.tool.InputSchema()
	}
	return nil
}

func (p *planned) finish(o ToolOutcome, at time.Time) {
	p.outcome, p.completed, p.done = o, at, true
	if p.started.IsZero() {
		p.started = at
	}
}

// complete saves a call's result at once — a kill a moment later keeps it
// (CONTRACT.md §15.22) — and announces it. A host call (RunToolCall) has no
// place in the history: it is neither saved nor announced here; its
// runner emits the event as the turn slot's final one.
func (t *turn) complete(p *planned) {
	p.outcome = t.e.redactOutcome(p.outcome)
	p.event = ToolCallComplete{ID: p.call.id, Name: p.call.name, Input: p.input, Result: p.outcome,
		StartedAt: p.started, CompletedAt: p.completed}
	if t.direct {
		return
	}
	b := provider.ToolResultBlock(p.call.id, budget.Content(p.call.name, p.outcome.Content, t.budget), p.outcome.IsError)
	b.Receipt = &provider.ToolReceipt{Success: p.outcome.Success, Category: p.outcome.Category, Meta: p.outcome.Metadata}
	p.result = provider.Message{Role: provider.RoleUser,
		Content: append([]provider.Block{b}, resultImages(p.call.name, p.call.id, p.outcome.images)...)}
	t.e.saveResult(fmt.Sprintf("the result of %s (call %s)", firstRunes(p.call.name, 64), firstRunes(p.call.id, 64)), p.result)
	t.e.emit(p.event)
}

// errorOutcome renders a refusal the way the model receives it.
func errorOutcome(tool string, err *tools.Error, schema map[string]any) ToolOutcome {
	return ToolOutcome{Content: "Error: " + err.ModelText(tool, schema), IsError: true, Category: err.Kind.Category()}
}

// approvalKeys returns the exact-call key and the lossy family key.
func approvalKeys(name string, in json.RawMessage) (string, string) {
	canon, _ := canonjson.Append(nil, decodeAny(in))
	sum := sha256.Sum256(append([]byte(name+"\x00"), canon...))
	return name + ":" + hex.EncodeToString(sum[:8]), name + ":" + tools.PeekAction(in, "*")
}

func decodeAny(in json.RawMessage) any {
	var v any
	_ = json.Unmarshal(in, &v)
	return v
}
