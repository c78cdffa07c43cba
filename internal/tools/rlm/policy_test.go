package rlm

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// An eval is judged as Bash judges `python3 -c CODE`: a secret read
// visible in the text needs an explicit approval with the classifier's
// reason, a hard block is refused at run in every posture (so it asks
// nothing), and the rest needs an ordinary approval.
// CONTRACT.md §6.11: eval is classified as python3 -c CODE: secret and environment reads need explicit approval, a
// hard block is refused with Bash's BLOCKED text and status Blocked.
// README.md "rlm: Python over big content": an eval is judged as Bash judges python3 -c CODE: a visible secret read needs approval, a hard block never runs.
func TestEvalIsJudgedAsAShellCommand(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir()
	e := newEnv(t, nil)
	e.tool.opts.Commands = &shellpolicy.Env{Home: home, Workspace: e.ws, Getenv: os.Getenv}
	e.must(`{"action":"open","name":"s","content":"x"}`)
	for _, c := range []struct {
		code   string
		want   tools.Approval
		reason string
	}{
		{"print(len(content))", tools.Required, ""},
		{`print(open(os.path.expanduser("~/.ssh/id_rsa")).read())`, tools.Explicit, "secret"},
		{`import os; print(open("/proc/%d/environ" % os.getppid()).read()[::-1])`, tools.Explicit, "environment"},
		{`import os; print(os.environ["DEEPSEEK_API_KEY"])`, tools.Explicit, "DEEPSEEK_API_KEY"},
		{`import shutil; shutil.rmtree("/")`, tools.Auto, ""},
		{`sub_query.__globals__['_armed'] = False; import os; os.system("rm -rf /")`, tools.Auto, ""},
	} {
		in, _ := json.Marshal(map[string]any{"action": "eval", "name": "s", "code": c.code})
		call, err := e.tool.Prepare(in)
		if err != nil || call.Policy.Approval != c.want || !strings.Contains(call.Policy.Reason, c.reason) {
			t.Errorf("%s: policy %+v, %v; want %v with %q", c.code, call.Policy, err, c.want, c.reason)
			continue
		}
		if c.want != tools.Auto {
			continue
		}
		res, err := call.Run(context.Background(), &tools.Context{Workspace: e.ws})
		if err != nil || res.Success || !strings.HasPrefix(res.Content, shellpolicy.BlockedPrefix) || res.Metadata["status"] != "Blocked" {
			t.Errorf("%s ran: %+v %v", c.code, res, err)
		}
	}
}

// A sub_rlm child's code is judged the same way; what would need a person
// is not run, and the child is told why.
func TestSubRLMChildCodeIsJudged(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	q := func(_ context.Context, system, user string) (string, provider.Usage, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, user)
		if len(seen) == 1 {
			return "```python\nimport shutil; shutil.rmtree('/')\n```", provider.Usage{}, nil
		}
		return "```python\nFINAL('gave up')\n```", provider.Usage{}, nil
	}
	e := newEnv(t, q)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	out := e.must(`{"action":"eval","name":"s","code":"print(sub_rlm('wipe it', 'abc'))"}`)
	mu.Lock()
	defer mu.Unlock()
	if out["stdout"] != "gave up\n" || len(seen) != 2 || !strings.Contains(seen[1], "this code was not run") {
		t.Fatalf("out %v, child saw %q", out, seen)
	}
}

// The kernel lowers its limits before any code runs, hard and soft: no new
// processes or threads (RLIMIT_NPROC 0), 4 GiB of address space.
// README.md "rlm: Python over big content": the kernel runs with RLIMIT_NPROC 0 and lowered limits.
func TestKernelLimitsAreLowered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	out := e.must(`{"action":"eval","name":"s","code":"import resource as r\nprint(r.getrlimit(r.RLIMIT_NPROC), r.getrlimit(r.RLIMIT_AS))"}`)
	if out["stdout"] != "(0, 0) (4294967296, 4294967296)\n" {
		t.Fatalf("limits: %v", out)
	}
}

// Code that switches the advisory hook off still starts no process and
// runs no program, root included (RLIMIT_NPROC does not bind root; the
// seccomp filter does): fork and exec fail in the kernel itself.
// CONTRACT.md §6.11: the kernel starts no process and runs no other program.
// README.md "rlm: Python over big content": on Linux a seccomp filter refuses fork and exec, for root too.
func TestKernelStartsNoProcessEvenWithTheHookOff(t *testing.T) {
	t.Parallel()
	if _, ok := sandbox.NoProcessesFilter(); !ok {
		e2e.Missing(t, "a seccomp filter for this platform (internal/sandbox NoProcessesFilter)")
	}
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	code := "sub_query.__globals__['_armed'] = False\nimport os, errno\n" +
		"def probe(f):\n    try:\n        f()\n        return 'ran'\n    except OSError as e:\n        return errno.errorcode[e.errno]\n" +
		"def fork():\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n" +
		"print(probe(fork), probe(lambda: os.execv('/bin/true', ['true'])), probe(lambda: os.posix_spawn('/bin/true', ['true'], {})))"
	out := e.must(`{"action":"eval","name":"s","code":` + strconv.Quote(code) + `}`)
	if out["stdout"] != "EAGAIN EACCES EAGAIN\n" {
		t.Fatalf("with the hook off, os.fork/execv/posix_spawn gave %v; want all refused", out)
	}
}
