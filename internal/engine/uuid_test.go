package engine

import (
	"regexp"
	"testing"
)

func TestNewUUIDIsVersion4AndUnique(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 10000 {
		id := NewUUID()
		if !v4.MatchString(id) {
			t.Fatalf("%q is not a v4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("%q repeated", id)
		}
		seen[id] = true
	}
}
