package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// `codewhale sessions rename|export|archive|unarchive|delete` on a session
// an exec run saved, through the built binary.
// README.md "Command line": sessions rename, export, archive, unarchive, delete.
// README.md "Sessions": codewhale sessions rename|export|archive|unarchive|delete from the shell
func TestSessionsRenameExportArchiveDelete(t *testing.T) {
	t.Parallel()
	c := newCLI(t, fakemodel.New(t, fakemodel.Text("The **answer**.")))
	id := sessionIDOf(t, c, "a question about `code`")
	short := id[:8]
	mustRun := func(want string, args ...string) string {
		t.Helper()
		out, errOut, code := c.run(args...)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errOut, want)
		}
		return out
	}
	mustRun("Renamed session "+short, "sessions", "rename", short, "Parser", "work")
	mustRun("Parser work", "sessions")
	md := mustRun("# Parser work\n", "sessions", "export", short)
	for _, want := range []string{"- Session: `" + id + "`", "## You\n\na question about `code`\n", "## Assistant\n\nThe **answer**.\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown export lacks %q:\n%s", want, md)
		}
	}
	file := filepath.Join(c.ws, "out.json")
	mustRun("", "sessions", "export", short, "--format", "json", "-o", file)
	var doc struct {
		Session struct {
			ID, Title string
		} `json:"session"`
		Messages []json.RawMessage `json:"messages"`
	}
	data, _ := os.ReadFile(file)
	if err := json.Unmarshal(data, &doc); err != nil || doc.Session.ID != id || doc.Session.Title != "Parser work" || len(doc.Messages) != 2 {
		t.Fatalf("json export %s: %v", data, err)
	}
	if _, errOut, code := c.run("sessions", "export", short, "--format", "json", "-o", file); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("export over an existing file: exit %d, %q", code, errOut)
	}
	mustRun("Archived session "+short, "sessions", "archive", short)
	if out := mustRun("No saved sessions", "sessions"); strings.Contains(out, short) {
		t.Errorf("an archived session is listed: %s", out)
	}
	mustRun("Parser work [archived]", "sessions", "--archived")
	mustRun("Unarchived session "+short, "sessions", "unarchive", short)
	mustRun("Parser work", "sessions")
	mustRun("Deleted session "+short, "sessions", "delete", short)
	mustRun("No saved sessions", "sessions")
	if _, errOut, code := c.run("sessions", "delete", short); code != 1 || !strings.Contains(errOut, "no saved session matches") {
		t.Errorf("deleting it again: exit %d, %q", code, errOut)
	}
}
