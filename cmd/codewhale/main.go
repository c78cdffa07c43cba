// Command codewhale is a terminal coding agent for DeepSeek models.
package main

import (
	"os"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/sandbox"
)

func main() {
	holdGCForStartup(config.ProcessEnv(), startupWindow)

	// The hidden helper entry points run before anything else, so a
	// re-executed codewhale pays for no command-line set-up.
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case sandbox.HelperArg:
			os.Exit(sandbox.HelperMain(os.Args[2:]))
		case jobs.WatchdogArg:
			os.Exit(jobs.WatchdogMain())
		}
	}
	os.Exit(run(hideAPIKey(os.Args[1:], os.Stderr), stdio()))
}

// executable is this binary, for the helper entry points above; "" when
// the system cannot say.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
