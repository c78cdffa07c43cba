package handoff

import (
	"strings"
	"testing"
)

func TestEditorCommandSplitsLikeAShell(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"EDITOR": "code --wait"}, "code|--wait"},
		{map[string]string{"VISUAL": "vim", "EDITOR": "nano"}, "vim"},
		{map[string]string{}, ""},
	} {
		h := New(Config{Getenv: func(k string) string { return tt.env[k] }})
		if got := strings.Join(h.editorCommand(), "|"); got != tt.want {
			t.Errorf("%v: editor argv = %q, want %q", tt.env, got, tt.want)
		}
	}
}
