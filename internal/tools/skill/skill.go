// Package skill is the deferred load_skill tool: it returns a skill's
// instructions and the list of files beside them, and reads one of those
// files on request (CONTRACT.md §17.3). The skills come from the session's
// project context, so a skill added between turns is found.
package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools"
)

// Name is the tool's exact name.
const Name = "load_skill"

// Tool is load_skill over the skills state returns.
type Tool struct {
	tools.Spec
	state     func() *projectctx.State
	workspace string
}

// New returns load_skill; state gives the session's current skills.
func New(state func() *projectctx.State, workspace string) *Tool {
	return &Tool{state: state, workspace: workspace, Spec: tools.Spec{
		ToolName: Name,
		Desc: "Load a skill listed in the system prompt's <skills> block: its instructions and the files beside " +
			"them. With file, return one of those files instead.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
		Parallel:   true,
	}}
}

// input is load_skill's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema and the decoding come from this type.
type input struct {
	Name string `json:"name" jsonschema:"The skill's name, as listed."`
	File string `json:"file,omitempty" jsonschema:"A file of the skill's folder, as load_skill lists them."`
}

// params is shared, read-only, by every registry; the schema is built once.
var params = tools.NewParams[input](Name, tools.ParamOptions[input]{Check: func(d *tools.Decoded[input]) error {
	if !d.Has("name") {
		return d.Missing("name")
	}
	return nil
}})

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3); the bound call
// never reads the raw input again.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(raw, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		return t.run(ctx, tc, d.In)
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// run returns the skill, or the one file asked for.
func (t *Tool) run(_ context.Context, tc *tools.Context, in input) (tools.Result, error) {
	name, file := in.Name, in.File
	st := t.state()
	sk, ok := st.Skill(name)
	if !ok {
		return tools.Result{}, tools.InvalidInput("no skill named %q; the skills are: %s", name, list(st.SkillNames()))
	}
	if file != "" {
		text, cut, err := sk.ReadFile(file)
		if err != nil {
			return tools.Result{}, tools.ExecutionFailed("%v", err)
		}
		if cut != "" {
			text += "\n" + cut
		}
		return tools.Result{Content: text, Success: true, Metadata: map[string]any{"skill": sk.Name, "file": file}}, nil
	}
	c, err := sk.Content()
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	return tools.Result{Content: t.render(sk, c, tc.ResultBudget()), Success: true,
		Metadata: map[string]any{"skill": sk.Name, "path": sk.Path, "files": len(c.Files) + c.More}}, nil
}

func (t *Tool) render(sk *projectctx.Skill, c projectctx.SkillContent, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (%s): %s\nFolder: %s\n\n", sk.Name, sk.Source, sk.Description, sk.Dir)
	body := c.Body
	if limit := budget - 2000; limit > 0 && len(body) > limit {
		for limit > 0 && !utf8.RuneStart(body[limit]) {
			limit--
		}
		body = body[:limit]
		c.Cut = fmt.Sprintf("[codewhale: the skill's instructions were cut at %d bytes for this call's result budget; %s holds the whole text]",
			limit, sk.Path)
	}
	b.WriteString(body)
	if c.Cut != "" {
		b.WriteString("\n" + c.Cut)
	}
	if len(c.Files) == 0 {
		b.WriteString("\n\nNo other files are in the skill's folder.")
		return b.String()
	}
	fmt.Fprintf(&b, "\n\nFiles beside SKILL.md (%d): %s", len(c.Files)+c.More, strings.Join(c.Files, ", "))
	if c.More > 0 {
		fmt.Fprintf(&b, " and %d more", c.More)
	}
	fmt.Fprintf(&b, "\nRead one with load_skill {\"name\": %q, \"file\": \"<file>\"}", sk.Name)
	if t.workspace != "" && strings.HasPrefix(sk.Dir, t.workspace+"/") {
		b.WriteString(" or with File read at " + strings.TrimPrefix(sk.Dir, t.workspace+"/") + "/<file>")
	}
	b.WriteString(".")
	return b.String()
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
