package rlm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// Every runner of code is a Bash for policy purposes (issue 23): an eval's
// Python is judged as Bash judges `python3 -c CODE` (internal/shellpolicy),
// so a secret read visible in the text needs an explicit approval and a
// hard-blocked operation (deleting / or the home directory, a fork bomb,
// os.system of a blocked command) never runs, in any posture. What the
// text hides is the OS sandbox's: the kernel runs under a read allow-list
// (sandbox.PrivateReads, wired in internal/app) that leaves the user's
// dotfiles, /proc and $CODEWHALE_HOME out.

// codeVerdict classifies code as the command `python3 -c CODE` run in the
// workspace. (The kernel's working directory is its scratch directory,
// inside $CODEWHALE_HOME, which the classifier would take every relative
// word for; what a relative path reaches from there is the sandbox's.)
func (t *Tool) codeVerdict(code string) shellpolicy.Verdict {
	env := t.opts.Commands
	if env == nil {
		env = &shellpolicy.Env{}
	}
	return env.ClassifyArgv([]string{"python3", "-c", code}, "")
}

// evalPolicy is an eval's approval: Required (it runs code), Explicit with
// the classifier's reason, or Auto for a hard block, which the run refuses
// in every posture (so there is nothing to approve), as Bash does.
func evalPolicy(v shellpolicy.Verdict) tools.Policy {
	switch v.Class {
	case shellpolicy.Blocked:
		return tools.Policy{Approval: tools.Auto}
	case shellpolicy.Explicit:
		return tools.Policy{Approval: tools.Explicit, Reason: v.Reason()}
	}
	return tools.Policy{Approval: tools.Required}
}

// blocked is the refusal of a hard-blocked eval: Bash's text and metadata.
func blocked(v shellpolicy.Verdict) tools.Result {
	res := tools.Failed(shellpolicy.BlockedContent(v.Reasons))
	res.Metadata = map[string]any{"status": "Blocked", "blocked_reasons": v.Reasons}
	return res
}

// childRefusal is what a sub_rlm child sees instead of running code a
// person would have to approve (it cannot ask) or that is hard-blocked.
func childRefusal(v shellpolicy.Verdict) string {
	return fmt.Sprintf("[codewhale: this code was not run: %s. A sub_rlm child cannot ask for approval; "+
		"do without it]", v.Reason())
}

// Interpreter is the python3 a kernel runs.
type Interpreter struct {
	// Path is the executable itself: a launcher such as a pyenv shim is
	// resolved to the interpreter it starts, which is what runs under the
	// sandbox (the shim's own files are not readable there).
	Path string
	// Dirs are its prefixes and import path, which a read allow-list must
	// grant; none is a secret location or holds the user's home.
	Dirs []string
}

// probeScript prints what Interpreter needs, from the interpreter itself.
const probeScript = "import json, sys; print(json.dumps({'executable': sys.executable, " +
	"'dirs': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix] + sys.path}))"

// interpreter finds python3 and asks it, once per path, where it lives.
func (t *Tool) interpreter() (Interpreter, error) {
	p, err := t.python()
	if err != nil {
		return Interpreter{}, err
	}
	t.pyMu.Lock()
	defer t.pyMu.Unlock()
	if py, ok := t.pys[p]; ok {
		return py, nil
	}
	py, err := probeInterpreter(p, t.kernelEnv())
	if err != nil {
		return Interpreter{}, err
	}
	t.pys[p] = py
	return py, nil
}

// probeInterpreter runs python -I on probeScript: the person's own python3
// (found past the workspace's PATH entries), with fixed code.
func probeInterpreter(python string, env []string) (Interpreter, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", probeScript)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return Interpreter{}, tools.NotAvailable("rlm: %s does not run (%v); check the Python installation", python, err)
	}
	var got struct {
		Executable string   `json:"executable"`
		Dirs       []string `json:"dirs"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		return Interpreter{}, tools.NotAvailable("rlm: %s gave an unreadable answer about itself: %q", python, out)
	}
	py := Interpreter{Path: python}
	if filepath.IsAbs(got.Executable) {
		py.Path = got.Executable
	}
	home, _ := os.UserHomeDir()
	for _, d := range append([]string{filepath.Dir(py.Path)}, got.Dirs...) {
		if usableDir(d, home) && !contains(py.Dirs, d) {
			py.Dirs = append(py.Dirs, d)
		}
	}
	return py, nil
}

// usableDir reports whether d may join the kernel's read allow-list: an
// existing absolute path that is no secret location and does not hold the
// user's home (a prefix of / or of ~ would hand over every dotfile).
func usableDir(d, home string) bool {
	if !filepath.IsAbs(d) {
		return false
	}
	if _, err := os.Stat(d); err != nil {
		return false
	}
	if _, secret := secrets.IsSecretPath(d); secret {
		return false
	}
	return home == "" || !within(home, d)
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
