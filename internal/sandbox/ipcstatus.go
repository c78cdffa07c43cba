package sandbox

import (
	"fmt"
	"runtime"
)

// Landlock ABI versions that close the ways from a command to the
// processes and services outside its sandbox.
const (
	// scopingABI scopes signals and abstract unix sockets to the
	// command's own domain (LANDLOCK_SCOPE_SIGNAL, _ABSTRACT_UNIX_SOCKET).
	scopingABI = 6
	// resolveUnixABI restricts connect(2) to pathname unix sockets
	// (LANDLOCK_ACCESS_FS_RESOLVE_UNIX), granted in the writable roots only.
	resolveUnixABI = 9
)

// ipcLimits are what Landlock at abi leaves open between a command and the
// processes and unix-socket services outside its sandbox; degraded is the
// one doctor warns of ("" for none). network: the policy allows it.
func ipcLimits(abi int, network bool) (limits []string, degraded string) {
	if abi < scopingABI {
		degraded = fmt.Sprintf("Landlock ABI %d cannot scope signals (ABI %d is needed): a command can signal "+
			"any process of yours, codewhale included (kill -STOP)", abi, scopingABI)
		if network {
			degraded += ", and connect to abstract unix sockets"
		}
		limits = append(limits, degraded)
	}
	switch {
	case abi >= resolveUnixABI:
	case network:
		limits = append(limits, fmt.Sprintf("unix sockets outside the writable roots (Docker's, the D-Bus buses, "+
			"systemd's) can be connected to: Landlock restricts them from ABI %d; with [network] default = \"deny\" "+
			"commands cannot create unix sockets", resolveUnixABI))
	default:
		limits = append(limits, bwrapIPCLimits(false)...) // the same filter, or none
	}
	return limits, degraded
}

// bwrapIPCLimits are the same for bubblewrap, which gives a command its
// own pid namespace (no process outside is visible to signal) and, with
// the network denied, the socket filter, but no rule for unix sockets
// otherwise.
func bwrapIPCLimits(network bool) []string {
	switch {
	case network:
		return []string{"unix sockets outside the writable roots (Docker's, the D-Bus buses, systemd's) and " +
			"abstract unix sockets can be connected to; with [network] default = \"deny\" commands cannot create unix sockets"}
	case unixSocketsRefusable():
		return []string{socketFilterLimit}
	}
	return []string{"unix sockets outside the writable roots can be connected to even with the network denied " +
		"(no seccomp filter for " + runtime.GOARCH + ")"}
}

// socketFilterLimit is what the socket filter costs.
const socketFilterLimit = "with the network denied a command cannot create unix sockets (a seccomp filter: " +
	"below Landlock ABI 9 the kernel cannot tell one socket path from another), so a local service reached " +
	"through one (a test database's socket, tmux, gpg-agent) is refused inside the writable roots too"
