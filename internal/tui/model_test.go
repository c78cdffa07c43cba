package tui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// CONTRACT.md §14.2: the first frame's layout: header, phase strip and composer with its placeholder (golden).
func TestFirstFrameGolden(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20)
	golden.RequireEqual(t, []byte(d.screen()))
}

func TestNoKeyBannerGolden(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 80, 16, func(o *Options) { o.Route.HasKey = false })
	d.mustShow("no key", "export DEEPSEEK_API_KEY", "codewhale auth set", "config.toml", "Local commands")
	golden.RequireEqual(t, []byte(d.screen()))
}

// CONTRACT.md §14.2: the header shows cw, model, mode chip, effort and permission chip (read only in Plan) with the
// filesystem scope.
// README.md "What it looks like": the header's chips and context meter.
func TestHeaderShowsRouteModePostureAndContextMeter(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20)
	d.submit("hi")
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.TurnUsage{Usage: provider.Usage{InputTokens: 41_200, OutputTokens: 800,
		PromptCacheHitTokens: provider.Int(30_900), PromptCacheMissTokens: provider.Int(10_300)}},
		engine.TurnComplete{Status: engine.TurnCompleted})
	d.mustShow("cw  deepseek-v4-pro · act · effort auto · ask · files: workspace (unenforced)",
		"41.2k/1.0M 4%", "42.0k tok", "cache 75%")
	golden.RequireEqual(t, []byte(d.screen()))
}

// CONTRACT.md §14.5: Tab on an empty composer cycles Plan → Act → Operate.
// README.md "TUI keys": Tab on an empty composer cycles Plan → Act → Operate
func TestTabCyclesModesOnAnEmptyComposerOnly(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20)
	want := []posture.Mode{posture.Operate, posture.Plan, posture.Act}
	for _, mode := range want {
		d.key("tab")
		op, ok := d.eng.lastOp().(engine.ChangeMode)
		if !ok || op.Mode == nil || *op.Mode != mode {
			t.Fatalf("Tab sent %#v, want mode %v", d.eng.lastOp(), mode)
		}
		d.mustShow(" · " + mode.String() + " · ")
		if mode == posture.Plan {
			d.mustShow("read only · files: read-only (unenforced)")
		}
	}
	n := len(d.eng.Ops())
	d.typeText("text")
	d.key("tab")
	if len(d.eng.Ops()) != n {
		t.Error("Tab with text changed the mode")
	}
}

// README.md "Modes and permissions": a mode change while a turn runs is refused with the exact lock message; Shift+Tab still cycles the posture.
// README.md "TUI keys": Shift+Tab cycles the permission posture
func TestTabWhileATurnRunsIsLockedButShiftTabWorks(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20)
	d.submit("hello")
	d.events(engine.TurnStarted{TurnID: "t1"})
	d.key("tab")
	d.mustShow("Mode is locked while a turn is running — press Esc to interrupt first")
	for _, want := range []string{"auto", "Full Access", "ask"} {
		d.key("shift+tab")
		op, ok := d.eng.lastOp().(engine.ChangeMode)
		if !ok || op.Posture == nil || op.Posture.Chip() != want {
			t.Fatalf("Shift+Tab sent %#v, want %s", d.eng.lastOp(), want)
		}
		d.mustShow(" · " + want + " · ")
	}
	d.key("shift+tab", "shift+tab")
	if op := d.eng.lastOp().(engine.ChangeMode); op.AllowShell == nil || !*op.AllowShell {
		t.Error("Full Access turns shell on")
	}
}

func TestModeCommand(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("/mode plan")
	d.mustShow("Switched to Plan mode.", "read only")
	d.submit("/mode banana")
	d.mustShow("Error: Usage: /mode [act|agent|plan|operate|1|2|3]")
	d.submit("/mode")
	if _, ok := d.m.stack.Top().(*views.Picker); !ok {
		t.Fatal("/mode without an argument opens the picker")
	}
	d.key("esc")
	d.submit("/zidong")
	d.mustShow("Switched to Act mode with Full Access.", "Full Access · files: workspace (unenforced)") // no posture lifts the sandbox
}

// CONTRACT.md §14.2: while a turn runs Enter queues, with the 'Queued #1: <text>' and 'Queued <N> · next: <text>'
// previews.
// README.md "TUI keys": Enter while a turn runs queues the message
func TestEnterWhileBusyQueuesAndSendsAfterTurnComplete(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("first")
	d.events(engine.TurnStarted{TurnID: "t1"})
	d.submit("second")
	d.mustShow("Queued #1: second", "Enter send now · ↑ edit · /queue drop 1")
	d.submit("third")
	d.mustShow("Queued 2 · next: second")
	d.events(engine.TurnComplete{Status: engine.TurnCompleted})
	if op, ok := d.eng.lastOp().(engine.SendMessage); !ok || op.Content != "second" {
		t.Fatalf("after TurnComplete the oldest queued message is sent: %#v", d.eng.lastOp())
	}
	d.mustShow("Queued #1: third")
	// Enter on an empty composer while busy steers with the oldest queued message.
	d.events(engine.TurnStarted{TurnID: "t2"})
	d.key("enter")
	if op, ok := d.eng.lastOp().(engine.Steer); !ok || op.Text != "third" {
		t.Fatalf("empty Enter while busy = %#v, want a steer", d.eng.lastOp())
	}
	d.mustNotShow("Queued")
}

// README.md "TUI keys": ↑ on an empty composer pulls back a queued message
func TestUpOnEmptyComposerPullsBackTheQueuedMessage(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("first")
	d.events(engine.TurnStarted{TurnID: "t1"})
	d.submit("follow-up")
	d.key("up")
	if d.m.comp.Value() != "follow-up" || d.m.queue.len() != 0 {
		t.Fatalf("↑ pulls the queued message: %q, queue %v", d.m.comp.Value(), d.m.queue.items)
	}
	d.key("esc") // first Esc cancels the running turn
	d.key("esc")
	d.mustShow("Queued edit canceled; follow-up restored", "Queued #1: follow-up")
}

func TestEscCancelsAtOnceAndKeepsThePartialReply(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("write a poem")
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.MessageStarted{}, engine.MessageDelta{Content: "Roses are"})
	d.key("esc")
	if d.eng.cancels != 1 {
		t.Fatalf("Esc called the engine's cancel %d times", d.eng.cancels)
	}
	d.mustShow("Request cancelled", "▌· idle")
	// Typing now works and Enter queues until the engine confirms.
	d.submit("next")
	d.events(engine.MessageComplete{}, engine.Status{Message: "Request cancelled"},
		engine.TurnComplete{Status: engine.TurnInterrupted})
	d.mustShow("Roses are", "⎿ interrupted")
	if op, ok := d.eng.lastOp().(engine.SendMessage); !ok || op.Content != "next" {
		t.Errorf("message typed while cancelling is sent after the turn ends: %#v", d.eng.lastOp())
	}
}

// CONTRACT.md §14.6: a message cancelled before any reply goes back into the composer, marked, and leaves the
// conversation; typing adds to it.
func TestCancelBeforeOutputRestoresThePrompt(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("original prompt")
	d.events(engine.TurnStarted{TurnID: "t1"},
		engine.SessionUpdated{SessionID: "s", Messages: []provider.Message{provider.UserText("original prompt")}})
	d.key("esc")
	d.mustShow(restoredText, restoredMark)
	if d.m.comp.Value() != "original prompt" {
		t.Errorf("composer = %q", d.m.comp.Value())
	}
	// The engine's own "Request cancelled" does not hide what became of it.
	d.events(engine.Status{Message: "Request cancelled"}, engine.TurnComplete{Status: engine.TurnInterrupted})
	d.mustShow(restoredText, restoredNote)
	d.mustNotShow("▎ original prompt")
	// The unanswered message leaves the conversation, so a resend is read once (D14).
	if op, ok := d.eng.lastOp().(engine.RewindHistory); !ok || op.Keep != 0 || op.Prompt != "original prompt" {
		t.Errorf("the interrupted message is not cut from the history: %#v", d.eng.lastOp())
	}
	// The first key typed adds to the restored prompt, never replaces it (D14).
	d.typeText(" again")
	if got := d.m.comp.Value(); got != "original prompt again" {
		t.Errorf("typing after a restore = %q, want it added to the prompt", got)
	}
}

// Editing keys accept a restored prompt for editing instead.
func TestRestoredPromptCanBeEdited(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("fix it")
	d.events(engine.TurnStarted{TurnID: "t1"})
	d.key("ctrl+c")
	d.events(engine.TurnComplete{Status: engine.TurnInterrupted})
	d.m.Update(keyMsg("end"))
	d.typeText(" now")
	if got := d.m.comp.Value(); got != "fix it now" {
		t.Errorf("composer = %q", got)
	}
}

// CONTRACT.md §14.6: on an empty idle composer Ctrl+C arms quitting for 2 s (Press Ctrl+C again to quit).
// README.md "TUI keys": the second Ctrl+C quits only within 2 s
func TestCtrlCTwiceWithinTwoSecondsQuits(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.key("ctrl+c")
	d.mustShow("Press Ctrl+C again to quit")
	d.clock.Advance(2100 * time.Millisecond)
	d.mustNotShow("Press Ctrl+C again to quit")
	d.key("ctrl+c")
	if d.m.Quitting() {
		t.Fatal("an expired arm must not quit")
	}
	d.clock.Advance(time.Second)
	d.key("ctrl+c")
	if !d.m.Quitting() {
		t.Error("second Ctrl+C within 2 s quits")
	}
}

// CONTRACT.md §11.6: before the first seam /tools gives the exact unavailable text, a bad argument the usage error
// line, and /tool-studio opens no pager.
func TestToolsCommandBeforeAnyRequestAndBadArgument(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 24)
	d.submit("/tools")
	d.mustShow("Tool request snapshot unavailable — no model request has been captured for the latest turn.")
	d.submit("/tools yaml")
	d.mustShow("Error: usage: /tools [text|json]")
	d.submit("/tool-studio json")
	if d.m.stack.Top() != nil {
		t.Error("no pager without a snapshot")
	}
}

// CONTRACT.md §14.7: an unknown command answers the exact error line, with suggestions when some resemble it.
// README.md "Slash commands": typing / opens a completion menu
func TestUnknownCommandAndSlashMenuCompletion(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 30)
	d.submit("/frobnicate")
	d.mustShow("Error: Unknown command: /frobnicate. Type /help for available commands.")
	d.submit("/toolz")
	d.mustShow("Error: Unknown command: /toolz. Did you mean: /tools? Type /help for available commands.")
	d.typeText("/mo")
	d.mustShow("/mode", "/model", "switch mode")
	d.key("down", "tab")
	if got := d.m.comp.Value(); got != "/model " {
		t.Errorf("Tab completes the selected command: %q", got)
	}
	d.key("esc")
	d.typeText("/hel")
	d.key("enter")
	if _, ok := d.m.stack.Top().(*views.Help); !ok {
		t.Error("Enter runs the selected command")
	}
}

// README.md "Slash commands": @ completes workspace file paths
func TestMentionPopupCompletesFilePaths(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24, func(o *Options) {
		o.Files = func() []string { return []string{"README.md", "cmd/root.go", "internal/tui/model.go"} }
	})
	d.typeText("look at @")
	if !d.m.menu.Loading() {
		t.Fatal("the first @ starts indexing the workspace")
	}
	d.m.Update(slash.FilesMsg{Files: d.m.o.Files()})
	d.typeText("rootgo")
	d.mustShow("@cmd/root.go")
	d.key("tab")
	if got := d.m.comp.Value(); got != "look at @cmd/root.go " {
		t.Errorf("composer = %q", got)
	}
}

func TestJobsCommandListsALiveJob(t *testing.T) {
	t.Parallel()
	mgr, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	d := newDirect(t, 140, 30, func(o *Options) { o.Jobs = mgr })
	d.runCmd(d.submit("/jobs"))
	d.mustShow("No live Bash jobs. Bash jobs are process-local; after a restart, inspect durable task artifacts for prior command output.")
	j, err := mgr.Start(jobs.Spec{Command: "sleep 30", Dir: t.TempDir(), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	d.runCmd(d.submit("/jobs"))
	d.mustShow("Bash jobs (1)", j.ID()+"  running", "cmd: sleep 30")
	d.runCmd(d.submit("/jobs show " + j.ID()))
	d.mustShow("Bash Job "+j.ID(), "Completion State: live in this TUI process.")
	d.key("q")
	d.runCmd(d.submit("/jobs cancel " + j.ID()))
	d.mustShow("Bash job " + j.ID() + ": killed")
}

// README.md "TUI keys": Alt+C elsewhere writes a plain OSC 52
func TestCopyLastReplyWritesOSC52(t *testing.T) {
	t.Parallel()
	var clip bytes.Buffer
	d := newDirect(t, 100, 24, func(o *Options) { o.Clipboard = &clip })
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.MessageStarted{}, engine.MessageDelta{Content: "answer\n```\ncode\n```"},
		engine.MessageComplete{}, engine.TurnComplete{Status: engine.TurnCompleted})
	d.runCmd(d.key("alt+k"))
	want := base64.StdEncoding.EncodeToString([]byte("code"))
	if clip.String() != "\x1b]52;c;"+want+"\a" {
		t.Errorf("clipboard sequence = %q, want a plain OSC 52", clip.String())
	}
	d.mustShow("Sent the last code block to the clipboard by OSC 52 (the terminal cannot confirm it arrived)")
}

// CONTRACT.md §14.1: model and tool text is sanitised before rendering: no escape sequence or control byte reaches the
// frame.
func TestSanitisesModelAndToolText(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.MessageStarted{}, engine.MessageDelta{Content: "safe\x1b]0;pwned\x07 \x1b[2Jtext"},
		engine.MessageComplete{},
		engine.ToolCallStarted{ID: "c", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		engine.ToolCallComplete{ID: "c", Name: "Bash", Result: engine.ToolOutcome{Content: "out\x1b[31mred\x07", Success: true}},
		engine.TurnComplete{Status: engine.TurnCompleted})
	raw := d.m.View()
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "pwned"} {
		if strings.Contains(raw, bad) {
			t.Errorf("frame contains %q", bad)
		}
	}
	d.mustShow("safe text", "outred")
}

func TestNarrowTerminalAndWideCharacters(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 60, 20)
	d.submit("日本語のテキストと絵文字👍を含むとても長いメッセージがここにあります。折り返されるはずです。")
	d.events(engine.TurnStarted{}, engine.MessageStarted{}, engine.MessageDelta{Content: "了解しました 👍 — 60 列でも崩れません。"},
		engine.MessageComplete{}, engine.TurnComplete{Status: engine.TurnCompleted})
	for i, row := range strings.Split(d.m.View(), "\n") {
		if w := widthOf(row); w > 60 {
			t.Errorf("row %d is %d cells wide: %q", i, w, row)
		}
	}
	golden.RequireEqual(t, []byte(d.screen()))
}

func TestResizeReflowsTheTranscript(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20)
	d.submit(strings.Repeat("word ", 40))
	before := strings.Count(d.screen(), "word")
	d.m.Update(teaSize(60, 20))
	if len(strings.Split(d.m.View(), "\n")) != 20 {
		t.Errorf("frame height after resize = %d", len(strings.Split(d.m.View(), "\n")))
	}
	if after := strings.Count(d.screen(), "word"); after != before {
		t.Errorf("reflow lost words: %d → %d", before, after)
	}
}

// README.md "Slash commands": /help <command> shows one command
func TestHelpForOneCommand(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 24)
	d.submit("/help jobs")
	d.mustShow("Usage: /jobs [list|show <id>", "Aliases: /job, /zuoye")
	d.submit("/help nope")
	d.mustShow("Unknown command: nope")
}

// README.md "TUI keys": Ctrl+O opens the reasoning in a pager
func TestVerboseShowsReasoningAndCtrlOOpensIt(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.ThinkingStarted{}, engine.ThinkingDelta{Content: "deep thought"})
	d.mustShow("… reasoning hidden · 0s")
	d.mustNotShow("deep thought")
	d.events(engine.ThinkingComplete{}, engine.TurnComplete{Status: engine.TurnCompleted})
	d.submit("/verbose on")
	d.mustShow("deep thought")
	d.key("ctrl+o")
	if p, ok := d.m.stack.Top().(*views.Pager); !ok || !strings.Contains(p.Source(), "deep thought") {
		t.Errorf("Ctrl+O opens the reasoning pager: %#v", d.m.stack.Top())
	}
}

func TestErrorEventMarksTheReplyInterruptedAndTurnFailed(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.MessageStarted{}, engine.MessageDelta{Content: "half"},
		engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: "Stream stalled; retrying.", Severity: "warning"}})
	if !d.m.turn.busy {
		t.Fatal("a warning does not end the turn")
	}
	d.events(engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: "HTTP 500", Severity: "error"}},
		engine.TurnComplete{Status: engine.TurnFailed, Error: "HTTP 500"})
	d.mustShow("Warning: Stream stalled; retrying.", "Error: HTTP 500", "⎿ interrupted", "✕ failed")
	if strings.Count(d.screen(), "HTTP 500") != 1 {
		t.Error("the failure is shown once")
	}
}

// CONTRACT.md §14.5: Ctrl+T cycles effort.
// README.md "TUI keys": Ctrl+T cycles auto → off → high → max → auto and the header shows effort <tier>
func TestEffortCommandAndCtrlT(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.runCmd(d.submit("/effort max"))
	if op, ok := d.eng.lastOp().(engine.SetReasoningEffort); !ok || op.Effort != "max" {
		t.Fatalf("/effort max sent %#v", d.eng.lastOp())
	}
	d.mustShow("Reasoning effort set to max for the next request.")
	// Ctrl+T goes max → auto → off → high → max → auto: it comes back to auto.
	for _, want := range []string{"auto", "off", "high", "max", "auto"} {
		d.runCmd(d.key("ctrl+t"))
		if op, ok := d.eng.lastOp().(engine.SetReasoningEffort); !ok || op.Effort != want {
			t.Fatalf("Ctrl+T sent %#v, want %s", d.eng.lastOp(), want)
		}
		d.mustShow("effort " + want)
	}
	d.runCmd(d.submit("/effort sideways"))
	d.mustShow("Usage: /effort [auto|off|low|high|max]")
	d.runCmd(d.submit("/effort"))
	d.mustShow("Tiers: auto, off, low, high, max")
}

// Keys typed faster than one terminal read arrive as one message; a modal
// still sees them one by one.
// CONTRACT.md §14.1: the top modal takes the keys before the composer, one by one even when they arrive batched.
func TestModalGetsBatchedRunesOneByOne(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 80, 20)
	d.m.stack.Push(views.NewPager(d.m.theme, "T", "alpha\nbeta\ngamma"))
	d.m.Update(keyMsg("/beta")) // one message with five runes
	d.key("enter")
	d.mustShow("match 1/1")
}

// Status lines that announce something disappear when it is over:
// "Compacting context…" after compaction. A running turn says once how to
// interrupt it (the phase strip), not again on the status line.
func TestStatusLinesEndWithWhatTheyAnnounce(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("hi")
	d.events(engine.TurnStarted{TurnID: "t1"})
	if n := strings.Count(d.screen(), "Esc"); n != 1 {
		t.Errorf("a running turn shows %d Esc hints:\n%s", n, d.screen())
	}
	d.events(engine.Retry{Attempt: 2, Max: 5, Reason: "Rate limited (429)", Wait: time.Second})
	if n := strings.Count(d.screen(), "Esc"); n != 1 {
		t.Errorf("a retry shows %d Esc hints:\n%s", n, d.screen())
	}
	d.events(engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: "boom", Severity: "error"}},
		engine.TurnComplete{Status: engine.TurnFailed})
	d.events(engine.CompactionStarted{})
	d.mustShow("Compacting context…")
	d.events(engine.CompactionCompleted{Replaced: 4, Kept: 2})
	d.mustNotShow("Compacting context…")
}

// Every slash command a retired name points to exists (issue 14: the hints
// named /links, /setup, /config and /settings, which did not).
func TestRetiredHintsPointAtRealCommands(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	for _, name := range []string{"set", "deepseek", "doctor"} {
		hint, _ := commands.Retired(name)
		for _, ref := range regexp.MustCompile(`(?:^|\s)/([a-z-]+)`).FindAllStringSubmatch(hint, -1) {
			if ref[1] == name {
				continue
			}
			if _, ok := d.m.table.Registry().Lookup(ref[1]); !ok {
				t.Errorf("/%s's hint names /%s, which does not exist", name, ref[1])
			}
		}
	}
}

// README.md "Slash commands": /config changes model or reasoning_effort now; /settings shows the settings in force
func TestConfigAndSettingsCommands(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	d := newDirect(t, 120, 40, func(o *Options) {
		o.ConfigPath = path
		o.Settings = []config.Setting{{Key: "model", Value: "deepseek-v4-pro"}, {Key: "allow_shell", Value: "true"}}
	})
	d.submit("/settings")
	d.mustShow("Settings (config file: "+path+")", "model        deepseek-v4-pro", "allow_shell  true")
	d.submit("/config allow_shell false")
	d.mustShow("allow_shell applies at the next start: add --save")
	d.submit("/config allow_shell false --save")
	d.mustShow("Saved allow_shell = false to " + path + " (applies at the next start).")
	if b, _ := os.ReadFile(path); string(b) != "allow_shell = false\n" {
		t.Errorf("config file = %q", b)
	}
	d.submit("/config approval_policy yolo --save")
	d.mustShow("approval_policy")
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "yolo") {
		t.Errorf("an invalid value was saved: %q", b)
	}
	d.submit("/config api_key sk-secret")
	d.mustShow("api_key cannot be changed here")
}

// An unknown model on the official endpoint is refused with the known
// ones (issue 14: /model nonsense-model was accepted silently); elsewhere
// it is set with a note; --force sends it anyway.
func TestModelCommandChecksTheName(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 30, func(o *Options) { o.Route.BaseURL = "https://api.deepseek.com/beta" })
	d.submit("/model nonsense-model")
	d.mustShow(`Unknown model "nonsense-model" for DeepSeek (known: deepseek-v4-pro, deepseek-v4-flash)`)
	if d.m.route.Model != "deepseek-v4-pro" {
		t.Errorf("model changed to %q", d.m.route.Model)
	}
	d.submit("/model nonsense-model --force")
	if d.m.route.Model != "nonsense-model" {
		t.Errorf("--force: model = %q", d.m.route.Model)
	}
	l := newDirect(t, 120, 30) // loopback base URL
	l.submit("/model local-llama")
	l.mustShow("Model set to local-llama for the next request. It is not in the built-in catalogue")
}

// Help shows every usage in full and the keys it was missing (issue 14:
// the usage column was cut at 28 characters; Ctrl+T and Ctrl+D were
// absent; it claimed bare End re-pins).
func TestHelpShowsFullUsagesAndTrueKeys(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 160, 200)
	d.key("f1")
	if _, ok := d.m.stack.Top().(*views.Help); !ok {
		t.Fatalf("F1 opened %T", d.m.stack.Top())
	}
	screen := d.screen()
	for _, want := range []string{"/jobs [list|show <id>|poll <id>|wait <id>|stdin <id> <input>|close-stdin <id>|cancel <id>|cancel-all]",
		"Ctrl+T", "Ctrl+D", "Ctrl+End re-pins"} {
		if !strings.Contains(screen, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(screen, "(End re-pins") {
		t.Error("help still claims bare End re-pins")
	}
}

// The header keeps its chips whole on narrow terminals, dropping the scope
// before it clips, and the meter's form follows the width only (issue 14:
// chips clipped at 40 columns; the meter changed shape or vanished).
func TestHeaderAtEveryWidth(t *testing.T) {
	t.Parallel()
	for _, w := range []int{40, 60, 80, 109, 110, 160} {
		d := newDirect(t, w, 20)
		d.submit("hi")
		for _, in := range []int{900, 41_200, 912_345} {
			d.events(engine.TurnStarted{TurnID: "t"}, engine.TurnUsage{Usage: provider.Usage{InputTokens: in}},
				engine.TurnComplete{Status: engine.TurnCompleted})
			head := strings.SplitN(d.screen(), "\n", 2)[0]
			if widthOf(head) > w || !strings.Contains(head, " · act · effort auto · ask") {
				t.Errorf("w=%d: header %q", w, head)
			}
			switch {
			case w >= 110 && !strings.Contains(head, "] "):
				t.Errorf("w=%d in=%d: no full meter in %q", w, in, head)
			case w >= 60 && w < 110 && (strings.Contains(head, "[") || !strings.Contains(head, "/1.0M")):
				t.Errorf("w=%d in=%d: want the compact meter in %q", w, in, head)
			case w < 60 && strings.Contains(head, "/1.0M"):
				t.Errorf("w=%d: a meter at %d columns: %q", w, w, head)
			}
		}
	}
}

// While a reply streams, its unfinished tail is Markdown too: no raw fence
// or table rows on screen (issue 14).
func TestStreamingTailRendersAsMarkdown(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.submit("go")
	d.events(engine.TurnStarted{}, engine.MessageStarted{},
		engine.MessageDelta{Content: "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n```go\nfunc x() {"})
	d.mustShow("│ a │ b │", "func x() {")
	d.mustNotShow("```", "|---|", "| 1 | 2 |")
}

func TestEditorNeedsVisualOrEditor(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 20, func(o *Options) { o.Getenv = func(string) string { return "" } })
	d.typeText("draft")
	d.m.Update(tea.KeyMsg{Type: tea.KeyCtrlG})
	d.mustShow("Set $VISUAL or $EDITOR to edit the message in an editor", "❯ draft")
}

// Alt+S releases mouse capture for the terminal's own selection and takes
// it back.
// README.md "TUI keys": Alt+S turns mouse capture off and on
func TestSelectionModeTogglesMouseCapture(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 20, func(o *Options) { o.MouseCapture = true })
	cmd := d.key("alt+s")
	if cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.disableMouseMsg" {
		t.Fatalf("Alt+S did not release the mouse")
	}
	d.mustShow("Selection mode: select with the mouse")
	cmd = d.key("alt+s")
	if cmd == nil {
		t.Fatal("the second Alt+S did not capture the mouse again")
	}
	d.mustNotShow("Selection mode")
}

// Notifications follow [notifications]: auto only while the terminal is
// unfocused, always, or off; BEL, OSC 9 or OSC 777.
func TestNotifications(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n      Notify
		blur   bool
		wantIn string // "" = nothing written
	}{
		{Notify{When: "auto", Method: "bel"}, false, ""},
		{Notify{When: "auto", Method: "bel"}, true, "\a"},
		{Notify{When: "always", Method: "osc9"}, false, "\x1b]9;codewhale: the turn is done\a"},
		{Notify{When: "always", Method: "osc777"}, false, "\x1b]777;notify;codewhale;codewhale: the turn is done\a"},
		{Notify{When: "off", Method: "bel"}, true, ""},
	}
	for _, c := range cases {
		var term bytes.Buffer
		d := newDirect(t, 80, 20, func(o *Options) { o.Notify, o.Clipboard = c.n, &term })
		if c.blur {
			d.m.Update(tea.BlurMsg{})
		}
		d.submit("hi")
		d.events(engine.TurnStarted{})
		if cmd := d.m.finishTurn(engine.TurnComplete{Status: engine.TurnCompleted}); cmd != nil {
			cmd()
		}
		got := term.String()
		if c.wantIn == "" && got != "" || c.wantIn != "" && !strings.Contains(got, c.wantIn) {
			t.Errorf("%+v blur=%v: wrote %q, want %q", c.n, c.blur, got, c.wantIn)
		}
	}
}
