package hooks

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// Use says which hooks a session runs.
type Use int

const (
	// Off runs none (provider-free receipts, `exec --no-hooks`).
	Off Use = iota
	// Trusted runs the user's hooks and a project file the user trusted.
	Trusted
	// All also runs an untrusted project file for this run (`exec --hooks`)
	// without recording trust.
	All
)

// Options configure a Runner.
type Options struct {
	Use       Use
	User      []config.Hook // config.toml's [[hooks]]
	UserFile  string        // where they were read from
	Home      string        // $CODEWHALE_HOME, for the trust record
	Workspace string
	// Sandbox confines every hook as it confines the session's commands,
	// and gives their environment (nil: unconfined, same environment rule).
	Sandbox *sandbox.Sandbox
}

// Runner runs a session's hooks; it implements engine.Hooks. Its zero
// value is not usable; build one with New.
type Runner struct {
	opts Options

	mu      sync.Mutex
	active  []*entry
	project Project
	async   sync.WaitGroup // notification hooks in flight
	late    []string       // their failures no report took, for Wait
}

// entry is a hook with its history, for /hooks.
type entry struct {
	*Hook
	runs int
	last *outcome
}

// Status is one hook as /hooks shows it.
type Status struct {
	Hook
	Runs int
	Last string // "" when it never ran
}

// New validates the user's hooks and reads the project's hooks.toml. A
// malformed hook or file is an error naming the file and the hook; the
// session does not start with hooks it cannot honour.
func New(o Options) (*Runner, error) {
	r := &Runner{opts: o}
	if o.Use == Off {
		return r, nil
	}
	for i, spec := range o.User {
		h, err := compile(spec, o.UserFile, i)
		if err != nil {
			return nil, err
		}
		r.active = append(r.active, &entry{Hook: h})
	}
	p, err := loadProject(o.Home, o.Workspace)
	if err != nil {
		return nil, err
	}
	r.project = p
	if p.Exists && (p.Trusted || o.Use == All) {
		for _, h := range p.hooks {
			r.active = append(r.active, &entry{Hook: h})
		}
	}
	return r, nil
}

// Configured reports whether the session has any hook to run now or to
// trust later; without one the engine is given no Hooks at all.
func (r *Runner) Configured() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.active) > 0 || r.project.Exists && len(r.project.hooks) > 0
}

// Has reports whether any active hook listens to event.
func (r *Runner) Has(event string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.active {
		if e.Event == event {
			return true
		}
	}
	return false
}

// Run runs event's hooks that match call, in order, and combines their
// answers: a block wins and stops the rest; an ask wins over proceeding;
// message_submit's rewrite is handed to the next hook.
func (r *Runner) Run(ctx context.Context, event string, call engine.HookCall) engine.HookVerdict {
	var v engine.HookVerdict
	for _, e := range r.matching(event, call) {
		o := e.run(ctx, r.opts.Sandbox, r.opts.Workspace, buildPayload(event, r.opts.Workspace, call))
		r.record(e, &o)
		if o.Problem != "" {
			v.Notices = append(v.Notices, failure(e, event, o.Problem))
			continue
		}
		switch {
		case o.Block:
			v.Block, v.Reason = true, o.Reason
			return v
		case o.Ask && !v.Ask:
			v.Ask, v.Reason = true, o.Reason
		}
		if o.Message != "" {
			if event == engine.HookMessageSubmit {
				call.Message = o.Message
			}
			v.Message = joinNote(v.Message, o.Message, event)
		}
	}
	return v
}

func joinNote(have, add, event string) string {
	if have == "" || event == engine.HookMessageSubmit {
		return add
	}
	return have + "\n" + add
}

// failure is the status of a hook that failed, timed out or answered
// nonsense (CONTRACT.md §17.4): what went on without it.
func failure(e *entry, event, problem string) string {
	if event == ShellEnv {
		return fmt.Sprintf("Hook %s (%s, %s) %s; commands run without its variables.", e.Name, event, e.Source, problem)
	}
	return fmt.Sprintf("Hook %s (%s, %s) %s; the %s goes on as if it had not run.", e.Name, event, e.Source, problem, subjectOf(event))
}

func subjectOf(event string) string {
	switch event {
	case engine.HookToolBefore, engine.HookToolAfter:
		return "call"
	case engine.HookMessageSubmit:
		return "message"
	case engine.HookTurnEnd:
		return "turn"
	}
	return "session" // session_start, and notifications, which may outlast their turn
}

// Go runs event's hooks in the background. The failures among them go to
// report as they finish; without a report they are kept for Wait.
func (r *Runner) Go(event string, call engine.HookCall, report func(notices []string)) {
	hooks := r.matching(event, call)
	if len(hooks) == 0 {
		return
	}
	r.async.Add(1)
	go func() {
		defer r.async.Done()
		ctx, cancel := context.WithTimeout(context.Background(), MaxTimeout)
		defer cancel()
		var notices []string
		for _, e := range hooks {
			o := e.run(ctx, r.opts.Sandbox, r.opts.Workspace, buildPayload(event, r.opts.Workspace, call))
			r.record(e, &o)
			if o.Problem != "" {
				notices = append(notices, failure(e, event, o.Problem))
			}
		}
		switch {
		case len(notices) == 0:
		case report != nil:
			report(notices)
		default:
			r.mu.Lock()
			r.late = append(r.late, notices...)
			r.mu.Unlock()
		}
	}()
}

// Wait waits for the background hooks, each bounded by its timeout, and
// returns the failures no report took (each once), for a host that shows
// them as it exits.
func (r *Runner) Wait() []string {
	r.async.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	late := r.late
	r.late = nil
	return late
}

// Close waits for the background hooks.
func (r *Runner) Close() { r.Wait() }

func (r *Runner) matching(event string, call engine.HookCall) []*entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*entry
	for _, e := range r.active {
		if e.Event == event && e.matches(call) {
			out = append(out, e)
		}
	}
	return out
}

func (r *Runner) record(e *entry, o *outcome) {
	r.mu.Lock()
	e.runs++
	e.last = o
	r.mu.Unlock()
}

// SessionStart runs the session_start hooks and returns lines for the
// user: what they said and how they failed.
func (r *Runner) SessionStart(ctx context.Context, sessionID string) []string {
	var lines []string
	for _, e := range r.matching(SessionStart, engine.HookCall{}) {
		o := e.run(ctx, r.opts.Sandbox, r.opts.Workspace, buildPayload(SessionStart, r.opts.Workspace, engine.HookCall{SessionID: sessionID}))
		r.record(e, &o)
		switch {
		case o.Problem != "":
			lines = append(lines, failure(e, SessionStart, o.Problem))
		case o.Message != "":
			lines = append(lines, "session_start hook "+e.Name+": "+o.Message)
		}
	}
	return lines
}

// ShellEnv runs the shell_env hooks and returns the variables they add
// for every command the session runs (NAME=value, later hooks winning),
// with lines for the user about hooks that failed.
func (r *Runner) ShellEnv(ctx context.Context, sessionID string) (env []string, lines []string) {
	vars := map[string]string{}
	for _, e := range r.matching(ShellEnv, engine.HookCall{}) {
		o := e.run(ctx, r.opts.Sandbox, r.opts.Workspace, buildPayload(ShellEnv, r.opts.Workspace, engine.HookCall{SessionID: sessionID}))
		r.record(e, &o)
		if o.Problem != "" {
			lines = append(lines, failure(e, ShellEnv, o.Problem))
			continue
		}
		for k, v := range o.Env {
			if validEnvName(k) {
				vars[k] = v
			} else {
				lines = append(lines, fmt.Sprintf("Hook %s (shell_env) named %q, which is no environment variable name; it was left out.", e.Name, k))
			}
		}
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env, lines
}

func validEnvName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// List is every hook with its last result, active first, then a project
// file's hooks that wait for trust.
func (r *Runner) List() (active []Status, project Project) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.active {
		s := Status{Hook: *e.Hook, Runs: e.runs}
		if e.last != nil {
			s.Last = fmt.Sprintf("%s %s (%s)", e.last.At.Format("15:04:05"), e.last.Summary, e.last.Took.Round(time.Millisecond))
		}
		active = append(active, s)
	}
	return active, r.project
}

// Describe is /hooks's text.
func (r *Runner) Describe() string {
	active, p := r.List()
	var b strings.Builder
	if len(active) == 0 {
		b.WriteString("No hooks run in this session.")
	} else {
		fmt.Fprintf(&b, "Hooks (%d):", len(active))
	}
	for _, s := range active {
		m := s.Matcher
		if m == "" {
			m = "*"
		}
		fmt.Fprintf(&b, "\n  %s · %s · matcher %s · timeout %s · %s\n    %s", s.Name, s.Event, m, s.Timeout, s.Source, s.Command)
		if s.Last != "" {
			fmt.Fprintf(&b, "\n    last: %s · %d run(s)", s.Last, s.Runs)
		} else {
			b.WriteString("\n    not run yet")
		}
	}
	if line := p.Line(); line != "" {
		b.WriteString("\n" + line)
	}
	return b.String()
}

// Only is h limited to events: sub-agents and tasks run the tool hooks of
// their session, never its message, turn or notification hooks. It is nil
// when h is nil or none of its hooks listens to events.
func Only(h *Runner, events ...string) engine.Hooks {
	if h == nil {
		return nil
	}
	for _, e := range events {
		if h.Has(e) {
			return only{h, events}
		}
	}
	return nil
}

type only struct {
	r      *Runner
	events []string
}

func (o only) Has(event string) bool { return slices.Contains(o.events, event) && o.r.Has(event) }

func (o only) Run(ctx context.Context, event string, call engine.HookCall) engine.HookVerdict {
	if !o.Has(event) {
		return engine.HookVerdict{}
	}
	return o.r.Run(ctx, event, call)
}

func (o only) Go(event string, call engine.HookCall, report func([]string)) {
	if o.Has(event) {
		o.r.Go(event, call, report)
	}
}
