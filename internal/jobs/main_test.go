package jobs

import (
	"os"
	"testing"

	"github.com/codewhale/codewhale/internal/sandbox"
)

// TestMain lets the test binary serve as codewhale's hidden entry points,
// as main does: the watchdog (WatchdogArg), the sandbox helper, and an "agent" that runs jobs
// until it is killed (agentMode), for the crash tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WatchdogArg {
		os.Exit(WatchdogMain())
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	if code, ok := agentMode(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
