package engine_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// gatedModel answers the first request only once the test opens the gate:
// the turn is in the middle of its first step while the test sends ops.
type gatedModel struct {
	srv      *fakemodel.Server
	asked    chan struct{}
	open     chan struct{}
	first    fakemodel.Reply
	then     []fakemodel.Reply
	requests atomic.Int32
}

func newGatedModel(t *testing.T, first fakemodel.Reply, then ...fakemodel.Reply) *gatedModel {
	g := &gatedModel{srv: fakemodel.New(t), asked: make(chan struct{}), open: make(chan struct{}), first: first, then: then}
	g.srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		n := int(g.requests.Add(1))
		if n == 1 {
			close(g.asked)
			<-g.open
			return g.first
		}
		if n-2 < len(g.then) {
			return g.then[n-2]
		}
		return fakemodel.Text("done")
	})
	return g
}

// envRecorder records the TurnEnv of every toolset the engine builds.
type envRecorder struct {
	mu   sync.Mutex
	envs []engine.TurnEnv
}

func (r *envRecorder) wrap(o *engine.Options) {
	inner := o.Tools
	o.Tools = func(env engine.TurnEnv) engine.Toolset {
		r.mu.Lock()
		r.envs = append(r.envs, env)
		r.mu.Unlock()
		return inner(env)
	}
}

func (r *envRecorder) last() engine.TurnEnv {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.envs[len(r.envs)-1]
}

// waitSettings reads events until n SettingsChanged have arrived and
// returns the events read.
func waitSettings(h *harness, n int) []engine.Event {
	h.t.Helper()
	var evs []engine.Event
	for n > 0 {
		ev := <-h.eng.Events()
		evs = append(evs, ev)
		if _, ok := ev.(engine.SettingsChanged); ok {
			n--
		}
	}
	return evs
}

func systemText(r *fakemodel.Request) string {
	s, _ := r.Messages()[0]["content"].(string)
	return s
}

// Mode, effort and allow-shell changed while a step streams reach the next
// request of the same turn, never the step already in flight, and the
// session reports the new mode at once. Run with -race: the ops and the
// turn share one Settings value.
// CONTRACT.md §8.1: mode, effort and allow-shell changed mid-step are confirmed by SettingsChanged and adopted at the
// next step boundary, never inside the step in flight.
// CONTRACT.md §9.2: an adopted mode change rebuilds the tools and says 'Now in <Mode> mode (<posture>).'
func TestSettingsChangedMidTurnReachTheNextRequest(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "File", Args: `{"action":"list"}`}))
	rec := &envRecorder{}
	h := newHarness(t, g.srv, rec.wrap)
	h.eng.Submit(engine.SendMessage{Content: "look around"})
	<-g.asked
	plan, shell := posture.Plan, true
	h.eng.Submit(engine.ChangeMode{Mode: &plan, AllowShell: &shell})
	h.eng.Submit(engine.SetReasoningEffort{Effort: "off"})
	evs := waitSettings(h, 2)
	if got := h.eng.Snapshot().Mode; got != posture.Plan {
		t.Errorf("session mode %v right after ChangeMode, want Plan", got)
	}
	if s := h.eng.Settings(); s.Mode != posture.Plan || !s.AllowShell || s.Effort != "off" {
		t.Errorf("settings %+v", s)
	}
	close(g.open)
	evs = append(evs, h.collect(nil)...)
	reqs := g.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests: %v", len(reqs), describe(evs))
	}
	if s := systemText(reqs[0]); !strings.Contains(s, "Mode: Act") {
		t.Errorf("first request already changed: %s", s)
	}
	if _, ok := reqs[0].Body["thinking"]; ok {
		t.Errorf("first request carries the later effort: %v", reqs[0].Body["thinking"])
	}
	if s := systemText(reqs[1]); !strings.Contains(s, "Mode: Plan") {
		t.Errorf("second request is not in Plan: %s", s)
	}
	if th, _ := reqs[1].Body["thinking"].(map[string]any); th["type"] != "disabled" {
		t.Errorf("second request ignores /effort off: %v", reqs[1].Body)
	}
	if env := rec.last(); env.Mode != posture.Plan || !env.AllowShell {
		t.Errorf("tools rebuilt for %+v", env)
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"), "status:Now in Plan mode") {
		t.Errorf("no mode status: %v", describe(evs))
	}
	if done(t, evs).Status != engine.TurnCompleted {
		t.Errorf("turn %+v", done(t, evs))
	}
}

// Input that did not come from the user runs under Ask for the whole turn,
// even when the user changes the mode while it runs (adopting the change
// must not restore Full Access).
// CONTRACT.md §8.1: adopting a change keeps the turn's own narrowing: input that is not the user's stays under Ask.
func TestMidTurnChangeKeepsAHandoffUnderAsk(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "File", Args: `{"action":"list"}`}))
	rec := &envRecorder{}
	h := newHarness(t, g.srv, rec.wrap, func(o *engine.Options) { o.Posture = posture.FullAccess })
	h.eng.Submit(engine.SendMessage{Content: "from the parent", Provenance: engine.ProvenanceSubagent})
	<-g.asked
	operate := posture.Operate
	h.eng.Submit(engine.ChangeMode{Mode: &operate})
	evs := waitSettings(h, 1)
	close(g.open)
	evs = append(evs, h.collect(nil)...)
	if env := rec.last(); env.Mode != posture.Operate || env.Posture != posture.Ask || env.AutoApprove {
		t.Errorf("after the change the handoff runs under %+v", env)
	}
	reqs := g.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].LastUserText()+string(reqs[1].Raw), "Current permission posture: Ask") {
		t.Errorf("requests %d: %v", len(reqs), describe(evs))
	}
}

// The system prompt is rendered once per turn, however many steps it takes
// (the host's renderer reads project and memory files), and once more when
// a mode change is adopted mid-turn.
func TestSystemPromptIsRenderedOncePerTurn(t *testing.T) {
	t.Parallel()
	call := func(id string) fakemodel.Reply {
		return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: `{"action":"list"}`})
	}
	g := newGatedModel(t, call("c1"), call("c2"), call("c3"), fakemodel.Text("done"), call("c4"), fakemodel.Text("done"))
	var renders atomic.Int32
	h := newHarness(t, g.srv, func(o *engine.Options) {
		o.SystemPrompt = func(env engine.PromptEnv) string {
			renders.Add(1)
			return engine.DefaultSystemPrompt(env)
		}
	})
	close(g.open)
	evs := h.turn("four steps")
	if n := len(g.srv.Requests()); n != 4 {
		t.Fatalf("%d requests: %v", n, describe(evs))
	}
	if n := renders.Load(); n != 1 {
		t.Errorf("a four-step turn rendered the system prompt %d times, want 1", n)
	}
	// A second turn renders it again (the files may have changed between
	// turns); a mode change the turn adopts renders it for the new mode.
	renders.Store(0)
	h.eng.Submit(engine.SendMessage{Content: "again"})
	plan := posture.Plan
	h.eng.Submit(engine.ChangeMode{Mode: &plan})
	evs = h.collect(nil)
	reqs := g.srv.Requests()[4:]
	if len(reqs) != 2 {
		t.Fatalf("%d requests: %v", len(reqs), describe(evs))
	}
	want := int32(1)
	if systemText(reqs[0]) != systemText(reqs[1]) {
		want = 2 // the change landed between the two steps
	}
	if n := renders.Load(); n != want {
		t.Errorf("rendered %d times, want %d", n, want)
	}
}

// The tools of a handoff turn are built without trust mode: input that is
// not the user's never runs in it (CONTRACT.md §9.1), so a task or child it
// creates cannot carry trust mode on (the boundary already refused it; the
// TurnEnv said otherwise).
func TestHandoffToolsAreBuiltWithoutTrustMode(t *testing.T) {
	t.Parallel()
	for _, prov := range []string{engine.ProvenanceUser, engine.ProvenanceSubagent} {
		srv := fakemodel.New(t, fakemodel.Text("done"))
		rec := &envRecorder{}
		h := newHarness(t, srv, rec.wrap, func(o *engine.Options) { o.Trust = true })
		h.eng.Submit(engine.SendMessage{Content: "hello", Provenance: prov})
		h.collect(nil)
		if got, want := rec.last().Trust, prov == engine.ProvenanceUser; got != want {
			t.Errorf("%s: tools built with Trust %v, want %v", prov, got, want)
		}
	}
}

// Options.Bound caps every turn's authority by what it returns as it is
// asked, at the turn's start and at each step (CONTRACT.md §6.5): an engine
// configured for Full Access with shell and trust, bounded by Ask without
// them, builds its tools for Ask without them, and Authority says so.
func TestBoundCapsTheTurnsAuthority(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("done"))
	rec := &envRecorder{}
	h := newHarness(t, srv, rec.wrap, func(o *engine.Options) {
		o.Posture, o.AllowShell, o.Trust = posture.FullAccess, true, true
		o.Bound = func() posture.Authority { return posture.Authority{Posture: posture.Ask} }
	})
	h.eng.Submit(engine.SendMessage{Content: "hello"})
	h.collect(nil)
	if env := rec.last(); env.Posture != posture.Ask || env.AllowShell || env.Trust {
		t.Errorf("tools built for %+v under a bound of plain Ask", env)
	}
	if a := h.eng.Authority(); a != (posture.Authority{Posture: posture.Ask}) {
		t.Errorf("Authority() = %+v", a)
	}
}
