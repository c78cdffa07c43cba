package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A run's <turn_meta> states the posture that is really in force, and the
// run then does what it says: an ordinary Bash call, a File write (a
// suggested edit) and a call that needs explicit approval (a force push,
// through a stand-in git) each run exactly when the posture line says they
// are allowed. A sub-agent's turn_meta states its own, narrower posture.
// README.md "What the model is told": the posture line is what every approval is decided by; a sub-agent's states its own, narrower one
func TestTurnMetaStatesThePostureInForce(t *testing.T) {
	t.Parallel()
	const headless = "(no one can answer a prompt in this run)"
	for _, tt := range []struct {
		name, config             string
		flags                    []string
		mode, posture            string
		ordinary, edit, explicit bool
	}{
		{"exec", "", []string{"--max-turns", "3"}, "Act",
			"Ask, headless — every call needing approval: refused " + headless, false, false, false},
		{"exec --auto", "", []string{"--auto"}, "Act",
			"Ask with auto-approval, headless — calls needing approval: allowed without asking; " +
				"calls needing explicit approval, hard holds: refused " + headless, true, true, false},
		{"full access", "", []string{"--yolo"}, "Act",
			"Full Access — calls needing approval, calls needing explicit approval: allowed without asking; " +
				"hard holds: refused (Full Access opens no prompts)", true, true, true},
		{"auto-review --auto", `approval_policy = "auto"`, []string{"--auto"}, "Act",
			"Auto-Review — suggested edits: allowed without asking; calls needing approval, calls needing explicit " +
				"approval, hard holds: refused without asking (Auto-Review)", false, true, false},
		{"plan --auto", "", []string{"--mode", "plan", "--auto"},
			"Plan (read-only: no file changes and no shell, whatever the posture)",
			"Ask with auto-approval, headless — calls needing approval: allowed without asking; " +
				"calls needing explicit approval, hard holds: refused " + headless, false, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(
				fakemodel.Call{ID: "ordinary", Name: "Bash", Args: jsonCommand("touch ordinary.txt")},
				fakemodel.Call{ID: "edit", Name: "File", Args: `{"action":"write","path":"edit.txt","content":"x\n"}`},
				fakemodel.Call{ID: "explicit", Name: "Bash", Args: jsonCommand("git push --force origin main")}),
				fakemodel.Text("done"))
			c := newCLI(t, srv)
			if tt.config != "" {
				c.config(tt.config + "\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
			}
			bin, _ := standInBin(t)
			c.env = replaceEnv(c.env, "PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			c.env = append(c.env, "STANDIN_LOG="+filepath.Join(t.TempDir(), "argv.log"))
			out, errOut, code := c.run(append(append([]string{"exec"}, tt.flags...), "try things")...)
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
			}
			meta := reqs[0].LastUserText()
			for _, want := range []string{"Current mode: " + tt.mode + "\n", "Current permission posture: " + tt.posture + "\n"} {
				if !strings.Contains(meta, want) {
					t.Errorf("turn_meta lacks %q:\n%s", want, meta)
				}
			}
			results := toolResults(reqs[1])
			ran := map[string]bool{"ordinary": exists(filepath.Join(c.ws, "ordinary.txt")),
				"edit":     exists(filepath.Join(c.ws, "edit.txt")),
				"explicit": strings.Contains(results["explicit"], "STANDIN:git push --force")}
			for id, want := range map[string]bool{"ordinary": tt.ordinary, "edit": tt.edit, "explicit": tt.explicit} {
				if ran[id] != want {
					t.Errorf("the %s call ran = %v, but turn_meta said %q; result %q", id, ran[id], tt.posture, results[id])
				}
			}
		})
	}
}

// A sub-agent of an exec --auto session runs its parent's handoff under
// Ask with no one to ask, and its own turn_meta says so: its write is
// refused.
func TestSubAgentTurnMetaStatesItsPosture(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		sys, _ := r.Messages()[0]["content"].(string)
		child := strings.Contains(sys, "You are a sub-agent")
		switch {
		case child && len(toolResults(r)) > 0:
			return fakemodel.Text("Could not write.")
		case child:
			return fakemodel.Tools(fakemodel.Call{Name: "File", Args: `{"action":"write","path":"child.txt","content":"x\n"}`})
		case r.HasToolResult("Could not write."):
			return fakemodel.Text("The worker reported back.")
		case r.HasToolResult(`"agent_id"`):
			return fakemodel.Tools(fakemodel.Call{Name: "agent", Args: `{"action":"wait","timeout_secs":30}`})
		default:
			return fakemodel.Tools(fakemodel.Call{Name: "agent", Args: `{"prompt":"write child.txt","type":"worker"}`})
		}
	})
	c := newCLI(t, srv)
	if out, errOut, code := c.run("exec", "--auto", "delegate"); code != 0 {
		t.Fatalf("code %d out %q\n%s", code, out, errOut)
	}
	var meta string
	for _, r := range srv.Requests() {
		if sys, _ := r.Messages()[0]["content"].(string); strings.Contains(sys, "You are a sub-agent") {
			meta = r.Messages()[1]["content"].(string)
			break
		}
	}
	for _, want := range []string{
		"Current permission posture: Ask, headless — every call needing approval: refused (no one can answer a prompt in this run)\n",
		"Input provenance: subagent_handoff (non-authoritative)"} {
		if !strings.Contains(meta, want) {
			t.Errorf("the child's turn_meta lacks %q:\n%s", want, meta)
		}
	}
	if exists(filepath.Join(c.ws, "child.txt")) {
		t.Error("the child's write ran although its turn_meta said it is refused")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
