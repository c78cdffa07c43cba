// Package engine runs the agent turn loop: it owns the session, builds each
// request from the per-turn catalog, streams the model's answer, dispatches
// tool calls through the strict registry and captures the bounded /tools
// snapshot at the request seam. It knows nothing of terminals: hosts send
// ops and consume typed events.
package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools"
)

// RunState is the engine's visible state machine. The turn slot is free
// exactly when the state is Idle.
type RunState int

const (
	Idle RunState = iota
	// Preparing: the slot is taken and no request streams yet (a turn
	// before its first request, a compaction, a host tool call).
	Preparing
	Streaming
	RunningTools
	AwaitingApproval
	Cancelling
)

func (s RunState) String() string {
	return [...]string{"idle", "preparing", "streaming", "running tools", "awaiting approval", "cancelling"}[s]
}

// Settings is what ops adjust: the mode, posture and flags the next request
// runs under. The engine holds one value; only the Run goroutine writes it,
// as it handles ChangeMode, SetReasoningEffort, SetTrust and SyncSession.
// A turn copies it as it starts and adopts a changed value at its next step
// boundary, so a change never lands in the middle of a step.
type Settings struct {
	Mode       posture.Mode
	Posture    posture.Posture
	AllowShell bool
	// Effort is the reasoning-effort tier (off, low, high, max, auto, …);
	// "" leaves the model's default.
	Effort string
	// Trust is trust mode (exec --auto, a task's trust_mode; Full Access
	// implies it): TrustedPaths join the file boundary. It never removes the
	// boundary.
	Trust bool
	// TrustedRoots are canonical roots file tools reach in every posture
	// (the per-workspace trust list, `/trust add`). Never changed in place:
	// an op replaces the slice.
	TrustedRoots []string
}

// Session is the conversation the engine owns.
type Session struct {
	ID           string
	Messages     []provider.Message
	SystemPrompt string
	Model        string
	Workspace    string
	Mode         posture.Mode
	Usage        provider.Usage
	// Parent is the session this one was forked from ("" for none).
	Parent string
}

func (s *Session) clone() Session {
	c := *s
	c.Messages = append([]provider.Message(nil), s.Messages...)
	return c
}

// TurnEnv is what the tool factory needs to build one turn's tools.
type TurnEnv struct {
	Mode       posture.Mode
	Posture    posture.Posture
	AllowShell bool
	// AutoApprove and Trust are the turn's: what a task or child created
	// this turn may be granted at most.
	AutoApprove bool
	Trust       bool
}

// Toolset is one turn's registry plus the MCP pool's facts about it.
type Toolset struct {
	Registry *tools.Registry
	MCP      catalog.MCPInfo
}

// Options configure an Engine. Workspace and Tools are required; every
// other zero value is a usable default, and a nil NewClient makes each turn
// fail with "Failed to send message: API client not configured".
type Options struct {
	Workspace string
	Session   *Session
	// Mode, Posture, AllowShell, Trust, TrustedRoots and ReasoningEffort
	// are the initial Settings; ops change the engine's copy, never these.
	Mode         posture.Mode
	Posture      posture.Posture
	AllowShell   bool
	Trust        bool
	TrustedRoots []string
	// TrustedPaths are the configured trusted_paths, reached in trust mode
	// only.
	TrustedPaths []string
	// Bound, when set, is the most authority the engine's turns may use,
	// asked at each turn start and step boundary: a sub-agent's is its
	// parent's authority as it is now, so a parent narrowed while the
	// child runs (Shift+Tab to Ask, shell off, trust off) narrows the
	// child from its next step (CONTRACT.md §6.5).
	Bound       func() posture.Authority
	Interactive bool // false for headless hosts (exec): no one answers prompts
	// SubAgentRole is a sub-agent's role ("" for a session's own agent):
	// the system prompt tells the child whom it reports to.
	SubAgentRole    string
	AutoApprove     bool // exec --auto: approve every prompt
	MaxSteps        int  // default 100
	Model           string
	ReasoningEffort string
	StrictTools     bool
	AlwaysLoad      []string
	AllowTools      []string
	DenyTools       []string
	// Permissions are the persistent rules (permissions.toml); nil has none.
	Permissions *permissions.Set
	EventBuffer int
	// Sandbox confines the commands tools run (read-only in Plan); its
	// status is the turn's "Current sandbox posture". Nil leaves commands to
	// the job manager's own sandbox and reports none.
	Sandbox *sandbox.Sandbox

	// NewClient builds the model client for a model; an error means the
	// route is not ready (missing key, bad URL).
	NewClient func(model string) (*provider.Client, error)
	// Tools builds a turn's registry.
	Tools func(TurnEnv) Toolset
	// SystemPrompt renders the system prompt; nil uses DefaultSystemPrompt.
	SystemPrompt func(PromptEnv) string
	// WorkState renders the current To-do body; "" when the list is empty.
	WorkState func() string
	// BackgroundNotices returns a runtime message about background jobs that
	// finished since it was last called, or "".
	BackgroundNotices func() string
	// TurnStart is called once as each turn starts, before its first
	// request: the host looks for edits to what shapes the system prompt
	// (project instructions, skills) and returns one line per change, each
	// announced as a Status.
	TurnStart func() []string
	// Hooks, when set, runs the user's hooks at the turn's seams (nil: none
	// configured, and the seams cost one nil check).
	Hooks Hooks
	// Redact replaces the secrets in text tools produced before it enters
	// history; nil uses the process-wide secrets policy (secrets.Redact).
	Redact func(string) string
	// Journal, when set, persists every history change as it happens.
	Journal Journal
	// Checkpoints, when set, records the workspace around the calls that
	// may change it, so a turn can be taken back.
	Checkpoints Checkpointer
	// ContextWindow overrides the model catalogue's window (tokens).
	ContextWindow int
	// AutoCompactPercent triggers compaction before a step whose estimated
	// input exceeds this share of the window; 0 disables it.
	AutoCompactPercent int
	// Clock and NewID make requests reproducible in tests.
	Clock func() time.Time
	NewID func() string
}

// Engine runs turns on its own goroutine.
type Engine struct {
	opts   Options
	ops    chan Op
	events chan Event

	mu sync.Mutex
	// sess is the conversation; its Mode field is not kept here (set.Mode
	// is the mode) and is filled in on every copy handed out.
	sess      Session
	set       Settings
	setGen    uint64   // counts changes of set; turns compare it at step boundaries
	state     RunState // Idle exactly when the turn slot is free
	cancel    context.CancelFunc
	approvals map[string]chan approvalAnswer
	approved  map[string]bool // grouping keys allowed for the session
	denied    map[string]bool // approval keys denied in the current turn
	steers    []string
	saved     saveState // durability of the session file
	done      chan struct{}
}

// New returns an engine; call Run to start it.
func New(opts Options) *Engine {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 100
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = NewUUID
	}
	if opts.EventBuffer <= 0 {
		opts.EventBuffer = 256
	}
	e := &Engine{opts: opts, ops: make(chan Op, 16), events: make(chan Event, opts.EventBuffer),
		set: Settings{Mode: opts.Mode, Posture: opts.Posture, AllowShell: opts.AllowShell, Effort: opts.ReasoningEffort,
			Trust: opts.Trust, TrustedRoots: opts.TrustedRoots}, approvals: map[string]chan approvalAnswer{},
		approved: map[string]bool{}, denied: map[string]bool{}, done: make(chan struct{})}
	if opts.Session != nil {
		e.sess = opts.Session.clone()
	}
	if e.sess.ID == "" {
		e.sess.ID = opts.NewID()
	}
	if e.sess.Model == "" {
		e.sess.Model = opts.Model // "" = the route's default, named by the first turn's client
	}
	e.sess.Workspace = opts.Workspace
	e.sess.Mode = 0 // set.Mode is the mode
	return e
}

// Events is the engine's event stream. It is closed when Run returns.
func (e *Engine) Events() <-chan Event { return e.events }

// Submit queues an op. It does not block on a busy turn.
func (e *Engine) Submit(op Op) {
	select {
	case e.ops <- op:
	case <-e.done:
	}
}

// Cancel interrupts the running turn at once, out of band of the op queue.
func (e *Engine) Cancel() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != Idle {
		e.state = Cancelling
	}
	if e.cancel != nil {
		e.cancel()
	}
}

// State returns the current run state.
func (e *Engine) State() RunState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state
}

// Snapshot returns a copy of the session.
func (e *Engine) Snapshot() Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessionLocked()
}

// sessionLocked is a copy of the session with its mode.
func (e *Engine) sessionLocked() Session {
	s := e.sess.clone()
	s.Mode = e.set.Mode
	return s
}

// Mode returns the current mode and posture.
func (e *Engine) Mode() (posture.Mode, posture.Posture) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set.Mode, e.set.Posture
}

// Settings returns the current settings: what the next turn starts with
// (a running turn adopts them at its next step).
func (e *Engine) Settings() Settings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set
}

// Authority is what a turn starting now could use: the current settings'
// posture, shell and trust mode, met with Bound.
func (e *Engine) Authority() posture.Authority {
	s := e.Settings()
	return e.bounded(posture.Authority{Posture: s.Posture, AllowShell: s.AllowShell, Trust: s.Trust})
}

// bounded is a met with Bound (a itself without one).
func (e *Engine) bounded(a posture.Authority) posture.Authority {
	if e.opts.Bound == nil {
		return a
	}
	return a.Meet(e.opts.Bound())
}

func (e *Engine) setState(s RunState) {
	e.mu.Lock()
	if e.state != Cancelling || s == Idle {
		e.state = s
	}
	e.mu.Unlock()
}

// Run processes ops until ctx ends or Shutdown arrives. Turns run on their
// own goroutine so approvals, steers and mode changes are handled while a
// turn streams. Run closes the event stream when it returns.
func (e *Engine) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer func() {
		e.Cancel()
		wg.Wait()
		close(e.done)
		close(e.events)
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case op := <-e.ops:
			if _, stop := op.(Shutdown); stop {
				return
			}
			switch op := op.(type) {
			case SendMessage:
				if !e.beginTurn(ctx, &wg, func(tctx context.Context) Event { return e.runTurn(tctx, op) }) {
					e.emit(Error{ErrorEnvelope{Message: "A turn is already running; wait for it to finish, steer it, or press Esc to interrupt.",
						Category: "state", Severity: "warning", Recoverable: true}})
				}
				continue
			case RunToolCall:
				if !e.beginTurn(ctx, &wg, func(tctx context.Context) Event { return e.runToolCall(tctx, op) }) {
					e.emit(Error{ErrorEnvelope{Message: directRefusedText, Category: "state", Severity: "warning", Recoverable: true}})
				}
				continue
			case CompactContext:
				if !e.beginTurn(ctx, &wg, func(tctx context.Context) Event { return e.runCompaction(tctx, op) }) {
					e.emit(CompactionFailed{Error: "Compaction waits for the running turn; press Esc to interrupt it first."})
				}
				continue
			}
			e.handle(op)
		}
	}
}

// beginTurn runs work in the single turn slot; false when it is taken. The
// slot is free again before work's final event is emitted, so a host that
// sends its next message on TurnComplete is never refused.
func (e *Engine) beginTurn(ctx context.Context, wg *sync.WaitGroup, work func(context.Context) Event) bool {
	e.mu.Lock()
	if e.state != Idle {
		e.mu.Unlock()
		return false
	}
	tctx, cancel := context.WithCancel(ctx)
	e.state, e.cancel, e.steers = Preparing, cancel, nil
	e.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		final := work(tctx)
		e.mu.Lock()
		e.cancel, e.state = nil, Idle
		e.mu.Unlock()
		cancel()
		if final != nil {
			e.emit(final)
		}
	}()
	return true
}

// emit delivers an event. Delivery is lossless: a slow host slows the turn
// rather than losing text.
func (e *Engine) emit(ev Event) { e.events <- ev }

// errNoClient is the error of a turn on an engine built without NewClient.
var errNoClient = errors.New("API client not configured")

// newClient builds the model client for model.
func (e *Engine) newClient(model string) (*provider.Client, error) {
	if e.opts.NewClient == nil {
		return nil, errNoClient
	}
	return e.opts.NewClient(model)
}

// NewUUID returns a random UUID v4 string. Session ids name files and must
// not collide; they guard nothing, so the runtime-seeded ChaCha8 generator
// serves, and spares a start-up the crypto/rand set-up (0.2 ms).
func NewUUID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
