package app

import (
	"context"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// spawnChild implements agent.Spawner: it builds the child's engine and
// runs it until ctx (the child's lifetime) ends.
func (a *App) spawnChild(ctx context.Context, cc agent.ChildConfig) (agent.Run, error) {
	eng, sub, err := a.childFactory(cc)
	if err != nil {
		return nil, err
	}
	if sub != nil {
		// The child's own sub-agents end with it.
		context.AfterFunc(ctx, func() { sub.Drain(context.Background(), 0, agentSettle) })
	}
	go eng.Run(ctx)
	return EngineRun{Engine: eng}, nil
}

// EngineRun is an agent.Run over an engine whose Run loop is going.
type EngineRun struct{ Engine *engine.Engine }

// Turn runs one sub-agent turn; its input is a handoff, never the user's.
func (r EngineRun) Turn(ctx context.Context, prompt string, progress func(agent.Progress)) agent.Receipt {
	reply, err := r.Engine.RunTurn(ctx, engine.SendMessage{Content: prompt, Provenance: engine.ProvenanceSubagent},
		func(ev engine.Event) {
			var p agent.Progress
			if su, ok := ev.(engine.SessionUpdated); ok {
				p.Start, p.Messages = su.Start, su.Messages
			}
			progress(p)
		})
	if err != nil {
		return agent.Receipt{Outcome: agent.TurnFailed, Reply: reply.Text, Error: "the sub-agent engine stopped"}
	}
	d := reply.Done
	rec := agent.Receipt{Outcome: agent.TurnCompleted, MaxStepsReached: d.MaxStepsReached, Reply: reply.Text,
		Error: d.Error, Steps: d.Steps, Usage: d.Usage}
	switch d.Status {
	case engine.TurnFailed:
		rec.Outcome = agent.TurnFailed
	case engine.TurnInterrupted:
		rec.Outcome = agent.TurnInterrupted
	}
	return rec
}

// Steer sends text into the running turn.
func (r EngineRun) Steer(text string) { r.Engine.Submit(engine.Steer{Text: text}) }
