//go:build !linux

package jobs

// agentMode: the crash tests are Unix-only (Job Objects make them moot).
func agentMode() (int, bool) { return 0, false }
