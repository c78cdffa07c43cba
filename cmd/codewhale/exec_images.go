package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/provider"
)

// execImages reads each --image path as the TUI's /attach does
// (CONTRACT.md §14.11): inside the File boundary, through the confined
// reader and the secret guard, checked, scaled and encoded by
// internal/images. The first refusal stops the run before any request.
func execImages(ctx context.Context, cfg *config.Config, paths []string) ([]provider.Block, error) {
	blocks := make([]provider.Block, 0, len(paths))
	for _, p := range paths {
		prep, err := images.File(ctx, cfg.Workspace, cfg.WorkspaceTrust, p, images.Options{})
		if err != nil {
			return nil, fmt.Errorf("--image %s: %w", p, err)
		}
		blocks = append(blocks, prep.Block(filepath.Base(p)))
	}
	return blocks, nil
}

// oneShotUser is the one-shot request's message: the prompt and its
// images.
func oneShotUser(prompt string, imgs []provider.Block) provider.Message {
	m := provider.UserText(prompt)
	m.Content = append(m.Content, imgs...)
	return m
}
