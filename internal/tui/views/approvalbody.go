package views

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// writePreviewLines is how much of a File write the card shows; the rest
// scrolls in the Alt+V pager.
const writePreviewLines = 10

// bodyCache holds the card's body rows for one width; the request never
// changes while the card is open.
type bodyCache struct {
	width int
	rows  []string
	page  int // body rows visible at the last render (PgUp/PgDn step)
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

func itoa(n int) string { return strconv.Itoa(n) }

// card builds the body rows of one approval card at an inner width.
type card struct {
	a    *Approval
	w    int
	rows []string
}

// bodyRows is what the card asks about: the tool's facts (never cut), the
// reason a call needs approval, the model's intent, then every argument
// the facts did not show.
func (a *Approval) bodyRows(w int) []string {
	if a.body.width == w && a.body.rows != nil {
		return a.body.rows
	}
	in := input{}
	if json.Unmarshal(a.Req.Input, &in) != nil {
		in = input{}
	}
	c := &card{a: a, w: w}
	c.reason()
	switch a.Req.ToolName {
	case "Bash":
		c.bash(in)
	case "File":
		c.file(in)
	case "tasks":
		c.tasks(in)
	case "agent":
		c.agent(in)
	default:
		if a.Req.Authority != nil && strings.HasPrefix(a.Req.ToolName, "automation") {
			c.automation(in)
		}
	}
	c.rest(in)
	c.intent()
	if len(c.rows) == 0 {
		c.rows = []string{a.theme.Dim.Render("(no arguments)")}
	}
	a.body = bodyCache{width: w, rows: c.rows, page: a.body.page}
	return c.rows
}

// visible makes text safe to draw while keeping what matters to a reader:
// a carriage return, which a terminal would use to hide text, is shown.
func visible(s string) string {
	return termtext.ExpandTabs(termtext.Sanitize(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "␍")))
}

// field is `Label: value`, wrapped in full with continuation rows indented.
func (c *card) field(label, value string) {
	value = visible(value)
	if strings.TrimSpace(value) == "" {
		return
	}
	if strings.Contains(strings.TrimRight(value, "\n"), "\n") {
		c.block(label, value, nil)
		return
	}
	rows := termtext.WrapPlain(label+": "+strings.TrimRight(value, "\n"), max(c.w-2, 1))
	if rest, ok := strings.CutPrefix(rows[0], label+":"); ok {
		rows[0] = c.a.theme.Bold.Render(label+":") + rest
	}
	c.hang(rows)
}

// hang appends rows wrapped two cells short of the width, indenting all
// but the first.
func (c *card) hang(rows []string) {
	for i, r := range rows {
		if i > 0 {
			r = "  " + r
		}
		c.rows = append(c.rows, r)
	}
}

// block is a labelled multi-line text with a line-number gutter, each
// source line wrapped in full: newlines stay newlines, so `echo ok` and
// `touch X` on two lines read as two commands.
func (c *card) block(label, text string, style *lipgloss.Style) {
	text = strings.TrimRight(visible(text), "\n")
	lines := strings.Split(text, "\n")
	c.rows = append(c.rows, c.a.theme.Bold.Render(fmt.Sprintf("%s (%s):", label, plural(len(lines), "line"))))
	c.numbered(lines, 0, style)
}

// numbered draws lines with a right-aligned number gutter.
func (c *card) numbered(lines []string, more int, style *lipgloss.Style) {
	digits := len(itoa(len(lines) + more))
	gutter := strings.Repeat(" ", digits+1) + "│ "
	for i, l := range lines {
		num := c.a.theme.Dim.Render(fmt.Sprintf("%*d │ ", digits+1, i+1))
		for j, r := range termtext.WrapPlain(l, max(c.w-digits-4, 1)) {
			if style != nil {
				r = style.Render(r)
			}
			if j == 0 {
				c.rows = append(c.rows, num+r)
			} else {
				c.rows = append(c.rows, c.a.theme.Dim.Render(gutter)+r)
			}
		}
	}
}

// warnFlag shows an authority flag; granted authority stands out.
func (c *card) warnFlag(label string, on bool, meaning string) {
	if !on {
		c.rows = append(c.rows, c.a.theme.Bold.Render(label+":")+" no")
		return
	}
	c.hang(termtext.WrapStyled(c.a.theme.Bold.Render(label+":")+" "+c.a.theme.Warning.Render("yes")+" — "+meaning, max(c.w-2, 1)))
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
		c.block("Input", s, nil)
	}
	if in.flag("background") {
		c.field("Background", "yes — runs as a job (/jobs)")
	}
}

// command is a shell command: one line as a wrapped field, a script as a
// numbered block.
func (c *card) command(cmd string) {
	if strings.Contains(strings.Trim(visible(cmd), "\n"), "\n") {
		c.block("Command", strings.Trim(cmd, "\n"), nil)
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
			c.writePreview(content)
		}
	case "edit":
		search, _ := in.take("search", "old_string", "old_str", "oldText", "old_text")
		replace, _ := in.take("replace", "new_string", "new_str", "newText", "new_text", "replacement")
		del, add := c.a.theme.DiffDel, c.a.theme.DiffAdd
		c.block("Replace this", search, &del)
		c.block("With this", replace, &add)
	case "patch":
		if p, ok := in.take("patch"); ok {
			c.patch(p)
		}
	}
}

// writePreview is the size of a write and its first lines.
func (c *card) writePreview(content string) {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if content == "" {
		lines = nil
	}
	c.field("Write", groupDigits(len(content))+" bytes · "+plural(len(lines), "line"))
	shown := lines
	if len(shown) > writePreviewLines {
		shown = shown[:writePreviewLines]
	}
	for i := range shown {
		shown[i] = visible(shown[i])
	}
	c.numbered(shown, len(lines)-len(shown), nil)
	if more := len(lines) - len(shown); more > 0 {
		c.rows = append(c.rows, c.a.theme.Dim.Render(fmt.Sprintf("… %d more lines (Alt+V shows all)", more)))
	}
}

// patch is a unified diff, coloured, in full.
func (c *card) patch(p string) {
	lines := strings.Split(strings.TrimRight(visible(p), "\n"), "\n")
	c.rows = append(c.rows, c.a.theme.Bold.Render("Patch ("+plural(len(lines), "line")+"):"))
	t := c.a.theme
	for _, l := range lines {
		style := t.Text
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			style = t.DiffMeta
		case strings.HasPrefix(l, "+"):
			style = t.DiffAdd
		case strings.HasPrefix(l, "-"):
			style = t.DiffDel
		case strings.HasPrefix(l, "@@"):
			style = t.DiffHunk
		}
		for _, r := range termtext.WrapPlain(l, c.w) {
			c.rows = append(c.rows, style.Render(r))
		}
	}
}

// tasks create shows every grant the new task carries, defaults included,
// because a task runs later with nobody watching.
func (c *card) tasks(in input) {
	act, _ := in.take("action")
	c.field("Action", act)
	if p, ok := in.take("prompt"); ok {
		c.block("Prompt", p, nil)
	}
	if act != "create" {
		return
	}
	c.warnFlag("Auto-approve", in.flag("auto_approve"), "the task's tool calls run without asking anyone")
	c.warnFlag("Trust mode", in.flag("trust_mode"), "the task may work outside the workspace")
	c.warnFlag("Allow shell", in.flag("allow_shell"), "the task may run shell commands")
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
		c.block("Prompt", p, nil)
	}
	if s, ok := in.take("schedule"); ok {
		c.field("Schedule", s)
	}
	auth := input{} // a copy: take empties what it reads, and the card renders again
	for k, v := range c.a.Req.Authority {
		auth[k] = v
	}
	if runs, _ := auth.take("runs_with"); runs != "" {
		c.field("Runs with", runs)
	}
	if from, ok := auth.take("lowered_from"); ok {
		c.hang(termtext.WrapStyled(c.a.theme.Bold.Render("Lowered from:")+" "+c.a.theme.Warning.Render(from)+
			" — this session does not have that authority", max(c.w-2, 1)))
	}
	in.flag("auto_approve")
	in.flag("trust_mode")
	in.flag("allow_shell")
	c.warnFlag("Auto-approve", auth.flag("auto_approve"), "its runs' tool calls run without asking anyone")
	c.warnFlag("Trust mode", auth.flag("trust_mode"), "its runs may work outside the workspace")
	c.warnFlag("Allow shell", auth.flag("allow_shell"), "its runs may run shell commands")
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
		c.block("Prompt", p, nil)
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
		c.hang(termtext.WrapStyled(c.a.theme.Bold.Render("Role:")+" "+c.a.theme.Warning.Render(role)+" — may edit files and run commands", max(c.w-2, 1)))
	}
	model, ok := in.take("model")
	if !ok {
		model = "the session's model"
	}
	c.field("Model", model)
}

// rest lists every argument no fact above showed, so nothing a call
// carries is hidden behind Alt+V.
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

// reason says why the call needs a person's explicit yes.
func (c *card) reason() {
	r := strings.TrimSpace(visible(c.a.Req.Reason))
	if r == "" && !c.a.Req.ForcePrompt {
		return
	}
	text := "Needs your explicit approval"
	if r != "" {
		text += ": " + r
	}
	rows := termtext.WrapPlain(text, max(c.w-2, 1))
	for i, r := range rows {
		rows[i] = c.a.theme.Warning.Render(r)
	}
	c.hang(rows)
}

func (c *card) intent() {
	in := strings.TrimSpace(termtext.Sanitize(c.a.Req.IntentSummary))
	if in == "" {
		return
	}
	wrapped := termtext.WrapPlain("Intent: "+termtext.OneLine(in), c.w)
	if len(wrapped) > 3 {
		wrapped = append(wrapped[:2], termtext.Truncate(wrapped[2], c.w-1, "")+"…")
	}
	c.rows = append(c.rows, wrapped...)
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is `1 line`, `2 lines`.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}
