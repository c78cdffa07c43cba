package session

import (
	"strings"
	"testing"
	"time"
)

func TestWriteTable(t *testing.T) {
	t.Parallel()
	ms := []Meta{
		{ID: "0b7d1c2e-1111-4222-8333-444455556666", Title: "Port the parser", UpdatedAt: t0.Add(-3 * time.Hour),
			MessageCount: 42, Model: "deepseek-v4-pro", Workspace: "/ws/a"},
		{ID: "future", UpdatedAt: t0.Add(-time.Minute), NewerSchema: 2},
		{ID: "9f00aa11-0000-4000-8000-000000000000", UpdatedAt: t0.Add(-5 * 24 * time.Hour), Model: "deepseek-v4-flash"},
	}
	tests := []struct {
		name string
		ws   bool
		want string
	}{
		{"one workspace", false, `ID        UPDATED  MSGS  MODEL              TITLE
0b7d1c2e  3h       42    deepseek-v4-pro    Port the parser
future    1m       0     -                  (written by a newer codewhale, schema_version 2)
9f00aa11  5d       0     deepseek-v4-flash  (untitled)
`},
		{"every workspace", true, `ID        UPDATED  MSGS  MODEL              WORKSPACE  TITLE
0b7d1c2e  3h       42    deepseek-v4-pro    /ws/a      Port the parser
future    1m       0     -                  -          (written by a newer codewhale, schema_version 2)
9f00aa11  5d       0     deepseek-v4-flash  -          (untitled)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := WriteTable(&b, ms, t0, tt.ws); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Fatalf("table:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
