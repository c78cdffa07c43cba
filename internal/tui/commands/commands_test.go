package commands_test

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tui/commands"
)

var reg = commands.New([]commands.Command{
	{Name: "tools", Aliases: []string{"tool-studio"}, Usage: "[text|json]", Help: "snapshot"},
	{Name: "jobs", Aliases: []string{"job", "zuoye"}, Help: "jobs"},
	{Name: "mode", Aliases: []string{"jihua", "zidong"}, Usage: "[act|plan|operate]", Help: "mode"},
	{Name: "model", Help: "model"},
	{Name: "help", Aliases: []string{"?"}, Help: "help"},
	{Name: "exit", Aliases: []string{"quit", "q"}, Help: "quit"},
})

func TestParseTakesTheFirstWordLowerCasedAndTheTrimmedRest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		name  string
		arg   string
		isCmd bool
	}{
		{"/tools", "tools", "", true},
		{"  /Tools   json  ", "tools", "json", true},
		{"/jobs stdin shell_1 yes please", "jobs", "stdin shell_1 yes please", true},
		{"hello /tools", "", "", false},
		{"/", "", "", true},
	}
	for _, c := range cases {
		inv, ok := commands.Parse(c.in)
		if ok != c.isCmd || inv.Name != c.name || inv.Arg != c.arg {
			t.Errorf("Parse(%q) = %+v, %v; want %q %q %v", c.in, inv, ok, c.name, c.arg, c.isCmd)
		}
	}
}

func TestLookupResolvesAliasesToThePrimaryCommand(t *testing.T) {
	t.Parallel()
	for alias, want := range map[string]string{"tool-studio": "tools", "zuoye": "jobs", "q": "exit", "?": "help"} {
		c, ok := reg.Lookup(alias)
		if !ok || c.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", alias, c.Name, ok, want)
		}
	}
}

func TestUnknownCommandTextIsExact(t *testing.T) {
	t.Parallel()
	if got, want := reg.Unknown("frobnicate"), "Unknown command: /frobnicate. Type /help for available commands."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got, want := reg.Unknown("toolz"), "Unknown command: /toolz. Did you mean: /tools? Type /help for available commands."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got := reg.Unknown("mod")
	if !strings.HasPrefix(got, "Unknown command: /mod. Did you mean: /mode, /model") {
		t.Errorf("got %q", got)
	}
	if s := reg.Suggest("o"); len(s) > 3 {
		t.Errorf("Suggest returned %d names, at most 3 allowed: %v", len(s), s)
	}
}

func TestRetiredNamesAndModeAliases(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"set":      "The /set command was retired. Use /config to edit settings and /settings to inspect current values.",
		"deepseek": "The /deepseek command was retired. /status shows the route and where the key comes from; `codewhale doctor` checks the setup.",
		"doctor":   "The /doctor command is a CLI diagnostic. Run `codewhale doctor` or `codewhale doctor --json` in a shell; /status and /settings show this session.",
	}
	for name, want := range cases {
		if got, ok := commands.Retired(name); !ok || got != want {
			t.Errorf("Retired(%q) = %q, %v", name, got, ok)
		}
	}
	if arg, ok := commands.ModeAlias("jihua"); !ok || arg != "plan" {
		t.Errorf("jihua = %q %v", arg, ok)
	}
	if arg, ok := commands.ModeAlias("zidong"); !ok || arg != "yolo" {
		t.Errorf("zidong = %q %v", arg, ok)
	}
}

func TestCompleteMatchesNamesAndAliasesByPrefix(t *testing.T) {
	t.Parallel()
	var got []string
	for _, m := range reg.Complete("mo") {
		got = append(got, m.Name)
	}
	if strings.Join(got, ",") != "mode,model" {
		t.Errorf("Complete(mo) = %v", got)
	}
	ms := reg.Complete("zu")
	if len(ms) != 1 || ms[0].Name != "jobs" || ms[0].Matched != "zuoye" {
		t.Errorf("Complete(zu) = %+v", ms)
	}
	if n := len(reg.Complete("")); n != len(reg.Commands()) {
		t.Errorf("empty prefix lists %d of %d", n, len(reg.Commands()))
	}
}

func TestHelpTextShowsUsageAndAliases(t *testing.T) {
	t.Parallel()
	got := reg.HelpText("/tools")
	if !strings.Contains(got, "Usage: /tools [text|json]") || !strings.Contains(got, "Aliases: /tool-studio") {
		t.Errorf("HelpText = %q", got)
	}
	if got := reg.HelpText("nope"); got != "Unknown command: nope" {
		t.Errorf("HelpText(nope) = %q", got)
	}
}
