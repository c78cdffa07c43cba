package main

import (
	"bufio"
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

func newAuthCmd(ios IO, g *globals) *cobra.Command {
	auth := &cobra.Command{Use: "auth", Short: "Store or inspect the provider API key"}
	set := &cobra.Command{
		Use:   "set",
		Short: "Store an API key (read from stdin) in $CODEWHALE_HOME/secrets",
		RunE: func(cmd *cobra.Command, _ []string) error {
			providerName := g.provider
			if providerName == "" {
				providerName = "deepseek"
			}
			fmt.Fprintf(ios.Err, "Paste the %s API key and press Enter: ", providerName)
			line, err := bufio.NewReader(ios.In).ReadString('\n')
			if err != nil && strings.TrimSpace(line) == "" {
				return fmt.Errorf("no key read from stdin: %w", err)
			}
			path, err := config.WriteSecret(config.HomeDir(config.ProcessEnv()), providerName, line)
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Err, "\nStored the %s key in %s\n", providerName, path)
			return nil
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Show where the API key comes from (never the key itself)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "provider: %s\nbase url: %s (%s)\nmodel: %s\napi key: %s\n",
				cfg.Provider, cfg.BaseURL, cfg.BaseSource, cmp.Or(cfg.Model, "(the server's first listed model)"), keyStatus(cfg))
			return nil
		},
	}
	auth.AddCommand(set, status)
	return auth
}

func keyStatus(cfg *config.Config) string {
	switch {
	case cfg.Withheld:
		return fmt.Sprintf("set, %s, bound to %s: not sent to %s", cfg.KeyOrigin(), cfg.KeyBoundTo, cfg.BaseURL)
	case cfg.APIKey != "":
		return "set, " + cfg.KeyOrigin() + " → " + cfg.KeyHost
	case cfg.KeyOptional || provider.IsLoopback(cfg.BaseURL):
		return "none needed for " + cfg.BaseURL
	}
	return fmt.Sprintf("not set (export %s, run `codewhale auth set --provider %s`, or add api_key under [providers.%s] in config.toml)",
		cfg.ClientConfig("").KeyEnv, cfg.Provider, cfg.Provider)
}
