package approvalcard

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/engine"
)

// Markdown is the card as Markdown text, for a host that draws no card of
// its own (the ACP agent's session/request_permission): the same items
// the TUI draws, each in full — a File write's whole content, not the
// card's first lines.
func Markdown(req engine.ApprovalRequired) string {
	var b strings.Builder
	b.WriteString("**" + req.ToolName + "**")
	if d := strings.TrimLeft(strings.TrimPrefix(req.Description, req.ToolName), " ·"); d != "" {
		b.WriteString(" · " + oneLine(d))
	}
	b.WriteString("\n")
	for _, it := range Items(req) {
		b.WriteString("\n")
		writeItem(&b, it)
	}
	return b.String()
}

func writeItem(b *strings.Builder, it Item) {
	switch it.Kind {
	case Reason:
		b.WriteString("**" + oneLine(it.Text) + "**\n")
	case Field:
		if strings.Contains(strings.TrimRight(it.Text, "\n"), "\n") {
			fenced(b, it.Label+":", "", it.Text)
			return
		}
		b.WriteString(it.Label + ": " + inline(strings.TrimRight(it.Text, "\n")) + "\n")
	case Block:
		lang := ""
		text := strings.TrimRight(it.Text, "\n")
		switch it.Diff {
		case Removed:
			lang, text = "diff", prefixLines(text, "-")
		case Added:
			lang, text = "diff", prefixLines(text, "+")
		}
		fenced(b, fmt.Sprintf("%s (%s):", it.Label, lines(it.Text)), lang, text)
	case Preview:
		fenced(b, fmt.Sprintf("%s: %d bytes · %s", it.Label, len(it.Text), lines(it.Text)), "", it.Text)
	case Patch:
		fenced(b, fmt.Sprintf("%s (%s):", it.Label, lines(it.Text)), "diff", it.Text)
	case Flag:
		if it.On {
			b.WriteString(it.Label + ": **yes** — " + it.Meaning + "\n")
		} else {
			b.WriteString(it.Label + ": no\n")
		}
	case Warning:
		b.WriteString(it.Label + ": **" + inline(it.Text) + "** — " + it.Note + "\n")
	case Intent:
		b.WriteString("Intent: " + oneLine(it.Text) + "\n")
	}
}

// fenced writes text in a code fence longer than any backtick run inside
// it, so no content can close the fence early.
func fenced(b *strings.Builder, head, lang, text string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	b.WriteString(head + "\n" + fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n")
}

func prefixLines(text, p string) string {
	if text == "" {
		return p
	}
	return p + strings.ReplaceAll(text, "\n", "\n"+p)
}

func lines(text string) string {
	n := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
	if text == "" {
		n = 0
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// inline is a one-line value as inline code, which shows it as written.
func inline(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}
