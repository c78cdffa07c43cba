package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
)

// README.md "Slash commands": /trust list|add|remove edit the workspace's trusted roots
func TestTrustAddListRemove(t *testing.T) {
	t.Parallel()
	home, ws, extra := t.TempDir(), t.TempDir(), t.TempDir()
	d := newDirect(t, 120, 30, func(o *Options) { o.Home, o.Workspace = home, ws })
	d.submit("/trust add " + extra)
	canon, _ := filepath.EvalSymlinks(extra)
	d.mustShow("Trusted roots of this workspace: " + canon)
	op, ok := d.eng.lastOp().(engine.SetTrust)
	if !ok || len(op.Roots) != 1 || op.Roots[0] != canon {
		t.Fatalf("engine op %+v", d.eng.lastOp())
	}
	if roots, _ := config.WorkspaceTrust(home, ws); len(roots) != 1 {
		t.Fatalf("not recorded: %v", roots)
	}
	d.submit("/trust")
	d.mustShow("Trust mode: off", canon)
	d.submit("/trust on")
	if op, _ := d.eng.lastOp().(engine.SetTrust); op.Mode == nil || !*op.Mode {
		t.Fatalf("trust on op %+v", d.eng.lastOp())
	}
	d.submit("/trust remove " + extra)
	d.mustShow("Trusted roots of this workspace: none")
	d.submit("/trust add /")
	d.mustShow("is the filesystem root")
	_ = os.Remove
}
