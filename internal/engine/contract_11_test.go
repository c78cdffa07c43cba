package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// Tests of CONTRACT.md §11 claims the snapshot's unit tests and golden files
// leave unchecked.

// recordingJournal keeps everything the engine persists, as JSON.
type recordingJournal struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (j *recordingJournal) write(v ...any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, err := json.Marshal(v)
	j.buf.Write(b)
	return err
}

func (j *recordingJournal) Append(info engine.SessionInfo, msgs ...provider.Message) error {
	return j.write(info, msgs)
}

func (j *recordingJournal) Rewrite(info engine.SessionInfo, msgs []provider.Message) error {
	return j.write(info, msgs)
}

func (j *recordingJournal) Compacted(info engine.SessionInfo, replaced int, summary provider.Message) error {
	return j.write(info, replaced, summary)
}

func (j *recordingJournal) String() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.buf.String()
}

// wireCatalogDigest is the catalog digest of the tools a request carried on
// the wire (name, description, parameters).
func wireCatalogDigest(t *testing.T, r *fakemodel.Request) (string, int) {
	t.Helper()
	raw, _ := r.Body["tools"].([]any)
	ts := make([]provider.Tool, 0, len(raw))
	for _, x := range raw {
		fn, _ := x.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		desc, _ := fn["description"].(string)
		params, _ := fn["parameters"].(map[string]any)
		ts = append(ts, provider.Tool{Name: provider.DecodeToolName(name), Description: desc, InputSchema: params})
	}
	d, ok := engine.ActiveToolCatalogSHA256(ts)
	if !ok {
		t.Fatal("no digest for the wire tools")
	}
	return d, len(ts)
}

// CONTRACT.md §11.1: each step's snapshot is taken from the tools its request carried (the digest and count of the
// wire's tools), stamped with the turn id TurnStarted announced and the step; it is never persisted and never sent to
// the model.
func TestContract11SnapshotAtEachSeamIsInert(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s1", Name: "tool_search", Args: `{"query":"plan strategy"}`}),
		fakemodel.Text("Done."))
	j := &recordingJournal{}
	h := newHarness(t, srv, func(o *engine.Options) { o.Journal = j })
	evs := h.turn("search then answer")
	started := all[engine.TurnStarted](evs)
	snaps := all[engine.ToolRequestSnapshot](evs)
	reqs := srv.Requests()
	if len(started) != 1 || len(snaps) != 2 || len(reqs) != 2 {
		t.Fatalf("%d TurnStarted, %d snapshots, %d requests", len(started), len(snaps), len(reqs))
	}
	for i, s := range snaps {
		digest, n := wireCatalogDigest(t, reqs[i])
		if s.Snapshot.Step != i || s.Snapshot.TurnID.Value != started[0].TurnID || s.Snapshot.ToolCount != n ||
			s.Snapshot.ActiveToolCatalogSHA256 == nil || *s.Snapshot.ActiveToolCatalogSHA256 != digest {
			t.Errorf("snapshot %d: step %d turn %q count %d digest %v; want turn %q, %d tools, digest %s", i, s.Snapshot.Step,
				s.Snapshot.TurnID.Value, s.Snapshot.ToolCount, s.Snapshot.ActiveToolCatalogSHA256, started[0].TurnID, n, digest)
		}
		if s.Snapshot.Provider.Status != "available" || s.Snapshot.Provider.Model != "deepseek-v4-pro" {
			t.Errorf("snapshot %d provider receipt %+v", i, s.Snapshot.Provider)
		}
	}
	if snaps[1].Snapshot.ToolCount != snaps[0].Snapshot.ToolCount+1 {
		t.Errorf("step 1 must count the tool tool_search loaded: %d then %d", snaps[0].Snapshot.ToolCount, snaps[1].Snapshot.ToolCount)
	}
	for _, marker := range []string{"Prepared Model-Client Tool Request", "prepared model-client request", "active_tool_catalog_sha256",
		"provider_wire_payload"} {
		for i, r := range reqs {
			if strings.Contains(string(r.Raw), marker) {
				t.Errorf("request %d carries the snapshot (%q)", i, marker)
			}
		}
		if strings.Contains(j.String(), marker) {
			t.Errorf("the journal persisted the snapshot (%q)", marker)
		}
	}
	if !strings.Contains(j.String(), "search then answer") {
		t.Error("the journal recorded nothing: the check above proves nothing")
	}
}

// CONTRACT.md §11.1: a step prepared again after compaction (the context-length recovery) gets a fresh snapshot of
// the same step; the provider client's own re-sends of one prepared request add none.
func TestContract11RetriedRequestsAndSnapshots(t *testing.T) {
	t.Parallel()
	cut := fakemodel.New(t)
	cut.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "partial answer", CutAfter: 2} })
	evs := newHarness(t, cut).turn("hi")
	if snaps, n := all[engine.ToolRequestSnapshot](evs), len(cut.Requests()); len(snaps) != 1 || n != 4 {
		t.Errorf("client re-sends: %d snapshots for %d requests, want 1 for 4", len(snaps), n)
	}

	var mu sync.Mutex
	rejected := false
	long := fakemodel.New(t)
	long.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if _, streamed := r.Body["stream"]; !streamed {
			return fakemodel.Text("SUMMARY")
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(r.LastUserText(), "too long once") && !rejected {
			rejected = true
			return fakemodel.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 1000 tokens"}}`}
		}
		return fakemodel.Text(strings.Repeat("long answer ", 200))
	})
	h := newHarness(t, long)
	h.turn("one")
	h.turn("two")
	evs = h.turn("too long once")
	if d := done(t, evs); d.Status != engine.TurnCompleted {
		t.Fatalf("turn %+v", d)
	}
	snaps := all[engine.ToolRequestSnapshot](evs)
	if len(snaps) != 2 || snaps[0].Snapshot.Step != 0 || snaps[1].Snapshot.Step != 0 {
		t.Fatalf("compaction retry: %d snapshots %v", len(snaps), describe(evs))
	}
}

// snapTool is a registry entry built only from a Spec.
type snapTool struct{ tools.Spec }

func (snapTool) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.OK("ok"), nil
}

// CONTRACT.md §11.2: characters are runes (names 256, descriptions 512, auxiliary strings 512); allowed callers and
// capabilities keep 16 entries of 128 characters with exact counts; model-visible registered tools the request does
// not carry are a bounded name list with an exact count, hidden ones not among them.
func TestContract11BoundsCountRunes(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	caps := make([]tools.Capability, 20)
	for i := range caps {
		caps[i] = tools.Capability(fmt.Sprintf("%02d", i) + strings.Repeat("ç", 200))
	}
	name := strings.Repeat("é", 300)
	reg.Register(&snapTool{tools.Spec{ToolName: name, Desc: "d", Schema: map[string]any{"type": "object"}, Caps: caps}})
	for i := 0; i < 40; i++ {
		reg.Register(&snapTool{tools.Spec{ToolName: fmt.Sprintf("extra_%02d", i), Desc: "d", Schema: map[string]any{"type": "object"}}})
	}
	reg.Register(&snapTool{tools.Spec{ToolName: "hidden_alias", Desc: "d", Schema: map[string]any{"type": "object"}, Hidden: true}})
	callers := make([]string, 20)
	for i := range callers {
		callers[i] = strings.Repeat("ü", 200)
	}
	aux := strings.Repeat("ß", 600)
	tool := provider.Tool{Type: aux, Name: name, Description: strings.Repeat("ü", 600), InputSchema: map[string]any{"type": "object"},
		AllowedCallers: callers, CacheControl: &provider.CacheControl{Type: aux}}
	sc := engine.NewSurfaceContext(reg, map[string]string{name: aux}, "DeepSeek", "deepseek-v4-pro", true)
	snap := engine.CaptureSnapshot("turn", 0, []provider.Tool{tool}, sc)
	p := snap.Tools[0]
	runes := func(s string) int { return utf8.RuneCountInString(s) }
	for what, got := range map[string]struct {
		b    engine.BoundedString
		want int
	}{
		"name": {p.Name, 256}, "description": {p.Description, 512}, "type": {p.ToolType.Value, 512},
		"cache control": {p.CacheControlType.Value, 512}, "MCP server": {p.MCPServer.Value, 512},
	} {
		if !got.b.Truncated || runes(got.b.Value) != got.want || !utf8.ValidString(got.b.Value) {
			t.Errorf("%s: %d runes (truncated %v), want %d", what, runes(got.b.Value), got.b.Truncated, got.want)
		}
	}
	for what, l := range map[string]engine.BoundedList{"allowed callers": p.AllowedCallers.Value, "capabilities": p.Capabilities.Value} {
		if l.Count != 20 || len(l.Rendered) != 16 || l.Omitted != 4 || runes(l.Rendered[0].Value) != 128 || !l.Rendered[0].Truncated {
			t.Errorf("%s: count %d rendered %d omitted %d first %d runes", what, l.Count, len(l.Rendered), l.Omitted, runes(l.Rendered[0].Value))
		}
	}
	only := snap.RegistryOnlyTools
	if !only.Known || only.Value.Count != 40 || len(only.Value.Rendered) != 32 || only.Value.Omitted != 8 ||
		strings.Contains(snap.JSON(), "hidden_alias") {
		t.Errorf("registry-only tools %+v", only)
	}
	if snap.RegistryToolCount.Value != 42 {
		t.Errorf("registered tools %d, want 42", snap.RegistryToolCount.Value)
	}
}

// CONTRACT.md §11.2: within the measurement bound the payload byte count is exact: the length of the tools array
// serialised canonically.
func TestContract11PayloadBytesAreExact(t *testing.T) {
	t.Parallel()
	ts := []provider.Tool{
		{Name: "File", Description: "Read <files> & more", InputSchema: map[string]any{"type": "object", "n": 1.5}},
		{Type: "function", Name: "mcp_s_t", Description: "é", InputSchema: map[string]any{}, AllowedCallers: []string{"direct"},
			DeferLoading: provider.Bool(true), InputExamples: []any{map[string]any{"q": "x"}}, Strict: provider.Bool(false),
			CacheControl: &provider.CacheControl{Type: "ephemeral"}},
	}
	objs := make([]any, len(ts))
	for i, tool := range ts {
		b, _ := json.Marshal(tool)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		objs[i] = m
	}
	want, err := canonjson.Append(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	snap := engine.CaptureSnapshot("t", 0, ts, nil)
	if snap.PayloadJSONBytes == nil || *snap.PayloadJSONBytes != len(want) ||
		snap.PayloadMeasurementStatus != "exact (within 1048576-byte measurement bound)" {
		t.Errorf("payload %v (%s), want %d bytes", snap.PayloadJSONBytes, snap.PayloadMeasurementStatus, len(want))
	}
}

// CONTRACT.md §11.3: canonical JSON sorts keys byte-wise, keeps arrays in order, has no whitespace, escapes only ",
// \ and control characters (\b \f \n \r \t or \u00xx), writes numbers as encoding/json does; type and cache_control
// are not hashed; no tools field has no digest (JSON null, text unavailable).
func TestContract11DigestCanonicalJSON(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	src := `{"é":1,"b":[3,1,2],"B":{"z":true,"a":null},"_":"<>&\u2028\"\\\u0001\b\f\n\r\t\u001f/",` +
		`"n":[1e21,1e-7,0.5,100,-0.25,123456789]}`
	if err := json.Unmarshal([]byte(src), &schema); err != nil {
		t.Fatal(err)
	}
	canon := `{"B":{"a":null,"z":true},"_":"<>&` + "\u2028" + `\"\\\u0001\b\f\n\r\t\u001f/","b":[3,1,2],` +
		`"n":[1e+21,1e-7,0.5,100,-0.25,123456789],"é":1}`
	sum := sha256.Sum256([]byte("name\x01desc\x01" + canon + "\n"))
	want := hex.EncodeToString(sum[:])
	tool := provider.Tool{Name: "name", Description: "desc", InputSchema: schema}
	if got, ok := engine.ActiveToolCatalogSHA256([]provider.Tool{tool}); !ok || got != want {
		t.Errorf("digest %s, want %s (canonical %s, engine's %s)", got, want, canon, tool.CanonicalSchema())
	}
	tool.Type, tool.CacheControl = "function", &provider.CacheControl{Type: "ephemeral"}
	if got, _ := engine.ActiveToolCatalogSHA256([]provider.Tool{tool}); got != want {
		t.Error("type or cache_control changed the digest")
	}
	absent := engine.CaptureSnapshot("t", 0, nil, nil)
	if !strings.Contains(absent.JSON(), `"active_tool_catalog_sha256": null`) ||
		!strings.Contains(absent.Text(), "Active tool catalog digest (same digest as the request manifest): unavailable") {
		t.Errorf("absent tools field:\n%s\n%s", absent.JSON(), absent.Text())
	}
}

// unknownsWithoutReason lists the paths of every {"status":"unknown"} object in v that has no reason.
func unknownsWithoutReason(path string, v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if r, _ := x["reason"].(string); x["status"] == "unknown" && r == "" {
			out = append(out, path)
		}
		for k, c := range x {
			out = append(out, unknownsWithoutReason(path+"."+k, c)...)
		}
	case []any:
		for i, c := range x {
			out = append(out, unknownsWithoutReason(fmt.Sprintf("%s[%d]", path, i), c)...)
		}
	}
	return out
}

// CONTRACT.md §11.4: every unknown value is {"status":"unknown","reason":…}, with or without a surface context, and
// provenance is builtin, mcp, synthetic or unknown as the context attributes the name.
func TestContract11UnknownsHaveReasonsAndProvenance(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	reg.Register(&snapTool{tools.Spec{ToolName: "File", Desc: "d", Schema: map[string]any{"type": "object"}}})
	reg.Register(&snapTool{tools.Spec{ToolName: "mcp_srv_echo", Desc: "d", Schema: map[string]any{"type": "object"}}})
	ts := []provider.Tool{
		{Name: "File", Description: "d", InputSchema: map[string]any{"type": "object"}},
		{Name: "mcp_srv_echo", Description: "d", InputSchema: map[string]any{"type": "object"}},
		{Name: "tool_search", Description: "d", InputSchema: map[string]any{"type": "object"}},
		{Name: "stranger", Description: "d", InputSchema: map[string]any{"type": "object"}},
	}
	withCtx := engine.NewSurfaceContext(reg, map[string]string{"mcp_srv_echo": "srv"}, "DeepSeek", "deepseek-v4-pro", true)
	noClient := engine.NewSurfaceContext(reg, nil, "", "", false)
	for name, sc := range map[string]*engine.SurfaceContext{"context": withCtx, "no client": noClient, "no context": nil} {
		snap := engine.CaptureSnapshot("t", 0, ts, sc)
		var v any
		if err := json.Unmarshal([]byte(snap.JSON()), &v); err != nil {
			t.Fatal(err)
		}
		if bad := unknownsWithoutReason("", v); len(bad) > 0 {
			t.Errorf("%s: unknown without a reason at %v", name, bad)
		}
		if !strings.HasPrefix(snap.DeliveryStatus, "unknown") || snap.SchemaVersion != 1 {
			t.Errorf("%s: delivery %q, schema %d", name, snap.DeliveryStatus, snap.SchemaVersion)
		}
	}
	snap := engine.CaptureSnapshot("t", 0, ts, withCtx)
	var got []string
	for _, p := range snap.Tools {
		got = append(got, string(p.Provenance.Value))
	}
	if strings.Join(got, ",") != "builtin,mcp,synthetic,unknown" || snap.Tools[1].MCPServer.Value.Value != "srv" ||
		snap.Tools[3].Capabilities.Known || snap.Tools[3].Capabilities.Reason != "tool is not in the registry" {
		t.Errorf("provenance %v, MCP server %+v, stranger's capabilities %+v", got, snap.Tools[1].MCPServer, snap.Tools[3].Capabilities)
	}
}

// CONTRACT.md §11.5: the text is the header, then one fact per line, then a numbered block for each projected tool.
func TestContract11TextShape(t *testing.T) {
	t.Parallel()
	ts := []provider.Tool{
		{Name: "File", Description: "line one\nline two", InputSchema: map[string]any{"type": "object"}},
		{Name: "Git", Description: "d", InputSchema: map[string]any{"type": "object"}},
	}
	text := engine.CaptureSnapshot("t", 3, ts, nil).Text()
	blocks := strings.Split(text, "\n\n")
	if len(blocks) != 3 || !strings.HasPrefix(blocks[0], "Prepared Model-Client Tool Request (read-only)\n") ||
		!strings.Contains(blocks[0], "\nStep: 3\n") || !strings.HasPrefix(blocks[1], `1. "File"`) ||
		!strings.HasPrefix(blocks[2], `2. "Git"`) || !strings.Contains(blocks[1], `description: "line one\nline two"`) {
		t.Errorf("text:\n%s", text)
	}
	for _, l := range strings.Split(blocks[0], "\n")[1:] {
		if !strings.Contains(l, ": ") {
			t.Errorf("header line %q is not one fact", l)
		}
	}
}

// CONTRACT.md §11.1: the surface context is the turn's, computed again only when a mode change mid-turn rebuilds the
// tools: the next step's snapshot joins against the rebuilt registry, as a fresh turn in that mode does.
func TestContract11SurfaceContextFollowsAMidTurnRebuild(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "File", Args: `{"action":"list"}`}))
	h := newHarness(t, g.srv)
	h.eng.Submit(engine.SendMessage{Content: "look around"})
	<-g.asked
	plan := posture.Plan
	h.eng.Submit(engine.ChangeMode{Mode: &plan})
	evs := waitSettings(h, 1)
	close(g.open)
	evs = append(evs, h.collect(nil)...)
	snaps := all[engine.ToolRequestSnapshot](evs)
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots: %v", len(snaps), describe(evs))
	}
	g.srv.Push(fakemodel.Text("again"))
	fresh := all[engine.ToolRequestSnapshot](h.turn("a plan turn"))
	registry := func(s *engine.ToolSnapshot) string {
		return fmt.Sprint(s.RegistryToolCount.Value, jlistNames(s.RegistryOnlyTools.Value))
	}
	if len(fresh) != 1 || registry(snaps[1].Snapshot) != registry(fresh[0].Snapshot) {
		t.Errorf("after the rebuild %s, a fresh Plan turn %s", registry(snaps[1].Snapshot), registry(fresh[0].Snapshot))
	}
	if registry(snaps[0].Snapshot) == registry(snaps[1].Snapshot) {
		t.Errorf("Act and Plan registry facts are the same (%s): the check above proves nothing", registry(snaps[0].Snapshot))
	}
}

func jlistNames(l engine.BoundedList) []string {
	out := make([]string, len(l.Rendered))
	for i, s := range l.Rendered {
		out[i] = s.Value
	}
	return out
}
