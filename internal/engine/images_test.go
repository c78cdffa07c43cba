package engine_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// visionTable marks "eyes" as a model that takes images; every other
// model has no vision.
func visionTable() *provider.ModelTable {
	yes := true
	return &provider.ModelTable{Overrides: map[string]provider.ModelOverride{"eyes": {Vision: &yes}}}
}

func visionHarness(t *testing.T, srv *fakemodel.Server, model string) *harness {
	return newHarness(t, srv, func(o *engine.Options) {
		o.Model = model
		o.NewClient = func(m string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: m, Retry: fastRetry, Models: visionTable()})
		}
	})
}

var shot = provider.ImageBlock("data:image/png;base64,iVBORw0KGgo=",
	provider.Image{MIME: "image/png", Width: 1280, Height: 720, Bytes: 217_000, SHA256: "ab", Label: "shot.png"})

func (h *harness) send(op engine.SendMessage) []engine.Event {
	h.t.Helper()
	h.eng.Submit(op)
	return h.collect(nil)
}

// CONTRACT.md §14.11: the image goes to a model that can see as an
// image_url part of the user message, and stays in the history.
func TestImageReachesAModelThatCanSee(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a cat"))
	h := visionHarness(t, srv, "eyes")
	evs := h.send(engine.SendMessage{Content: "what is this?", Images: []provider.Block{shot}})
	if d := done(t, evs); d.Status != engine.TurnCompleted {
		t.Fatalf("turn: %+v", d)
	}
	req := srv.Requests()[0]
	if urls := req.ImageURLs(); len(urls) != 1 || urls[0] != shot.ImageURL {
		t.Errorf("image parts %q", urls)
	}
	if !strings.HasPrefix(req.LastUserText(), "what is this?\n<turn_meta>") {
		t.Errorf("text parts %q", req.LastUserText())
	}
	if got := h.eng.Snapshot().Messages[0].Images(); len(got) != 1 || got[0].Image.Label != "shot.png" {
		t.Errorf("history images %+v", got)
	}
}

// A model without vision gets no request: the turn fails with the
// reason, and the message is not added.
func TestImageToAModelWithoutVisionIsRefusedBeforeTheRequest(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("never"))
	h := visionHarness(t, srv, "blind")
	evs := h.send(engine.SendMessage{Content: "what is this?", Images: []provider.Block{shot}})
	d := done(t, evs)
	want := `blind cannot take images (the model table gives it no vision), so nothing was sent. Models on deepseek that can: eyes.`
	if d.Status != engine.TurnFailed || !strings.HasPrefix(d.Error, want) {
		t.Fatalf("turn: %+v", d)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
	if n := len(h.eng.Snapshot().Messages); n != 0 {
		t.Errorf("history has %d messages", n)
	}
}

// Images already in the history go to a model that cannot see as their
// descriptions, and the person is told so; the history keeps them.
func TestEarlierImagesGoToABlindModelAsDescriptions(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a cat"), fakemodel.Text("noted"))
	first := visionHarness(t, srv, "eyes")
	first.send(engine.SendMessage{Content: "what is this?", Images: []provider.Block{shot}})
	h := visionHarness(t, srv, "blind")
	sess := first.eng.Snapshot()
	sess.Model = "blind"
	h.eng.Submit(engine.SyncSession{Session: sess})
	evs := h.turn("and now?")
	var told bool
	for _, s := range all[engine.Status](evs) {
		told = told || strings.Contains(s.Message, "the 1 image(s) earlier in this conversation were sent as their one-line descriptions")
	}
	req := srv.Requests()[1]
	if !told || len(req.ImageURLs()) != 0 || !strings.Contains(string(req.Raw), `[image: shot.png, 1280×720 PNG 212 KB]`) {
		t.Errorf("told=%v, request %s", told, req.Raw)
	}
	if len(h.eng.Snapshot().Messages[0].Images()) != 1 {
		t.Error("the history lost the image")
	}
}

// Compaction replaces an old image by its one-line description.
func TestCompactionDescribesOldImages(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one"), fakemodel.Text("two"), fakemodel.Text("three"),
		fakemodel.Text("SUMMARY"))
	h := visionHarness(t, srv, "eyes")
	h.send(engine.SendMessage{Content: "look", Images: []provider.Block{shot}})
	h.turn("second")
	h.turn("third")
	h.eng.Submit(engine.CompactContext{})
	for ev := range h.eng.Events() {
		if _, ok := ev.(engine.CompactionCompleted); ok {
			break
		}
		if f, ok := ev.(engine.CompactionFailed); ok {
			t.Fatal(f.Error)
		}
	}
	summary := srv.Requests()[3]
	if !strings.Contains(summary.LastUserText(), "[user] [image: shot.png, 1280×720 PNG 212 KB]") || len(summary.ImageURLs()) != 0 {
		t.Errorf("summary request %s", summary.Raw)
	}
	for _, m := range h.eng.Snapshot().Messages {
		if len(m.Images()) != 0 {
			t.Error("an image older than the kept turns survived compaction")
		}
	}
}

// read_media's image goes with its result to a model that can see, after
// the batch's tool messages; a model that cannot see gets the refusal.
func TestReadMediaResultCarriesTheImage(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"eyes", "blind"} {
		t.Run(model, func(t *testing.T) {
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "read_media", Args: `{"path":"dot.png"}`},
				fakemodel.Call{ID: "c2", Name: "Git", Args: `{"action":"status"}`}), fakemodel.Text("a dot"))
			h := visionHarness(t, srv, model)
			writeDot(t, filepath.Join(h.ws, "dot.png"))
			if d := done(t, h.turn("look at dot.png")); d.Status != engine.TurnCompleted {
				t.Fatalf("turn: %+v", d)
			}
			req := srv.Requests()[1]
			urls := req.ImageURLs()
			if model == "blind" {
				if len(urls) != 0 || !req.HasToolResult("read_media: blind cannot take images") {
					t.Errorf("blind: %s", req.Raw)
				}
				return
			}
			msgs := req.Messages()
			last := msgs[len(msgs)-1]
			if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") || last["role"] != "user" ||
				msgs[len(msgs)-2]["tool_call_id"] != "c2" {
				t.Errorf("the image part does not follow the batch's tool messages: %s", req.Raw)
			}
		})
	}
}

func writeDot(t *testing.T, path string) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
