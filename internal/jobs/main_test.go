package jobs

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as codewhale's hidden entry points,
// as main does: the watchdog (WatchdogArg), and an "agent" that runs jobs
// until it is killed (agentMode), for the crash tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WatchdogArg {
		os.Exit(WatchdogMain())
	}
	if code, ok := agentMode(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
