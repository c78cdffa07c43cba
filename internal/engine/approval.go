package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// approve decides a call that needs approval under the turn's posture
// (CONTRACT.md §12.6, t.approval) and, when someone must be asked, waits
// for the answer. A nil result means the call may run.
func (t *turn) approve(ctx context.Context, p *planned) *tools.Error {
	name := p.call.name
	key, group := approvalKeys(name, p.input)
	e := t.e
	e.mu.Lock()
	denied, allowed := e.denied[key], e.approved[group]
	e.mu.Unlock()
	if denied {
		return deniedByUser(name)
	}
	switch t.approval().For(p.need) {
	case posture.AutoApprove:
		return nil
	case posture.HeldAutoReview:
		return tools.PermissionDenied("Auto-Review held tool '%s' without pausing%s", name, explicitSuffix(p))
	case posture.BlockedFullAccess:
		return tools.PermissionDenied("Tool '%s' requires explicit approval and is blocked in Full Access because this "+
			"posture does not open tool-approval prompts. Switch to Ask to review this call.%s", name, explicitSuffix(p))
	case posture.DeniedNever:
		return tools.PermissionDenied("Blocked tool '%s' (approval_mode=never)%s", name, explicitSuffix(p))
	case posture.DeniedHeadless:
		t.outcome.ApprovalRequired = true
		if p.need >= posture.NeedExplicit {
			tail := ", or the session must run under Full Access"
			if p.need == posture.NeedHold {
				tail = " (Full Access refuses it too)"
			}
			return tools.PermissionDenied("Tool '%s' needs explicit approval (approval_required)%s This headless run "+
				"cannot ask, and --auto approves only ordinary prompts: a person must approve this one call in an "+
				"interactive session (Ask)%s.", name, explicitSuffix(p), tail)
		}
		return tools.PermissionDenied("Tool '%s' needs approval (approval_required) and this headless run cannot ask; "+
			"re-run with --auto to approve tool calls", name)
	}
	// Only ordinary calls may ride on an "allow for the session" grant.
	if allowed && p.need <= posture.NeedRequired {
		return nil
	}
	return t.ask(ctx, p, key, group)
}

// ask shows the approval card and waits for the answer.
func (t *turn) ask(ctx context.Context, p *planned, key, group string) *tools.Error {
	e, name := t.e, p.call.name
	ch := make(chan approvalAnswer, 1)
	e.mu.Lock()
	e.approvals[p.call.id] = ch
	e.mu.Unlock()
	e.setState(AwaitingApproval)
	defer e.setState(RunningTools)
	rule, saveable := t.saveableRule(p)
	req := ApprovalRequired{ID: p.call.id, ToolName: name, Description: Describe(name, p.input), Input: p.input,
		ApprovalKey: key, GroupingKey: group, IntentSummary: t.intent(p), Reason: p.reason,
		ForcePrompt: p.need >= posture.NeedExplicit, Authority: authority(p),
		SandboxReadOnly: t.sandboxReadOnlyFor(p.tool), Direct: t.direct}
	if req.SandboxReadOnly {
		req.Description += readOnlyShellNote
	}
	if saveable {
		req.SaveRule = rule.String()
	}
	t.notify(NotifyApprovalWaiting, "codewhale: approval waiting for "+req.Description)
	e.emit(req)
	select {
	case a := <-ch:
		if !a.approve {
			if a.abort {
				return tools.Cancelled("Request cancelled while awaiting approval")
			}
			// The same call again is denied without asking (CONTRACT.md §14.6).
			e.mu.Lock()
			e.denied[key] = true
			e.mu.Unlock()
			return deniedByUser(name)
		}
		if a.forSession && p.need <= posture.NeedRequired {
			e.mu.Lock()
			e.approved[group] = true
			e.mu.Unlock()
		}
		if a.saveRule && saveable {
			if saved, err := e.opts.Permissions.SaveAllow(rule); err != nil {
				e.emit(Error{ErrorEnvelope{Message: "The call was approved, but its rule was not saved: " + err.Error(),
					Category: "state", Severity: "warning", Recoverable: true}})
			} else {
				// A lasting grant is said where it stays, not on a status line
				// that fades (CONTRACT.md §14.6).
				e.emit(Status{Keep: true, Message: "Saved permission rule: " + saved.String() + " (" + saved.Source() +
					"; /permissions lists it, /permissions remove <n> takes it back)"})
			}
		}
		return nil
	case <-ctx.Done():
		e.mu.Lock()
		delete(e.approvals, p.call.id)
		e.mu.Unlock()
		return tools.Cancelled("Request cancelled while awaiting approval")
	}
}

// authority is what the card shows of the authority a call grants: the
// tool's own account (tools.Policy.Grant: an automation's runs) when it
// gives one, else the flags the input names (authorityOf).
func authority(p *planned) map[string]any {
	if p.prepared != nil && p.prepared.Policy.Grant != nil {
		return p.prepared.Policy.Grant.Map()
	}
	return authorityOf(p.call.name, p.input)
}

// authorityOf lists the authority a tasks create or agent start asks to
// grant, as written in its input (nil for other calls), so a card can show
// every flag. The task or child gets no more than the creating session has.
func authorityOf(name string, in json.RawMessage) map[string]any {
	var keys []string
	switch action := tools.PeekAction(in, ""); {
	case name == "task_create" || name == "tasks" && action == "create":
		keys = []string{"auto_approve", "trust_mode", "allow_shell", "mode", "model", "workspace"}
	case name == "agent" && (action == "" || action == "start" || action == "spawn" || action == "run"):
		keys = []string{"type", "profile", "model", "thinking", "write_authority", "write_roots", "exact_files",
			"workspace_policy", "worktree", "cwd", "max_depth", "max_steps", "wall_time_secs"}
	default:
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// saveableRule is the exact allow rule a card may offer to save: only for
// ordinary approvals, with a rule file to write to.
func (t *turn) saveableRule(p *planned) (permissions.Rule, bool) {
	if t.e.opts.Permissions == nil || p.need > posture.NeedRequired {
		return permissions.Rule{}, false
	}
	return permissions.RuleFor(p.call.name, p.input, t.e.opts.Workspace)
}

// explicitSuffix names why a call needs an explicit approval, for the
// model-readable refusals; "" for ordinary calls.
func explicitSuffix(p *planned) string {
	if p.need < posture.NeedExplicit {
		return ""
	}
	r := p.reason
	if r == "" {
		r = "this call needs a person's approval"
	}
	return ". It needs explicit approval: " + strings.TrimSuffix(r, ".") + "."
}

func deniedByUser(name string) *tools.Error {
	return tools.PermissionDenied("Tool '%s' denied by user — the call was not approved. Do not retry the same call; "+
		"present what you intended and wait for the user's approval or new instructions.", name)
}

// intent is the assistant's visible text before a write call, bounded.
func (t *turn) intent(p *planned) string {
	if p.readOnly || t.direct { // the person's own command: the model's last reply is not its intent
		return ""
	}
	h := t.e.history()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == "assistant" {
			s := strings.TrimSpace(h[i].Text())
			if r := []rune(s); len(r) > 2000 {
				s = string(r[:2000]) + "..."
			}
			return s
		}
	}
	return ""
}

// Describe is the one-line summary of a call shown in approval cards and
// tool headers: the action and its main argument.
func Describe(name string, in json.RawMessage) string {
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	action := str("action")
	var subject string
	for _, k := range []string{"command", "path", "pattern", "query", "rev", "task_id", "prompt", "note"} {
		if s := str(k); s != "" {
			subject = s
			break
		}
	}
	if i := strings.IndexByte(subject, '\n'); i >= 0 {
		subject = subject[:i] + " …"
	}
	if r := []rune(subject); len(r) > 72 {
		subject = string(r[:71]) + "…"
	}
	parts := []string{name}
	if action != "" {
		parts = append(parts, action)
	}
	s := strings.Join(parts, " ")
	if subject != "" {
		s += " · " + subject
	}
	return s
}

// unknownToolMessage is the model-visible text for a name with no execution
// path: the exact registry text first, then a hint. Suggestions are text
// only; nothing is ever dispatched to them.
func unknownToolMessage(name string, cat interface{ Names() []string }) string {
	base := tools.NotRegistered(name) + ". "
	switch name {
	case "exec_shell", "exec_shell_wait", "exec_shell_interact", "exec_shell_cancel":
		action := map[string]string{"exec_shell": "run", "exec_shell_wait": "wait", "exec_shell_interact": "interact", "exec_shell_cancel": "cancel"}[name]
		return base + fmt.Sprintf("`exec_shell` was renamed to `Bash` — call `Bash` with action %q instead. "+
			"If `Bash` is also absent: shell is unavailable in Plan mode or with allow_shell = false; "+
			"`/config allow_shell true` (`--save` to persist) restores it next turn.", action)
	case "item", "items", "todo", "todos", "checklist", "checklist_item", "plan_item":
		return base + "To-do entries are not separate tool calls: send the whole list in one `work_update` call " +
			"with a `todos` array of {content, status}."
	}
	if s := suggest(name, cat.Names()); len(s) > 0 {
		return base + "Did you mean: " + strings.Join(s, ", ") + "? These are suggestions only; " +
			"call a listed tool by its exact name, or use tool_search with a short query."
	}
	return base + "Verify mode/feature flags, or use tool_search with a short query."
}
