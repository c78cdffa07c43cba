package tui

import (
	"os"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/readme"
	"github.com/codewhale/codewhale/internal/tui/chrome"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// readmeScreens are the fenced blocks of README.md's "What it looks like".
func readmeScreens(t *testing.T) []string {
	t.Helper()
	blocks := readme.Blocks(readme.Section(t, "What it looks like"))
	if len(blocks) != 3 {
		t.Fatalf("README.md's section has %d blocks, want 3 (a turn, the cards, no key)", len(blocks))
	}
	return blocks
}

// screenLines are a screen's rows without trailing blanks.
func screenLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// README.md "What it looks like": the screen started without a key is the TUI's at 100 columns — its header (under
// an enforced sandbox, as the README's ran) and every line of the banner; and after the turn the header is the
// README's with its context meter, the status line shows the tokens, a cost and the cache rate, and the composer
// its placeholder.
func TestREADMEScreensAreRendered(t *testing.T) {
	t.Parallel()
	blocks := readmeScreens(t)
	// header is the top bar d draws, with the enforced sandbox the README's screens ran under.
	header := func(d *direct) string {
		h := d.m.headerInfo()
		h.Scope = "files: workspace (enforced)"
		return strings.TrimRight(termtext.Strip(h.Rows(theme.Plain(), 100, 1)[0]), " ")
	}

	want := screenLines(strings.TrimSuffix(blocks[2], "\n"))
	d := newDirect(t, 100, 20, func(o *Options) { o.Route.HasKey = false })
	got := screenLines(d.screen())
	if h := header(d); want[0] != h {
		t.Errorf("no-key header:\nREADME   %q\nrendered %q", want[0], h)
	}
	for _, l := range want[1:] {
		if !strings.Contains(strings.Join(got, "\n"), l) {
			t.Errorf("the no-key screen lacks README.md's line %q:\n%s", l, d.screen())
		}
	}

	turn := screenLines(blocks[0])
	d = newDirect(t, 100, 30)
	d.submit("add a verbose flag")
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.TurnUsage{Usage: provider.Usage{InputTokens: 100, OutputTokens: 250,
		PromptCacheHitTokens: provider.Int(64), PromptCacheMissTokens: provider.Int(36)}},
		engine.TurnComplete{Status: engine.TurnCompleted})
	got = screenLines(d.screen())
	if h := header(d); turn[0] != h {
		t.Errorf("turn header:\nREADME   %q\nrendered %q", turn[0], h)
	}
	screen := strings.Join(got, "\n")
	for _, w := range []string{"▌✓ done", "350 tok · $0.000", " · cache 64%", "❯ Write a task or use /."} {
		if !strings.Contains(screen, w) {
			t.Errorf("the turn's screen lacks %q:\n%s", w, screen)
		}
	}
}

// README.md "Quick start": without an API key the TUI still opens and says how to set one, and the local commands
// /help, /tools, /jobs, /mode and /status work: each shows its answer and sends nothing to the engine.
func TestREADMELocalCommandsWorkWithoutAKey(t *testing.T) {
	t.Parallel()
	for cmd, shows := range map[string]string{"/help": "Slash commands", "/tools": "Tool request snapshot unavailable",
		"/jobs": "No live Bash jobs", "/mode": "Operate", "/status": "API key: missing"} {
		d := newDirect(t, 100, 40, func(o *Options) { o.Route.HasKey = false })
		d.runCmd(d.submit(cmd))
		d.mustShow(shows)
		if n := len(d.sends()); n != 0 {
			t.Errorf("%s without a key sent %d messages", cmd, n)
		}
	}
	d := newDirect(t, 100, 40, func(o *Options) { o.Route.HasKey = false })
	d.mustShow("No API key found for DeepSeek", "export DEEPSEEK_API_KEY=", "codewhale auth set")
}

// README.md "What it looks like": the header's permission chips are the ones the README names — one per posture, and
// `read only` in Plan.
func TestREADMEPermissionChips(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "permission posture (")
	if i < 0 {
		t.Fatal("README.md no longer lists the permission chips")
	}
	list := s[i : i+strings.Index(s[i:], ")")]
	chips := []string{chrome.PermissionChip(posture.Plan, posture.Ask)}
	for _, p := range []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess, posture.Never} {
		chips = append(chips, chrome.PermissionChip(posture.Act, p))
	}
	for _, c := range chips {
		if !strings.Contains(list, "`"+c+"`") {
			t.Errorf("README.md's chip list %q lacks `%s`", list, c)
		}
	}
	if n := strings.Count(list, "`") / 2; n != len(chips) {
		t.Errorf("README.md names %d chips, the header has %d: %q", n, len(chips), list)
	}
}
