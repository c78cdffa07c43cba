package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// newModelsCmd is `codewhale models [--json] [--refresh]`: what the route's
// server lists at GET {base}/models, with what the model table knows of
// each (CONTRACT.md §10.9).
func newModelsCmd(ios IO, g *globals) *cobra.Command {
	var asJSON, refresh bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models the provider's server offers, with context window, output cap, vision, tools and prices",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			rows, err := listModels(cmd.Context(), cfg, refresh)
			if err != nil && len(rows) == 0 {
				return err
			}
			if err != nil {
				fmt.Fprintln(ios.Err, "warning:", err)
			}
			if asJSON {
				return printJSON(ios.Out, map[string]any{"provider": cfg.Provider, "base_url": cfg.BaseURL, "models": rows})
			}
			writeModels(ios.Out, cfg, rows)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "ask the server again instead of using the list cached for "+provider.DefaultModelTTL.String())
	return cmd
}

// modelRow is one model as `models` prints it. Assumed names the facts no
// source stated.
type modelRow struct {
	ID            string   `json:"id"`
	ContextWindow int      `json:"context_window"`
	MaxOutput     int      `json:"max_output"`
	Vision        bool     `json:"vision"`
	Reasoning     bool     `json:"reasoning"`
	Tools         bool     `json:"tools"`
	InputPrice    *float64 `json:"input_price"`
	OutputPrice   *float64 `json:"output_price"`
	Source        string   `json:"source"`
	Assumed       []string `json:"assumed,omitempty"`
}

func listModels(ctx context.Context, cfg *config.Config, refresh bool) ([]modelRow, error) {
	client, err := provider.New(cfg.ClientConfig(cfg.Model))
	if err != nil {
		return nil, err
	}
	live, err := cfg.ModelCache().Models(ctx, client, refresh)
	table := cfg.ModelTable()
	table.Live = func() []provider.LiveModel { return live }
	rows := make([]modelRow, 0, len(live))
	for _, l := range live {
		info, _ := table.Resolve(l.ID, provider.IsFirstParty(cfg.BaseURL))
		r := modelRow{ID: info.ID, ContextWindow: info.Window(), MaxOutput: provider.MaxOutputTokens(info),
			Vision: info.Vision, Reasoning: info.Reasoning, Tools: info.Tools, Source: info.Source}
		if info.ContextWindow == 0 {
			r.Assumed = append(r.Assumed, "context_window")
		}
		if info.MaxOutput == 0 && !info.Known {
			r.Assumed = append(r.Assumed, "max_output")
		}
		if info.Priced {
			in, out := info.Price.Input, info.Price.Output
			r.InputPrice, r.OutputPrice = &in, &out
		}
		rows = append(rows, r)
	}
	return rows, err
}

func writeModels(w io.Writer, cfg *config.Config, rows []modelRow) {
	fmt.Fprintf(w, "%s · %s\n", config.ProviderDisplayName(cfg.Provider), provider.ModelsURL(cfg.BaseURL, cfg.PathSuffix))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCONTEXT\tMAX OUT\tVISION\tTOOLS\tUSD/1M IN/OUT")
	for _, r := range rows {
		ctx := formatTokens(r.ContextWindow)
		if contains(r.Assumed, "context_window") {
			ctx = "? " + ctx + " assumed"
		}
		price := "?"
		if r.InputPrice != nil {
			price = fmt.Sprintf("%.4g / %.4g", *r.InputPrice, *r.OutputPrice)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, ctx, formatTokens(r.MaxOutput), yesNo(r.Vision), yesNo(r.Tools), price)
	}
	tw.Flush()
	if len(rows) == 0 {
		fmt.Fprintln(w, "(the server lists no models)")
	}
}

func formatTokens(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	}
	return fmt.Sprint(n)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
