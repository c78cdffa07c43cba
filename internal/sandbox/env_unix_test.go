//go:build unix

package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// A real child's environment does not show the agent's key.
// README.md "Sandbox": commands run without the agent's secret-looking variables.
func TestChildEnvironmentHasNoKey(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-secret-test")
	t.Setenv("CODEWHALE_API_KEY", "sk-secret-test")
	t.Setenv("PASSED_TOKEN", "visible")
	sb := New(Policy{Mode: FullAccess}, Options{EnvPassthrough: []string{"PASSED_TOKEN"}})
	cmd := exec.Command("env")
	cmd.Env = sb.Environ("EXTRA=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "sk-secret-test") || !strings.Contains(string(out), "PASSED_TOKEN=visible") ||
		!strings.Contains(string(out), "EXTRA=1") {
		t.Fatalf("child environment:\n%s", out)
	}
}
