// Package media is the deferred read_media tool (CONTRACT.md §6.14): it
// reads an image in the workspace through the image service
// (internal/images) and returns it to a model that can see, cropped and
// scaled to the detail asked for.
package media

import (
	"context"
	"encoding/json"
	"fmt"
	"image"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// Name is the tool's exact name.
const Name = "read_media"

// Tool is read_media.
type Tool struct{ tools.Spec }

// New returns read_media.
func New() *Tool {
	return &Tool{Spec: tools.Spec{
		ToolName: Name,
		Desc: "Look at an image file (PNG, JPEG, GIF, WebP) in the workspace: a screenshot, diagram or mockup. " +
			"Optional crop region and detail level.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly, tools.CapSandboxable},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
		Parallel:   true,
	}}
}

// input is read_media's parameter contract (docs/ARCHITECTURE.md §6).
type input struct {
	Path   string    `json:"path" jsonschema:"The image, relative to the workspace or absolute inside it."`
	Crop   tools.Raw `json:"crop,omitempty" jsonschema:"Keep only this region of the image, in its pixels (origin top-left)."`
	Detail string    `json:"detail,omitempty" jsonschema:"Longest side sent: low 1024 px, auto 2048 px (default), high or original 4096 px."`
}

// sides are the longest side each detail level sends.
var sides = map[string]int{"low": 1024, "auto": 2048, "high": 4096, "original": 4096}

// cropSchema is the crop object's schema, published and checked.
var cropSchema = map[string]any{"type": "object", "additionalProperties": false,
	"required": []any{"x", "y", "width", "height"},
	"properties": map[string]any{
		"x":      map[string]any{"type": "integer", "minimum": 0, "description": "Left edge, in pixels."},
		"y":      map[string]any{"type": "integer", "minimum": 0, "description": "Top edge, in pixels."},
		"width":  map[string]any{"type": "integer", "minimum": 1},
		"height": map[string]any{"type": "integer", "minimum": 1},
	}}

// details are the detail levels, in published order.
var details = []string{"auto", "low", "high", "original"}

// checked is what Check validates beyond the decoder's kinds.
var checked = map[string]any{"type": "object", "properties": map[string]any{"crop": cropSchema,
	"detail": map[string]any{"type": "string", "enum": []any{"auto", "low", "high", "original"}}}}

// params is shared, read-only, by every registry; the schema is built once.
var params = tools.NewParams[input](Name, tools.ParamOptions[input]{
	Enums:  map[string][]string{"detail": details},
	Closed: true,
	Shape: func(s *jsonschema.Schema, _ []string) {
		raw, _ := json.Marshal(cropSchema)
		var c jsonschema.Schema
		_ = json.Unmarshal(raw, &c)
		c.Description = s.Properties["crop"].Description
		s.Properties["crop"] = &c
	},
	Check: func(d *tools.Decoded[input]) error {
		if !d.Has("path") {
			return d.Missing("path")
		}
		// The crop's shape and the detail's values, in the validator's
		// words (the decoder reads kinds only).
		return tools.Validate(Name, checked, d.Input())
	},
})

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3).
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(raw, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		return run(ctx, tc, d.In)
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// run reads, checks and prepares the image. A model that cannot see is
// refused before the file is read.
func run(ctx context.Context, tc *tools.Context, in input) (tools.Result, error) {
	if tc.NoVision != nil {
		return tools.Result{}, tools.NotAvailable("read_media: %v", tc.NoVision)
	}
	abs, err := tc.ResolvePath(in.Path)
	if err != nil {
		return tools.Result{}, err
	}
	o := images.Options{MaxSide: sides["auto"]}
	if s, ok := sides[in.Detail]; ok {
		o.MaxSide = s
	}
	if len(in.Crop) > 0 {
		var c struct{ X, Y, Width, Height int }
		if err := json.Unmarshal(in.Crop, &c); err != nil {
			return tools.Result{}, tools.InvalidInput("read_media: crop: %v", err)
		}
		o.Crop = image.Rect(c.X, c.Y, c.X+c.Width, c.Y+c.Height)
	}
	p, err := images.File(ctx, tc.Workspace, tc.TrustedRoots, abs, o)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, tools.Cancelled("read_media was cancelled")
		}
		return tools.Result{}, tools.ExecutionFailed("read_media: %v", err)
	}
	rel := tc.Rel(abs)
	return tools.Result{Content: receipt(rel, p, in.Detail, o.Crop), Success: true, Images: []provider.Block{p.Block(rel)},
		Metadata: map[string]any{"path": rel, "mime_type": p.Format.MIME, "width": p.Width, "height": p.Height,
			"bytes": len(p.Data), "source_mime_type": p.Source.MIME, "source_width": p.SourceWidth,
			"source_height": p.SourceHeight, "source_bytes": p.SourceBytes, "cropped": p.Cropped}}, nil
}

// receipt is the result's text: what the model is looking at.
func receipt(rel string, p *images.Prepared, detail string, crop image.Rectangle) string {
	if detail == "" {
		detail = "auto"
	}
	s := fmt.Sprintf("%s: %d×%d %s image, shown below (detail %s)", rel, p.Width, p.Height, p.Format.Name, detail)
	if p.Cropped || p.Resized {
		s += fmt.Sprintf("; from the %d×%d %s source", p.SourceWidth, p.SourceHeight, p.Source.Name)
	}
	kept := image.Pt(p.SourceWidth, p.SourceHeight)
	if p.Cropped {
		s += fmt.Sprintf(", cropped to %d×%d at %d,%d", crop.Dx(), crop.Dy(), crop.Min.X, crop.Min.Y)
		kept = crop.Size()
	}
	if p.Width != kept.X || p.Height != kept.Y {
		s += ", scaled down"
	}
	return s + "."
}
