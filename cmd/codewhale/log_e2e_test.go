package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The diagnostic log: every command records its start and end in
// $CODEWHALE_HOME/logs/codewhale.log; --debug adds each request's
// metadata and never a body, --debug=bodies the bodies; doctor names the
// file; the key never appears.
// README.md "Command line": the log file, --debug metadata, --debug=bodies.
func TestDebugLogsMetadataNotBodies(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("first answer"), fakemodel.Text("second answer"))
	c := newCLI(t, srv)
	c.env = append(c.env, "DEEPSEEK_API_KEY=sk-logtest-0123456789abcdef")
	path := filepath.Join(c.home, ".codewhale", "logs", "codewhale.log")
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, errOut, code := c.run("-p", "first question", "--debug"); code != 0 || !strings.Contains(errOut, "debug: logging request metadata to "+path) {
		t.Fatalf("--debug: %d %s", code, errOut)
	}
	log := read()
	if !strings.Contains(log, `msg="http response"`) || !strings.Contains(log, "chat/completions status=200") && !strings.Contains(log, "/chat/completions") ||
		!strings.Contains(log, "status=200") || !strings.Contains(log, "msg=end exit_code=0") {
		t.Errorf("--debug logged no request metadata:\n%s", log)
	}
	if strings.Contains(log, "first question") || strings.Contains(log, "first answer") {
		t.Errorf("--debug logged a body:\n%s", log)
	}
	if _, errOut, code := c.run("-p", "second question, with the key pasted: sk-logtest-0123456789abcdef", "--debug=bodies"); code != 0 {
		t.Fatalf("--debug=bodies: %d %s", code, errOut)
	}
	log = read()
	if !strings.Contains(log, "second question") || !strings.Contains(log, `msg="http response body"`) {
		t.Errorf("--debug=bodies logged no bodies:\n%s", log)
	}
	// The body carries the key the person pasted: only the redactor, which
	// runs on every record, keeps it out.
	if strings.Contains(log, "sk-logtest") || !strings.Contains(log, "with the key pasted") {
		t.Errorf("the key reached the log, or the body holding it was not logged:\n%s", log)
	}
	out, _, _ := c.run("doctor")
	if !strings.Contains(out, "log") || !strings.Contains(out, path) {
		t.Errorf("doctor does not name the log:\n%s", out)
	}
}
