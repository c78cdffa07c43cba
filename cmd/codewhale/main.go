// Command codewhale is a terminal coding agent for DeepSeek models.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], stdio()))
}
