// Package switches is the TUI's child for the session's switches: the
// mode (Plan, Act, Operate; /mode, Tab, Alt+P/A/Y), the permission posture
// (Shift+Tab, /mode yolo) and the reasoning effort (/effort, Ctrl+T). The
// values live in the root model, which draws them; the child holds the
// rules for changing them, sends the engine its ops and reaches the root
// only through Host.
package switches

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Status shows a message on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// Busy reports whether a turn is running; Locked says that setting
	// waits for it, as LockedText words it.
	Busy() bool
	Locked(setting string)
	LockedText(setting string) string
	// Mode, Posture and Effort are the values in force (Effort "auto" for
	// the provider's default).
	Mode() posture.Mode
	Posture() posture.Posture
	Effort() string
	// SetModes records a new mode and/or posture (nil: unchanged);
	// SetEffortValue a new effort.
	SetModes(mode *posture.Mode, p *posture.Posture)
	SetEffortValue(e string)
}

// Config is what the child is built with.
type Config struct {
	Theme  *theme.Theme
	Submit func(engine.Op) // sends an op to the engine
	// AllowShell is the configured allow_shell; Full Access turns shell on
	// regardless and leaving it restores this value.
	AllowShell bool
}

// Switches is the child.
type Switches struct{ c Config }

// New builds the child.
func New(c Config) *Switches { return &Switches{c: c} }

// Picked applies a choice on the mode picker; ok is false for any other
// picker.
func (sw *Switches) Picked(host Host, p views.Picked) (tea.Cmd, bool) {
	if p.Picker != "mode" {
		return nil, false
	}
	md, _, _ := ParseModeArg(p.Value)
	return sw.SwitchMode(host, md, true), true
}

// effortCycle is Ctrl+T's order (CONTRACT.md §14.5): it comes back to
// auto, where a session starts.
var effortCycle = []string{"auto", "off", "high", "max"}

// CycleEffort is Ctrl+T: auto → off → high → max → auto; a tier outside
// the cycle (set with /effort) goes on to auto.
func (sw *Switches) CycleEffort(host Host) tea.Cmd {
	next := effortCycle[0]
	for i, e := range effortCycle {
		if e == host.Effort() {
			next = effortCycle[(i+1)%len(effortCycle)]
		}
	}
	if host.Busy() {
		return host.Status(host.LockedText("Effort"), theme.Warning)
	}
	sw.setEffort(host, next)
	return host.Status("Reasoning effort: "+next, theme.Info)
}

// setEffort changes the effort for the next request.
func (sw *Switches) setEffort(host Host, e string) {
	host.SetEffortValue(e)
	sw.c.Submit(engine.SetReasoningEffort{Effort: e})
}

// CycleMode is Tab on an empty composer: Plan → Act → Operate → Plan.
func (sw *Switches) CycleMode(host Host) tea.Cmd {
	return sw.SwitchMode(host, host.Mode().Next(), false)
}

// SwitchMode changes the mode. fromCommand selects where messages go: a
// command answers in the transcript, a key in the status line.
func (sw *Switches) SwitchMode(host Host, to posture.Mode, fromCommand bool) tea.Cmd {
	say := func(text string, sev theme.Severity) tea.Cmd {
		if fromCommand {
			if sev == theme.Error {
				host.SystemError(text)
			} else {
				host.System(text)
			}
			return nil
		}
		return host.Status(text, sev)
	}
	if host.Busy() {
		return say(host.LockedText("Mode"), theme.Error)
	}
	if to == host.Mode() {
		return say(fmt.Sprintf("Already in %s mode.", to.Title()), theme.Info)
	}
	sw.c.Submit(engine.ChangeMode{Mode: &to})
	host.SetModes(&to, nil)
	return say(fmt.Sprintf("Switched to %s mode.", to.Title()), theme.Success)
}

// yolo is Act with Full Access (`/mode yolo`, `/zidong`); it is never a
// mode of its own.
func (sw *Switches) yolo(host Host) tea.Cmd {
	if host.Busy() {
		host.Locked("Mode")
		return nil
	}
	act, full, shell := posture.Act, posture.FullAccess, true
	sw.c.Submit(engine.ChangeMode{Mode: &act, Posture: &full, AllowShell: &shell})
	host.SetModes(&act, &full)
	host.System("Switched to Act mode with Full Access.")
	return nil
}

// CyclePosture is Shift+Tab: Ask → Auto-Review → Full Access → Ask. It is
// allowed while a turn runs; the engine applies it at the next step.
func (sw *Switches) CyclePosture(host Host) tea.Cmd {
	p := host.Posture().Next()
	if host.Posture() == posture.Never {
		p = posture.Ask
	}
	host.SetModes(nil, &p)
	shell := sw.c.AllowShell || p == posture.FullAccess
	sw.c.Submit(engine.ChangeMode{Posture: &p, AllowShell: &shell})
	note := ""
	if host.Busy() {
		note = " (from the next step)"
	}
	return host.Status(fmt.Sprintf("Permissions: %s%s", p, note), theme.Success)
}

// ParseModeArg reads `/mode` arguments; yolo is reported separately.
func ParseModeArg(arg string) (mode posture.Mode, yolo, ok bool) {
	a := strings.ToLower(strings.TrimSpace(arg))
	if a == "yolo" {
		return posture.Act, true, true
	}
	md, err := posture.ParseMode(a)
	return md, false, err == nil
}

// ModeItems are the mode picker's rows (CONTRACT.md §14.5).
func ModeItems() []views.Item {
	return []views.Item{
		{Label: "Act", Hint: "Direct work in this session — edits and shell ask for approval", Value: "act"},
		{Label: "Plan", Hint: "Read-only research first — present a plan before acting", Value: "plan"},
		{Label: "Operate", Hint: "More autonomy, end to end — independent parts handed to sub-agents in parallel", Value: "operate"},
	}
}

// effortTiers are the /effort values offered (CONTRACT.md §14.5, README
// "Slash commands"); effortAliases are also accepted, as the providers
// name them.
var (
	effortTiers   = []string{"auto", "off", "low", "high", "max"}
	effortAliases = []string{"none", "minimal", "medium", "xhigh", "ultra"}
)

// Effort is /effort [tier].
func (sw *Switches) Effort(host Host, arg string) tea.Cmd {
	a := strings.ToLower(strings.TrimSpace(arg))
	if a == "" {
		host.System("Reasoning effort: " + host.Effort() + "\nTiers: " + strings.Join(effortTiers, ", "))
		return nil
	}
	valid := false
	for _, t := range append(effortTiers[:len(effortTiers):len(effortTiers)], effortAliases...) {
		valid = valid || t == a
	}
	switch {
	case !valid:
		host.SystemError("Usage: /effort [" + strings.Join(effortTiers, "|") + "]")
	case host.Busy():
		host.Locked("Effort")
	default:
		sw.setEffort(host, a)
		host.System("Reasoning effort set to " + a + " for the next request.")
	}
	return nil
}

// Mode is /mode [mode]; no argument opens the mode picker.
func (sw *Switches) Mode(host Host, arg string) tea.Cmd {
	if strings.TrimSpace(arg) == "" {
		host.Push(views.NewPicker(sw.c.Theme, "mode", "Mode", ModeItems(), host.Mode().String()))
		return nil
	}
	md, yolo, ok := ParseModeArg(arg)
	switch {
	case !ok:
		host.SystemError("Usage: /mode [act|agent|plan|operate|1|2|3]")
		return nil
	case yolo:
		return sw.yolo(host)
	}
	return sw.SwitchMode(host, md, true)
}
