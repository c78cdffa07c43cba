package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/codewhale/codewhale/internal/engine"
)

// exitSchema is exec's exit code when the final answer still fails
// --json-schema after the repair turn (CONTRACT.md §13.4).
const exitSchema = 3

// answerSchema is --json-schema FILE: the JSON Schema the final answer
// must be a JSON value of (CONTRACT.md §13.2).
type answerSchema struct {
	raw    string
	schema *jsonschema.Schema
}

// loadAnswerSchema reads and compiles the person's schema file (their own
// path; its text is sent as their instruction).
func loadAnswerSchema(path string) (*answerSchema, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--json-schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("file:///answer.schema.json", bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("--json-schema %s is not JSON: %w", path, err)
	}
	s, err := c.Compile("file:///answer.schema.json")
	if err != nil {
		return nil, fmt.Errorf("--json-schema %s is not a usable JSON Schema: %w", path, err)
	}
	return &answerSchema{raw: strings.TrimSpace(string(raw)), schema: s}, nil
}

// instruction is what the system prompt gains: the schema and the shape of
// the answer.
func (a *answerSchema) instruction() string {
	return "The person needs a machine-readable answer. When the task is done, your final message must be exactly one " +
		"JSON value that validates against this JSON Schema, with no prose and no code fence around it:\n" + a.raw
}

// schemaInstruction is a's instruction, "" without a schema.
func schemaInstruction(a *answerSchema) string {
	if a == nil {
		return ""
	}
	return a.instruction()
}

// check decodes answer (a single ```json fence around it is tolerated) and
// validates it; the error lists every violation.
func (a *answerSchema) check(answer string) (any, error) {
	s := strings.TrimSpace(answer)
	if body, ok := strings.CutPrefix(s, "```"); ok && strings.HasSuffix(body, "```") {
		body = strings.TrimSuffix(body, "```")
		if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.ContainsAny(body[:i], "{[\"") {
			body = body[i+1:]
		}
		s = strings.TrimSpace(body)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the final answer is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the final answer holds more than one JSON value")
	}
	if err := a.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		var lines []string
		for _, u := range ve.BasicOutput().Errors {
			if u.Error != "" && !strings.HasPrefix(u.Error, "doesn't validate with") {
				lines = append(lines, fmt.Sprintf("at %q: %s", "/"+strings.TrimPrefix(u.InstanceLocation, "/"), u.Error))
			}
		}
		if len(lines) == 0 {
			lines = append(lines, ve.Error())
		}
		return nil, errors.New("the final answer does not validate against the JSON Schema:\n  " + strings.Join(lines, "\n  "))
	}
	return v, nil
}

// structuredTurn runs the turn and checks its final answer; an answer that
// fails gets one repair turn naming the errors. It returns the last turn's
// end (with both turns' usage and steps), the value, and the errors when
// the repaired answer fails too.
func structuredTurn(ctx context.Context, eng *engine.Engine, send engine.SendMessage, out *execPrinter, a *answerSchema) (engine.TurnComplete, any, error) {
	reply, _ := eng.RunTurn(ctx, send, out.event)
	if reply.Done.Status != engine.TurnCompleted || reply.Done.ApprovalRequired {
		return reply.Done, nil, nil
	}
	v, err := a.check(reply.Text)
	if err == nil {
		return reply.Done, v, nil
	}
	first := reply.Done
	repair := engine.SendMessage{Provenance: engine.ProvenanceUser, Content: err.Error() +
		"\nReply again with only the corrected JSON value, valid against the schema you were given."}
	reply, _ = eng.RunTurn(ctx, repair, out.event)
	done := reply.Done
	done.Usage.Add(&first.Usage)
	done.Steps += first.Steps
	if done.Status != engine.TurnCompleted {
		return done, nil, nil
	}
	v, err = a.check(reply.Text)
	return done, v, err
}
