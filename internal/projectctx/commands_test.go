package projectctx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

// CONTRACT.md §17.2: commands from the three folders in precedence with shadowing, namespaces joined by ':', and the
// frontmatter keys.
// README.md "User commands and skills": the three command folders, a project file shadowing yours, subfolder namespaces, frontmatter
func TestCommandsFromEverySourceWithNamespacesAndFrontmatter(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	write(t, home, map[string]string{
		"commands/review.md": "user review: shadowed by the project's\n",
		"commands/mine.md":   "---\ndescription: my own\n---\nhello $ARGUMENTS\n",
	})
	ws := repo(t, map[string]string{
		".codewhale/commands/review.md": "---\ndescription: Review a change\nargument-hint: <ref> [focus]\nmodel: deepseek-v4-flash\n" +
			"mode: plan\nallowed-tools: Read, Grep, Bash(git diff:*), Git\n---\nReview $1 with focus on $2.\nAll: $ARGUMENTS\n",
		".codewhale/commands/frontend/lint.md": "# Lint the frontend\nRun the linter.\n",
		".claude/commands/fix.md":              "---\ndescription: Fix it\nallowed-tools:\n  - Edit\n  - Bash\n---\nFix $ARGUMENTS\n",
		".codewhale/commands/Bad Name.md":      "x\n",
		".codewhale/commands/broken.md":        "---\ndescription: [unclosed\n---\nbody\n",
		".codewhale/commands/badmode.md":       "---\nmode: yolo\n---\nbody\n",
		".codewhale/commands/notes.txt":        "not a command\n",
	})
	s := Load(Options{Home: home, Workspace: ws}).State()
	names := strings.Join(commandNames(s), " ")
	if names != "frontend:lint review fix mine" {
		t.Fatalf("commands = %q", names)
	}
	rv, _ := s.Command("review")
	if rv.Description != "Review a change" || rv.ArgumentHint != "<ref> [focus]" || rv.Model != "deepseek-v4-flash" ||
		rv.Mode == nil || *rv.Mode != posture.Plan || rv.Source != "project .codewhale/commands" {
		t.Errorf("review = %+v", rv)
	}
	if got := strings.Join(rv.AllowedTools, ","); got != "File,Bash,Git" {
		t.Errorf("allowed tools = %q", got)
	}
	if len(rv.Notes) != 1 || !strings.Contains(rv.Notes[0], "argument patterns are not enforced; all of Bash is allowed") {
		t.Errorf("notes = %q", rv.Notes)
	}
	if lint, _ := s.Command("frontend:lint"); lint.Description != "Lint the frontend" || lint.AllowedTools != nil {
		t.Errorf("lint = %+v", lint)
	}
	if fix, _ := s.Command("fix"); strings.Join(fix.AllowedTools, ",") != "File,Bash" {
		t.Errorf("fix tools = %q", fix.AllowedTools)
	}
	problems := strings.Join(s.Problems, "\n")
	for _, want := range []string{`"bad name" is not a usable command name`, "broken.md: frontmatter: ", "badmode.md: frontmatter: mode:",
		"/review in " + filepath.Join(home, "commands", "review.md") + " is shadowed by the one in " +
			filepath.Join(ws, ".codewhale", "commands", "review.md")} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
}

// CONTRACT.md §17.2: $ARGUMENTS and $1…$9 with quoted words, $10 left alone, and 'Arguments: <args>' appended to a
// body without placeholders.
// README.md "User commands and skills": $ARGUMENTS, $1…$9 with quoted words; a body without placeholders gets the arguments appended
func TestExpand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, args, want string }{
		{"Review $1 focusing on $2.", `HEAD~1 "error handling"`, "Review HEAD~1 focusing on error handling."},
		{"All: $ARGUMENTS; first $1; none $3", "a b", "All: a b; first a; none "},
		{"Costs $10 and $ARGUMENTSX", "q", "Costs $10 and qX"},
		{"No placeholders here.", "extra words", "No placeholders here.\n\nArguments: extra words"},
		{"No placeholders, no args.", "", "No placeholders, no args."},
		{"Keep $HOME and $", "x", "Keep $HOME and $\n\nArguments: x"},
		{"Quoted '$1'", "'it''s one'", "Quoted 'its one'"},
	} {
		c := Command{body: tc.body}
		if got := c.Expand(tc.args); got != tc.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestCommandsThatLinkOutsideTheProjectAreRefused(t *testing.T) {
	t.Parallel()
	outside := canonical(t.TempDir())
	write(t, outside, map[string]string{"evil.md": "outside\n"})
	ws := repo(t, map[string]string{".codewhale/commands/ok.md": "fine\n"})
	mustLink(t, filepath.Join(outside, "evil.md"), filepath.Join(ws, ".codewhale", "commands", "evil.md"))
	s := Load(Options{Workspace: ws}).State()
	if names := strings.Join(commandNames(s), " "); names != "ok" {
		t.Errorf("commands = %q", names)
	}
	if !strings.Contains(strings.Join(s.Problems, "\n"), "evil.md: not read: it resolves to") {
		t.Errorf("problems = %q", s.Problems)
	}
}

func TestRefreshNoticesCommandsAndSkills(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".codewhale/commands/a.md": "a\n"})
	c := Load(Options{Workspace: ws})
	write(t, ws, map[string]string{".codewhale/commands/ns/b.md": "b\n",
		".codewhale/skills/s1/SKILL.md": "---\nname: s1\ndescription: first\n---\nbody\n"})
	must(t, os.Remove(filepath.Join(ws, ".codewhale", "commands", "a.md")))
	got := strings.Join(c.Refresh(), "\n")
	if got != "User commands changed: /ns:b added, /a removed.\nSkills changed: s1 added." {
		t.Errorf("got %q", got)
	}
	write(t, ws, map[string]string{".codewhale/skills/s1/SKILL.md": "---\nname: s1\ndescription: the first skill\n---\nbody\n"})
	if got := c.Refresh(); len(got) != 1 || !strings.Contains(got[0], "a description was edited") {
		t.Errorf("got %q", got)
	}
}

// BenchmarkLoad50 is a session start in a repository 50 folders deep with an
// AGENTS.md in each, 50 user commands and 50 skills (CONTRACT.md §17.5:
// under 5 ms).
func BenchmarkLoad50(b *testing.B) {
	ws, home := fixture50(b)
	defer cputime.PerOp(b)()
	for range b.N {
		s := Load(Options{Home: home, Workspace: ws}).State()
		if len(s.Commands) != 50 || len(s.Skills) != 50 || len(s.Instructions) != 51 {
			b.Fatalf("loaded %d commands, %d skills, %d instructions", len(s.Commands), len(s.Skills), len(s.Instructions))
		}
	}
}

// BenchmarkRefreshUnchanged is the look between turns when nothing changed.
func BenchmarkRefreshUnchanged(b *testing.B) {
	ws, home := fixture50(b)
	c := Load(Options{Home: home, Workspace: ws})
	defer cputime.PerOp(b)()
	for range b.N {
		if c.Refresh() != nil {
			b.Fatal("reported a change")
		}
	}
}

func fixture50(b *testing.B) (ws, home string) {
	root := canonical(b.TempDir())
	home = canonical(b.TempDir())
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "# Root\nBuild with make.\n"}
	dir := ""
	for i := range 50 {
		dir = filepath.Join(dir, fmt.Sprintf("d%02d", i))
		files[filepath.Join(dir, "AGENTS.md")] = fmt.Sprintf("Rules for level %d: keep functions short.\n", i)
	}
	for i := range 50 {
		files[filepath.Join(dir, ".codewhale", "commands", fmt.Sprintf("cmd%02d.md", i))] =
			fmt.Sprintf("---\ndescription: command %d\nargument-hint: <x>\n---\nDo thing %d with $ARGUMENTS.\n", i, i)
		files[filepath.Join(dir, ".codewhale", "skills", fmt.Sprintf("skill%02d", i), "SKILL.md")] =
			fmt.Sprintf("---\nname: skill%02d\ndescription: Use for task %d.\n---\n%s", i, i, strings.Repeat("Step.\n", 200))
	}
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(root, dir), home
}

// BenchmarkLoad50Reference reads the same 151 files with os.ReadFile and
// lists the two folders: the least any loader of them costs, for the ratio
// in docs/PERFORMANCE.md.
func BenchmarkLoad50Reference(b *testing.B) {
	ws, home := fixture50(b)
	s := Load(Options{Home: home, Workspace: ws}).State()
	var files []string
	for _, in := range s.Instructions {
		files = append(files, in.Path)
	}
	for _, c := range s.Commands {
		files = append(files, c.Path)
	}
	for _, sk := range s.Skills {
		files = append(files, sk.Path)
	}
	dirs := []string{filepath.Join(ws, ".codewhale", "commands"), filepath.Join(ws, ".codewhale", "skills")}
	defer cputime.PerOp(b)()
	for range b.N {
		for _, d := range dirs {
			if _, err := os.ReadDir(d); err != nil {
				b.Fatal(err)
			}
		}
		for _, f := range files {
			if _, err := os.ReadFile(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The plain-line fast path reads what the YAML parser reads, and leaves
// everything else to it.
// CONTRACT.md §17.2: the plain key: value frontmatter reads as YAML would.
func TestPlainFrontmatterAgreesWithYAML(t *testing.T) {
	t.Parallel()
	for _, meta := range []string{
		"name: lint\ndescription: Lint the code, fast\nallowed-tools: Read, Grep\n",
		"description: Use when a test fails\nmode: plan\nmodel: deepseek-v4-flash\n\n",
		"argument-hint: <file> [line]\n",
		"description: \"quoted: yes\"\n",
		"description: >\n  folded\n  text\n",
		"allowed-tools:\n  - Edit\n  - Bash\n",
		"description: has # a comment\n",
		"description: ends with a comment # here\n",
	} {
		var viaYAML frontmatter
		if err := yaml.Unmarshal([]byte(meta), &viaYAML); err != nil {
			t.Fatal(err)
		}
		plain, ok := plainFrontmatter(meta)
		if ok && fmt.Sprint(plain) != fmt.Sprint(viaYAML) {
			t.Errorf("%q: plain %+v, yaml %+v", meta, plain, viaYAML)
		}
		got, err := parseFrontmatter("x.md", meta)
		if err != nil {
			t.Fatal(err)
		}
		viaYAML.Description = oneLine(viaYAML.Description)
		if fmt.Sprint(got.AllowedTools) != fmt.Sprint(viaYAML.AllowedTools) || got.Description != strings.TrimSpace(viaYAML.Description) {
			t.Errorf("%q: parsed %+v, yaml %+v", meta, got, viaYAML)
		}
	}
}
