package app

import (
	"context"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/session"
)

// Every host runs one lifecycle over an App (ARCHITECTURE.md §1, issue 34):
//
//	a, err := app.New(cfg, opts)    // the session's services
//	eng, notices := a.Start(ctx, a.EngineOptions()) // its engine, running
//	reply, err := a.RunTurn(ctx, send, observe)     // as many turns as the host has
//	a.Close()                       // the engine first, then every service
//
// The TUI, exec, init and ACP are such hosts; a durable task and a sub-agent
// start their engines through the same loop (run), bounded by their own
// lifetimes.

// engineStopWait bounds how long Close waits for the session engine to wind
// down a cancelled turn before it ends the engine's loop outright.
const engineStopWait = 3 * time.Second

// loop is an engine whose Run loop is going until its context ends or stop.
type loop struct {
	eng     *engine.Engine
	cancel  context.CancelFunc
	stopped chan struct{}
}

// run starts eng's loop under ctx: the one place app starts an engine.
func run(ctx context.Context, eng *engine.Engine) *loop {
	ctx, cancel := context.WithCancel(ctx)
	l := &loop{eng: eng, cancel: cancel, stopped: make(chan struct{})}
	go func() {
		defer close(l.stopped)
		eng.Run(ctx)
	}()
	return l
}

// stop cancels any running turn and ends the loop, draining the engine's
// events so a turn blocked on delivering one can finish; after wait it
// ends the loop's context.
func (l *loop) stop(wait time.Duration) {
	go func() {
		for range l.eng.Events() {
		}
	}()
	l.eng.Cancel()
	l.eng.Submit(engine.Shutdown{})
	select {
	case <-l.stopped:
	case <-time.After(wait):
		l.cancel()
		<-l.stopped
	}
	l.cancel()
}

// Notices are the lines a host shows as the session starts, by source.
type Notices struct {
	// Jobs describes commands a crashed run left running, stopped now.
	Jobs string
	// Store are the task store's findings and sub-agent records a gone
	// process left running (StartupNotices).
	Store []string
	// Hooks are hooks waiting for trust or failing, then what the
	// session_start hooks said.
	Hooks []string
}

// All is every notice in the order hosts without their own layout show
// them.
func (n Notices) All() []string {
	var out []string
	if n.Jobs != "" {
		out = append(out, n.Jobs)
	}
	return append(append(out, n.Store...), n.Hooks...)
}

// Start builds the session's engine from opts (a.EngineOptions(), adjusted
// by the host), runs its loop until Close, runs the session_start hooks
// under ctx and returns the engine with the notices to show. A host calls
// it once.
func (a *App) Start(ctx context.Context, opts engine.Options) (*engine.Engine, Notices) {
	a.session = run(a.ctx, engine.New(opts))
	n := Notices{Jobs: a.Jobs.Leftovers(), Store: a.StartupNotices}
	n.Hooks = append(append([]string(nil), a.HookNotices...), a.StartHooks(ctx)...)
	return a.session.eng, n
}

// sessionAuthority is the started session's authority as it is now, the
// bound of every sub-agent it starts (CONTRACT.md §6.5). Before Start
// nothing runs that could ask.
func (a *App) sessionAuthority() posture.Authority {
	l := a.session
	if l == nil {
		return posture.Authority{Posture: posture.Never}
	}
	return l.eng.Authority()
}

// RunTurn runs one turn of the started session (engine.Engine.RunTurn).
func (a *App) RunTurn(ctx context.Context, send engine.SendMessage, observe func(engine.Event)) (engine.Reply, error) {
	return a.session.eng.RunTurn(ctx, send, observe)
}

// Claim resolves a saved session (by id or prefix, or the workspace's last
// with last) and takes its writer's lock for this process: one writer per
// session, so a second host stops here naming the holder.
func (a *App) Claim(id string, last bool) (*session.Loaded, error) {
	return session.ResolveOwned(a.Journal, a.Cfg.Home, a.Cfg.Workspace, id, last)
}
