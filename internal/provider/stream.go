package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Stream is one streaming request, opened on the first Recv and re-sent
// per the retry policy. It is not safe for concurrent use.
type Stream struct {
	c    *Client
	ctx  context.Context
	url  string
	body []byte
	try  *retrier

	at       *attempt // the open attempt; nil between attempts
	sse      *sseReader
	ad       *chatAdapter
	content  bool       // this attempt delivered an event other than MessageStart
	pending  *RetryInfo // announced retry, performed on the next Recv
	finished bool
	err      error // terminal
}

// Recv returns the next event. After EvMessageStop it returns io.EOF. A
// failure that will be retried is an EvRetry event (with Retract set when
// the failed attempt had streamed content, which is then void); a terminal
// failure is the error: *HTTPError, *NetworkError, *StreamError,
// *LimitError, possibly inside a *GaveUpError, or the context's error.
func (s *Stream) Recv() (StreamEvent, error) {
	for {
		if len(s.ad.queue) > 0 {
			ev := s.ad.queue[0]
			s.ad.queue = s.ad.queue[1:]
			if ev.Kind != EvMessageStart && ev.Kind != EvRetry {
				s.content = true
			}
			return ev, nil
		}
		switch {
		case s.finished:
			return StreamEvent{}, io.EOF
		case s.err != nil:
			return StreamEvent{}, s.err
		case s.at == nil:
			if err := s.connect(); err != nil {
				s.failed(err)
			}
			continue
		}
		data, err := s.sse.next()
		switch {
		case err == nil:
			s.ad.feed(data)
		case err == errDone:
			s.finish()
		case err == io.EOF && s.ad.finished:
			s.finish()
		default:
			s.failed(s.readError(err))
		}
	}
}

// connect waits out an announced retry, then opens the next attempt.
func (s *Stream) connect() error {
	if p := s.pending; p != nil {
		s.pending = nil
		if err := sleepCtx(s.ctx, p.Wait); err != nil {
			return err
		}
	}
	s.try.attempts++
	at, body, err := s.c.sendAdapting(func(b []byte) (*attempt, error) {
		return s.c.once(s.ctx, s.try.deadline, s.url, b, true)
	}, s.body)
	s.body = body
	if err != nil {
		return err
	}
	s.at, s.sse = at, newSSEReader(at.body)
	return nil
}

// failed ends the open attempt and either announces a retry or records the
// terminal error.
func (s *Stream) failed(err error) {
	s.release()
	if s.ctx.Err() != nil {
		s.err = s.ctx.Err()
		return
	}
	info, terminal := s.try.next(err, time.Now())
	if terminal != nil {
		s.err = terminal
		return
	}
	info.Retract = s.content
	s.content = false
	s.ad = newChatAdapter()
	s.pending = &info
	s.ad.push(StreamEvent{Kind: EvRetry, Retry: &info})
}

func (s *Stream) finish() {
	s.ad.finish()
	s.finished = true
	s.release()
}

// readError names a failed read of the open stream.
func (s *Stream) readError(err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return le
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the stream ended before the response finished")
	}
	return s.c.bodyError(s.ctx, s.at, err)
}

func (s *Stream) release() {
	if s.at != nil {
		s.at.close()
		s.at = nil
	}
}

// Close releases the connection; it is safe to call more than once.
func (s *Stream) Close() error {
	s.release()
	return nil
}

// Response is the result of a non-streaming request.
type Response struct {
	Content    []Block
	Usage      *Usage
	StopReason string
}

// Text joins the response's text blocks.
func (r *Response) Text() string { return Message{Content: r.Content}.Text() }

func decodeResponse(raw []byte) (*Response, error) {
	var w struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &StreamError{Err: fmt.Errorf("could not decode the provider response: %w", err)}
	}
	out := &Response{Usage: w.Usage.usage()}
	if len(w.Choices) == 0 {
		return out, nil
	}
	ch := w.Choices[0]
	out.StopReason = ch.FinishReason
	if ch.Message.ReasoningContent != "" {
		out.Content = append(out.Content, ThinkingBlock(ch.Message.ReasoningContent))
	}
	if ch.Message.Content != "" {
		out.Content = append(out.Content, TextBlock(ch.Message.Content))
	}
	for i, tc := range ch.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		name := DecodeToolName(tc.Function.Name)
		if name == "" {
			name = "unknown_tool"
		}
		input := json.RawMessage(tc.Function.Arguments)
		if !json.Valid(input) {
			input = nil
		}
		out.Content = append(out.Content, ToolUseBlock(id, name, input))
	}
	return out, nil
}
