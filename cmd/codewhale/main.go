// Command codewhale is a terminal coding agent for DeepSeek models.
package main

import (
	"os"
)

func main() {
	os.Exit(run(hideAPIKey(os.Args[1:], os.Stderr), stdio()))
}
