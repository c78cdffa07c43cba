package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// The file boundary is the workspace plus exactly the trusted roots in
// force: the per-workspace list always, trusted_paths in trust mode (Full
// Access or Trust); nothing else in any posture, and <turn_meta> says which.
// CONTRACT.md §5: the boundary is the workspace plus the per-workspace trust list always and trusted_paths only in
// trust mode, and turn_meta states it.
// README.md "Modes and permissions": File boundary: the workspace and its trusted roots, the user's trusted_paths only in trust mode.
func TestFileBoundaryUnderTrust(t *testing.T) {
	t.Parallel()
	listed := tools.Canonical(t.TempDir())
	stranger := tools.Canonical(t.TempDir())
	for _, d := range []string{listed, stranger} {
		if err := os.WriteFile(filepath.Join(d, "f.txt"), []byte("content of "+d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		posture  posture.Posture
		trust    bool
		always   []string
		paths    []string
		reach    string // the directory whose file the read may return; "" = refused
		metaWant string
	}{
		{"ask, no trust", posture.Ask, false, nil, []string{listed}, "", "File tool boundary: the workspace only"},
		{"--auto trust reaches trusted_paths", posture.Ask, true, nil, []string{listed}, listed, "trusted roots " + listed},
		{"full access reaches trusted_paths", posture.FullAccess, false, nil, []string{listed}, listed, "trusted roots " + listed},
		{"per-workspace list always", posture.Ask, false, []string{listed}, nil, listed, "trusted roots " + listed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, dir := range []string{listed, stranger} {
				srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "r1", Name: "File",
					Args: `{"action":"read","path":"` + filepath.Join(dir, "f.txt") + `"}`}), fakemodel.Text("done"))
				h := newHarness(t, srv, func(o *engine.Options) {
					o.Posture, o.Trust, o.TrustedRoots, o.TrustedPaths = tt.posture, tt.trust, tt.always, tt.paths
				})
				evs := h.turn("read it")
				res, _ := last[engine.ToolCallComplete](evs)
				got := res.Result.Content
				if dir == tt.reach {
					if !strings.Contains(got, "content of "+dir) {
						t.Errorf("read of %s refused: %s", dir, got)
					}
				} else if !strings.Contains(got, "Path escapes workspace") {
					t.Errorf("read of %s outside the boundary: %s", dir, got)
				}
				meta := srv.Requests()[0].LastUserText()
				if !strings.Contains(meta, tt.metaWant) || strings.Contains(meta, stranger) {
					t.Errorf("turn_meta does not state the boundary in force (%q):\n%s", tt.metaWant, meta)
				}
			}
		})
	}
}

// SetTrust (`/trust add`) widens the boundary from the next turn.
func TestSetTrustTakesEffectNextTurn(t *testing.T) {
	t.Parallel()
	extra := tools.Canonical(t.TempDir())
	if err := os.WriteFile(filepath.Join(extra, "f.txt"), []byte("trusted content"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"` + filepath.Join(extra, "f.txt") + `"}`}
	srv := fakemodel.New(t, fakemodel.Tools(read), fakemodel.Text("no"), fakemodel.Tools(read), fakemodel.Text("yes"))
	h := newHarness(t, srv)
	res, _ := last[engine.ToolCallComplete](h.turn("read it"))
	if !strings.Contains(res.Result.Content, "Path escapes workspace") {
		t.Fatalf("read outside before /trust add: %s", res.Result.Content)
	}
	h.eng.Submit(engine.SetTrust{Roots: []string{extra}})
	res, _ = last[engine.ToolCallComplete](h.turn("read it now"))
	if !strings.Contains(res.Result.Content, "trusted content") {
		t.Fatalf("read refused after /trust add: %s", res.Result.Content)
	}
}
