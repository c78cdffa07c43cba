package file

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

const planRefusal = "File action=\"%s\" is unavailable in the current mode; nothing was written. Available actions " +
	"here: read, list, search_name, search_content. Switch to Act mode (`/mode act`) for write-capable file work."

// CONTRACT.md §4.5: File's action enum lists exactly what the instance runs, and a Plan instance leaves out the write-
// only fields.
func TestActionEnumFollowsMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts Options
		want []string
	}{
		{"plan", Options{}, []string{"read", "list", "search_name", "search_content"}},
		{"plan ignores patch feature", Options{Patch: true}, []string{"read", "list", "search_name", "search_content"}},
		{"act", Options{Writable: true}, []string{"read", "list", "search_name", "search_content", "write", "edit"}},
		{"act with patch", writable, []string{"read", "list", "search_name", "search_content", "write", "edit", "patch"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tool := New(c.opts)
			props := tool.InputSchema()["properties"].(map[string]any)
			var enum []string
			for _, a := range props["action"].(map[string]any)["enum"].([]any) {
				enum = append(enum, a.(string))
			}
			if !reflect.DeepEqual(enum, c.want) || !reflect.DeepEqual(tool.Actions(), c.want) {
				t.Fatalf("enum %v, actions %v, want %v", enum, tool.Actions(), c.want)
			}
			_, hasContent := props["content"]
			_, hasPatch := props["patch"]
			if hasContent != c.opts.Writable || hasPatch != (c.opts.Writable && c.opts.Patch) {
				t.Errorf("write-only fields: content=%v patch=%v for %+v", hasContent, hasPatch, c.opts)
			}
		})
	}
}

func TestCapabilitiesAndPolicy(t *testing.T) {
	t.Parallel()
	ro, rw := New(Options{}), New(writable)
	if ro.DeclaredApproval() != tools.Auto || rw.DeclaredApproval() != tools.Suggest {
		t.Errorf("declared approval: plan %v, act %v", ro.DeclaredApproval(), rw.DeclaredApproval())
	}
	if got := ro.Capabilities(); !reflect.DeepEqual(got, []tools.Capability{tools.CapReadOnly, tools.CapSandboxable}) {
		t.Errorf("plan capabilities %v", got)
	}
	if got := rw.Capabilities(); len(got) != 4 || got[2] != tools.CapWritesFiles || got[3] != tools.CapRequiresApproval {
		t.Errorf("act capabilities %v", got)
	}
	cases := []struct {
		in       string
		approval tools.Approval
		readOnly bool
	}{
		{`{"action":"read","path":"a"}`, tools.Auto, true},
		{`{"action":"list"}`, tools.Auto, true},
		{`{"action":"search_name","query":"x"}`, tools.Auto, true},
		{`{"action":"search_content","pattern":"x"}`, tools.Auto, true},
		{`{"action":"write","path":"a","content":""}`, tools.Suggest, false},
		{`{"action":"edit","path":"a","search":"x","replace":"y"}`, tools.Suggest, false},
		{`{"action":"patch","replace":[{"path":"a","content":""}]}`, tools.Suggest, false},
	}
	for _, c := range cases {
		p := policyOf(t, rw, json.RawMessage(c.in))
		if p.Approval != c.approval || p.ReadOnly != c.readOnly || p.Parallel != c.readOnly || p.Detached {
			t.Errorf("policy(%s) = %+v, want approval %v read-only %v", c.in, p, c.approval, c.readOnly)
		}
	}
	// Input the decoder refuses has no policy: it never reaches approval.
	for _, in := range []string{`{"path":"a"}`, `not json`, `{"action":42}`, `{"action":"nuke"}`, `{"action":"edit"}`} {
		if c, err := tools.PrepareCall(rw, json.RawMessage(in)); err == nil {
			t.Errorf("%s prepared: %+v", in, c.Policy)
		}
	}
}

// CONTRACT.md §4.6: the exact Plan-mode and patch-disabled refusals (and CONTRACT.md §2.4's action texts).
func TestRefusedInputs(t *testing.T) {
	t.Parallel()
	all := "read, list, search_name, search_content, write, edit, patch"
	cases := []struct {
		name string
		opts Options
		in   string
		want string // exact rendered error
	}{
		{"missing action", writable, `{"path":"a.rs","content":"fn main(){}"}`,
			"Invalid input for tool 'File': File requires an `action` parameter; nothing was run. Pass one of: " + all + "."},
		{"missing action in plan lists read actions only", Options{}, `{}`,
			"Invalid input for tool 'File': File requires an `action` parameter; nothing was run. Pass one of: read, list, search_name, search_content."},
		{"non-string action", writable, `{"action":7}`,
			"Invalid input for tool 'File': File requires `action` to be a string, got 7; nothing was run. Pass one of: " + all + "."},
		{"unknown action", writable, `{"action":"delete","path":"a"}`,
			"Invalid input for tool 'File': Unknown File action \"delete\"; nothing was run. Pass one of: " + all + "."},
		{"non-object input", writable, `["read"]`, "Invalid input for tool 'File': File tool input must be an object"},
		{"plan write", Options{}, `{"action":"write","path":"a","content":"x"}`, strings.ReplaceAll(planRefusal, "%s", "write")},
		{"plan edit", Options{}, `{"action":"edit","path":"a","search":"x","replace":"y"}`, strings.ReplaceAll(planRefusal, "%s", "edit")},
		{"plan patch", Options{Patch: true}, `{"action":"patch","patch":"x"}`, strings.ReplaceAll(planRefusal, "%s", "patch")},
		// NotAvailable text that names no mode word is wrapped by the shared
		// renderer (CONTRACT.md §2.2); the contract's message is inside, whole.
		{"patch disabled", Options{Writable: true}, `{"action":"patch","patch":"x"}`,
			"File action=\"patch\" is unavailable because the patch feature is disabled; " +
				"nothing was written. Available actions here: read, list, search_name, search_content, write, edit. When " +
				"writes are available in this mode, action=\"edit\" replaces a single exact match and action=\"write\" " +
				"replaces the whole file."},
		{"unknown key", writable, `{"action":"read","path":"a","encoding":"utf8"}`,
			"Invalid input for tool 'File': unexpected File read parameter(s): encoding. Allowed parameters are `path`, " +
				"`start_line`, `max_lines`, and `pages`. Required: `path`. The read was not performed."},
		{"unknown key on patch", writable, `{"action":"patch","patch":"x","dry_run":true}`,
			"Invalid input for tool 'File': unexpected File patch parameter(s): dry_run. Allowed parameters are `path`, " +
				"`patch`, `replace`, `changes`, `fuzz`, and `create_if_missing`. Required: one of `patch`, `replace`, or " +
				"`changes`. The patch was not performed."},
		{"key of another action", writable, `{"action":"list","path":".","pattern":"x"}`,
			"Invalid input for tool 'File': unexpected File list parameter(s): pattern. Allowed parameters are `path` " +
				"and `depth`. Required: none. The list was not performed."},
		{"alias conflict", writable, `{"action":"edit","path":"a","search":"x","old_string":"y","replace":"z"}`,
			"Invalid input for tool 'File': File edit received both `search` and its alias `old_string` with different " +
				"values, so the intended argument is ambiguous; nothing was changed. Pass only `search`."},
		{"path alias conflict", writable, `{"action":"read","path":"a","file_path":"b"}`,
			"Invalid input for tool 'File': File read received both `path` and its alias `file_path` with different " +
				"values, so the intended argument is ambiguous; nothing was changed. Pass only `path`."},
		{"missing path alone", writable, `{"action":"read"}`, "Tool 'File' is missing required field 'path'"},
		{"missing path among others", writable, `{"action":"read","start_line":2}`,
			"Invalid input for tool 'File': missing required field 'path'. Input provided: start_line"},
		{"wrong type", writable, `{"action":"read","path":"a","start_line":"3"}`,
			"Invalid input for tool 'File': field 'start_line' must be a non-negative integer; got string. Received: \"3\""},
		{"string true is not a bool", writable, `{"action":"search_content","pattern":"x","literal":"true"}`,
			"Invalid input for tool 'File': field 'literal' must be a boolean; got string. Received: \"true\""},
		{"negative depth", writable, `{"action":"list","depth":-1}`,
			"Invalid input for tool 'File': field 'depth' must be a non-negative integer; got number. Received: -1"},
		{"glob list wrong type", writable, `{"action":"search_content","pattern":"x","include":"*.go"}`,
			"Invalid input for tool 'File': field 'include' must be an array of strings; got string. Received: \"*.go\""},
		{"edit replace must be a string", writable, `{"action":"edit","path":"a","search":"x","replace":[1]}`,
			"Invalid input for tool 'File': field 'replace' must be a string; got array. Received: [1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, c.opts)
			_, err := e.call(c.in)
			got := errText(err)
			if c.name == "patch disabled" {
				got = tools.AsError(err).Msg
			}
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestPlanRefusalIsNotAvailableAndNamesNoWriteAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	_, err := e.call(`{"action":"write","path":"x.txt","content":"y"}`)
	te := tools.AsError(err)
	if te.Kind != tools.KindNotAvailable {
		t.Fatalf("kind %v, want NotAvailable", te.Kind)
	}
	if _, statErr := e.call(`{"action":"read","path":"x.txt"}`); statErr == nil {
		t.Fatal("the refused write created the file")
	}
}

func TestAliasesFold(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	e.put("a.txt", strings.Repeat("line\n", 10))
	cases := []struct {
		name, in, want string
	}{
		{"file_path and offset/limit", `{"action":"read","file_path":"a.txt","offset":2,"limit":1}`, "shown_lines=\"2-2\""},
		{"filePath and line_offset/n_lines", `{"action":"read","filePath":"a.txt","line_offset":3,"n_lines":2}`, "shown_lines=\"3-4\""},
		{"num_lines", `{"action":"read","path":"a.txt","num_lines":1}`, "shown_lines=\"1-1\""},
		{"equal alias and canonical", `{"action":"read","path":"a.txt","file_path":"a.txt","max_lines":1}`, "shown_lines=\"1-1\""},
		{"search_content query/limit", `{"action":"search_content","query":"line","limit":1}`, `"next_offset":1`},
		{"search_name max_results", `{"action":"search_name","query":"a","max_results":1}`, `"name": "a.txt"`},
	}
	for _, c := range cases {
		res := e.callOK(c.in)
		mustContain(t, res.Content, c.want)
	}
	c, err := e.tool.Prepare(json.RawMessage(`{"action":"edit","file_path":"a","old_string":"x","new_string":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := c.Input
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"action": "edit", "path": "a", "search": "x", "replace": "y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normalized %v, want %v", got, want)
	}
}

func TestValidationFeedbackCarriesSchema(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	_, err := e.call(`{"action":"read"}`)
	text := tools.AsError(err).ModelText(Name, e.tool.InputSchema())
	mustContain(t, text, "Tool validation feedback: {\"category\":\"missing_field\",\"bad_field\":\"path\"")
}
