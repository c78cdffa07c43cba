package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/provider"
)

// maxInputLine bounds one stdin line: an image at the 20 MiB source limit
// in base64, with room for the rest of the message.
const maxInputLine = 32 << 20

// streamInput reads an agent run's messages from stdin, one JSON object a
// line (--input-format stream-json, CONTRACT.md §13.3):
//
//	{"type":"user","message":{"role":"user","content":"text" | [part, …]}}
//
// where a part is {"type":"text","text":…}, {"type":"image","source":
// {"type":"base64","media_type":…,"data":…}}, {"type":"image_url",
// "image_url":{"url":"data:…;base64,…"}} or {"type":"image","path":…} (a
// file inside the workspace). Every image goes through internal/images as
// an attached file does; nothing is fetched.
type streamInput struct {
	sc   *bufio.Scanner
	cfg  *config.Config
	line int
	imgs int
}

func newStreamInput(r io.Reader, cfg *config.Config) *streamInput {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxInputLine)
	return &streamInput{sc: sc, cfg: cfg}
}

type inputLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type inputPart struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Path   string `json:"path"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// next is the next message as the engine takes it; io.EOF after the last.
// An error names the line and what to send instead.
func (s *streamInput) next(ctx context.Context) (engine.SendMessage, error) {
	for s.sc.Scan() {
		s.line++
		if strings.TrimSpace(s.sc.Text()) == "" {
			continue
		}
		send, err := s.parse(ctx, s.sc.Bytes())
		if err != nil {
			return send, fmt.Errorf("stdin line %d: %w", s.line, err)
		}
		return send, nil
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return engine.SendMessage{}, fmt.Errorf("stdin line %d is over %d MiB: send an image over 20 MiB as a smaller file", s.line+1, maxInputLine>>20)
		}
		return engine.SendMessage{}, fmt.Errorf("reading stdin: %w", err)
	}
	return engine.SendMessage{}, io.EOF
}

func (s *streamInput) parse(ctx context.Context, raw []byte) (engine.SendMessage, error) {
	var in inputLine
	if err := json.Unmarshal(raw, &in); err != nil {
		return engine.SendMessage{}, fmt.Errorf("not a JSON object (%w); send {\"type\":\"user\",\"message\":{\"content\":…}}", err)
	}
	if in.Type != "user" || (in.Message.Role != "" && in.Message.Role != "user") {
		return engine.SendMessage{}, fmt.Errorf("type %q, role %q: only user messages are read", in.Type, in.Message.Role)
	}
	send := engine.SendMessage{Provenance: engine.ProvenanceUser}
	var text string
	if err := json.Unmarshal(in.Message.Content, &text); err == nil {
		send.Content = text
		return send, nil
	}
	var parts []inputPart
	if err := json.Unmarshal(in.Message.Content, &parts); err != nil {
		return send, errors.New("message.content must be a string or an array of parts")
	}
	var texts []string
	for i, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
			continue
		}
		b, err := s.image(ctx, p)
		if err != nil {
			return send, fmt.Errorf("part %d: %w", i+1, err)
		}
		send.Images = append(send.Images, b)
	}
	send.Content = strings.Join(texts, "\n")
	return send, nil
}

// image is one image part as a message block.
func (s *streamInput) image(ctx context.Context, p inputPart) (provider.Block, error) {
	s.imgs++
	label := fmt.Sprintf("stdin image %d", s.imgs)
	var data string
	switch {
	case p.Type == "image" && p.Path != "":
		prep, err := images.File(ctx, s.cfg.Workspace, s.cfg.WorkspaceTrust, p.Path, images.Options{})
		if err != nil {
			return provider.Block{}, err
		}
		return prep.Block(p.Path), nil
	case p.Type == "image" && p.Source != nil && p.Source.Type == "base64":
		data = p.Source.Data
	case p.Type == "image_url" && p.ImageURL != nil:
		_, b64, ok := strings.Cut(p.ImageURL.URL, ";base64,")
		if !ok || !strings.HasPrefix(p.ImageURL.URL, "data:") {
			return provider.Block{}, errors.New("image_url must be a base64 data: URL; codewhale fetches no image")
		}
		data = b64
	default:
		return provider.Block{}, fmt.Errorf("type %q: a part is text, image (source base64, or path) or image_url (a data: URL)", p.Type)
	}
	if len(data) > base64.StdEncoding.EncodedLen(images.MaxSourceBytes) {
		return provider.Block{}, fmt.Errorf("the image is over the %d MiB limit", images.MaxSourceBytes>>20)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return provider.Block{}, fmt.Errorf("the image's base64 does not decode: %w", err)
	}
	prep, err := images.Prepare(ctx, raw, images.Options{})
	if err != nil {
		return provider.Block{}, err
	}
	return prep.Block(label), nil
}

// runInputTurns runs each stdin message as a turn, in order, until stdin
// ends or a turn does not complete; it returns the last turn's end with
// the usage of all of them. A line that cannot be read ends the run as a
// failed turn naming it; the turns before it stand.
func runInputTurns(ctx context.Context, eng *engine.Engine, in *streamInput, out *execPrinter) engine.TurnComplete {
	var done engine.TurnComplete
	var usage provider.Usage
	for turns := 0; ; turns++ {
		send, err := in.next(ctx)
		switch {
		case errors.Is(err, io.EOF) && turns == 0:
			err = errors.New("stdin held no message: send {\"type\":\"user\",\"message\":{\"content\":…}} lines")
		case errors.Is(err, io.EOF):
			done.Usage = usage
			return done
		}
		if err != nil {
			done = engine.TurnComplete{Status: engine.TurnFailed, Error: err.Error(), ErrorCategory: "invalid_input", Usage: usage}
			out.event(engine.Error{ErrorEnvelope: engine.ErrorEnvelope{Message: err.Error(), Category: "invalid_input", Severity: "error"}})
			return done
		}
		reply, _ := eng.RunTurn(ctx, send, out.event)
		done = reply.Done
		usage.Add(&done.Usage)
		if done.Status != engine.TurnCompleted {
			done.Usage = usage
			return done
		}
	}
}
