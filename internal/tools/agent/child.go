package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

// Spec describes a child to start.
type Spec struct {
	Name     string // optional; the id becomes agent_<name>
	Prompt   string
	Role     string // a built-in role or a defined type's name
	Model    string // "" = Options.DefaultModel, then the session's
	MaxSteps int
	WallTime time.Duration
	Fork     string // parent Work body for a forked child
	// Mode is the child's mode, decided at start (the zero value is Act).
	Mode posture.Mode
	// Type is the defined type Role names (nil: a built-in role).
	Type *Type
	// Worktree, when set, runs the child in a new git worktree.
	Worktree *WorktreeRequest
	// Authority is the starting turn's (nil: the session's as configured).
	Authority *Authority
}

// ReadOnlyRole reports whether a role runs read-only (Plan mode).
func ReadOnlyRole(role string) bool {
	switch role {
	case "scout", "planner", "reviewer", "verifier", "consultant":
		return true
	}
	return false
}

// Snapshot is a child's state as the tool and UI see it.
type Snapshot struct {
	ID         string    `json:"agent_id"`
	Name       string    `json:"name"`
	Role       string    `json:"type"`
	Status     string    `json:"status"`
	Terminal   bool      `json:"terminal"`
	Prompt     string    `json:"prompt"`
	Result     string    `json:"result,omitempty"`
	Error      string    `json:"error,omitempty"`
	Steps      int       `json:"steps"`
	Turns      int       `json:"turns"`
	Started    time.Time `json:"started_at"`
	Ended      time.Time `json:"ended_at,omitzero"`
	Model      string    `json:"model,omitempty"`
	Usage      provider.Usage
	Transcript Handle        `json:"transcript_handle"`
	Worktree   *WorktreeInfo `json:"worktree,omitempty"`
}

// Child is one sub-agent.
type Child struct {
	m      *Manager
	ID     string
	spec   Spec
	inbox  chan string
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	status    string
	result    string
	errText   string
	conv      Run
	stopTurn  context.CancelFunc // interrupts the running turn; nil between turns
	steps     int
	turns     int
	started   time.Time
	ended     time.Time
	usage     provider.Usage
	acts      int
	cancelled bool
	messages  []provider.Message
	histGen   int    // counts changes of messages
	handle    Handle // of messages as of handleGen
	handleGen int
	fileMu    sync.Mutex // orders the appends to the transcript file
	worktree  *WorktreeInfo
	workspace string // the child's workspace in its worktree ("" = the session's)
}

// idFor is the id a child of spec gets.
func idFor(spec Spec) string {
	if spec.Name != "" {
		return "agent_" + spec.Name
	}
	return "agent_" + randomHex(4)
}

func newChild(m *Manager, id string, spec Spec) *Child {
	if spec.Model == "" {
		spec.Model = m.opts.DefaultModel
	}
	if spec.Role == "" {
		spec.Role = "worker"
	}
	if spec.Type == nil && ReadOnlyRole(spec.Role) {
		spec.Mode = posture.Plan
	}
	if spec.MaxSteps <= 0 {
		spec.MaxSteps = defaultWriteMaxSteps
		if spec.Mode == posture.Plan {
			spec.MaxSteps = defaultReadOnlyMaxSteps
		}
	}
	if spec.WallTime <= 0 {
		spec.WallTime = DefaultSubagentWallTimeSecs * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), spec.WallTime)
	c := &Child{m: m, ID: id, spec: spec, inbox: make(chan string, maxFollowUpsQueuedPerChild), ctx: ctx, cancel: cancel,
		status: StatusQueued, started: m.opts.Clock()}
	c.handle = newHandle(id, nil)
	return c
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Snapshot returns the child's current state.
func (c *Child) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handleGen != c.histGen {
		c.handle, c.handleGen = newHandle(c.ID, c.messages), c.histGen
	}
	s := Snapshot{ID: c.ID, Name: strings.TrimPrefix(c.ID, "agent_"), Role: c.spec.Role, Status: c.status,
		Terminal: terminal(c.status), Prompt: c.spec.Prompt, Result: c.result, Error: c.errText, Steps: c.steps,
		Turns: c.turns, Started: c.started, Ended: c.ended, Model: c.spec.Model, Usage: c.usage, Transcript: c.handle}
	if c.worktree != nil {
		wt := *c.worktree
		s.Worktree = &wt
	}
	return s
}

func (c *Child) activity() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acts
}

// setStatus records a transition and wakes waiters.
func (c *Child) setStatus(status string, mut func()) {
	c.m.mu.Lock()
	c.mu.Lock()
	prev := c.status
	c.status = status
	c.acts++
	if mut != nil {
		mut()
	}
	if terminal(status) && !terminal(prev) {
		c.ended = c.m.opts.Clock()
		c.m.done = append(c.m.done, c.ID)
	}
	switch {
	case prev == StatusQueued && status != StatusQueued:
		c.m.queued--
	case prev != StatusQueued && status == StatusQueued:
		c.m.queued++
	}
	if !terminal(status) {
		c.ended = time.Time{}
	}
	switch {
	case prev != StatusRunning && status == StatusRunning:
		c.m.running++
	case prev == StatusRunning && status != StatusRunning:
		c.m.running--
	}
	c.mu.Unlock()
	c.m.notifyLocked()
	c.m.mu.Unlock()
}

// run executes the child's first turn and then any follow-ups until it is
// cancelled or its wall time ends.
func (c *Child) run() {
	prompt := c.spec.Prompt
	if c.spec.Fork != "" {
		prompt = "<codewhale:fork_state>\n### Work\n\n" + c.spec.Fork + "\n</codewhale:fork_state>\n\n" + prompt
	}
	for {
		if !c.acquire() {
			return
		}
		c.turn(prompt)
		c.release()
		select {
		case next := <-c.inbox:
			prompt = next
			c.setStatus(StatusQueued, nil)
		case <-c.ctx.Done():
			return
		}
	}
}

// acquire waits for a run slot; false when the child was cancelled first.
func (c *Child) acquire() bool {
	select {
	case c.m.slots <- struct{}{}:
		// The slot bounds how many run at once; the bucket spaces their
		// launches while the provider answers 429.
		if c.ctx.Err() == nil && c.m.Admission().Take(c.ctx) == nil {
			c.setStatus(StatusRunning, nil)
			c.saveState() // the pid and "running", for ReconcileDir after a crash
			return true
		}
		c.release() // cancelled while queued: select may pick either ready case
	case <-c.ctx.Done():
	}
	c.m.writes.RLock()
	defer c.m.writes.RUnlock()
	c.setStatus(StatusCancelled, func() { c.errText = "cancelled before it started" })
	c.saveState()
	return false
}

func (c *Child) release() { <-c.m.slots }

// turn runs one turn of the child and records its outcome. A heartbeat
// watchdog interrupts a turn that shows no sign of life, freeing its slot.
func (c *Child) turn(prompt string) {
	run, err := c.runner()
	if err != nil {
		c.setStatus(StatusFailed, func() { c.errText = err.Error() })
		return
	}
	ctx, stop := context.WithCancel(c.ctx)
	defer stop()
	c.mu.Lock()
	c.stopTurn = stop
	c.mu.Unlock()
	hb := c.m.opts.Heartbeat
	watchdog := time.AfterFunc(hb, func() {
		c.mu.Lock()
		live := c.stopTurn != nil
		if live {
			c.errText = fmt.Sprintf("no progress for %s; cancelled to free its slot", hb)
		}
		c.mu.Unlock()
		stop()
	})
	defer watchdog.Stop()
	rec := run.Turn(ctx, prompt, func(p Progress) {
		watchdog.Reset(hb)
		if p.RateLimited {
			c.m.Admission().RateLimited()
		}
		if p.Messages != nil {
			c.addHistory(p)
		}
	})
	c.mu.Lock()
	c.stopTurn = nil
	c.mu.Unlock()
	watchdog.Stop()
	c.recordWorktree() // before the end is visible: a waiter reads the branch's change
	c.record(rec)
}

// record stores the outcome of a finished turn.
func (c *Child) record(rec Receipt) {
	if c.settledByDrain() {
		return // Drain already recorded its end; the session is closing
	}
	// Drain waits for this save: the end is on disk before the process
	// may exit.
	c.m.writes.RLock()
	defer c.m.writes.RUnlock()
	status := StatusCompleted
	switch {
	case rec.Outcome == TurnFailed:
		status = StatusFailed
	case rec.Outcome == TurnInterrupted && c.ctx.Err() != nil && c.isCancelled():
		status = StatusCancelled
	case rec.Outcome == TurnInterrupted:
		status = StatusInterrupted
	case rec.MaxStepsReached:
		status = StatusBudget
	}
	c.setStatus(status, func() {
		c.result = strings.TrimSpace(rec.Reply)
		if rec.Error != "" {
			c.errText = rec.Error
		}
		c.steps += rec.Steps
		c.turns++
		c.usage.Add(&rec.Usage)
	})
	c.m.addUsage(c.spec.Model, rec.Usage)
	c.saveState()
}

// settledByDrain reports whether a closing manager already recorded this
// child's end (it did not stop within the settle time).
func (c *Child) settledByDrain() bool {
	c.m.mu.Lock()
	closed := c.m.closed
	c.m.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	return closed && terminal(c.status) && c.errText == ExitedError
}

func (c *Child) isCancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled
}

// runner returns the child's run, spawning it on first use; it lives until
// the child's context ends.
func (c *Child) runner() (Run, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conv != nil {
		return c.conv, nil
	}
	if c.m.opts.Spawner == nil {
		return nil, fmt.Errorf("sub-agents are not available in this session")
	}
	run, err := c.m.opts.Spawner.Spawn(c.ctx, c.config())
	if err != nil {
		return nil, err
	}
	c.conv = run
	return run, nil
}

// config is what the Spawner builds the child from.
func (c *Child) config() ChildConfig {
	cc := ChildConfig{ID: c.ID, Role: c.spec.Role, Mode: c.spec.Mode, ReadOnly: c.spec.Mode == posture.Plan,
		Depth: c.m.opts.Depth + 1, MaxDepth: c.m.opts.MaxDepth, MaxSteps: c.spec.MaxSteps, Model: c.spec.Model,
		Workspace: c.workspace, Authority: c.spec.Authority, Bound: c.m.opts.Bound}
	if t := c.spec.Type; t != nil {
		cc.Instructions, cc.Tools, cc.FileReadOnly = t.Instructions, t.Tools, t.FileReadOnly
		cc.ReasoningEffort, cc.TypeSource = t.ReasoningEffort, t.Source
	}
	return cc
}

// interruptTurn stops the running turn, if any.
func (c *Child) interruptTurn() {
	c.mu.Lock()
	stop := c.stopTurn
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Cancel stops the child for good. It reports whether it was live.
func (c *Child) Cancel() bool {
	c.mu.Lock()
	live := !terminal(c.status)
	c.cancelled = true
	c.mu.Unlock()
	c.cancel()
	return live
}

// Interrupt stops the current turn but keeps the child for follow-ups.
func (c *Child) Interrupt() {
	c.interruptTurn()
}

// Message queues a follow-up turn; while a turn runs, steer is true sends it
// into the running turn instead.
func (c *Child) Message(text string, steer bool) error {
	c.mu.Lock()
	status, run := c.status, c.conv
	removed := c.worktree != nil && c.worktree.Removed
	c.mu.Unlock()
	if status == StatusCancelled || c.ctx.Err() != nil {
		return fmt.Errorf("sub-agent %s is %s; start a new one", c.ID, status)
	}
	if removed {
		return fmt.Errorf("sub-agent %s's worktree was removed by agent cleanup; start a new one (its branch %s keeps its work)",
			c.ID, c.worktree.Branch)
	}
	if steer && status == StatusRunning && run != nil {
		run.Steer(text)
		return nil
	}
	select {
	case c.inbox <- text:
		return nil
	default:
		return fmt.Errorf("sub-agent %s already has %d queued messages", c.ID, maxFollowUpsQueuedPerChild)
	}
}
