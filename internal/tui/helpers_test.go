package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeEngine records ops and cancels; tests push events themselves.
type fakeEngine struct {
	mu      sync.Mutex
	ops     []engine.Op
	cancels int
	ch      chan engine.Event
}

func newFakeEngine() *fakeEngine { return &fakeEngine{ch: make(chan engine.Event, 4096)} }

func (f *fakeEngine) Submit(op engine.Op) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
}

func (f *fakeEngine) Cancel() {
	f.mu.Lock()
	f.cancels++
	f.mu.Unlock()
}

func (f *fakeEngine) Events() <-chan engine.Event { return f.ch }

func (f *fakeEngine) Ops() []engine.Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.Op(nil), f.ops...)
}

func (f *fakeEngine) lastOp() engine.Op {
	ops := f.Ops()
	if len(ops) == 0 {
		return nil
	}
	return ops[len(ops)-1]
}

// direct drives a model synchronously: keys and event batches go straight
// into Update and returned commands are not run.
type direct struct {
	t     testing.TB
	m     *Model
	eng   *fakeEngine
	clock *fakeclock.Clock
}

func baseOptions(eng Engine, clock *fakeclock.Clock) Options {
	return Options{Engine: eng, Route: Route{Provider: "deepseek", Model: "deepseek-v4-pro", HasKey: true,
		BaseURL: "http://127.0.0.1:1"}, Workspace: "/work/demo", Mode: posture.Act, Posture: posture.Ask,
		Theme: theme.Plain(), Clock: clock.Now, Version: "0.1.0", NewID: func() string { return "session-2" },
		SessionID: "session-1",
		// Fixed prices keep golden files independent of the built-in table.
		Prices: map[string]config.Price{"deepseek-v4-pro": {Input: 1, CachedInput: 0.1, Output: 2}}}
}

func newDirect(t testing.TB, w, h int, mut ...func(*Options)) *direct {
	t.Helper()
	eng := newFakeEngine()
	clock := fakeclock.At(t0)
	o := baseOptions(eng, clock)
	for _, f := range mut {
		f(&o)
	}
	m := New(o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &direct{t: t, m: m, eng: eng, clock: clock}
}

func keyMsg(s string) tea.KeyMsg {
	named := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "ctrl+c": tea.KeyCtrlC, "ctrl+d": tea.KeyCtrlD, "pgup": tea.KeyPgUp,
		"pgdown": tea.KeyPgDown, "ctrl+end": tea.KeyCtrlEnd, "ctrl+home": tea.KeyCtrlHome, "backspace": tea.KeyBackspace,
		"ctrl+o": tea.KeyCtrlO, "end": tea.KeyEnd, "f1": tea.KeyF1}
	if k, ok := named[s]; ok {
		return tea.KeyMsg{Type: k}
	}
	if strings.HasPrefix(s, "alt+") {
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s[4:]), Alt: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// key sends named keys; cmds are returned for tests that run them.
func (d *direct) key(keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		_, last = d.m.Update(keyMsg(k))
	}
	return last
}

// typeText types s rune by rune.
func (d *direct) typeText(s string) {
	for _, r := range s {
		d.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// submit types s and presses Enter.
func (d *direct) submit(s string) tea.Cmd {
	d.typeText(s)
	return d.key("enter")
}

// events applies one batch of engine events.
func (d *direct) events(evs ...engine.Event) {
	d.m.Update(eventsMsg{events: evs})
}

// screen is the current frame without styling.
func (d *direct) screen() string { return termtext.Strip(d.m.View()) }

func (d *direct) mustShow(substrs ...string) {
	d.t.Helper()
	s := d.screen()
	for _, sub := range substrs {
		if !strings.Contains(s, sub) {
			d.t.Fatalf("screen lacks %q:\n%s", sub, s)
		}
	}
}

func (d *direct) mustNotShow(substrs ...string) {
	d.t.Helper()
	s := d.screen()
	for _, sub := range substrs {
		if strings.Contains(s, sub) {
			d.t.Fatalf("screen shows %q:\n%s", sub, s)
		}
	}
}

// runCmd executes a command that finishes on its own (a /jobs or file
// listing) and feeds its message back.
func (d *direct) runCmd(cmd tea.Cmd) {
	d.t.Helper()
	if cmd == nil {
		return
	}
	d.m.Update(cmd())
}

func widthOf(s string) int { return termtext.Width(s) }

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
