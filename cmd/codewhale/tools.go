package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
)

type toolsOptions struct {
	mode            string
	json            bool
	mcp             bool
	allowedTools    []string
	disallowedTools []string
}

func newToolsCmd(ios IO, g *globals) *cobra.Command {
	o := &toolsOptions{}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Print the first-turn tool catalog the model would receive, without contacting a provider",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTools(ios, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "", "plan|act|operate (default: the configured default mode)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.BoolVar(&o.mcp, "mcp", false, "also start the configured MCP servers and include their (deferred) tools")
	f.StringSliceVar(&o.allowedTools, "allowed-tools", nil, "as exec --allowed-tools: only these tools (names or prefix*)")
	f.StringSliceVar(&o.disallowedTools, "disallowed-tools", nil, "as exec --disallowed-tools: never these tools")
	return cmd
}

// toolsReceipt is the provider-free first-turn receipt (CONTRACT.md §13.5).
type toolsReceipt struct {
	Mode          string        `json:"mode"`
	MemoryEnabled bool          `json:"memory_enabled"`
	Active        []string      `json:"active"`
	Tools         []receiptTool `json:"tools"`
	Digest        *string       `json:"active_tool_catalog_sha256"`
}

type receiptTool struct {
	Name   string `json:"name"`
	State  string `json:"state"` // active | deferred
	Origin string `json:"origin"`
}

// firstTurnReceipt reports the surface the engine's first request would
// carry; the engine builds it, so strict mode and the allow/deny lists
// apply exactly as on request 1.
func firstTurnReceipt(a *app.App, o *toolsOptions) toolsReceipt {
	opts := a.EngineOptions()
	opts.AllowTools, opts.DenyTools = o.allowedTools, o.disallowedTools
	eng := engine.New(opts)
	surface := eng.FirstRequestSurface()
	mode, _ := eng.Mode()
	rec := toolsReceipt{Mode: mode.String(), MemoryEnabled: a.Cfg.MemoryEnabled, Active: []string{}, Tools: []receiptTool{}}
	for _, t := range surface.Tools {
		rec.Active = append(rec.Active, t.Name)
	}
	for _, e := range surface.Catalog.Entries() {
		state := "active"
		if !surface.Catalog.IsActive(e.Tool.Name) {
			state = "deferred"
		}
		rec.Tools = append(rec.Tools, receiptTool{Name: e.Tool.Name, State: state, Origin: string(e.Origin)})
	}
	if d, ok := engine.ActiveToolCatalogSHA256(surface.Tools); ok {
		rec.Digest = &d
	}
	return rec
}

func runTools(ios IO, g *globals, o *toolsOptions) error {
	cfg, err := g.load()
	if err != nil {
		return err
	}
	mode := cfg.Mode
	if o.mode != "" {
		if mode, err = posture.ParseMode(o.mode); err != nil {
			return err
		}
	}
	a, err := app.New(cfg, app.Options{Version: codewhaleVersion(), Mode: &mode, NoMCP: !o.mcp, NoJournal: true})
	if err != nil {
		return err
	}
	defer a.Close()
	rec := firstTurnReceipt(a, o)
	if o.json {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	}
	memory := "off"
	if rec.MemoryEnabled {
		memory = "on"
	}
	fmt.Fprintf(ios.Out, "Mode: %s (memory %s)\n", rec.Mode, memory)
	fmt.Fprintf(ios.Out, "Sent on the first request (%d), in order:\n", len(rec.Active))
	for i, n := range rec.Active {
		fmt.Fprintf(ios.Out, "  %2d. %-14s %s\n", i+1, n, originOf(rec, n))
	}
	var deferred []string
	for _, t := range rec.Tools {
		if t.State == "deferred" {
			deferred = append(deferred, fmt.Sprintf("%s (%s)", t.Name, t.Origin))
		}
	}
	fmt.Fprintf(ios.Out, "Deferred, loaded through tool_search (%d): %s\n", len(deferred), strings.Join(deferred, ", "))
	digest := "unavailable"
	if rec.Digest != nil {
		digest = *rec.Digest
	}
	fmt.Fprintf(ios.Out, "Active tool catalog digest: %s\n", digest)
	return nil
}

func originOf(rec toolsReceipt, name string) string {
	for _, t := range rec.Tools {
		if t.Name == name {
			return t.Origin
		}
	}
	return ""
}
