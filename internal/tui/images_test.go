package tui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

// visionDirect is a model whose route's model takes images, over ws.
func visionDirect(t testing.TB, ws, model string) *direct {
	yes := true
	return newDirect(t, 100, 30, func(o *Options) {
		o.Workspace, o.Home = ws, t.TempDir()
		o.Route.Model = model
		o.Models = &provider.ModelTable{Overrides: map[string]provider.ModelOverride{"eyes": {Vision: &yes}}}
	})
}

func writeImage(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// run executes cmd and what it batches, feeding their messages back, as
// the program would off the UI goroutine.
func (d *direct) run(cmd tea.Cmd) {
	d.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case nil:
	default:
		d.m.Update(msg) // what it returns is a toast's timer: not run
	}
}

func (d *direct) paste(s string) tea.Cmd {
	_, cmd := d.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true})
	return cmd
}

func (d *direct) sends() []engine.SendMessage {
	var out []engine.SendMessage
	for _, op := range d.eng.Ops() {
		if s, ok := op.(engine.SendMessage); ok {
			out = append(out, s)
		}
	}
	return out
}

// CONTRACT.md §14.11: a pasted image path becomes a chip and goes with
// the next message as an image block; the transcript shows the chip.
func TestPastedImagePathBecomesAChipAndIsSent(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeImage(t, filepath.Join(ws, "shot.png"), 64, 48)
	d := visionDirect(t, ws, "eyes")
	d.run(d.paste(filepath.Join(ws, "shot.png")))
	d.mustShow("[Image #1 64×48 PNG", "Backspace removes")
	if !d.m.comp.Empty() {
		t.Fatalf("the path went into the composer: %q", d.m.comp.Value())
	}
	d.submit("what is it?")
	sends := d.sends()
	if len(sends) != 1 || sends[0].Content != "what is it?" || len(sends[0].Images) != 1 ||
		!strings.HasPrefix(sends[0].Images[0].ImageURL, "data:image/png;base64,") {
		t.Fatalf("sent %+v", sends)
	}
	d.mustShow("what is it?", "[Image #1 64×48 PNG")
	d.mustNotShow("Backspace removes")
}

// Each refusal is a status line; the composer's draft and the chips stay.
func TestImageRefusalsLeaveTheComposerIntact(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	good := writeImage(t, filepath.Join(ws, "ok.png"), 10, 10)
	if err := os.WriteFile(filepath.Join(ws, "cut.png"), good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.png"), []byte("plain text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(ws, "big.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(30 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	writeImage(t, filepath.Join(out, "far.png"), 10, 10)
	d := visionDirect(t, ws, "eyes")
	d.typeText("my draft")
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(ws, "big.png"), "over the 20.0 MB limit"},
		{filepath.Join(ws, "cut.png"), "damaged or incomplete"},
		{filepath.Join(ws, "notes.png"), "holds text, not an image"},
		{filepath.Join(out, "far.png"), "is outside the workspace"},
	} {
		d.run(d.paste(tt.path))
		d.mustShow("Image not attached:")
		if s := d.m.status.msg.text; !strings.Contains(s, tt.want) {
			t.Errorf("%s: status %q, want %q", tt.path, s, tt.want)
		}
		if d.m.comp.Value() != "my draft" || d.m.attach.Len() != 0 {
			t.Errorf("%s: composer %q, chips %d", tt.path, d.m.comp.Value(), d.m.attach.Len())
		}
	}
}

// A model without vision gets nothing: the reason is in the transcript,
// and the draft and its chip stay for another model.
func TestImagesToAModelWithoutVisionAreNotSent(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeImage(t, filepath.Join(ws, "shot.png"), 8, 8)
	d := visionDirect(t, ws, "deepseek-v4-pro")
	d.run(d.m.attach.Command(d.m.hhost, filepath.Join(ws, "shot.png")))
	d.submit("what is it?")
	if n := len(d.sends()); n != 0 {
		t.Fatalf("%d messages sent", n)
	}
	d.mustShow("deepseek-v4-pro cannot take images", "Models on deepseek that can: eyes", "[Image #1 8×8 PNG")
	if d.m.comp.Value() != "what is it?" {
		t.Errorf("composer %q", d.m.comp.Value())
	}
}

func TestChipsAreRemovedByBackspaceAndAttachClear(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeImage(t, filepath.Join(ws, "a.png"), 4, 4)
	d := visionDirect(t, ws, "eyes")
	for range 3 {
		d.run(d.m.attach.Command(d.m.hhost, "a.png"))
	}
	d.mustShow("[Image #1 4×4", "[Image #3 4×4")
	d.typeText("x")
	d.key("backspace") // deletes the x: the cursor was not at the start
	d.key("backspace")
	if n := d.m.attach.Len(); n != 2 || !strings.Contains(d.m.attach.View(d.m.w), "[Image #2 4×4") {
		t.Fatalf("after Backspace at the start: %d chips, row %q", n, d.m.attach.View(d.m.w))
	}
	d.submit("/attach clear")
	if d.m.attach.Len() != 0 {
		t.Fatalf("chips left: %d", d.m.attach.Len())
	}
	d.mustNotShow("Backspace removes")
}

// Esc before any output puts the prompt and its images back.
func TestCancelRestoresTheImages(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeImage(t, filepath.Join(ws, "a.png"), 4, 4)
	d := visionDirect(t, ws, "eyes")
	d.run(d.m.attach.Command(d.m.hhost, "a.png"))
	d.submit("look")
	d.key("esc")
	if d.m.comp.Value() != "look" || d.m.attach.Len() != 1 {
		t.Fatalf("after Esc: composer %q, chips %d", d.m.comp.Value(), d.m.attach.Len())
	}
}

// A resumed session shows its images as chips under the prompt.
func TestRebuildShowsImageChips(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	msg := provider.Message{Role: provider.RoleUser, Origin: provider.OriginUser, Content: []provider.Block{
		provider.TextBlock("look"), provider.ImageBlock("data:image/png;base64,AA",
			provider.Image{MIME: "image/png", Width: 1280, Height: 720, Bytes: 217_000}),
		provider.TextBlock("<turn_meta>\n</turn_meta>")}}
	rebuild(d.m.tr, []provider.Message{msg})
	d.mustShow("look", "[Image #1 1280×720 PNG 212 KB]")
}
