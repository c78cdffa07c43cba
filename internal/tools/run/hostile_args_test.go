package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// standInBin is a directory of programs that only log their argv to log.
func standInBin(t *testing.T, names ...string) (bin, log string) {
	t.Helper()
	bin, log = t.TempDir(), filepath.Join(t.TempDir(), "argv.log")
	script := "#!/bin/sh\necho \"STANDIN:$0 $*\" >> " + log + "\n"
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, log
}

func testsCall(args string) string {
	in, _ := json.Marshal(map[string]any{"action": "tests", "args": args})
	return string(in)
}

// CONTRACT.md §6.4: `args` make the test command the model's, and it is judged as Bash judges that command: a
// runner's flag that names a program (go test -exec and -toolexec, cargo's --config runner, make --eval) is that
// program's command, so a hard block is refused in every posture before anything runs and a secret read needs a
// person's explicit approval; the configured test_command is judged with the args appended. Every program the
// arguments name is a stand-in that only logs.
func TestContract64TestArgsAreJudgedAsBashJudgesThem(t *testing.T) {
	t.Parallel()
	bin, log := standInBin(t, "rm", "sh", "cat")
	home := t.TempDir()
	rm, sh, cat := filepath.Join(bin, "rm"), filepath.Join(bin, "sh"), filepath.Join(bin, "cat")
	key := filepath.Join(home, ".ssh", "id_rsa")
	goMod := map[string]string{"go.mod": "module x\n"}
	for _, c := range []struct {
		name     string
		opts     Options
		files    map[string]string
		args     string
		approval tools.Approval
		reason   string
	}{
		{"go filter", Options{}, goMod, "-run TestX -count=1 -vet=off", tools.Required, ""},
		{"go -exec rm", Options{}, goMod, "-exec '" + rm + " -rf /'", tools.Auto, ""},
		{"go -exec=", Options{}, goMod, "-exec='" + rm + " -rf ~'", tools.Auto, ""},
		{"go -toolexec sh -c", Options{}, goMod, `-toolexec '` + sh + ` -c "rm -rf ~"'`, tools.Auto, ""},
		{"go -exec secret", Options{}, goMod, "-exec '" + cat + " " + key + "'", tools.Explicit, "secret"},
		{"go -vettool secret", Options{}, goMod, "-vettool=" + key, tools.Explicit, "secret"},
		{"cargo runner", Options{}, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"},
			`--config 'target.x86_64-unknown-linux-gnu.runner="` + rm + ` -rf /"'`, tools.Auto, ""},
		{"make --eval", Options{}, map[string]string{"Makefile": "test:\n\ttrue\n"},
			"--eval 'test: ; " + rm + " -rf /'", tools.Auto, ""},
		{"test_command", Options{TestCommand: "go test"}, nil, "-exec '" + rm + " -rf /'", tools.Auto, ""},
		{"test_command literal", Options{TestCommand: "go test"}, nil, "-run '$(" + rm + " -rf /)'", tools.Required, ""},
	} {
		f := newFixture(t, Options{}, c.files)
		c.opts.Jobs, c.opts.Commands = f.m, &shellpolicy.Env{Home: home, Workspace: f.tc.Workspace}
		reg := tools.NewRegistry()
		reg.Register(New(c.opts))
		call, err := reg.Prepare("Run", json.RawMessage(testsCall(c.args)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p := call.Policy; p.Approval != c.approval || !strings.Contains(p.Reason, c.reason) || p.ReadOnly {
			t.Errorf("%s: policy %+v, want %v with %q", c.name, p, c.approval, c.reason)
		}
		if c.approval != tools.Auto {
			continue
		}
		res, err := call.Run(context.Background(), f.tc)
		if err != nil || res.Success || !strings.HasPrefix(res.Content, shellpolicy.BlockedPrefix) || res.Metadata["status"] != "Blocked" {
			t.Errorf("%s was not refused as a hard block: %+v %v", c.name, res, err)
		}
		if n := len(f.m.List()); n != 0 {
			t.Errorf("%s: a refused call started %d jobs", c.name, n)
		}
	}
	if ran, err := os.ReadFile(log); err == nil {
		t.Errorf("a refused test command ran: %s", ran)
	}
}

// CONTRACT.md §6.4: the test command that runs is the one judged. When the runner changes between the judgement and
// the run (a go.mod written in between turns `make test ARGS` into `go test ARGS`), the new command is judged again:
// a hard block or a command that needs explicit approval is refused, and nothing runs.
func TestContract64ARunnerChangedSinceTheJudgementIsJudgedAgain(t *testing.T) {
	t.Parallel()
	bin, log := standInBin(t, "rm", "sudo")
	home := t.TempDir()
	for _, c := range []struct {
		args, want string
	}{
		{"-exec '" + filepath.Join(bin, "rm") + " -rf /'", shellpolicy.BlockedPrefix},
		{"-exec '" + filepath.Join(bin, "sudo") + " true'", "Nothing was run: the test command is now go: "},
	} {
		f := newFixture(t, Options{}, map[string]string{"Makefile": "test:\n\ttrue\n"})
		reg := tools.NewRegistry()
		reg.Register(New(Options{Jobs: f.m, Commands: &shellpolicy.Env{Home: home, Workspace: f.tc.Workspace}}))
		call, err := reg.Prepare("Run", json.RawMessage(testsCall(c.args)))
		if err != nil {
			t.Fatal(err)
		}
		if call.Policy.Approval != tools.Required {
			t.Fatalf("%s as make's arguments: %+v", c.args, call.Policy)
		}
		writeTree(t, f.tc.Workspace, map[string]string{"go.mod": "module x\n"})
		res, err := call.Run(context.Background(), f.tc)
		if err != nil || res.Success || !strings.HasPrefix(res.Content, c.want) {
			t.Errorf("%s: the changed runner was not refused: %+v %v", c.args, res, err)
		}
		if n := len(f.m.List()); n != 0 {
			t.Errorf("%s: a refused call started %d jobs", c.args, n)
		}
	}
	if ran, err := os.ReadFile(log); err == nil {
		t.Errorf("a refused test command ran: %s", ran)
	}
}

// CONTRACT.md §6.4: the project's own runner is judged too, without args:
// `npm test` runs the package.json test script (and its pretest), so a
// script the model wrote there that is a hard block refuses the call in
// every posture before anything runs, and a script of ordinary work needs
// the ordinary approval. The scripts only name a stand-in rm; nothing runs.
func TestContract64TheProjectsTestScriptIsJudged(t *testing.T) {
	t.Parallel()
	bin, log := standInBin(t, "rm")
	rm := filepath.Join(bin, "rm")
	home := t.TempDir()
	for _, c := range []struct {
		name, pkg string
		approval  tools.Approval
	}{
		{"node --test", `{"scripts":{"test":"node --test"}}`, tools.Required},
		{"rm -rf ~", `{"scripts":{"test":"` + rm + ` -rf ~"}}`, tools.Auto},
		{"pretest", `{"scripts":{"pretest":"` + rm + ` -rf /","test":"node --test"}}`, tools.Auto},
	} {
		f := newFixture(t, Options{}, map[string]string{"package.json": c.pkg})
		reg := tools.NewRegistry()
		reg.Register(New(Options{Jobs: f.m, Commands: &shellpolicy.Env{Home: home, Workspace: f.tc.Workspace}}))
		call, err := reg.Prepare("Run", json.RawMessage(`{"action":"tests"}`))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if call.Policy.Approval != c.approval {
			t.Errorf("%s: approval %v, want %v (%q)", c.name, call.Policy.Approval, c.approval, call.Policy.Reason)
			continue
		}
		if c.approval != tools.Auto {
			continue
		}
		res, err := call.Run(context.Background(), f.tc)
		if err != nil || res.Success || !strings.HasPrefix(res.Content, shellpolicy.BlockedPrefix) {
			t.Errorf("%s was not refused as a hard block: %+v %v", c.name, res, err)
		}
	}
	if ran, err := os.ReadFile(log); err == nil {
		t.Errorf("a refused test script ran: %s", ran)
	}
}
