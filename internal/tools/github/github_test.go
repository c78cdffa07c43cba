package github

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakegithub"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

func ghBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gh")
	if err != nil {
		e2e.Missing(t, "the GitHub CLI gh is not installed (apt install gh)")
	}
	return p
}

func newGH(t *testing.T, f *fakegithub.Server, readOnly bool) (*Tool, *handles.Store) {
	store := handles.NewStore(0)
	return New(Options{GH: ghBinary(t), Env: f.Env(t, fakegithub.Token), Hosts: []string{f.Host()}, ReadOnly: readOnly,
		Handles: store}), store
}

func run(t *testing.T, tool tools.Tool, in string) (tools.Result, tools.Approval, error) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(tool)
	c, err := reg.Prepare(tool.Name(), json.RawMessage(in))
	if err != nil {
		return tools.Result{}, tools.Auto, err
	}
	res, err := c.Run(context.Background(), &tools.Context{Workspace: t.TempDir()})
	return res, c.Policy.Approval, err
}
