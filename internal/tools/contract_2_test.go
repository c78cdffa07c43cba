package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// contractIn is a synthetic action family's parameters: read takes path
// and limit, write path, force and tags; file_path is an alias of path.
type contractIn struct {
	Action string      `json:"action"`
	Path   string      `json:"path,omitempty"`
	Limit  tools.Count `json:"limit,omitempty"`
	Force  bool        `json:"force,omitempty"`
	Tags   []string    `json:"tags,omitempty"`
	Note   string      `json:"note,omitempty"`
}

func contractActions(family bool) *tools.Actions {
	return &tools.Actions{Field: "action", Family: family, Rules: []tools.Rule{
		{Action: "read", Allowed: []string{"path", "limit", "note"}, Required: []string{"path"}},
		{Action: "write", Allowed: []string{"path", "force", "tags", "note"}, Required: []string{"path"}},
	}, Aliases: []tools.Alias{{From: "file_path", To: "path"}}}
}

// limitDefault is what an absent (or null) limit becomes.
const limitDefault = 20

// familyIn is contractIn under another name: each parameter type is one
// contract (tools.DeriveDeclaredSchemas refuses two with one key).
type familyIn contractIn

var (
	probeParams = tools.NewParams[contractIn]("Probe", tools.ParamOptions[contractIn]{Actions: contractActions(false),
		Check: func(d *tools.Decoded[contractIn]) error {
			if !d.Has("limit") {
				d.In.Limit = limitDefault
			}
			return nil
		}})
	familyParams  = tools.NewParams[familyIn]("probe", tools.ParamOptions[familyIn]{Actions: contractActions(true)})
	defaultParams = tools.NewParams[contractDefaultIn]("Shell", tools.ParamOptions[contractDefaultIn]{
		Actions: &tools.Actions{Field: "action", Default: "run", Rules: []tools.Rule{{Action: "run", Allowed: []string{"path"}}}}})
)

// probeTool is a typed tool over probeParams that counts its decodes and runs.
type probeTool struct {
	tools.Spec
	params          *tools.Params[contractIn]
	actions         []string // nil: every action
	decodes, runs   atomic.Int32
	last            contractIn
	panicsInPrepare bool
}

func newProbe(name string, p *tools.Params[contractIn], actions []string) *probeTool {
	return &probeTool{Spec: tools.Spec{ToolName: name, SchemaFunc: func() map[string]any { return p.SchemaFor(actions) }},
		params: p, actions: actions}
}

func (p *probeTool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	p.decodes.Add(1)
	if p.panicsInPrepare {
		panic("decoder bug")
	}
	d, err := p.params.DecodeFor(raw, p.actions)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(d.Input(), tools.Policy{Approval: tools.Auto, ReadOnly: d.Action == "read"},
		func(context.Context, *tools.Context) (tools.Result, error) {
			p.runs.Add(1)
			p.last = d.In
			return tools.OK("ran " + d.Action), nil
		}), nil
}

func (p *probeTool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, p, tc, in)
}

// refusal is err rendered for tool, failing when there is none.
func refusal(t *testing.T, tool string, err error) string {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no refusal", tool)
	}
	return tools.AsError(err).Render(tool)
}

// CONTRACT.md §2.1: a tool without Prepare (an MCP adapter's shape) takes
// the static policy tools.Spec implements as tools.RawPolicy, whatever the
// input; the two failure channels stay apart: a result that ran and failed
// is no error, a refusal is a *tools.Error of one of eight kinds.
func TestContract21PolicyAndFailureChannels(t *testing.T) {
	t.Parallel()
	var got string
	spec := tools.Spec{ToolName: "mcp_srv_probe", Approve: tools.Auto, ReadOnly: true, Parallel: true,
		Schema: map[string]any{"type": "object"}}
	var _ tools.RawPolicy = &spec
	tool := &recorder{Spec: spec, got: &got}
	for _, in := range []string{`{}`, `{"action":"write"}`, `{"x":[1,2]}`} {
		c, err := tools.PrepareCall(tool, json.RawMessage(in))
		if err != nil || c.Policy != spec.StaticPolicy() {
			t.Errorf("%s: policy %+v, %v; want the static %+v", in, c.Policy, err, spec.StaticPolicy())
		}
	}
	reg := tools.NewRegistry()
	reg.Register(&failing{tools.Spec{ToolName: "fails", Schema: map[string]any{"type": "object"}}})
	res, err := reg.Execute(context.Background(), &tools.Context{}, "fails", nil)
	if err != nil || res.Success || res.Content != "exit status 1" {
		t.Errorf("a run that failed: %+v, %v; want Result{Success:false} and no error", res, err)
	}
	if !tools.OK("x").Success || tools.Failed("x").Success {
		t.Error("OK must succeed and Failed must not")
	}
	kinds := map[tools.ErrorKind]string{tools.KindInvalidInput: "invalid_input", tools.KindMissingField: "missing_field",
		tools.KindPathEscape: "path_escape", tools.KindExecutionFailed: "execution_failed", tools.KindTimeout: "timeout",
		tools.KindCancelled: "cancelled", tools.KindNotAvailable: "not_available", tools.KindPermissionDenied: "permission_denied"}
	for k, want := range kinds {
		if k.Category() != want {
			t.Errorf("kind %d: category %q, want %q", k, k.Category(), want)
		}
	}
	if e := tools.AsError(errors.New("disk full")); e.Kind != tools.KindExecutionFailed || e.Msg != "disk full" {
		t.Errorf("a plain error is %+v; want ExecutionFailed with its text", e)
	}
}

// failing is a tool that ran and failed.
type failing struct{ tools.Spec }

func (failing) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.Failed("exit status 1"), nil
}

// CONTRACT.md §2.2: each kind's model text, word for word, the messages
// that pass through unwrapped (matched ignoring case), and the validation
// feedback line of the four kinds the model can fix.
func TestContract22RefusalTexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  *tools.Error
		want string
	}{
		{tools.InvalidInput("bad"), "Invalid input for tool 'T': bad"},
		{tools.MissingField("path"), "Tool 'T' is missing required field 'path'"},
		{tools.PathEscape("/etc"), "Path escapes workspace: /etc. Use a workspace-relative path or enable trust mode."},
		{tools.Timeout(7), "Tool 'T' timed out after 7s. Try a narrower scope or a longer timeout."},
		{tools.NotAvailable("offline"), "Tool 'T' is not available: offline. Check mode, feature flags, or tool name."},
		{tools.NotAvailable("tool 'x' is not registered"), "tool 'x' is not registered"},
		{tools.NotAvailable("not in the Current Tool Catalog"), "not in the Current Tool Catalog"},
		{tools.NotAvailable("Did you mean: File?"), "Did you mean: File?"},
		{tools.NotAvailable("needs the patch feature flag"), "needs the patch feature flag"},
		{tools.NotAvailable("writes need Act mode"), "writes need Act mode"},
		{tools.NotAvailable("not in operate mode"), "not in operate mode"},
		{tools.NotAvailable("use /mode act"), "use /mode act"},
		{tools.NotAvailable("set allow_shell"), "set allow_shell"},
		{tools.PermissionDenied("no"), "Tool 'T' was denied: no. Adjust approval mode or request permission."},
		{tools.PermissionDenied("Denied by user"), "Denied by user"},
		{tools.PermissionDenied("not in plan mode"), "not in plan mode"},
		{tools.PermissionDenied("allow_shell is off"), "allow_shell is off"},
		{tools.ExecutionFailed("boom"), "boom"},
		{tools.Cancelled("cancelled by the user"), "cancelled by the user"},
	} {
		if got := c.err.Render("T"); got != c.want {
			t.Errorf("Render = %q\nwant     %q", got, c.want)
		}
	}
	schema := map[string]any{"type": "object", "required": []any{"path"}}
	for _, c := range []struct {
		err           *tools.Error
		category, bad string
	}{
		{&tools.Error{Kind: tools.KindInvalidInput, Msg: "x", Field: "limit"}, "invalid_input", "limit"},
		{tools.MissingField("path"), "missing_field", "path"},
		{tools.PathEscape("/etc"), "path_escape", "path"},
		{tools.NotAvailable("offline"), "tool_not_available", "tool_name"},
	} {
		text, fb, ok := strings.Cut(c.err.ModelText("T", schema), "\nTool validation feedback: ")
		if !ok || text != c.err.Render("T") || strings.Contains(fb, "\n") {
			t.Fatalf("%s: %q is not the text and one feedback line", c.category, c.err.ModelText("T", schema))
		}
		var got struct {
			Category         string         `json:"category"`
			BadField         string         `json:"bad_field"`
			ValidShape       map[string]any `json:"valid_shape"`
			Retryable        bool           `json:"retryable"`
			SideEffectStatus string         `json:"side_effect_status"`
		}
		if err := json.Unmarshal([]byte(fb), &got); err != nil {
			t.Fatal(err)
		}
		if got.Category != c.category || got.BadField != c.bad || got.ValidShape["required"] == nil || !got.Retryable ||
			got.SideEffectStatus != "not_started" {
			t.Errorf("%s: feedback %s", c.category, fb)
		}
	}
	if fb := tools.MissingField("path").ModelText("T", nil); !strings.Contains(fb,
		`"valid_shape":{"guidance":"Use the advertised input schema for 'T'","type":"object"}`) {
		t.Errorf("no schema: %s; want the guidance object", fb)
	}
	for _, e := range []*tools.Error{tools.Timeout(1), tools.ExecutionFailed("x"), tools.Cancelled("x"), tools.PermissionDenied("x")} {
		if got := e.ModelText("T", schema); got != e.Render("T") {
			t.Errorf("%s: %q carries feedback", e.Kind.Category(), got)
		}
	}
}

// CONTRACT.md §2.3: null is absent (the default applies); a wrong type is
// refused in the exact words, for every kind the readers know; the preview
// is cut past 120 characters; an absent required field is MissingField
// from an empty object and names the keys sent otherwise.
func TestContract23StrictReading(t *testing.T) {
	t.Parallel()
	tool := newProbe("Probe", probeParams, nil)
	c, err := tools.PrepareCall(tool, json.RawMessage(`{"action":"read","path":"a","limit":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), &tools.Context{}); err != nil || tool.last.Limit != limitDefault {
		t.Errorf("limit null decoded as %d, want the default %d (%v)", tool.last.Limit, limitDefault, err)
	}
	for in, want := range map[string]string{
		`{"action":"write","path":"a","force":"true"}`: `field 'force' must be a boolean; got string. Received: "true"`,
		`{"action":"read","path":7}`:                   `field 'path' must be a string; got number. Received: 7`,
		`{"action":"write","path":["a"]}`:              `field 'path' must be a string; got array. Received: ["a"]`,
		`{"action":"read","path":"a","limit":-1}`:      `field 'limit' must be a non-negative integer; got number. Received: -1`,
		`{"action":"read","path":"a","limit":1.5}`:     `field 'limit' must be a non-negative integer; got number. Received: 1.5`,
		`{"action":"write","path":"a","tags":["x",1]}`: `field 'tags' must be an array of strings; got array. Received: ["x",1]`,
		`{"action":"write","path":"a","tags":"x"}`:     `field 'tags' must be an array of strings; got string. Received: "x"`,
		`{"action":"read","note":"n"}`:                 `missing required field 'path'. Input provided: note`,
	} {
		if got := refusal(t, "Probe", probeParamsErr(in)); got != "Invalid input for tool 'Probe': "+want {
			t.Errorf("%s:\n got %q\nwant %q", in, got, want)
		}
	}
	if _, _, err := args(t, `{"n":"1"}`).Int("n"); refusal(t, "T", err) !=
		`Invalid input for tool 'T': field 'n' must be an integer; got string. Received: "1"` {
		t.Errorf("Int: %v", err)
	}
	if got := refusal(t, "T", args(t, `{}`).Missing("path")); got != "Tool 'T' is missing required field 'path'" {
		t.Errorf("from an empty object: %q", got)
	}
	exact := `"` + strings.Repeat("é", 118) + `"` // 120 characters (more bytes): kept whole
	if got := tools.Preview(json.RawMessage(exact)); got != exact {
		t.Errorf("a 120-character value was cut: %q", got)
	}
	long := `"` + strings.Repeat("é", 119) + `"`
	if got := tools.Preview(json.RawMessage(long)); got != `"`+strings.Repeat("é", 116)+"..." {
		t.Errorf("a 121-character value: %q", got)
	}
}

func probeParamsErr(in string) error {
	_, err := probeParams.Decode(json.RawMessage(in))
	return err
}

// closedIn is a closed single-purpose contract.
type closedIn struct {
	Note string `json:"note,omitempty"`
}

var closedParams = tools.NewParams[closedIn]("closed", tools.ParamOptions[closedIn]{Closed: true})

// CONTRACT.md §2.3: the registry does not validate a typed tool's input
// against its schema again (its decoder decides); a closed contract
// refuses an unnamed key in the schema validator's words; an untyped
// tool's input is validated as sent, naming at most four locations.
func TestContract23SchemaValidation(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	typed := newProbe("Probe", probeParams, nil)
	typed.SchemaFunc = func() map[string]any { // a schema the input breaks: never consulted
		return map[string]any{"type": "object", "required": []any{"never_sent"}}
	}
	reg.Register(typed)
	if _, err := reg.Prepare("Probe", json.RawMessage(`{"action":"read","path":"a"}`)); err != nil {
		t.Errorf("the typed tool's input was validated against its schema again: %v", err)
	}
	_, err := closedParams.Decode(json.RawMessage(`{"note":"x","zzz":1}`))
	if got := refusal(t, "closed", err); got != "Invalid input for tool 'closed': arguments do not match the tool's schema: "+
		"at /: additionalProperties 'zzz' not allowed" {
		t.Errorf("closed contract, unknown key: %q", got)
	}
	props := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		props[k] = map[string]any{"type": "string"}
	}
	var got string
	reg.Register(&recorder{got: &got, Spec: tools.Spec{ToolName: "mcp_srv_six", Schema: map[string]any{"type": "object", "properties": props}}})
	_, err = reg.Prepare("mcp_srv_six", json.RawMessage(`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1}`))
	msg := refusal(t, "mcp_srv_six", err)
	if !strings.HasPrefix(msg, "Invalid input for tool 'mcp_srv_six': arguments do not match the tool's schema: at /") ||
		strings.Count(msg, "at /") != 4 || !strings.HasSuffix(msg, "; and 2 more") {
		t.Errorf("six violations: %q; want four locations and the rest counted", msg)
	}
	if got != "" {
		t.Error("the untyped tool ran despite invalid input")
	}
}

// CONTRACT.md §2.4: the action texts, word for word, long and short (a
// family's non-string action reads as missing); an instance lists only
// the actions it runs; a key outside the action's row is refused before
// anything runs, an alias counting as its canonical key.
func TestContract24ActionFamilies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		family  bool
		actions []string
		in      string
		want    string
	}{
		{false, nil, `{"path":"a"}`, "Probe requires an `action` parameter; nothing was run. Pass one of: read, write."},
		{false, nil, `{"action":true}`, "Probe requires `action` to be a string, got true; nothing was run. Pass one of: read, write."},
		{false, nil, `{"action":"delete"}`, `Unknown Probe action "delete"; nothing was run. Pass one of: read, write.`},
		{false, []string{"read"}, `{"action":"write","path":"a"}`, `Unknown Probe action "write"; nothing was run. Pass one of: read.`},
		{true, nil, `{}`, "probe: missing `action` (one of: read, write)"},
		{true, nil, `{"action":5}`, "probe: missing `action` (one of: read, write)"},
		{true, nil, `{"action":"delete"}`, "probe: invalid action `delete` (one of: read, write)"},
		{true, []string{"read"}, `{"action":"write"}`, "probe: invalid action `write` (one of: read)"},
		{false, nil, `{"action":"read","path":"a","force":true,"zzz":1}`,
			"Probe read does not take `force`, `zzz`; nothing was run. Its fields are: action, path, limit, note."},
		{true, nil, `{"action":"write","path":"a","limit":3}`,
			"probe write does not take `limit`; nothing was run. Its fields are: action, path, force, tags, note."},
	} {
		var err error
		if c.family {
			_, err = familyParams.DecodeFor(json.RawMessage(c.in), c.actions)
		} else {
			_, err = probeParams.DecodeFor(json.RawMessage(c.in), c.actions)
		}
		if err == nil || tools.AsError(err).Msg != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.want)
		}
	}
	tool := newProbe("Probe", probeParams, nil)
	c, err := tools.PrepareCall(tool, json.RawMessage(`{"action":"read","file_path":"a.txt"}`))
	if err != nil || string(c.Input) != `{"action":"read","path":"a.txt"}` {
		t.Errorf("the alias file_path: %v, input %s; want it read as path", err, c.Input)
	}
	d, err := defaultParams.Decode(json.RawMessage(`{"path":"x"}`))
	if err != nil || d.Action != "run" || string(d.Input()) != `{"action":"run","path":"x"}` {
		t.Errorf("a family with a default action: %v %+v", err, d)
	}
}

type contractDefaultIn struct {
	Action string `json:"action,omitempty"`
	Path   string `json:"path,omitempty"`
}

// CONTRACT.md §3.1: Register logs the replacement it makes. Not parallel:
// it swaps the process's default logger.
func TestContract31RegisterWarnsOnReplace(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	reg := tools.NewRegistry()
	reg.Register(&failing{tools.Spec{ToolName: "Probe"}})
	if buf.Len() != 0 {
		t.Fatalf("a first registration logged: %s", buf.String())
	}
	reg.Register(&failing{tools.Spec{ToolName: "Probe"}})
	if out := buf.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "tool=Probe") {
		t.Errorf("replacing Probe logged %q; want a warning naming it", out)
	}
}

// CONTRACT.md §3.1: the listing operations, APITools' byte order, callers
// and each tool's own defer_loading, its memo dropped by every change;
// Prepare decodes once and runs nothing, Run runs the bound value.
func TestContract31Operations(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	probe := newProbe("Probe", probeParams, nil)
	for _, tl := range []tools.Tool{probe, &failing{tools.Spec{ToolName: "alpha", Deferred: true}},
		&failing{tools.Spec{ToolName: "Zed"}}, &failing{tools.Spec{ToolName: "_hidden", Hidden: true}}} {
		reg.Register(tl)
	}
	if got := strings.Join(reg.Names(), ","); got != "Probe,Zed,_hidden,alpha" || reg.Len() != 4 {
		t.Errorf("Names %s (byte order), Len %d", got, reg.Len())
	}
	if tl := reg.Tools(); len(tl) != 4 || tl[0] != tools.Tool(probe) || tl[3].Name() != "alpha" {
		t.Errorf("Tools %v; want them in Names' order", tl)
	}
	api := reg.APITools()
	var listed []string
	for _, pt := range api {
		listed = append(listed, pt.Name)
		if len(pt.AllowedCallers) != 1 || pt.AllowedCallers[0] != "direct" || pt.DeferLoading == nil ||
			*pt.DeferLoading != (pt.Name == "alpha") {
			t.Errorf("%s: callers %v, defer_loading %v", pt.Name, pt.AllowedCallers, pt.DeferLoading)
		}
	}
	if strings.Join(listed, ",") != "Probe,Zed,alpha" {
		t.Errorf("APITools %v; want the visible tools in byte order", listed)
	}
	if !reg.Remove("Zed") || len(reg.APITools()) != 2 {
		t.Error("Remove did not reach APITools")
	}
	if _, ok := reg.Get("Zed"); ok || reg.Contains("Zed") {
		t.Error("a removed tool is still there")
	}
	c, err := reg.Prepare("Probe", json.RawMessage(`{"action":"read","path":"a"}`))
	if err != nil || probe.decodes.Load() != 1 || probe.runs.Load() != 0 {
		t.Fatalf("Prepare: %v, %d decodes, %d runs; want one decode and no run", err, probe.decodes.Load(), probe.runs.Load())
	}
	if c.Tool != tools.Tool(probe) || !c.Policy.ReadOnly || string(c.Input) != `{"action":"read","path":"a"}` {
		t.Errorf("the prepared call: tool %v, policy %+v, input %s", c.Tool.Name(), c.Policy, c.Input)
	}
	if res, err := c.Run(context.Background(), &tools.Context{}); err != nil || res.Content != "ran read" ||
		probe.decodes.Load() != 1 || probe.runs.Load() != 1 {
		t.Errorf("Run: %+v %v; decodes %d", res, err, probe.decodes.Load())
	}
	if _, err := reg.Execute(context.Background(), &tools.Context{}, "Probe", json.RawMessage(`{"action":"write","path":"b"}`)); err != nil ||
		probe.decodes.Load() != 2 || probe.runs.Load() != 2 {
		t.Errorf("Execute is Prepare plus Run: %v, %d decodes, %d runs", err, probe.decodes.Load(), probe.runs.Load())
	}
	_, err = reg.Prepare("probe", json.RawMessage(`{}`))
	if e := tools.AsError(err); e.Kind != tools.KindNotAvailable || e.Render("probe") != "tool 'probe' is not registered" {
		t.Errorf("an unknown name: %v", err)
	}
}

// CONTRACT.md §3.1: a tool that panics while its call is prepared is
// refused like one that panics while it runs, under the name that was
// called (a replay alias's own), and nothing propagates.
func TestContract31PanicWhilePreparing(t *testing.T) {
	t.Parallel()
	probe := newProbe("Probe", probeParams, nil)
	probe.panicsInPrepare = true
	reg := tools.NewRegistry()
	reg.Register(probe)
	reg.Register(tools.NewActionAlias(probe, "probe_read", "read"))
	for _, name := range []string{"Probe", "probe_read"} {
		_, err := reg.Prepare(name, json.RawMessage(`{"action":"read","path":"a"}`))
		e := tools.AsError(err)
		if err == nil || e.Kind != tools.KindExecutionFailed || e.Msg != "tool '"+name+"' failed with an internal error: decoder bug" {
			t.Errorf("%s: %v; want the internal-error refusal naming %s", name, err, name)
		}
	}
	_, err := reg.Execute(context.Background(), &tools.Context{}, "zeta_absent", nil)
	if err == nil {
		t.Error("an unknown name ran")
	}
	reg.Register(&panicky{tools.Spec{ToolName: "zeta", Schema: map[string]any{"type": "object"}}})
	_, err = reg.Execute(context.Background(), &tools.Context{}, "zeta", nil)
	if e := tools.AsError(err); e.Kind != tools.KindExecutionFailed || e.Msg != "tool 'zeta' failed with an internal error: boom" {
		t.Errorf("a panic while running: %v", err)
	}
}

// CONTRACT.md §3.5: an action alias is hidden, publishes its family's
// schema less `action` (leaving the family's untouched), replaces any
// action sent with its own, and takes the canonical call's policy.
func TestContract35ActionAlias(t *testing.T) {
	t.Parallel()
	probe := newProbe("Probe", probeParams, nil)
	alias := tools.NewActionAlias(probe, "probe_write", "write")
	if alias.ModelVisible() {
		t.Error("the alias is visible")
	}
	schema := alias.InputSchema()
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props["action"]; ok || props["path"] == nil {
		t.Errorf("alias properties %v; want the family's without action", props)
	}
	if req, ok := schema["required"]; ok {
		t.Errorf("alias required %v; the family requires only action", req)
	}
	canon := probe.InputSchema()
	if canon["properties"].(map[string]any)["action"] == nil || canon["required"] == nil {
		t.Errorf("the family's schema lost its action: %v", canon)
	}
	for _, in := range []string{`{"path":"a"}`, `{"action":"read","path":"a"}`} {
		c, err := tools.PrepareCall(alias, json.RawMessage(in))
		if err != nil || string(c.Input) != `{"action":"write","path":"a"}` || c.Policy.ReadOnly || c.Tool != tools.Tool(alias) {
			t.Errorf("%s through the alias: %v %+v", in, err, c)
		}
	}
	_, err := tools.PrepareCall(alias, json.RawMessage(`{"path":"a","limit":1}`))
	if got := refusal(t, "probe_write", err); !strings.Contains(got, "Probe write does not take `limit`") {
		t.Errorf("the alias refuses as the family does: %q", got)
	}
}

// CONTRACT.md §2.2: a wrapped refusal reads as one sentence before the
// hint: a message that ends in a full stop does not get a second one.
func TestWrappedRefusalsEndInOneFullStop(t *testing.T) {
	t.Parallel()
	for _, e := range []*tools.Error{tools.PermissionDenied("needs explicit approval."), tools.NotAvailable("not offered here.")} {
		if got := e.Render("X"); strings.Contains(got, "..") {
			t.Errorf("%q", got)
		}
	}
}
