package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

func args(t *testing.T, s string) tools.Args {
	t.Helper()
	a, err := tools.ParseArgs(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestStrictExtraction(t *testing.T) {
	t.Parallel()
	a := args(t, `{"s":"x","n":3,"neg":-1,"f":1.5,"b":true,"bs":"true","nul":null,"list":["a"],"long":"`+strings.Repeat("y", 200)+`"}`)
	if s, ok, err := a.String("s"); s != "x" || !ok || err != nil {
		t.Error("string")
	}
	if _, ok, err := a.String("nul"); ok || err != nil {
		t.Error("null must count as absent")
	}
	cases := []struct {
		get  func() error
		want string
	}{
		{func() error { _, _, err := a.String("n"); return err }, "field 'n' must be a string; got number. Received: 3"},
		{func() error { _, _, err := a.Int("f"); return err }, "field 'f' must be an integer; got number. Received: 1.5"},
		{func() error { _, _, err := a.Uint("neg"); return err }, "field 'neg' must be a non-negative integer; got number. Received: -1"},
		{func() error { _, _, err := a.Bool("bs"); return err }, `field 'bs' must be a boolean; got string. Received: "true"`},
		{func() error { _, _, err := a.Int("long"); return err }, `Received: "` + strings.Repeat("y", 116) + "..."},
		{func() error { _, err := a.RequireString("missing"); return err }, "missing required field 'missing'. Input provided: b, bs, f, list, long, n, neg, s"},
		{func() error { _, err := args(t, `{}`).RequireString("path"); return err }, "Tool 'T' is missing required field 'path'"},
	}
	for i, c := range cases {
		err := c.get()
		if err == nil {
			t.Errorf("%d: no error", i)
			continue
		}
		got := tools.AsError(err).Render("T")
		if !strings.Contains(got, c.want) {
			t.Errorf("%d: %q does not contain %q", i, got, c.want)
		}
	}
	if _, err := tools.ParseArgs(json.RawMessage(`[1]`)); err == nil {
		t.Error("non-object input accepted")
	}
}

func TestActionErrors(t *testing.T) {
	t.Parallel()
	allowed := []string{"read", "list"}
	cases := map[string]string{
		`{}`:                "File requires an `action` parameter; nothing was run. Pass one of: read, list.",
		`{"action":3}`:      "File requires `action` to be a string, got 3; nothing was run. Pass one of: read, list.",
		`{"action":"kill"}`: `Unknown File action "kill"; nothing was run. Pass one of: read, list.`,
	}
	for in, want := range cases {
		_, err := args(t, in).Action("File", allowed, "")
		if err == nil || tools.AsError(err).Msg != want {
			t.Errorf("%s: %v", in, err)
		}
	}
	if a, err := args(t, `{}`).Action("Bash", []string{"run"}, "run"); a != "run" || err != nil {
		t.Error("Bash defaults to run")
	}
	_, err := args(t, `{"action":"x"}`).FamilyAction("tasks", []string{"create", "list"})
	if tools.AsError(err).Msg != "tasks: invalid action `x` (one of: create, list)" {
		t.Errorf("family: %v", err)
	}
	if got := tools.PeekAction(json.RawMessage(`{"action":"edit"}`), "read"); got != "edit" {
		t.Error(got)
	}
	if got := tools.PeekAction(json.RawMessage(`not json`), "read"); got != "read" {
		t.Error(got)
	}
}

func TestErrorRendering(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object"}
	cases := []struct {
		err  *tools.Error
		want string
	}{
		{tools.InvalidInput("bad"), "Invalid input for tool 'File': bad\nTool validation feedback: {\"category\":\"invalid_input\",\"bad_field\":null,\"valid_shape\":{\"type\":\"object\"},\"retryable\":true,\"side_effect_status\":\"not_started\"}"},
		{tools.MissingField("path"), "Tool 'File' is missing required field 'path'\nTool validation feedback: {\"category\":\"missing_field\",\"bad_field\":\"path\""},
		{tools.PathEscape("/etc/passwd"), "Path escapes workspace: /etc/passwd. Use a workspace-relative path or enable trust mode.\nTool validation feedback: {\"category\":\"path_escape\",\"bad_field\":\"path\""},
		{tools.Timeout(5), "Tool 'File' timed out after 5s. Try a narrower scope or a longer timeout."},
		{tools.NotAvailable("%s", tools.NotRegistered("x")), "tool 'x' is not registered\nTool validation feedback: {\"category\":\"tool_not_available\",\"bad_field\":\"tool_name\""},
		{tools.NotAvailable("backend offline"), "Tool 'File' is not available: backend offline. Check mode, feature flags, or tool name."},
		{tools.PermissionDenied("no"), "Tool 'File' was denied: no. Adjust approval mode or request permission."},
		{tools.PermissionDenied("'x' is not available in Plan mode — switch"), "'x' is not available in Plan mode — switch"},
		{tools.ExecutionFailed("boom"), "boom"},
	}
	for _, c := range cases {
		if got := c.err.ModelText("File", schema); !strings.HasPrefix(got, c.want) {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
