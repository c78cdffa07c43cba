package provider

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxSSELine bounds one SSE line (CONTRACT.md §10.6).
const maxSSELine = 10 << 20

var errDone = errors.New("[DONE]")

// sseReader splits a byte stream into SSE event payloads. Only `data:` lines
// count; several in one event are joined with '\n'; a blank line ends the
// event; a final event without its blank line is still returned at EOF.
type sseReader struct {
	r    *bufio.Reader
	data []byte
	has  bool
	long []byte // accumulates a line longer than the bufio buffer
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next event payload. It returns errDone for `[DONE]` and
// io.EOF when the stream ends with no pending event.
func (s *sseReader) next() ([]byte, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				s.addLine(line)
			}
			if err == io.EOF && s.has {
				return s.take()
			}
			return nil, err
		}
		if len(line) == 0 {
			if s.has {
				return s.take()
			}
			continue
		}
		s.addLine(line)
	}
}

func (s *sseReader) take() ([]byte, error) {
	d := s.data
	s.data, s.has = s.data[:0:0], false
	if string(bytes.TrimSpace(d)) == "[DONE]" {
		return nil, errDone
	}
	return d, nil
}

func (s *sseReader) addLine(line []byte) {
	if !bytes.HasPrefix(line, []byte("data:")) {
		return // event:, id:, retry:, comments and unknown fields are ignored
	}
	v := line[len("data:"):]
	if len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	if s.has {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, v...)
	s.has = true
}

// readLine returns one line without its "\n" or "\r\n". The returned slice is
// valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.long) > maxSSELine {
				return nil, &LimitError{What: "SSE line", Limit: maxSSELine}
			}
			line, err = s.r.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	// The loop above stops reading past the cap; the last read can still
	// end a line up to one buffer beyond it.
	if len(line) > maxSSELine {
		return nil, &LimitError{What: "SSE line", Limit: maxSSELine}
	}
	return line, err
}

// chunk is one Chat Completions streaming chunk.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
				Index *int `json:"index"` // Mistral sends none

				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// chatAdapter turns chunks into StreamEvents as the chunks carry them:
// text and reasoning deltas, and tool-call fragments keyed by the call's
// position in the response. It invents no block structure; the engine folds
// the deltas into the answer it stores.
type chatAdapter struct {
	calls    map[string]int // the wire's tool-call index (or id, without one) → the call's position
	queue    []StreamEvent
	finished bool   // a finish_reason arrived
	lastKey  string // the key of the last tool-call fragment, for one with neither index nor id
}

func newChatAdapter() *chatAdapter { return &chatAdapter{calls: map[string]int{}} }

func (a *chatAdapter) push(ev StreamEvent) { a.queue = append(a.queue, ev) }

// feed parses one payload. Malformed JSON frames are skipped silently.
func (a *chatAdapter) feed(data []byte) {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return
	}
	if len(c.Choices) == 0 {
		if u := c.Usage.usage(); u != nil {
			a.push(StreamEvent{Kind: EvMessageDelta, Usage: u})
		}
		return
	}
	ch := &c.Choices[0]
	d := &ch.Delta
	// DeepSeek, llama.cpp, vLLM and Z.AI name reasoning reasoning_content,
	// OpenRouter, Ollama and Groq reasoning; a server sending both means one
	// text twice.
	if r := cmp.Or(d.ReasoningContent, d.Reasoning); r != "" {
		a.push(StreamEvent{Kind: EvThinkingDelta, Text: r})
	}
	if d.Content != "" {
		a.push(StreamEvent{Kind: EvTextDelta, Text: d.Content})
	}
	for _, tc := range d.ToolCalls {
		ev := StreamEvent{Kind: EvToolCallDelta, Text: tc.Function.Arguments}
		key := a.callKey(tc.Index, tc.ID)
		pos, seen := a.calls[key]
		if !seen {
			pos = len(a.calls)
			a.calls[key] = pos
			ev.ToolID, ev.ToolName = tc.ID, DecodeToolName(tc.Function.Name)
			if ev.ToolID == "" {
				ev.ToolID = fmt.Sprintf("call_%d", pos)
			}
			if ev.ToolName == "" {
				ev.ToolName = "unknown_tool"
			}
		} else if ev.Text == "" {
			continue
		}
		ev.Call = pos
		a.push(ev)
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finished = true
		a.push(StreamEvent{Kind: EvMessageDelta, StopReason: *ch.FinishReason, Usage: c.Usage.usage()})
	}
}

// callKey identifies a tool-call delta's call: its index; without one
// (Mistral), its id; without either, the call before it.
func (a *chatAdapter) callKey(index *int, id string) string {
	switch {
	case index != nil:
		a.lastKey = "#" + strconv.Itoa(*index)
	case id != "":
		a.lastKey = "id:" + id
	}
	return a.lastKey
}

// finish ends the stream.
func (a *chatAdapter) finish() { a.push(StreamEvent{Kind: EvMessageStop}) }
