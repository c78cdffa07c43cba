package engine_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/recorded"
)

// said is what one recorded response says, read by a decoder written for
// this test alone (not the provider's): its reasoning, its text and its
// tool calls. It is the oracle the engine's transcript is held to.
type said struct {
	reasoning, text string
	calls           []fakemodel.Call
}

func decodeRecorded(t *testing.T, body []byte) said {
	t.Helper()
	var s said
	byKey := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    *int
						ID       string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("a recorded frame does not parse: %v: %s", err, data)
		}
		var raw struct {
			Choices []struct {
				Delta map[string]any
			}
		}
		_ = json.Unmarshal([]byte(data), &raw)
		for i, ch := range raw.Choices {
			d := ch.Delta
			r, _ := d["reasoning_content"].(string)
			if r == "" {
				r, _ = d["reasoning"].(string)
			}
			s.reasoning += r
			text, _ := d["content"].(string)
			s.text += text
			for _, tc := range c.Choices[i].Delta.ToolCalls {
				key := tc.ID
				if tc.Index != nil {
					key = "#" + string(rune('0'+*tc.Index))
				}
				n, seen := byKey[key]
				if !seen {
					n = len(s.calls)
					byKey[key] = n
					s.calls = append(s.calls, fakemodel.Call{ID: tc.ID, Name: tc.Function.Name})
				}
				s.calls[n].Args += tc.Function.Arguments
			}
		}
	}
	return s
}

// CONTRACT.md §10.6: real streams from DeepSeek and seven other servers —
// OpenRouter (two upstream models), llama.cpp, Groq, Z.AI, xAI, Mistral —
// give the engine the same transcript and tool calls as the same content
// streamed in DeepSeek's format by the fake model. Each recording's first
// response calls a tool; where the recording has a second (the answer after
// the tool result) it is replayed too.
// README.md "Providers: OpenRouter, local models, your gateway": streams recorded from eight real servers replay.
func TestRecordedStreamsGiveTheDeepSeekTranscript(t *testing.T) {
	t.Parallel()
	want := map[string]string{ // the tool each recording calls first
		"deepseek-tool": "weather", "openrouter-glm-tool": "weather", "openrouter-kimi-tool": "weather",
		"llamacpp-gpt-oss-tool": "weather", "groq-kimi-k2-tool": "weather", "zai-glm-tool": "weather",
		"xai-grok-code-fast-multi-tool": "add", "mistral-tool": "weather",
	}
	if len(recorded.Names()) != len(want) {
		t.Fatalf("recordings %v, expected %d", recorded.Names(), len(want))
	}
	for _, name := range recorded.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			turns := recorded.Turns(name)
			var replay, scripted []fakemodel.Reply
			for _, body := range turns {
				s := decodeRecorded(t, body)
				replay = append(replay, fakemodel.Reply{Raw: body})
				scripted = append(scripted, fakemodel.Reply{Reasoning: s.reasoning, Text: s.text, Calls: s.calls})
			}
			first := decodeRecorded(t, turns[0])
			if len(first.calls) == 0 || first.calls[0].Name != want[name] || !json.Valid([]byte(first.calls[0].Args)) {
				t.Fatalf("the recording's first answer should call %s with JSON arguments: %+v", want[name], first.calls)
			}
			if len(turns) == 1 {
				replay = append(replay, fakemodel.Text("It is sunny."))
				scripted = append(scripted, fakemodel.Text("It is sunny."))
			}
			got := transcript(t, fakemodel.New(t, replay...))
			ref := transcript(t, fakemodel.New(t, scripted...))
			if got != ref {
				t.Errorf("replayed %s:\n%s\nDeepSeek format, same content:\n%s", name, got, ref)
			}
			if !strings.Contains(got, `"name": "`+want[name]+`"`) {
				t.Errorf("transcript lacks the %s call:\n%s", want[name], got)
			}
		})
	}
}

// transcript runs one turn against srv and returns the history it left.
func transcript(t *testing.T, srv *fakemodel.Server) string {
	t.Helper()
	h := newHarness(t, srv)
	done(t, h.turn("What's the weather in Florence, Italy?"))
	b, err := json.MarshalIndent(h.eng.Snapshot().Messages, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), h.ws, "<workspace>")
}

// CONTRACT.md §10.8: a stream without usage (a server not asked for it, or
// one ignoring stream_options) is reported as unknown, never as zero.
func TestStreamWithoutUsageIsUnknown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakemodel.New(t, fakemodel.Reply{Text: "no usage here"}))
	var got []engine.TurnUsage
	for _, ev := range h.turn("hi") {
		if u, ok := ev.(engine.TurnUsage); ok {
			got = append(got, u)
		}
	}
	if len(got) != 1 || !got[0].Unreported || got[0].Usage.Reported() {
		t.Errorf("usage events %+v", got)
	}
}
