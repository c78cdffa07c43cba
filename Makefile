# codewhale — the two set-up commands are `make run` and `make test`.
GO        ?= go
BIN       := bin/codewhale
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: run build release-check check test unit race fuzz cross mcp-servers acp-client lsp-servers bench lint fmt-check vet third-party commits clean

## run: build and start the TUI in the current directory
run: build
	./$(BIN)

## build: compile bin/codewhale (static: no libc to load at start)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/codewhale

GORELEASER_VERSION := v2.17.0
GORELEASER := .cache/bin/goreleaser

## release-check: `goreleaser check` on .goreleaser.yaml (installs goreleaser into .cache/bin from the Go module proxy)
release-check:
	@test -x $(GORELEASER) || GOBIN=$(CURDIR)/.cache/bin GOFLAGS= $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	$(GORELEASER) check

# The packages whose goroutines meet: run again under the race detector.
RACE_PKGS := ./internal/engine/... ./internal/jobs/... ./internal/sandbox/... ./internal/tools/agent/... ./internal/mcp/... \
             ./internal/session/... ./internal/tui/... ./internal/lsp/...
FUZZTIME  ?= 20s

## test: everything CI checks — formatting, vet, lint, copies, unit and end-to-end tests, race, fuzz, other OSes
test: fmt-check vet lint third-party commits release-check mcp-servers acp-client lsp-servers unit race fuzz cross

## check: the quick gate before a commit — gofmt, vet, staticcheck, go test -short (cached results reused); the skips are listed
check: fmt-check vet lint
	@bash -o pipefail -c '$(GO) test -short -json -timeout 10m ./... | $(GO) run ./scripts/testreport'

## unit: every test, uncached; prints each package's result, failures in full, then the skip count and names
unit:
	@bash -o pipefail -c '$(GO) test -json -count=1 -timeout 20m ./... | $(GO) run ./scripts/testreport'

## race: the concurrent packages under the race detector. The TUI's TestE2E*
## tests drive a separately built binary through tmux, which the detector
## cannot see into, so they run once, in unit, not here.
race:
	$(GO) test -race -count=1 -timeout 20m -skip '^TestE2E' $(RACE_PKGS)

## fuzz: every fuzz target for FUZZTIME (default 20s) each
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

## cross: build and vet for linux, darwin, windows on amd64 and arm64, CROSS_JOBS (default: the cores) at a time
cross:
	scripts/cross.sh

## mcp-servers: the npm MCP servers the end-to-end tests run against (needs npm)
mcp-servers:
	@if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then \
		scripts/install-mcp-servers.sh >/dev/null; \
	else echo "npm not found: the MCP end-to-end tests will skip (and fail under CODEWHALE_REQUIRE_E2E=1)"; fi

## acp-client: the Agent Client Protocol's TypeScript SDK, the client the `codewhale acp` end-to-end tests use (needs npm)
acp-client:
	@if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then \
		scripts/install-acp-client.sh >/dev/null; \
	else echo "npm not found: the ACP end-to-end tests will skip (and fail under CODEWHALE_REQUIRE_E2E=1)"; fi

## lsp-servers: the language servers the LSP end-to-end tests run against, pinned into .cache/ (gopls from the
## Go module proxy, pyright and typescript-language-server from npm)
lsp-servers:
	@scripts/install-lsp-servers.sh >/dev/null || \
		echo "some language servers could not be installed: their tests will skip (and fail under CODEWHALE_REQUIRE_E2E=1)"

## bench: the performance benchmarks recorded in docs/PERFORMANCE.md
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./...
	@if command -v hyperfine >/dev/null 2>&1; then scripts/bench-startup.sh; else echo "hyperfine not installed: start-up time not measured (scripts/bench-startup.sh)"; fi

# Our packages: third_party/ holds upstream's files as released plus patches
# (scripts/third_party.sh), which formatting and lint checks must not edit.
OWN_PKGS = $$($(GO) list ./... | grep -v '/third_party/')

## lint: staticcheck
lint:
	@command -v staticcheck >/dev/null 2>&1 || GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$$(command -v staticcheck || echo $$($(GO) env GOPATH)/bin/staticcheck) $(OWN_PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' ':!:third_party/**' 2>/dev/null || find . -name '*.go' -not -path './.git/*' -not -path './third_party/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(OWN_PKGS)

## commits: every commit since the rule began is `pkg: what` in at most 72 characters
commits:
	scripts/commit-subjects.sh

## third-party: go.mod has no replace; each copy under third_party/ is its tag plus its patches
third-party:
	scripts/third_party.sh verify

clean:
	rm -rf bin
