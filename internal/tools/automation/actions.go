package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools"
)

// Summary is the list view of an automation.
type Summary struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Status   string     `json:"status"`
	Schedule string     `json:"schedule"`
	Timezone string     `json:"timezone"`
	Mode     string     `json:"mode"`
	NextRun  *time.Time `json:"next_run"`
	LastRun  *time.Time `json:"last_run"`
}

func (t *Tool) list(in *contract) (tools.Result, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	all, problems, err := t.opts.Store.List()
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("automation: %v", err)
	}
	out := []Summary{}
	for _, a := range all {
		if len(out) == limit {
			break
		}
		out = append(out, Summary{ID: a.ID, Name: a.Name, Status: a.Status, Schedule: a.Schedule, Timezone: a.Timezone,
			Mode: a.Mode, NextRun: a.NextRun, LastRun: a.LastRun})
	}
	body := map[string]any{"automations": out, "total": len(all)}
	if len(problems) > 0 {
		body["unreadable"] = problems
	}
	return result(body, map[string]any{"count": len(out), "unreadable": len(problems)})
}

func (t *Tool) read(in *contract) (tools.Result, error) {
	a, err := t.get(in)
	if err != nil {
		return tools.Result{}, err
	}
	recent := a.History
	if len(recent) > 20 {
		recent = recent[len(recent)-20:]
	}
	view := *a
	view.History = nil
	return result(map[string]any{"automation": view, "recent_runs": recent}, map[string]any{"id": a.ID})
}

func (t *Tool) get(in *contract) (*auto.Automation, error) {
	a, err := t.opts.Store.Get(strings.TrimSpace(in.AutomationID))
	if err != nil {
		return nil, tools.ExecutionFailed("automation: %v", err)
	}
	return a, nil
}

// flags reads the authority a create or update asks for.
type flags struct{ allowShell, trustMode, autoApprove *bool }

func readFlags(d *tools.Decoded[contract]) flags {
	sent := func(name string, v bool) *bool {
		if !d.Has(name) {
			return nil
		}
		return &v
	}
	return flags{sent("allow_shell", d.In.AllowShell), sent("trust_mode", d.In.TrustMode), sent("auto_approve", d.In.AutoApprove)}
}

// apply sets the flags the call sent on c, each only where the session's
// ceiling has it, and names what it could not grant.
func (f flags) apply(c *auto.Ceiling, ceiling auto.Ceiling) []string {
	var capped []string
	set := func(req *bool, dst *bool, allowed bool, name string) {
		if req == nil {
			return
		}
		*dst = *req && allowed
		if *req && !allowed {
			capped = append(capped, name)
		}
	}
	set(f.allowShell, &c.AllowShell, ceiling.AllowShell, "allow_shell")
	set(f.trustMode, &c.TrustMode, ceiling.TrustMode, "trust_mode")
	set(f.autoApprove, &c.AutoApprove, ceiling.AutoApprove, "auto_approve")
	return capped
}

// created is the ceiling a create stores: the session's posture and the
// flags it sent, capped.
func (f flags) created(session auto.Ceiling) (auto.Ceiling, []string) {
	c := auto.Ceiling{Posture: session.Posture}
	return c, f.apply(&c, session)
}

// recap is the ceiling an update, a resume or a run leaves an automation
// (CONTRACT.md §6.12): what it stored met with this session's, then the
// flags an update sent, each granted only if the session has it. A stored
// Full Access never survives an update made under Ask or --auto.
func (f flags) recap(stored, session auto.Ceiling) (auto.Ceiling, []string) {
	c := stored.Meet(session)
	return c, f.apply(&c, session)
}

func cappedNote(capped []string, posture string) string {
	if len(capped) == 0 {
		return ""
	}
	return fmt.Sprintf("Not granted: %s — this session's posture (%s) does not have that authority, and an automation's "+
		"runs never get more than the session that created it. Runs will be refused what needs it.", strings.Join(capped, ", "), posture)
}

// loweredNote says that a change lowered the automation's authority to
// this session's.
func loweredNote(before, after auto.Ceiling) string {
	if !before.Exceeds(after) {
		return ""
	}
	return "Its runs now get this session's authority (" + after.Describe() + ") instead of what it had (" +
		before.Describe() + "): an automation never keeps more authority than the session that last changed it."
}

// grantOf is what an approval card shows of c (from: what it had before).
func grantOf(c auto.Ceiling, from *auto.Ceiling) *tools.Grant {
	g := &tools.Grant{RunsWith: c.Describe(), AutoApprove: c.AutoApprove, TrustMode: c.TrustMode, AllowShell: c.AllowShell}
	if from != nil && from.Exceeds(c) {
		g.LoweredFrom = from.Describe()
	}
	return g
}

// grant is the authority a create, update, resume or run leaves its runs,
// for the approval card (nil for other actions, or an automation that
// cannot be read: the call then fails when it runs).
func (t *Tool) grant(d *tools.Decoded[contract]) *tools.Grant {
	session := t.opts.Ceiling()
	f := readFlags(d)
	switch d.Action {
	case "create":
		c, _ := f.created(session)
		return grantOf(c, nil)
	case "update", "resume", "run":
		if t.opts.Store == nil {
			return nil
		}
		a, err := t.opts.Store.Get(strings.TrimSpace(d.In.AutomationID))
		if err != nil {
			return nil
		}
		if d.Action != "update" {
			f = flags{}
		}
		c, _ := f.recap(a.Ceiling, session)
		return grantOf(c, &a.Ceiling)
	}
	return nil
}

func (t *Tool) create(tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	in := &d.In
	n := auto.New{Workspace: t.opts.Workspace, Prompt: in.Prompt, Schedule: in.Schedule, Name: in.Name,
		Timezone: in.Timezone, Mode: in.Mode, Paused: in.Paused}
	if n.Workspace == "" {
		n.Workspace = tc.Workspace
	}
	if n.Timezone != "" {
		if _, err := time.LoadLocation(n.Timezone); err != nil {
			return tools.Result{}, tools.InvalidInput("automation: unknown timezone %q (use an IANA name such as Europe/Berlin)", n.Timezone)
		}
	}
	ceiling := t.opts.Ceiling()
	var capped []string
	n.Ceiling, capped = readFlags(d).created(ceiling)
	a, err := t.opts.Store.Create(n)
	if err != nil {
		return tools.Result{}, tools.InvalidInput("automation: %v", err)
	}
	t.wake()
	return result(map[string]any{"created": a, "note": cappedNote(capped, ceiling.Posture)}, map[string]any{"id": a.ID, "capped": capped})
}

func (t *Tool) update(d *tools.Decoded[contract]) (tools.Result, error) {
	in := &d.In
	a, err := t.get(in)
	if err != nil {
		return tools.Result{}, err
	}
	f := readFlags(d)
	var capped []string
	var before auto.Ceiling
	ceiling := t.opts.Ceiling()
	updated, err := t.opts.Store.Update(a.ID, func(a *auto.Automation) error {
		for name, f := range map[string]struct{ dst, v *string }{"name": {&a.Name, &in.Name},
			"prompt": {&a.Prompt, &in.Prompt}, "schedule": {&a.Schedule, &in.Schedule},
			"timezone": {&a.Timezone, &in.Timezone}, "mode": {&a.Mode, &in.Mode}, "status": {&a.Status, &in.Status}} {
			if d.Has(name) {
				*f.dst = strings.TrimSpace(*f.v)
			}
		}
		if _, err := time.LoadLocation(a.Timezone); err != nil {
			return fmt.Errorf("unknown timezone %q", a.Timezone)
		}
		before = a.Ceiling
		a.Ceiling, capped = f.recap(a.Ceiling, ceiling)
		return nil
	})
	if err != nil {
		var te *tools.Error
		if errors.As(err, &te) {
			return tools.Result{}, te
		}
		return tools.Result{}, tools.InvalidInput("automation: %v", err)
	}
	t.wake()
	note := strings.TrimSpace(loweredNote(before, updated.Ceiling) + " " + cappedNote(capped, ceiling.Posture))
	return result(map[string]any{"updated": updated, "note": note}, map[string]any{"id": updated.ID, "capped": capped})
}

// setStatus pauses or resumes; a resume re-arms future runs, so it also
// lowers the automation's authority to this session's (recap).
func (t *Tool) setStatus(in *contract, action string) (tools.Result, error) {
	a, err := t.get(in)
	if err != nil {
		return tools.Result{}, err
	}
	var before auto.Ceiling
	updated, err := t.opts.Store.Update(a.ID, func(a *auto.Automation) error {
		if action == "pause" {
			return a.SetStatus(auto.Paused)
		}
		before = a.Ceiling
		a.Ceiling, _ = flags{}.recap(a.Ceiling, t.opts.Ceiling())
		return a.SetStatus(auto.Active)
	})
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("automation: %v", err)
	}
	t.wake()
	body := map[string]any{"id": updated.ID, "status": updated.Status, "next_run": updated.NextRun}
	if action == "resume" {
		body["note"] = loweredNote(before, updated.Ceiling)
	}
	return result(body, map[string]any{"id": updated.ID})
}

func (t *Tool) delete(in *contract) (tools.Result, error) {
	a, err := t.get(in)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.opts.Store.Delete(a.ID); err != nil {
		return tools.Result{}, tools.ExecutionFailed("automation: %v", err)
	}
	t.wake()
	return result(map[string]any{"deleted": a.ID, "name": a.Name}, map[string]any{"id": a.ID})
}

func (t *Tool) runNow(ctx context.Context, in *contract) (tools.Result, error) {
	a, err := t.get(in)
	if err != nil {
		return tools.Result{}, err
	}
	if t.opts.Enqueue == nil {
		return tools.Result{}, tools.NotAvailable("automation: this session has no task store to run automations in")
	}
	// A run started now is this session's: its task gets no more than the
	// session has, whatever the automation stores.
	session := t.opts.Ceiling()
	enqueue := func(ctx context.Context, a auto.Automation, due time.Time) (string, error) {
		a.Ceiling = a.Ceiling.Meet(session)
		return t.opts.Enqueue(ctx, a, due)
	}
	f, err := t.opts.Store.RunNow(ctx, a.ID, enqueue)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("automation: %v", err)
	}
	if f.Run.Status != "enqueued" {
		res := tools.Failed(fmt.Sprintf("automation: %s was not started: %s", a.ID, f.Run.Note))
		return res, nil
	}
	return result(map[string]any{"id": a.ID, "task_id": f.Run.TaskID, "status": "enqueued",
		"note": "The run is a durable task; follow it with tasks read task_id=" + f.Run.TaskID + "."}, map[string]any{"task_id": f.Run.TaskID})
}

func (t *Tool) wake() {
	if t.opts.Wake != nil {
		t.opts.Wake()
	}
}

func result(v any, meta map[string]any) (tools.Result, error) {
	if m, ok := v.(map[string]any); ok && m["note"] == "" {
		delete(m, "note")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("automation: %v", err)
	}
	res := tools.OK(string(b))
	res.Metadata = meta
	return res, nil
}
