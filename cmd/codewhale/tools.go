package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/policy"
)

type toolsOptions struct {
	mode string
	json bool
	mcp  bool
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
	cmd.Flags().StringVar(&o.mode, "mode", "", "plan|act|operate (default: the configured default mode)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.mcp, "mcp", false, "also start the configured MCP servers and include their (deferred) tools")
	return cmd
}

// toolsReceipt is the provider-free first-turn receipt (DECISIONS #10).
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

// firstTurnReceipt builds the catalog exactly as the engine's first step
// would and reports it.
func firstTurnReceipt(a *app.App, mode policy.Mode) toolsReceipt {
	opts := a.EngineOptions()
	env := engine.TurnEnv{Mode: mode, Posture: opts.Posture, AllowShell: opts.AllowShell}
	ts := opts.Tools(env)
	cat := catalog.Build(ts.Registry, ts.MCP, catalog.Options{Mode: mode, Posture: opts.Posture, AllowShell: opts.AllowShell,
		AlwaysLoad: opts.AlwaysLoad})
	req := cat.RequestTools()
	rec := toolsReceipt{Mode: mode.String(), MemoryEnabled: a.Cfg.MemoryEnabled, Active: []string{}, Tools: []receiptTool{}}
	for _, t := range req {
		rec.Active = append(rec.Active, t.Name)
	}
	for _, e := range cat.Entries() {
		state := "active"
		if !cat.IsActive(e.Tool.Name) {
			state = "deferred"
		}
		rec.Tools = append(rec.Tools, receiptTool{Name: e.Tool.Name, State: state, Origin: string(e.Origin)})
	}
	if d, ok := engine.ActiveToolCatalogSHA256(req); ok {
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
		if mode, err = policy.ParseMode(o.mode); err != nil {
			return err
		}
	}
	a, err := app.New(cfg, app.Options{Version: version, Mode: &mode, NoMCP: !o.mcp, NoJournal: true})
	if err != nil {
		return err
	}
	defer a.Close()
	rec := firstTurnReceipt(a, mode)
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
