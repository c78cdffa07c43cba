package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// HelperArg is argv[1] of codewhale's hidden helper entry point: main
// dispatches it to HelperMain before anything else runs.
const HelperArg = "__sandbox"

// helperProbe is the helper's argument for the user-namespace probe.
const helperProbe = "--probe-userns"

// helperSpawner is the helper's argument for running as a spawner
// (spawner_linux.go).
const helperSpawner = "--spawner"

// helperRequest is what the helper is handed.
type helperRequest struct {
	Policy Policy `json:"policy"`
	Caps   Caps   `json:"caps"`
	// Namespaced: the helper was started in a new user and mount namespace
	// and binds the protected paths itself. Outside names the agent's user
	// and mount namespaces, which the helper refuses to mount in.
	Namespaced bool   `json:"namespaced,omitempty"`
	Outside    string `json:"outside,omitempty"`
}

// Wrap rewrites cmd so that it runs confined when started by code that
// calls cmd.Start itself (Start is cheaper where the caller owns the start):
// with Landlock through codewhale's helper entry point (HelperMain), in a
// new user namespace where that is how this system gets a mount namespace,
// with bubblewrap through bwrap. Unenforced and unconfined modes leave cmd
// as it is. cmd.Path must be resolved (exec.Command does that).
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if !s.enforcing() {
		return nil
	}
	c := s.caps()
	switch {
	case mechanismFor(c) == Bwrap:
		return wrapBwrap(cmd, c.Bwrap, s.policy)
	case s.userNS(c) && needsNamespace(s.policy, s.policy.resolve()):
		return s.wrapUserNS(cmd, c)
	}
	return s.wrapHelper(cmd, helperRequest{Policy: s.policy, Caps: c})
}

// wrapHelper rewrites cmd to run as `helper __sandbox <request> -- <path>
// <args...>`.
func (s *Sandbox) wrapHelper(cmd *exec.Cmd, req helperRequest) error {
	helper, err := s.helperPath()
	if err != nil {
		return fmt.Errorf("sandbox: locating the helper executable: %w", err)
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	path := cmd.Path
	cmd.Args = append([]string{helper, HelperArg, string(raw), "--", path}, cmd.Args[1:]...)
	cmd.Path = helper
	return nil
}

// HelperMain runs the helper: args are what follows HelperArg (the request,
// "--", the program and its arguments). It confines its own thread and
// executes the program in its place; it returns only on failure, with the
// exit status to use (126, as a shell does for a command it cannot run).
func HelperMain(args []string) int {
	if len(args) == 2 && args[0] == helperSpawner {
		return spawnerMain(args[1])
	}
	if len(args) == 2 && args[0] == helperProbe {
		if err := probeHelper(args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "codewhale sandbox helper: usage: "+HelperArg+" <request> -- <program> [args...]")
		return 126
	}
	var req helperRequest
	if err := json.Unmarshal([]byte(args[0]), &req); err != nil {
		fmt.Fprintln(os.Stderr, "codewhale sandbox helper: bad request:", err)
		return 126
	}
	runtime.LockOSThread() // never unlocked: this thread is confined, then becomes the program
	var err error
	switch {
	case req.Namespaced:
		err = confineNamespaced(req.Policy, req.Outside)
	case req.Policy.Mode.confines() && mechanismFor(req.Caps) == Landlock:
		err = applyToThread(req.Policy, req.Caps)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "codewhale sandbox helper: cannot confine the command:", err)
		return 126
	}
	err = execProgram(args[2], args[2:], os.Environ())
	fmt.Fprintf(os.Stderr, "codewhale sandbox helper: %s: %v\n", args[2], err)
	return 126
}
