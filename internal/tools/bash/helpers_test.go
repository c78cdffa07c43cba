package bash

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

type fixture struct {
	t   *testing.T
	m   *jobs.Manager
	reg *tools.Registry
	tc  *tools.Context
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	opts.Jobs = m
	reg := tools.NewRegistry()
	reg.Register(New(opts))
	return &fixture{t: t, m: m, reg: reg, tc: &tools.Context{Workspace: tools.Canonical(t.TempDir())}}
}

// call runs Bash with in through the registry (normalise, validate,
// execute). A refusal comes back as its model-visible text.
func (f *fixture) call(ctx context.Context, in string) (tools.Result, string) {
	f.t.Helper()
	res, err := f.reg.Execute(ctx, f.tc, "Bash", json.RawMessage(in))
	if err != nil {
		return res, tools.AsError(err).Render("Bash")
	}
	return res, ""
}

// mustCall fails the test on a refusal.
func (f *fixture) mustCall(in string) tools.Result {
	f.t.Helper()
	res, refusal := f.call(context.Background(), in)
	if refusal != "" {
		f.t.Fatalf("%s refused: %s", in, refusal)
	}
	return res
}

// startBackground starts command as a background job and returns its id.
func (f *fixture) startBackground(command string) string {
	f.t.Helper()
	in, _ := json.Marshal(map[string]any{"command": command, "background": true})
	res := f.mustCall(string(in))
	id, _ := res.Metadata["task_id"].(string)
	if id == "" {
		f.t.Fatalf("no task id in %+v", res)
	}
	return id
}

// awaitRunning returns the first running job, waiting for one to start.
func (f *fixture) awaitRunning() jobs.Snapshot {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := f.m.Changed()
		for _, s := range f.m.List() {
			if s.Status == jobs.Running {
				return s
			}
		}
		select {
		case <-changed:
		case <-deadline:
			f.t.Fatal("no job started")
		}
	}
}
