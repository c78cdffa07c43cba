package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/binpath"
)

// probeSystem asks the kernel for Landlock and whether a thread may create
// its own mount namespace, and if not, whether helper can make one in a new
// user namespace; bubblewrap is looked for (and tried once) only when
// Landlock is missing.
func probeSystem(helper, workspace string) Caps {
	var c Caps
	abi, err := ll.LandlockGetABIVersion()
	if err == nil && abi > 0 {
		c.LandlockABI = abi
		c.MountNS = threadCanUnshare()
		if !c.MountNS {
			c.UserNS, c.NoUserNS = probeUserNS(helper)
		}
		return c
	}
	c.Why = fmt.Sprintf("Landlock is not available (%v)", landlockWhy(err))
	c.Bwrap = workingBwrap(workspace)
	if c.Bwrap == "" {
		c.Why += " and bubblewrap is not installed or cannot create namespaces"
	}
	return c
}

func landlockWhy(err error) string {
	if err == nil {
		return "ABI version 0"
	}
	return err.Error()
}

// threadCanUnshare tries unshare(CLONE_NEWNS) on a throwaway thread, which
// the runtime ends with the goroutine because it stays locked.
func threadCanUnshare() bool {
	ok := make(chan bool, 1)
	go func() {
		runtime.LockOSThread()
		ok <- unix.Unshare(unix.CLONE_NEWNS) == nil
	}()
	return <-ok
}

// workingBwrap returns bwrap's path when it can build a sandbox here. It
// is looked up past PATH's entries inside the workspace (internal/binpath):
// a planted .venv/bin/bwrap would otherwise run, unconfined, once here and
// then as the sandbox of every command.
func workingBwrap(workspace string) string {
	path, err := binpath.LookPath("bwrap", workspace)
	if err != nil {
		return ""
	}
	if exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--", "/bin/true").Run() != nil {
		return ""
	}
	return path
}
