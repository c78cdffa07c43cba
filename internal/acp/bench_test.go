package acp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

// benchAgent is an agent whose connection writes to io.Discard and never
// reads a message.
func benchAgent(b *testing.B) *Agent {
	b.Helper()
	pr, pw := io.Pipe()
	b.Cleanup(func() { pw.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := &Agent{opts: Options{Log: log}, ctx: context.Background(), sessions: map[string]*session{}}
	w := &lockedWriter{w: io.Discard}
	a.conn = sdk.NewAgentSideConnection(a, w, pr)
	a.conn.SetLogger(log)
	return a
}

const deltaText = "a streamed piece of the answer, "

// BenchmarkUpdateEncodingOnly is the floor: the session/update line for
// one text delta, marshalled by encoding/json and written.
func BenchmarkUpdateEncodingOnly(b *testing.B) {
	type msg struct {
		JSONRPC string                  `json:"jsonrpc"`
		Method  string                  `json:"method"`
		Params  sdk.SessionNotification `json:"params"`
	}
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	for b.Loop() {
		m := msg{JSONRPC: "2.0", Method: "session/update", Params: sdk.SessionNotification{SessionId: "s",
			Update: sdk.UpdateAgentMessageText(deltaText)}}
		line, _ := json.Marshal(m)
		_, _ = io.Discard.Write(append(line, '\n'))
	}
}

// BenchmarkUpdateFromEngineEvent is what codewhale pays per streamed
// delta: the engine event translated by the session's pump and sent
// through the SDK's connection.
func BenchmarkUpdateFromEngineEvent(b *testing.B) {
	a := benchAgent(b)
	s := &session{a: a, id: "s", tools: map[string]*toolCall{}}
	ev := engine.MessageDelta{Content: deltaText}
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	for b.Loop() {
		s.handle(ev)
	}
}

// BenchmarkUpdateThroughSDK is the SDK's own send of the same update
// (params encoded, then the envelope around them), without codewhale's
// translation: what separates it from BenchmarkUpdateEncodingOnly is the
// SDK's, what separates BenchmarkUpdateFromEngineEvent from it is ours.
func BenchmarkUpdateThroughSDK(b *testing.B) {
	a := benchAgent(b)
	ctx := context.Background()
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	for b.Loop() {
		_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: "s", Update: sdk.UpdateAgentMessageText(deltaText)})
	}
}
