package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as codewhale's helper entry point, as
// main does: Wrap re-executes os.Args[0] with HelperArg.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
