package projectctx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
)

// repo makes a git repository with files (path → content) and returns its
// canonical root.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := canonical(t.TempDir())
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, root, files)
	return root
}

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	fstree.Write(t, root, files)
}

// CONTRACT.md §17.1: the global file, then one file per folder from the repository root down to the workspace, first
// of the candidate names, siblings never.
// README.md "Project instructions": the global AGENTS.md, then one file per folder from the repository root down to the workspace
func TestInstructionsChainFromRootToWorkspace(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	write(t, home, map[string]string{"AGENTS.md": "global rule\n"})
	root := repo(t, map[string]string{
		"AGENTS.md":                          "root rule\n",
		"CLAUDE.md":                          "ignored: AGENTS.md wins in the root\n",
		"svc/CLAUDE.md":                      "svc rule from CLAUDE.md\n",
		"svc/api/.codewhale/instructions.md": "api rule\n",
		"other/AGENTS.md":                    "a sibling folder never applies\n",
	})
	ws := filepath.Join(root, "svc", "api")
	s := Load(Options{Home: home, Workspace: ws}).State()
	var got []string
	for _, in := range s.Instructions {
		got = append(got, in.Scope+"="+strings.TrimSpace(in.text))
	}
	want := []string{"global=global rule", "repository root=root rule", "svc=svc rule from CLAUDE.md", "svc/api=api rule"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("chain:\n got %q\nwant %q", got, want)
	}
	block := s.PromptBlock()
	for i := 1; i < len(want); i++ {
		a, b := strings.Index(block, strings.SplitN(want[i-1], "=", 2)[1]), strings.Index(block, strings.SplitN(want[i], "=", 2)[1])
		if a < 0 || b < 0 || a > b {
			t.Errorf("block order: %q before %q:\n%s", want[i-1], want[i], block)
		}
	}
	if strings.Contains(block, "ignored") || strings.Contains(block, "sibling") {
		t.Errorf("block carries a file that does not apply:\n%s", block)
	}
	if !strings.HasPrefix(block, "<project_instructions>") || !strings.Contains(block, "not expanded") {
		t.Errorf("block is not marked as project instructions:\n%s", block)
	}
	if again := Load(Options{Home: home, Workspace: ws}).State().PromptBlock(); again != block {
		t.Error("two loads of the same files render different bytes")
	}
}

// CONTRACT.md §17.1: outside a repository only the workspace's own file is read.
func TestInstructionsOutsideARepositoryReadOnlyTheWorkspace(t *testing.T) {
	t.Parallel()
	parent := canonical(t.TempDir())
	write(t, parent, map[string]string{"AGENTS.md": "parent\n", "ws/AGENTS.md": "ws\n"})
	s := Load(Options{Workspace: filepath.Join(parent, "ws")}).State()
	if len(s.Instructions) != 1 || strings.TrimSpace(s.Instructions[0].text) != "ws" {
		t.Fatalf("got %+v", s.Instructions)
	}
}

// CONTRACT.md §17.1: a file over 32 KiB is cut on a line boundary and ends with the exact receipt.
// README.md "Project instructions": a file is cut at 32 KiB with a receipt saying where and how much
func TestOversizedInstructionsAreCutWithAReceipt(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line of the root file\n", 3000) // 66 000 bytes
	root := repo(t, map[string]string{"AGENTS.md": big})
	s := Load(Options{Workspace: root}).State()
	in := s.Instructions[0]
	if in.Kept > MaxInstructionBytes || in.Kept < MaxInstructionBytes-64 || !strings.HasSuffix(in.text, "\n") ||
		!strings.Contains(in.Cut, "(the 32 KiB limit per file)") || !strings.Contains(in.Cut, "of 66000 bytes") {
		t.Errorf("kept %d, receipt %q", in.Kept, in.Cut)
	}
	if block := s.PromptBlock(); !strings.Contains(block, in.Cut+"\n</instructions_file>") {
		t.Errorf("the receipt must close the file's text in the prompt")
	}
	if rep := s.Report(); !strings.Contains(rep, "cut: 32.0 KiB of 64.5 KiB kept") {
		t.Errorf("report:\n%s", rep)
	}
}

// CONTRACT.md §17.1: all files together keep 64 KiB; a file with too little room left is skipped and listed.
// README.md "Project instructions": all files together keep 64 KiB
func TestInstructionsShareATotalBound(t *testing.T) {
	t.Parallel()
	line := func(s string, n int) string { return strings.Repeat(s+"\n", n) }
	root := repo(t, map[string]string{
		"AGENTS.md":       line(strings.Repeat("r", 29), 1000), // 30 000 bytes, whole
		"a/AGENTS.md":     line(strings.Repeat("a", 29), 1000), // 30 000 bytes, whole
		"a/b/AGENTS.md":   line(strings.Repeat("b", 29), 300),  // 9 000 bytes, cut to the 5 536 left
		"a/b/c/AGENTS.md": "no room is left for this file\n",
	})
	s := Load(Options{Workspace: filepath.Join(root, "a", "b", "c")}).State()
	if len(s.Instructions) != 4 {
		t.Fatalf("want 4 files, got %+v", s.Instructions)
	}
	r, a, b, c := s.Instructions[0], s.Instructions[1], s.Instructions[2], s.Instructions[3]
	if r.Cut != "" || a.Cut != "" || r.Kept+a.Kept != 60000 {
		t.Errorf("the first two fit whole: %q %q", r.Cut, a.Cut)
	}
	if !strings.Contains(b.Cut, "(the 64 KiB total for project instructions)") || r.Kept+a.Kept+b.Kept > MaxInstructionTotalBytes {
		t.Errorf("third: kept %d, receipt %q", b.Kept, b.Cut)
	}
	if !strings.HasPrefix(c.Skipped, "not read: the 64 KiB total") || strings.Contains(s.PromptBlock(), "no room") {
		t.Errorf("fourth: %q", c.Skipped)
	}
	if rep := s.Report(); !strings.Contains(rep, "3 file(s)") || !strings.Contains(rep, c.Skipped) {
		t.Errorf("report:\n%s", rep)
	}
}

// CONTRACT.md §17.1: a file that links outside the repository or to a secret is not read.
// README.md "Project instructions": a file linking outside the repository or to a secret is not read
func TestInstructionsThatLinkToSecretsOrOutsideAreNotRead(t *testing.T) {
	t.Parallel()
	outside := canonical(t.TempDir())
	write(t, outside, map[string]string{"notes.md": "outside text\n", "id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
	root := repo(t, map[string]string{"key.pem": "-----BEGIN PRIVATE KEY-----\n"})
	mustLink(t, filepath.Join(outside, "notes.md"), filepath.Join(root, "AGENTS.md"))
	must(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	mustLink(t, filepath.Join(root, "key.pem"), filepath.Join(root, "a", "AGENTS.md"))
	s := Load(Options{Workspace: filepath.Join(root, "a")}).State()
	if len(s.Instructions) != 2 {
		t.Fatalf("got %+v", s.Instructions)
	}
	if !strings.Contains(s.Instructions[0].Skipped, "outside") || !strings.Contains(s.Instructions[1].Skipped, "secret") {
		t.Errorf("skips: %q / %q", s.Instructions[0].Skipped, s.Instructions[1].Skipped)
	}
	if s.PromptBlock() != "" {
		t.Errorf("nothing may reach the prompt: %q", s.PromptBlock())
	}
}

func TestGlobalInstructionsMayNotLinkIntoTheHomesSecrets(t *testing.T) {
	home := canonical(t.TempDir())
	secrets.Configure(secrets.New(secrets.Options{Home: home}))
	t.Cleanup(func() { secrets.Configure(nil) })
	write(t, home, map[string]string{"config.toml": "api_key = \"sk-x\"\n"})
	mustLink(t, filepath.Join(home, "config.toml"), filepath.Join(home, "AGENTS.md"))
	s := Load(Options{Home: home, Workspace: canonical(t.TempDir())}).State()
	if len(s.Instructions) != 1 || !strings.Contains(s.Instructions[0].Skipped, "secret") {
		t.Fatalf("got %+v", s.Instructions)
	}
	must(t, os.Remove(filepath.Join(home, "AGENTS.md")))
	write(t, home, map[string]string{"AGENTS.md": "mine\n"})
	if s := Load(Options{Home: home, Workspace: canonical(t.TempDir())}).State(); !strings.Contains(s.PromptBlock(), "mine") {
		t.Errorf("the home's own AGENTS.md must be read: %+v", s.Instructions)
	}
}

// CONTRACT.md §17.1: @path mentions are listed, never expanded.
// README.md "Project instructions": @path mentions are listed, not expanded
func TestMentionsAreListedNotExpanded(t *testing.T) {
	t.Parallel()
	root := repo(t, map[string]string{"AGENTS.md": "See @docs/ARCHITECTURE.md and @CONTRACT.md; ask @alice; mail a@b.c\n",
		"docs/ARCHITECTURE.md": "SECRET ARCHITECTURE TEXT\n"})
	s := Load(Options{Workspace: root}).State()
	if got := strings.Join(s.Instructions[0].Mentions, ","); got != "docs/ARCHITECTURE.md,CONTRACT.md" {
		t.Errorf("mentions = %q", got)
	}
	if strings.Contains(s.PromptBlock(), "SECRET ARCHITECTURE TEXT") {
		t.Error("a mention was expanded")
	}
	if !strings.Contains(s.Report(), "mentions not expanded: @docs/ARCHITECTURE.md, @CONTRACT.md") {
		t.Errorf("report:\n%s", s.Report())
	}
}

// CONTRACT.md §17.1: between turns an edit, an addition or a removal reloads and says so in the exact status.
// README.md "Project instructions": before a turn edits, new files and removed ones are noticed and reloaded
func TestRefreshNoticesEditsAdditionsAndRemovals(t *testing.T) {
	t.Parallel()
	root := repo(t, map[string]string{"AGENTS.md": "v1\n", ".codewhale/commands/a.md": "do a\n"})
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	c := Load(Options{Workspace: filepath.Join(root, "sub")})
	if got := c.Refresh(); got != nil {
		t.Fatalf("nothing changed, got %q", got)
	}
	write(t, root, map[string]string{"AGENTS.md": "version two\n", "sub/AGENTS.md": "new\n"})
	got := c.Refresh()
	if len(got) != 1 || got[0] != "Project instructions changed on disk (AGENTS.md edited, sub/AGENTS.md added); the new text applies from this turn." {
		t.Fatalf("got %q", got)
	}
	if s := c.State(); s.Generation != 2 || !strings.Contains(s.PromptBlock(), "version two") {
		t.Errorf("not reloaded: gen %d", s.Generation)
	}
	must(t, os.Remove(filepath.Join(root, "sub", "AGENTS.md")))
	if got := c.Refresh(); len(got) != 1 || !strings.Contains(got[0], "sub/AGENTS.md removed") {
		t.Errorf("got %q", got)
	}
	if got := c.Refresh(); got != nil {
		t.Errorf("a second look without changes: %q", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	must(t, os.Symlink(target, link))
}
