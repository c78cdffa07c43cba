package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/toolset"
)

// pricedRun is a child that answers at once having used a million input
// tokens.
type pricedRun struct{}

func (pricedRun) Turn(_ context.Context, _ string, progress func(agent.Progress)) agent.Receipt {
	progress(agent.Progress{})
	return agent.Receipt{Outcome: agent.TurnCompleted, Reply: "ok", Usage: provider.Usage{InputTokens: 1_000_000}}
}

func (pricedRun) Steer(string) {}

// /agents lists the defined types with their sources, tools, models and
// trust, and the files that did not load; trust, show and validate act on
// them; /jobs tells the launch pace once the provider pushed back; the
// status line and /cost add the sub-agents, priced at their own model.
func TestAgentsCommandAndSubagentCosts(t *testing.T) {
	t.Parallel()
	def, err := os.ReadFile(filepath.Join("..", "projectctx", "testdata", "claude-agents", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ws := projectDir(t, map[string]string{".claude/agents/code-reviewer.md": string(def),
		".codewhale/agents/bad.md": "---\ndescription: x\ntools: Read, Frobnicate\n---\nbody\n"})
	mgr := agent.NewManager(agent.Options{DefaultModel: "deepseek-v4-flash",
		Spawner: agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) { return pricedRun{}, nil })})
	t.Cleanup(func() { mgr.Drain(context.Background(), 0, 5*time.Second) })
	d := newDirect(t, 220, 60, func(o *Options) {
		o.Workspace, o.Home, o.Agents = ws, home, mgr
		o.Project = projectctx.Load(projectctx.Options{Home: home, Workspace: ws, KnownTool: toolset.KnownTool})
		o.Prices["deepseek-v4-flash"] = config.Price{Input: 0.5, CachedInput: 0.5, Output: 1}
	})
	d.submit("/agents")
	d.mustShow("Sub-agent types (1 defined", "code-reviewer — Reviews code changes for correctness",
		"tools File (reads only), Bash · model [agents] default_model or the session's · project .claude/agents",
		"not trusted: review it, then /agents trust", "Not loaded (1):", `bad.md: tools: "Frobnicate" is not a tool codewhale has`,
		"This session: 0 sub-agent(s) running, 0 queued. Sub-agent launches: unthrottled")
	d.submit("/agents trust")
	d.mustShow("Trusted 1 project sub-agent type(s) (code-reviewer)")
	d.submit("/agents validate")
	d.mustShow("Not loaded (1):")
	d.submit("/agents show nope")
	d.mustShow(`Error: No sub-agent type named "nope". Types: code-reviewer`)
	d.submit("/agents show code-reviewer")
	d.mustShow("Trusted: yes (/agents trust recorded this content)", `Note: model "sonnet" is Claude Code's`,
		"You are a focused code reviewer for the 1Code desktop app.")
	d.key("esc")

	tool := agent.New(mgr, nil)
	res, err := tools.Execute(context.Background(), tool, &tools.Context{Mode: posture.Act}, json.RawMessage(`{"prompt":"count"}`))
	if err != nil || !res.Success {
		t.Fatalf("start: %v %s", err, res.Content)
	}
	if _, settled := mgr.Wait(context.Background(), nil, "all", 10*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	d.mustShow("1.0M tok · $0.500") // the status line: the child's million at the flash price
	d.submit("/cost")
	d.mustShow("With sub-agents: $0.500. Sub-agents by model:", "deepseek-v4-flash: 1.0M tok, $0.500")
	mgr.Admission().RateLimited()
	d.runCmd(d.submit("/jobs"))
	d.mustShow("Sub-agents: 0 running, 0 queued (agent status lists them). Sub-agent launches: paced at 32/s after 1 rate limit(s) (429)")
}
