package attach

import (
	"reflect"
	"testing"
)

func TestDroppedPaths(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		paste string
		want  []string
	}{
		{"/home/me/shot.png", []string{"/home/me/shot.png"}},
		{"/home/me/my shot.png ", []string{"/home/me/my shot.png"}},            // a bare path with a space, trailing blank
		{`/home/me/my\ shot\ \(1\).png`, []string{"/home/me/my shot (1).png"}}, // macOS terminals escape
		{`'/home/me/it'\''s.jpeg'`, []string{"/home/me/it's.jpeg"}},            // GNOME quotes
		{`"/tmp/a b.WEBP"`, []string{"/tmp/a b.WEBP"}},
		{"file:///tmp/a%20b.gif", []string{"/tmp/a b.gif"}},
		{`'/a.png' '/b.jpg'`, []string{"/a.png", "/b.jpg"}},
		{"/a.png\n/b.jpg\n", []string{"/a.png", "/b.jpg"}},
		{`"C:\Users\me\shot.png"`, []string{`C:\Users\me\shot.png`}},
		{"shots/a.png", []string{"shots/a.png"}},
		{"look at /a.png", nil},
		{"/a.png /notes.txt", nil},
		{"/tmp/$(touch x).png", []string{"/tmp/$(touch x).png"}}, // a literal name
		{`'/tmp/a.png' $(touch x).png`, nil},                     // a command substitution is never run
		{"hello", nil},
		{"", nil},
	} {
		if got := droppedPaths(tt.paste); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("droppedPaths(%q) = %q, want %q", tt.paste, got, tt.want)
		}
	}
}
