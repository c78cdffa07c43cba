package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
)

// projectDir is a workspace with files (path → content).
func projectDir(t *testing.T, files map[string]string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range files {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func withProject(ws string) func(*Options) {
	return func(o *Options) {
		o.Workspace = ws
		o.Project = projectctx.Load(projectctx.Options{Workspace: ws})
	}
}

// README.md "Project instructions": /context lists the files with sizes, /context reload looks now, /status has a summary
func TestContextAndStatusListTheLoadedInstructions(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{"AGENTS.md": "Use make. See @docs/guide.md.\n"})
	d := newDirect(t, 160, 50, withProject(ws))
	d.submit("/context")
	d.mustShow(filepath.Join(ws, "AGENTS.md")+" (workspace) — 30 B, whole", "mentions not expanded: @docs/guide.md",
		"User commands: 0", "Skills: 0")
	d.submit("/status")
	d.mustShow("Project instructions: AGENTS.md (1 file(s), 30 B in the system prompt of at most 64 KiB)")
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Use make; run go vet too.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.submit("/context reload")
	d.mustShow("Project instructions changed on disk (AGENTS.md edited); the new text applies from this turn.", "26 B, whole")
	d.submit("/context nope")
	d.mustShow("Error: Usage: /context [reload]")
}

// README.md "User commands and skills": the / menu and /help mark user commands with their source; a built-in's name wins and is reported
func TestUserCommandsAreListedMarkedAndExpanded(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{
		".codewhale/commands/greet.md":         "---\ndescription: Greet people\nargument-hint: <first> <second>\nmode: plan\n---\nSay hello to $1 and $2 ($ARGUMENTS).\n",
		".codewhale/commands/frontend/lint.md": "Lint the frontend.\n",
		".codewhale/commands/status.md":        "A user command that loses to the built-in.\n",
	})
	d := newDirect(t, 250, 50, withProject(ws))
	d.mustShow("Error: User command /status (" + filepath.Join(ws, ".codewhale", "commands", "status.md") +
		") is not available: a built-in command has that name. Rename the file.")
	d.typeText("/gr")
	d.mustShow("/greet", "Greet people · user command, project .codewhale/commands")
	d.key("esc")
	d.m.comp.SetValue("")
	d.submit("/help")
	d.mustShow("User commands", "/greet <first> <second>", "/frontend:lint")
	d.key("esc")
	d.submit(`/greet Ada "Grace Hopper"`)
	op, ok := d.eng.lastOp().(engine.SendMessage)
	if !ok {
		t.Fatalf("last op %#v", d.eng.lastOp())
	}
	if op.Content != "Say hello to Ada and Grace Hopper (Ada \"Grace Hopper\")." || op.Scope == nil ||
		op.Scope.Command != "greet" || op.Scope.Mode == nil || *op.Scope.Mode != posture.Plan {
		t.Errorf("op = %+v scope %+v", op, op.Scope)
	}
	d.mustShow(`▎ /greet Ada "Grace Hopper"`)
	// While a turn runs a user command waits its turn, then runs as one.
	d.submit("/frontend:lint")
	d.mustShow("Queued /frontend:lint; it runs when this turn ends")
	d.events(engine.TurnComplete{Status: engine.TurnCompleted})
	if op, _ := d.eng.lastOp().(engine.SendMessage); op.Content != "Lint the frontend." || op.Scope != nil {
		t.Errorf("queued command sent as %+v", op)
	}
}

// README.md "User commands and skills": a command file added while codewhale runs is found when you type its name
func TestACommandFileAddedMidSessionIsFound(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{"AGENTS.md": "rules\n"})
	d := newDirect(t, 160, 40, withProject(ws))
	if err := os.MkdirAll(filepath.Join(ws, ".codewhale", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".codewhale", "commands", "fresh.md"), []byte("Fresh $ARGUMENTS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.submit("/fresh now")
	d.mustShow("User commands changed: /fresh added.")
	if op, _ := d.eng.lastOp().(engine.SendMessage); op.Content != "Fresh now" {
		t.Errorf("op %+v", op)
	}
}

// README.md "User commands and skills": /skills lists the skills with their source and /skills <name> shows one
func TestSkillsCommandListsSkillsAndProblems(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{
		".codewhale/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: Read PDF files with pdftotext\n---\nRun pdftotext.\n",
		".codewhale/skills/pdf/extract.sh":  "pdftotext \"$1\" -\n",
		".codewhale/skills/nodesc/SKILL.md": "---\nname: nodesc\n---\nbody\n",
	})
	d := newDirect(t, 160, 40, withProject(ws))
	d.submit("/skills")
	d.mustShow("Skills (1; the model loads one with load_skill when a task matches):", "pdf — Read PDF files with pdftotext",
		"project .codewhale/skills · "+filepath.Join(ws, ".codewhale", "skills", "pdf", "SKILL.md"),
		"Problem: "+filepath.Join(ws, ".codewhale", "skills", "nodesc", "SKILL.md")+": no description")
	d.submit("/skills pdf")
	d.mustShow("Skill pdf — Read PDF files with pdftotext", "Files: extract.sh")
}

// README.md "Hooks": /hooks shows what an untrusted project file would run, /hooks trust records it, /hooks events explains the events.
func TestHooksCommandListsAndTrusts(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{".codewhale/hooks.toml": "[[hooks]]\nname = \"guard\"\nevent = \"tool_call_before\"\n" +
		"matcher = \"Bash(rm *)\"\ncommand = \"exit 2\"\n"})
	home := t.TempDir()
	r, err := hooks.New(hooks.Options{Use: hooks.Trusted, User: []config.Hook{{Name: "log", Event: "turn_end", Command: "true"}},
		UserFile: "config.toml", Home: home, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	d := newDirect(t, 250, 40, withProject(ws), func(o *Options) { o.Hooks = r })
	d.submit("/hooks")
	d.mustShow("Hooks (1):", "log · turn_end · matcher * · timeout 10s · config.toml", "not run yet",
		"defines 1 hook(s) (tool_call_before) that do not run until you trust the file")
	d.submit("/hooks trust")
	d.mustShow("Trusted " + filepath.Join(ws, ".codewhale", "hooks.toml") + ": its 1 hook(s) (tool_call_before) run from now on")
	d.submit("/hooks")
	d.mustShow("Hooks (2):", "guard · tool_call_before · matcher Bash(rm *)")
	d.submit("/hooks events")
	d.mustShow("tool_call_before — before a call runs")
}

// /context says how much of a cut file reached the prompt and /status
// marks it cut; a skipped file says why.
func TestContextShowsCutAndSkippedInstructions(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("keep this line of guidance\n", 1500) // 40 500 bytes, over the 32 KiB per file
	ws := projectDir(t, map[string]string{"AGENTS.md": big})
	outside := filepath.Join(projectDir(t, map[string]string{"notes.md": "not this repository's\n"}), "notes.md")
	sub := filepath.Join(ws, "svc")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sub, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	d := newDirect(t, 300, 50, withProject(sub))
	d.submit("/context")
	d.mustShow(filepath.Join(ws, "AGENTS.md")+" (repository root) — cut: 32.0 KiB of 39.6 KiB kept",
		filepath.Join(sub, "AGENTS.md")+" (svc) — not read: it resolves to "+outside+", outside "+ws)
	d.submit("/status")
	d.mustShow("AGENTS.md (cut)", "svc/AGENTS.md (skipped)")
}
