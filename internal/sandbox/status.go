package sandbox

import (
	"fmt"
	"runtime"
	"strings"
)

// Mechanism is what enforces a policy.
type Mechanism string

const (
	Landlock Mechanism = "landlock"
	Bwrap    Mechanism = "bwrap"
	None     Mechanism = "none"
)

// mechanismFor picks the strongest mechanism the system offers: Landlock,
// else bubblewrap, else none.
func mechanismFor(c Caps) Mechanism {
	switch {
	case c.LandlockABI >= 1:
		return Landlock
	case c.Bwrap != "":
		return Bwrap
	}
	return None
}

// Status is the honest posture of a sandbox, for the header chip, exec
// metadata, the turn's facts and /status.
type Status struct {
	Mode Mode `json:"mode"`
	// Enforced: an OS mechanism confines commands as the mode says.
	Enforced  bool      `json:"enforced"`
	Mechanism Mechanism `json:"mechanism"`
	// Network is "allowed", "blocked" or "not blocked (…why)".
	Network string `json:"network"`
	// Namespace is how Landlock keeps protected paths read-only: "mount" (a
	// private mount namespace made on a thread, with CAP_SYS_ADMIN),
	// "user+mount" (made by the helper in a new user namespace), or ""
	// (carved around with Landlock alone).
	Namespace string `json:"namespace,omitempty"`
	// Detail names the mechanism's parts (ABI, namespaces).
	Detail string `json:"detail,omitempty"`
	// Reason says why a confining mode is not enforced.
	Reason string `json:"reason,omitempty"`
	// Limits are what the mechanism does not cover.
	Limits []string `json:"limits,omitempty"`
	// Degraded are the limits that set this confinement below the full one
	// (each one of Limits, joined by "; "), for doctor's warning; "" when
	// none does.
	Degraded string `json:"degraded,omitempty"`
}

// Status reports the sandbox's posture. A nil sandbox reports
// danger-full-access.
func (s *Sandbox) Status() Status {
	if s == nil {
		return Status{Mode: FullAccess, Mechanism: None, Network: "allowed"}
	}
	st := Status{Mode: s.policy.Mode, Mechanism: None, Network: "allowed"}
	if !st.Mode.confines() {
		return st
	}
	c := s.caps()
	st.Mechanism = mechanismFor(c)
	st.Enforced = st.Mechanism != None
	if !st.Enforced {
		st.Reason = c.Why
		if st.Reason == "" {
			st.Reason = "no OS sandbox backend on " + runtime.GOOS
		}
		if !s.policy.Network {
			st.Network = "not blocked (no sandbox)"
		}
		return st
	}
	describe(&st, c, s.policy, s.userNS(c))
	return st
}

// describe fills the mechanism details and limits of an enforced status;
// userNS: commands that need a mount namespace get it through the helper.
func describe(st *Status, c Caps, p Policy, userNS bool) {
	st.Limits = append(st.Limits, "reads are not restricted (any readable file can be read)")
	if st.Mode == WorkspaceWrite && len(p.Caches) > 0 {
		st.Limits = append(st.Limits, "the build caches that exist ("+strings.Join(p.Caches, ", ")+") are writable, "+
			"so a command can change what a later build outside the sandbox reuses; "+
			"[sandbox] build_caches = false keeps them read-only")
	}
	switch st.Mechanism {
	case Landlock:
		st.Detail = fmt.Sprintf("Landlock ABI %d", c.LandlockABI)
		switch {
		case c.MountNS:
			st.Namespace, st.Detail = "mount", st.Detail+", private mount namespace"
		case userNS:
			st.Namespace, st.Detail = "user+mount", st.Detail+", user + mount namespace (through the codewhale helper)"
		default:
			st.Detail += ", no mount namespace (protected paths carved around)"
			if st.Mode == WorkspaceWrite {
				st.Degraded = "without a mount namespace protected paths are kept read-only by " +
					"granting writes to their siblings only, so new entries cannot be created directly in the " +
					"workspace root (or another writable root that holds a protected path)" + noUserNS(c)
				st.Limits = append(st.Limits, st.Degraded)
			}
		}
		if c.LandlockABI < 3 {
			st.Limits = append(st.Limits, "truncate(2) is not restricted below Landlock ABI 3")
		}
		if c.LandlockABI >= scopingABI {
			st.Detail += ", signals and abstract sockets scoped"
		}
		ipc, degraded := ipcLimits(c.LandlockABI, p.Network)
		st.Limits = append(st.Limits, ipc...)
		// Both warnings stand: missing signal scoping is not hidden behind
		// the carving (CONTRACT.md §12.7: doctor warns of it).
		st.Degraded = joinNonEmpty("; ", st.Degraded, degraded)
		if !p.Network {
			st.Network = networkUnderLandlock(c, userNS)
		}
	case Bwrap:
		st.Detail = "bubblewrap " + c.Bwrap
		if !p.Network {
			st.Network = "blocked (network namespace)"
		}
		st.Limits = append(st.Limits, bwrapIPCLimits(p.Network)...)
	}
	if st.Mode == WorkspaceWrite {
		st.Limits = append(st.Limits, "a protected path (.git, .codewhale) that does not exist when a command "+
			"starts is not protected during that command")
	}
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// noUserNS says why the user-namespace route is closed, for the carving
// limit.
func noUserNS(c Caps) string {
	if c.NoUserNS == "" {
		return ""
	}
	return "; no user namespace either: " + c.NoUserNS
}

func networkUnderLandlock(c Caps, userNS bool) string {
	switch {
	case c.MountNS || userNS:
		return "blocked (network namespace)"
	case c.LandlockABI >= 4:
		return "blocked for TCP connect and bind (Landlock); UDP and MPTCP are not blocked"
	}
	return fmt.Sprintf("not blocked (Landlock ABI %d has no network rules; ABI 4 is needed)", c.LandlockABI)
}

// NetworkBlocked reports whether outbound TCP is blocked.
func (st Status) NetworkBlocked() bool { return strings.HasPrefix(st.Network, "blocked") }

// Label is the one-line posture for the turn's facts and exec's
// sandbox_posture, e.g. `workspace-write (enforced: landlock + user
// namespace; network allowed)` or `workspace-write (unenforced: …)`.
func (st Status) Label() string {
	switch {
	case st.Mode == FullAccess:
		return string(st.Mode) + " (no sandbox)"
	case st.Mode == External:
		return string(st.Mode) + " (confinement left to the surrounding sandbox)"
	case !st.Enforced:
		return fmt.Sprintf("%s (unenforced: %s; commands run unconfined)", st.Mode, st.Reason)
	}
	mech := string(st.Mechanism)
	switch st.Namespace {
	case "mount":
		mech += " + mount namespace"
	case "user+mount":
		mech += " + user namespace"
	}
	return fmt.Sprintf("%s (enforced: %s; network %s)", st.Mode, mech, st.Network)
}

// Scope is the header chip's filesystem scope: `files: workspace
// (enforced)`, `files: read-only (unenforced)`, `files: full disk`, `files:
// external sandbox`.
func (st Status) Scope() string {
	var s string
	switch st.Mode {
	case FullAccess:
		return "files: full disk"
	case External:
		return "files: external sandbox"
	case ReadOnly:
		s = "files: read-only"
	default:
		s = "files: workspace"
	}
	if st.Enforced {
		return s + " (enforced)"
	}
	return s + " (unenforced)"
}

// Report is the multi-line description for /status and `--verbose`.
func (st Status) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sandbox: %s", st.Mode)
	switch {
	case !st.Mode.confines():
		b.WriteString(" — commands are not confined by codewhale\n")
		return b.String()
	case st.Enforced:
		fmt.Fprintf(&b, " — enforced by %s (%s)\n", st.Mechanism, st.Detail)
	default:
		fmt.Fprintf(&b, " — UNENFORCED: %s; commands run unconfined\n", st.Reason)
	}
	fmt.Fprintf(&b, "Network: %s\n", st.Network)
	for _, l := range st.Limits {
		fmt.Fprintf(&b, "Not covered: %s\n", l)
	}
	return b.String()
}
