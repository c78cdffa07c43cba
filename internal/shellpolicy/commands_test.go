package shellpolicy

import (
	"reflect"
	"testing"
)

func TestCommands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script   string
		want     [][]string
		complete bool
	}{
		{"git push origin main", [][]string{{"git", "push", "origin", "main"}}, true},
		{"echo git push", [][]string{{"echo", "git", "push"}}, true},
		{"go vet && sudo git push -f", [][]string{{"go", "vet"}, {"sudo", "git", "push", "-f"}, {"git", "push", "-f"}}, true},
		{"sh -c 'git push'", [][]string{{"sh", "-c", "git push"}, {"git", "push"}}, true},
		{"echo $(git push)", [][]string{{"echo", ""}, {"git", "push"}}, false},
		{"$X push", [][]string{{"$X", "push"}}, false},
		{"ls *.go", [][]string{{"ls", "*.go"}}, false},
	} {
		got, complete := Commands(tt.script)
		if complete != tt.complete || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Commands(%q) = %q, %v; want %q, %v", tt.script, got, complete, tt.want, tt.complete)
		}
	}
}
