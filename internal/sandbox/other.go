//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"
)

// probeSystem: Seatbelt (macOS) and Windows confinement are not
// implemented, so confining modes are reported unenforced.
func probeSystem(_, _ string) Caps {
	return Caps{Why: "no OS sandbox backend is implemented for " + runtime.GOOS}
}

func tieToParent(*exec.Cmd) {}

// goLocked runs fn on a goroutine locked to its thread.
func goLocked(fn func()) {
	go func() {
		runtime.LockOSThread()
		fn()
	}()
}

// prepare has nothing to apply without a mechanism.
func (s *Sandbox) prepare(*exec.Cmd) (tainted bool, err error) { return false, nil }

// applyToThread is never reached: Wrap leaves commands alone here.
func applyToThread(Policy, Caps) error { return nil }

func confineNamespaced(Policy, string) error { return nil }

func probeHelper(string) error { return nil }

func spawnerMain(string) int { return 126 }

// startSpawned: there is no spawner here.
func (s *Sandbox) startSpawned(*exec.Cmd) (*Process, bool, error) { return nil, false, nil }

func (s *Sandbox) userNS(Caps) bool { return false }

func (s *Sandbox) namespaced(c Caps) bool { return c.MountNS }

func (s *Sandbox) wrapUserNS(*exec.Cmd, Caps) error { return nil }

func needsNamespace(Policy, layout) bool { return false }

// unixSocketsRefusable: there is no socket filter here.
func unixSocketsRefusable() bool { return false }

func bwrapSocketFilter(*exec.Cmd) ([]string, error) { return nil, nil }

// bwrapReads is never reached: bubblewrap is only looked for on Linux.
func bwrapReads(Policy) []string { return []string{"--ro-bind", "/", "/"} }

// NoProcessesFilter: there is no seccomp here.
func NoProcessesFilter() ([]byte, bool) { return nil, false }
