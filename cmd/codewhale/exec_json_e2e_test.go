package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// publishedSchema compiles docs/exec-output.schema.json at ref ("" for the
// root, "#/$defs/stream_metadata" for stream-json's metadata).
func publishedSchema(t *testing.T, ref string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(e2e.ModuleRoot(t), "docs", "exec-output.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///exec-output.schema.json", strings.NewReader(string(raw))); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///exec-output.schema.json" + ref)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateOutput(t *testing.T, s *jsonschema.Schema, out string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("output does not match docs/exec-output.schema.json: %#v\n%s", err, out)
	}
	return v
}

// CONTRACT.md §13.2, §13.3: the final object and stream-json's metadata
// carry session_id, usage, cost (null without a price), duration_ms and
// num_turns, and match the published schema.
// README.md "Command line": the JSON object's fields match docs/exec-output.schema.json.
func TestExecOutputMatchesPublishedSchema(t *testing.T) {
	t.Parallel()
	use := &fakemodel.Usage{Prompt: 1000, Completion: 20, CacheHit: 600, CacheMiss: 400}
	srv := fakemodel.New(t, fakemodel.Reply{Text: "hi", Usage: use}, fakemodel.Reply{Text: "hi", Usage: use},
		fakemodel.Text("one-shot"), fakemodel.Reply{Text: "streamed", Usage: use})
	c := newCLI(t, srv)
	root := publishedSchema(t, "")
	out, errOut, code := c.run("-p", "say hi", "--output-format", "json")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	m := validateOutput(t, root, out)
	usage, _ := m["usage"].(map[string]any)
	if m["session_id"] == "" || m["num_turns"] != 1.0 || usage["prompt_tokens"] != 1000.0 || usage["cached_tokens"] != 600.0 ||
		usage["completion_tokens"] != 20.0 {
		t.Errorf("accounting: %s", out)
	}
	if cost, ok := m["cost"].(float64); !ok || cost <= 0 {
		t.Errorf("deepseek-v4-pro has a price: cost %v", m["cost"])
	}
	out, _, _ = c.run("-p", "say hi", "--output-format", "json", "-m", "local-unpriced-model")
	if m := validateOutput(t, root, out); m["cost"] != nil {
		t.Errorf("an unpriced model's cost is %v, want null", m["cost"])
	}
	out, _, _ = c.run("exec", "--json", "one-shot please")
	validateOutput(t, root, out)
	out, _, _ = c.run("-p", "stream it", "--output-format", "stream-json")
	evs := lines(t, out)
	meta, _ := evs[len(evs)-2]["meta"].(map[string]any)
	raw, _ := json.Marshal(meta)
	if m := validateOutput(t, publishedSchema(t, "#/$defs/stream_metadata"), string(raw)); m["num_turns"] != 1.0 || m["session_id"] == "" {
		t.Errorf("stream-json metadata: %s", raw)
	}
}

// CONTRACT.md §13.2: --json-schema tells the model the schema, gives a
// failing answer one repair turn naming the errors, and exits 3 with the
// errors on stderr when the repair fails too.
// CONTRACT.md §13.4: a final answer failing --json-schema after its repair turn exits 3.
// README.md "Command line": --json-schema gets one repair turn, then exits 3.
func TestJSONSchemaRepairThenExit3(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text(`{"name": 5}`), fakemodel.Text("```json\n{\"name\": \"whale\"}\n```"),
		fakemodel.Text(`not json`), fakemodel.Text(`{"name": []}`))
	c := newCLI(t, srv)
	schema := filepath.Join(c.home, "answer.schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("-p", "name it", "--json-schema", schema)
	if code != 0 || strings.TrimSpace(out) != "{\n  \"name\": \"whale\"\n}" {
		t.Fatalf("repaired: code %d out %q err %s", code, out, errOut)
	}
	reqs := srv.Requests()
	if sys := reqs[0].Messages()[0]["content"]; !strings.Contains(sys.(string), `"required":["name"]`) {
		t.Errorf("the system prompt lacks the schema")
	}
	if got := reqs[1].LastUserText(); !strings.Contains(got, "does not validate against the JSON Schema") || !strings.Contains(got, `at "/name"`) {
		t.Errorf("the repair turn says %q", got)
	}
	out, errOut, code = c.run("-p", "name it", "--json-schema", schema, "--output-format", "json")
	if code != exitSchema || !strings.Contains(errOut, "does not validate against the JSON Schema") || !strings.Contains(errOut, `at "/name"`) {
		t.Fatalf("two failures: code %d err %s", code, errOut)
	}
	if m := validateOutput(t, publishedSchema(t, ""), out); m["structured_output"] != nil || m["num_turns"] != 2.0 {
		t.Errorf("failed structured run: %s", out)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (one repair turn each)", n)
	}
}
