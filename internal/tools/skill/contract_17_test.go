package skill

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §17.3: load_skill is deferred and read-only (so Plan keeps it), needs no approval, and takes name
// (required) and file.
func TestContract173LoadSkillSpec(t *testing.T) {
	t.Parallel()
	tool := New(func() *projectctx.State { return projectctx.Load(projectctx.Options{Workspace: t.TempDir()}).State() }, "")
	if tool.Name() != "load_skill" || !tool.DeferLoading() || !tool.ReadOnly || tool.Approve != tools.Auto ||
		!slices.Contains(tool.Capabilities(), tools.CapReadOnly) {
		t.Errorf("spec %+v", tool.Spec)
	}
	schema, _ := json.Marshal(tool.InputSchema())
	var s struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Properties) != 2 || s.Properties["name"] == nil || s.Properties["file"] == nil || !slices.Equal(s.Required, []string{"name"}) {
		t.Errorf("schema %s", schema)
	}
}

// CONTRACT.md §17.3: load_skill returns the skill's folder, and a file of a skill in the user's home is confined to
// that skill's folder once links are resolved, as a repository skill's is; an unknown name is refused with the names.
func TestContract173HomeSkillThroughTheTool(t *testing.T) {
	t.Parallel()
	canon := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	home, outside := canon(t.TempDir()), canon(t.TempDir())
	dir := filepath.Join(home, "skills", "notes")
	for p, body := range map[string]string{filepath.Join(dir, "SKILL.md"): "---\ndescription: Take notes\n---\nWrite them down.\n",
		filepath.Join(dir, "tmpl.md"): "TEMPLATE\n", filepath.Join(outside, "diary.txt"): "PRIVATE DIARY\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "diary.txt"), filepath.Join(dir, "diary.txt")); err != nil {
		t.Fatal(err)
	}
	c := projectctx.Load(projectctx.Options{Home: home, Workspace: canon(t.TempDir())})
	tool := New(c.State, "")
	res, err := call(t, tool, `{"name":"notes"}`)
	if err != nil || !strings.Contains(res.Content, "Folder: "+dir+"\n") || !strings.Contains(res.Content, "Write them down.") ||
		!strings.Contains(res.Content, "Files beside SKILL.md (2): diary.txt, tmpl.md") {
		t.Fatalf("%v\n%s", err, res.Content)
	}
	if res, err := call(t, tool, `{"name":"notes","file":"tmpl.md"}`); err != nil || res.Content != "TEMPLATE\n" {
		t.Errorf("tmpl.md: %q %v", res.Content, err)
	}
	res, err = call(t, tool, `{"name":"notes","file":"diary.txt"}`)
	var te *tools.Error
	if !errors.As(err, &te) || !strings.Contains(te.Error(), "is not readable: it resolves to "+filepath.Join(outside, "diary.txt")) ||
		strings.Contains(res.Content, "PRIVATE") {
		t.Errorf("a link out of a home skill's folder: %q, %v", res.Content, err)
	}
	_, err = tool.Execute(context.Background(), &tools.Context{Workspace: "/"}, json.RawMessage(`{"name":"Notes"}`))
	if !errors.As(err, &te) || te.Kind != tools.KindInvalidInput || !strings.Contains(te.Error(), `no skill named "Notes"; the skills are: notes`) {
		t.Errorf("unknown name: %v", err)
	}
}
