// Package approvalcard is the one definition of what an approval card
// asks about and offers: the facts of a call that needs approval (the
// whole command, the edit or the patch, every authority flag a grant
// carries, every argument no fact showed) and the choices (allow once,
// allow for the session, always allow, deny, abort). The TUI's card
// (internal/tui/views) draws it; the ACP agent (internal/acp) sends it as
// session/request_permission. Neither decides what a card shows.
package approvalcard

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/engine"
)

// Kind is what an Item is.
type Kind int

const (
	// Reason says why the call needs a person's explicit yes (Text).
	Reason Kind = iota
	// Field is `Label: Text`; a Text of several lines is drawn as a block.
	Field
	// Block is a labelled text of lines, drawn whole (Diff colours it).
	Block
	// Preview is a File write's content (Text), its size first.
	Preview
	// Patch is a unified diff (Text).
	Patch
	// Flag is an authority flag: On grants Meaning.
	Flag
	// Warning is a Field whose value stands out, followed by Note.
	Warning
	// Intent is the model's summary of what it means to do (Text).
	Intent
)

// Diff marks a Block as the text an edit removes or adds.
type Diff int

const (
	NoDiff Diff = iota
	Removed
	Added
)

// Item is one fact on the card.
type Item struct {
	Kind    Kind
	Label   string
	Text    string
	Diff    Diff   // Block
	On      bool   // Flag
	Meaning string // Flag: what On grants
	Note    string // Warning: what the value means
}

// input is the call's arguments; every key the card shows is taken out of
// it, so what is left can be listed and nothing the call carries is hidden.
type input map[string]any

func (in input) take(keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := in[k]; ok {
			delete(in, k)
			switch v := v.(type) {
			case string:
				return v, true
			case nil:
				return "", false
			default:
				return compact(v), true
			}
		}
	}
	return "", false
}

// flag takes a boolean argument; absent means false (the tools' default).
func (in input) flag(k string) bool {
	v, ok := in[k]
	delete(in, k)
	b, _ := v.(bool)
	return ok && b
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// card gathers the items.
type card struct {
	req   engine.ApprovalRequired
	items []Item
}

func (c *card) add(it Item)              { c.items = append(c.items, it) }
func (c *card) field(label, text string) { c.add(Item{Kind: Field, Label: label, Text: text}) }
func (c *card) block(label, text string) { c.add(Item{Kind: Block, Label: label, Text: text}) }
func (c *card) flag(label string, on bool, meaning string) {
	c.add(Item{Kind: Flag, Label: label, On: on, Meaning: meaning})
}

// Items is what the card asks about: the reason a call needs approval,
// the tool's facts (never cut), every argument the facts did not show,
// then the model's intent.
func Items(req engine.ApprovalRequired) []Item {
	in := input{}
	if json.Unmarshal(req.Input, &in) != nil || in == nil {
		in = input{}
	}
	c := &card{req: req}
	c.reason()
	switch req.ToolName {
	case "Bash":
		c.bash(in)
	case "File":
		c.file(in)
	case "tasks":
		c.tasks(in)
	case "agent":
		c.agent(in)
	default:
		if req.Authority != nil && strings.HasPrefix(req.ToolName, "automation") {
			c.automation(in)
		}
	}
	c.rest(in)
	if s := strings.TrimSpace(req.IntentSummary); s != "" {
		c.add(Item{Kind: Intent, Text: s})
	}
	return c.items
}

// reason says why the call needs a person's explicit yes.
func (c *card) reason() {
	r := strings.TrimSpace(c.req.Reason)
	if r == "" && !c.req.ForcePrompt {
		return
	}
	text := "Needs your explicit approval"
	if r != "" {
		text += ": " + r
	}
	c.add(Item{Kind: Reason, Text: text})
}

func (c *card) bash(in input) {
	act, _ := in.take("action")
	if act != "" && act != "run" {
		c.field("Action", act)
	}
	if cmd, ok := in.take("command"); ok {
		c.command(cmd)
	}
	if dir, ok := in.take("cwd", "working_dir"); ok {
		c.field("Dir", dir)
	}
	if id, ok := in.take("task_id"); ok {
		c.field("Target", id)
	}
	if s, ok := in.take("input", "stdin"); ok {
		c.block("Input", s)
	}
	if in.flag("background") {
		c.field("Background", "yes — runs as a job (/jobs)")
	}
}

// command is a shell command: one line as a field, a script as a block.
func (c *card) command(cmd string) {
	if strings.Contains(strings.Trim(strings.ReplaceAll(cmd, "\r\n", "\n"), "\n"), "\n") {
		c.block("Command", strings.Trim(cmd, "\n"))
		return
	}
	c.field("Command", strings.TrimSpace(cmd))
}

func (c *card) file(in input) {
	act, _ := in.take("action")
	c.field("Action", act)
	if p, ok := in.take("path"); ok {
		c.field("File", p)
	}
	switch act {
	case "write":
		if content, ok := in.take("content"); ok {
			c.add(Item{Kind: Preview, Label: "Write", Text: content})
		}
	case "edit":
		search, _ := in.take("search", "old_string", "old_str", "oldText", "old_text")
		replace, _ := in.take("replace", "new_string", "new_str", "newText", "new_text", "replacement")
		c.add(Item{Kind: Block, Label: "Replace this", Text: search, Diff: Removed})
		c.add(Item{Kind: Block, Label: "With this", Text: replace, Diff: Added})
	case "patch":
		if p, ok := in.take("patch"); ok {
			c.add(Item{Kind: Patch, Label: "Patch", Text: p})
		}
	}
}

// tasks create shows every grant the new task carries, defaults included,
// because a task runs later with nobody watching.
func (c *card) tasks(in input) {
	act, _ := in.take("action")
	c.field("Action", act)
	if p, ok := in.take("prompt"); ok {
		c.block("Prompt", p)
	}
	if act != "create" {
		return
	}
	c.flag("Auto-approve", in.flag("auto_approve"), "the task's tool calls run without asking anyone")
	c.flag("Trust mode", in.flag("trust_mode"), "the task may work outside the workspace")
	c.flag("Allow shell", in.flag("allow_shell"), "the task may run shell commands")
	model, ok := in.take("model")
	if !ok {
		model = "the session's model"
	}
	c.field("Model", model)
	mode, ok := in.take("mode")
	if !ok {
		mode = "agent (default)"
	}
	c.field("Mode", mode)
	if ws, ok := in.take("workspace"); ok {
		c.field("Workspace", ws)
	}
}

// automation create, update, resume and run show the authority their runs
// get — which no later run asks about — as the tool computed it (the
// session's, never more than the automation had; Req.Authority), the
// flags shown as a task's are.
func (c *card) automation(in input) {
	act, _ := in.take("action")
	c.field("Action", act)
	if id, ok := in.take("automation_id"); ok {
		c.field("Target", id)
	}
	if p, ok := in.take("prompt"); ok {
		c.block("Prompt", p)
	}
	if s, ok := in.take("schedule"); ok {
		c.field("Schedule", s)
	}
	auth := input{} // a copy: take empties what it reads
	for k, v := range c.req.Authority {
		auth[k] = v
	}
	if runs, _ := auth.take("runs_with"); runs != "" {
		c.field("Runs with", runs)
	}
	if from, ok := auth.take("lowered_from"); ok {
		c.add(Item{Kind: Warning, Label: "Lowered from", Text: from, Note: "this session does not have that authority"})
	}
	in.flag("auto_approve")
	in.flag("trust_mode")
	in.flag("allow_shell")
	c.flag("Auto-approve", auth.flag("auto_approve"), "its runs' tool calls run without asking anyone")
	c.flag("Trust mode", auth.flag("trust_mode"), "its runs may work outside the workspace")
	c.flag("Allow shell", auth.flag("allow_shell"), "its runs may run shell commands")
}

// agent start shows the child's role and model; a role that is not
// read-only can write.
func (c *card) agent(in input) {
	act, ok := in.take("action")
	if !ok {
		act = "start"
	}
	c.field("Action", act)
	if id, ok := in.take("agent_id"); ok {
		c.field("Target", id)
	}
	if p, ok := in.take("prompt"); ok {
		c.block("Prompt", p)
	}
	if act != "start" {
		return
	}
	role, ok := in.take("type")
	if !ok {
		role = "worker"
	}
	switch role {
	case "scout", "planner", "reviewer", "verifier", "consultant":
		c.field("Role", role+" (read-only)")
	default:
		c.add(Item{Kind: Warning, Label: "Role", Text: role, Note: "may edit files and run commands"})
	}
	model, ok := in.take("model")
	if !ok {
		model = "the session's model"
	}
	c.field("Model", model)
}

// rest lists every argument no fact above showed, so nothing a call
// carries is hidden.
func (c *card) rest(in input) {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in[k]
		s, isStr := v.(string)
		if !isStr {
			s = compact(v)
		}
		c.field(k, s)
	}
}
