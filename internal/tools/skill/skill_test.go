package skill

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools"
)

func setup(t *testing.T) (*Tool, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	files := map[string]string{
		".codewhale/skills/lint/SKILL.md":     "---\nname: lint\ndescription: Lint the tree\n---\nRun the linter twice.\n",
		".codewhale/skills/lint/rules/a.md":   "rule a\n",
		".codewhale/skills/lint/.hidden":      "never listed\n",
		".codewhale/skills/lint/bin/tool.bin": "\x00\x01\xff",
		"secret.pem":                          "-----BEGIN PRIVATE KEY-----\n",
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
	if err := os.WriteFile(filepath.Join(outside, "out.md"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws, ".codewhale", "skills", "lint")
	for name, target := range map[string]string{"escape.md": filepath.Join(outside, "out.md"), "key.pem": filepath.Join(ws, "secret.pem")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	c := projectctx.Load(projectctx.Options{Workspace: ws})
	return New(c.State, ws), ws
}

func call(t *testing.T, tool *Tool, args string) (tools.Result, error) {
	t.Helper()
	return tool.Execute(context.Background(), &tools.Context{Workspace: "/"}, json.RawMessage(args))
}

// CONTRACT.md §17.3: load_skill returns the body without frontmatter, the folder and the files beside SKILL.md.
func TestLoadSkillReturnsBodyAndFiles(t *testing.T) {
	t.Parallel()
	tool, _ := setup(t)
	res, err := call(t, tool, `{"name":"lint"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Skill lint (project .codewhale/skills): Lint the tree", "Run the linter twice.",
		"Files beside SKILL.md (4): bin/tool.bin, escape.md, key.pem, rules/a.md",
		`load_skill {"name": "lint", "file": "<file>"}`} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, "name: lint") || strings.Contains(res.Content, ".hidden") {
		t.Errorf("frontmatter or a hidden file leaked:\n%s", res.Content)
	}
	res, err = call(t, tool, `{"name":"lint","file":"rules/a.md"}`)
	if err != nil || res.Content != "rule a\n" {
		t.Errorf("file: %q %v", res.Content, err)
	}
}

// CONTRACT.md §17.3: an unknown name is refused with the list; a file outside the skill's folder, a link out of it
// (to a secret too) or a binary file is refused.
func TestLoadSkillRefusals(t *testing.T) {
	t.Parallel()
	tool, _ := setup(t)
	for _, tc := range []struct{ args, want string }{
		{`{"name":"nope"}`, `no skill named "nope"; the skills are: lint`},
		{`{"name":"lint","file":"../../../secret.pem"}`, "outside the skill's folder"},
		{`{"name":"lint","file":"escape.md"}`, "is not readable: it resolves to"},
		{`{"name":"lint","file":"key.pem"}`, "is not readable: it resolves to"},
		{`{"name":"lint","file":"bin/tool.bin"}`, "is binary"},
		{`{"name":"lint","file":"missing.md"}`, `has no file "missing.md"`},
		{`{}`, "name"},
	} {
		_, err := call(t, tool, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.args, err, tc.want)
		}
	}
}
