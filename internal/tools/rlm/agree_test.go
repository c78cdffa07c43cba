package rlm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// rlm's published schema, per-action table and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(Options{}), Actions: params.Actions(),
		Samples: map[string]any{"output_feedback": "metadata"}})
}

// Each rlm_<action> replay alias decodes to the canonical input and takes
// the canonical policy; what the canonical tool refuses, the alias refuses.
func TestAliasesDecodeToTheCanonicalInput(t *testing.T) {
	t.Parallel()
	tool := New(Options{})
	inputs := map[string]string{"session_objects": `{}`, "open": `{"name":"s","content":"x"}`,
		"eval": `{"name":"s","code":"print(1)"}`, "configure": `{"name":"s","sub_rlm_max_depth":1}`, "close": `{"name":"s"}`}
	aliases := Aliases(tool)
	if len(aliases) != len(Actions) {
		t.Fatalf("%d aliases", len(aliases))
	}
	for _, a := range aliases {
		action := strings.TrimPrefix(a.Name(), ToolName+"_")
		var args map[string]any
		json.Unmarshal([]byte(inputs[action]), &args)
		via, err := tools.PrepareCall(a, json.RawMessage(inputs[action]))
		args["action"] = action
		in, _ := json.Marshal(args)
		canonical, err2 := tools.PrepareCall(tool, in)
		if err != nil || err2 != nil || string(via.Input) != string(canonical.Input) || via.Policy != canonical.Policy {
			t.Errorf("%s: %v %v\n%+v\n%+v", a.Name(), err, err2, via, canonical)
		}
		if _, err := tools.PrepareCall(a, json.RawMessage(`{"name":7}`)); err == nil {
			t.Errorf("%s: a wrongly typed name was accepted", a.Name())
		}
	}
}

// An open of a url takes the prepared fetch's approval; the fetch runs only
// when the call runs; a URL the Web tool refuses refuses the open, and
// without the Web tool the open fails clearly.
func TestOpenURLTakesTheFetchPolicy(t *testing.T) {
	t.Parallel()
	ran := 0
	tool := New(Options{Python: "/nonexistent/python3", Fetch: func(url string) (tools.Policy, func(context.Context) (string, error), error) {
		if strings.HasPrefix(url, "ftp:") {
			return tools.Policy{}, nil, tools.InvalidInput("only http:// and https:// URLs are supported")
		}
		return tools.Policy{Approval: tools.Explicit, Reason: "fetch 10.0.0.1"}, func(context.Context) (string, error) { ran++; return "", errors.New("fetched " + url) }, nil
	}})
	c, err := tool.Prepare(json.RawMessage(`{"action":"open","url":"http://10.0.0.1/log"}`))
	if err != nil || c.Policy.Approval != tools.Explicit || c.Policy.Reason != "fetch 10.0.0.1" || ran != 0 {
		t.Fatalf("%+v %v ran=%d", c, err, ran)
	}
	if _, err := c.Run(context.Background(), &tools.Context{Workspace: t.TempDir()}); err == nil ||
		err.Error() != "fetched http://10.0.0.1/log" || ran != 1 {
		t.Errorf("run: %v ran=%d", err, ran)
	}
	if _, err := tool.Prepare(json.RawMessage(`{"action":"open","url":"ftp://x/"}`)); err == nil ||
		!strings.Contains(err.Error(), "only http:// and https://") {
		t.Errorf("ftp: %v", err)
	}
	c, err = New(Options{}).Prepare(json.RawMessage(`{"action":"open","url":"https://example.com/"}`))
	if err != nil || c.Policy.Approval != tools.Auto {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := c.Run(context.Background(), &tools.Context{Workspace: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "needs the Web tool, which is off") {
		t.Errorf("no Web tool: %v", err)
	}
}
