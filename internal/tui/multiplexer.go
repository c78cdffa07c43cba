package tui

import "strings"

// DetectMultiplexer names the terminal multiplexer the process runs in:
// "tmux" when TMUX is set, "screen" for TERM=screen* outside tmux, else "".
func DetectMultiplexer(getenv func(string) string) string {
	switch {
	case getenv("TMUX") != "":
		return "tmux"
	case strings.HasPrefix(getenv("TERM"), "screen"):
		return "screen"
	}
	return ""
}
