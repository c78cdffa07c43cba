package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// README.md "In an editor (ACP)": `codewhale acp` takes --permission-timeout, default 5m, and -v; the Zed and
// JetBrains settings are JSON whose agent_servers entry runs `codewhale acp`.
func TestREADMEACPFlagsAndEditorSettings(t *testing.T) {
	t.Parallel()
	root := newRootCmd(IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, &globals{})
	acp := subcommand(t, root, "acp")
	if acp == nil {
		t.FailNow()
	}
	f := flagsOf(acp)
	if pt := f["permission-timeout"]; pt == nil || pt.DefValue != (5*time.Minute).String() {
		t.Errorf("--permission-timeout = %+v, README.md says default 5m", pt)
	}
	if v := f["verbose"]; v == nil || v.Shorthand != "v" {
		t.Errorf("acp has no -v: %+v", v)
	}
	section := readme.Section(t, "In an editor (ACP)")
	parts := strings.Split(section, "```json\n")
	if len(parts) != 3 {
		t.Fatalf("README.md's ACP section has %d JSON blocks, want 2 (Zed, JetBrains)", len(parts)-1)
	}
	for _, p := range parts[1:] {
		body := p[:strings.Index(p, "```")]
		var s struct {
			AgentServers map[string]struct {
				Type    string            `json:"type"`
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"agent_servers"`
		}
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Errorf("README.md's editor settings are not JSON: %v\n%s", err, body)
			continue
		}
		cw, ok := s.AgentServers["codewhale"]
		if !ok || cw.Command != "codewhale" || len(cw.Args) != 1 || cw.Args[0] != acp.Name() {
			t.Errorf("agent_servers.codewhale = %+v, want codewhale acp", cw)
		}
	}
}
