package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui"
)

// commandToken splits a prompt that names a command ("/review HEAD~1")
// into the name and its arguments. ok is false for a prompt that only
// starts with a slash ("/etc/hosts is empty?"): the name must be a
// command-shaped word.
func commandToken(prompt string) (name, args string, ok bool) {
	s := strings.TrimSpace(prompt)
	if !strings.HasPrefix(s, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(s[1:], " ")
	if i := strings.IndexAny(name, "\t\n"); i >= 0 {
		name, args = name[:i], s[1+i+1:]
	}
	name = strings.ToLower(name)
	if name == "" {
		return "", "", false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)) {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(args), true
}

// userCommandMessage expands a user command for `exec "/name args"`: the
// message, its turn scope and lines for stderr (CONTRACT.md §17.2). A name
// that is no user command is an error that lists the ones there are.
func userCommandMessage(st *projectctx.State, name, args string) (engine.SendMessage, []string, error) {
	if tui.BuiltinCommand(name) {
		return engine.SendMessage{}, nil, fmt.Errorf("/%s is a built-in command of the interactive UI; exec runs user commands only "+
			"(a user command of that name loses to the built-in)", name)
	}
	c, ok := st.Command(name)
	if !ok {
		var names []string
		for _, uc := range st.Commands {
			if !tui.BuiltinCommand(uc.Name) {
				names = append(names, "/"+uc.Name)
			}
		}
		known := "there are none"
		if len(names) > 0 {
			known = "there are " + strings.Join(names, ", ")
		}
		return engine.SendMessage{}, nil, fmt.Errorf("/%s is not a user command (.codewhale/commands, .claude/commands or "+
			"$CODEWHALE_HOME/commands; %s); to send text that starts with a slash, begin it with a space or another character", name, known)
	}
	text := c.Expand(args)
	if strings.TrimSpace(text) == "" {
		return engine.SendMessage{}, nil, fmt.Errorf("/%s expands to nothing: %s has no text", name, c.Path)
	}
	lines := []string{fmt.Sprintf("Running /%s from %s", c.Name, c.Path)}
	for _, n := range c.Notes {
		lines = append(lines, "/"+c.Name+": "+n)
	}
	return engine.SendMessage{Content: text, Provenance: engine.ProvenanceUser, Scope: tui.Scope(c)}, lines, nil
}

// hookNotices reports hooks that could not run or wait for trust, and what
// session_start hooks said.
func (p *execPrinter) hookNotices(lines []string) {
	for _, l := range lines {
		if p.streamJSON() {
			p.line("warning", "source", "hooks", "message", l)
			continue
		}
		fmt.Fprintln(p.ios.Err, "hooks: "+l)
	}
}

// oneShotMessage runs the message_submit hooks over a one-shot prompt (a
// one-shot request has no tools and no turn, so no other hook applies) and
// returns the prompt to send, with the lines to show: the start-up notices
// an agent run shows, then the hooks' failures.
func oneShotMessage(ctx context.Context, cfg *config.Config, o *execOptions) (string, []string, error) {
	r, notices, err := app.OneShotHooks(cfg, o.hookUse(), executable())
	if err != nil || r == nil || !r.Has(engine.HookMessageSubmit) {
		return o.prompt, notices, err
	}
	v := r.Run(ctx, engine.HookMessageSubmit, engine.HookCall{Message: o.prompt})
	notices = append(notices, v.Notices...)
	switch {
	case v.Block:
		return "", notices, errors.New(engine.MessageBlocked(v.Reason))
	case v.Message != "":
		return v.Message, notices, nil
	}
	return o.prompt, notices, nil
}
