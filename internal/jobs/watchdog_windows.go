package jobs

// WatchdogArg is argv[1] of codewhale's hidden watchdog entry point.
const WatchdogArg = "__watchdog"

// watchdog is not needed on Windows: a job's Job Object dies with the
// agent's handle to it.
type watchdog struct{}

func startWatchdog(string) *watchdog { return nil }
func (*watchdog) watch(int, uint64)  {}
func (*watchdog) forget(int)         {}
func (*watchdog) close()             {}

// WatchdogMain has nothing to watch on Windows.
func WatchdogMain() int { return 0 }
