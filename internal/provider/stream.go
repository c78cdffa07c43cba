package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Stream is an open streaming response. It is not safe for concurrent use.
type Stream struct {
	c       *Client
	ctx     context.Context
	url     string
	body    []byte
	retries int // transparent re-sends left

	resp     io.ReadCloser
	cancel   context.CancelFunc
	idle     *idleReader
	sse      *sseReader
	ad       *chatAdapter
	content  bool // an event other than MessageStart was delivered
	finished bool
}

func (s *Stream) connect() error {
	resp, cancel, err := s.c.open(s.ctx, s.url, s.body, true)
	if err != nil {
		return err
	}
	s.cancel = cancel
	s.idle = newIdleReader(resp.Body, s.c.cfg.IdleTimeout)
	s.resp = s.idle
	s.sse = newSSEReader(s.idle)
	return nil
}

// Recv returns the next event. After EvMessageStop it returns io.EOF. Read
// failures are *StreamError; cancellation returns the context's error.
func (s *Stream) Recv() (StreamEvent, error) {
	for {
		if len(s.ad.queue) > 0 {
			ev := s.ad.queue[0]
			s.ad.queue = s.ad.queue[1:]
			if ev.Kind != EvMessageStart {
				s.content = true
			}
			return ev, nil
		}
		if s.finished {
			return StreamEvent{}, io.EOF
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
			if s.ctx.Err() != nil {
				return StreamEvent{}, s.ctx.Err()
			}
			serr := s.streamError(err)
			if !s.content && s.retries > 0 {
				s.retries--
				s.release()
				if rerr := s.connect(); rerr != nil {
					return StreamEvent{}, rerr
				}
				s.ad = newChatAdapter()
				continue
			}
			return StreamEvent{}, serr
		}
	}
}

func (s *Stream) finish() {
	s.ad.finish()
	s.finished = true
	s.release()
}

func (s *Stream) streamError(err error) *StreamError {
	if s.idle.timedOut.Load() {
		return &StreamError{Timeout: true, Err: fmt.Errorf("no data from the provider for %s (stream idle timeout)", s.c.cfg.IdleTimeout)}
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return &StreamError{Err: errors.New("the stream ended before the response finished")}
	}
	return &StreamError{Err: err}
}

func (s *Stream) release() {
	if s.resp != nil {
		s.resp.Close()
		s.resp = nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

// Close releases the connection; it is safe to call more than once.
func (s *Stream) Close() error {
	s.release()
	return nil
}

// idleReader closes its body when no data arrives for d, so a stalled read
// returns instead of hanging.
type idleReader struct {
	rc       io.ReadCloser
	d        time.Duration
	timer    *time.Timer
	timedOut atomic.Bool
}

func newIdleReader(rc io.ReadCloser, d time.Duration) *idleReader {
	r := &idleReader{rc: rc, d: d}
	r.timer = time.AfterFunc(d, func() { r.timedOut.Store(true); rc.Close() })
	return r
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.timer.Reset(r.d)
	n, err := r.rc.Read(p)
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.timer.Stop()
	return r.rc.Close()
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
