package mcpname

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

func TestModelToolName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	cases := []struct {
		server, tool, want string
	}{
		{"everything", "echo", "mcp_everything_echo"},
		{"everything", "get-sum", "mcp_everything_get-sum"},
		{"my", "db_execute_sql", "mcp_my_db_execute_sql"},
		{"my_db", "execute_sql", "mcp_my_db_execute_sql"},
		{"every.thing", "admin.tools/list", "mcp_every_thing_admin_tools_list"},
		{"über srv", "naïve", "mcp__ber_srv_na_ve"},
		{"", "", "mcp____"},
		{"s", long, "mcp_s_" + strings.Repeat("x", 64-len("mcp_s_")-9) + "_" + hash8("s", long)},
	}
	for _, c := range cases {
		if got := ModelToolName(c.server, c.tool); got != c.want {
			t.Errorf("ModelToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

func hash8(server, tool string) string {
	full := ModelToolName(server, tool)
	return full[len(full)-8:]
}

// Capped names fit the provider's 64 characters after the wire encoding
// (which doubles '-'), stay deterministic, and stay distinct.
func TestModelToolNameCapsTheWireForm(t *testing.T) {
	t.Parallel()
	dashes := strings.Repeat("a-", 40)
	seen := map[string]string{}
	// "x00002E" reads back as '.' unless the encoder escapes the x, which
	// makes it 9 characters on the wire, not 1.
	escapes := strings.Repeat("x00002E", 12)
	for _, tool := range []string{dashes, dashes + "b", strings.Repeat("y", 200), strings.Repeat("y", 201), escapes} {
		name := ModelToolName("server", tool)
		if wire := provider.EncodeToolName(name); len(wire) > MaxModelNameLen {
			t.Errorf("%q encodes to %d characters", name, len(wire))
		}
		if again := ModelToolName("server", tool); again != name {
			t.Errorf("not deterministic: %q vs %q", name, again)
		}
		if prev, dup := seen[name]; dup {
			t.Errorf("%q and %q collide as %q", prev, tool, name)
		}
		seen[name] = tool
	}
}
