// Command codewhale is a terminal coding agent for DeepSeek models.
package main

import (
	"os"

	"github.com/codewhale/codewhale/internal/sandbox"
)

func main() {
	// The hidden helper entry points run before anything else, so a
	// re-executed codewhale pays for no command-line set-up.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(run(hideAPIKey(os.Args[1:], os.Stderr), stdio()))
}
