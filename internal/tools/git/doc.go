// Package git implements the canonical read-only Git tool (tools.md §4.3,
// DECISIONS #14): the actions status, diff, log, show and blame. Content is
// the text git itself prints for the equivalent read — status as
// `--porcelain=v1 -b`, unified diffs, log lines in the contract's pretty
// format, show, blame — capped at 40000 characters, with structured metadata
// (command, working_dir, pathspec, truncation, backend and the action's
// parameters).
//
// # Backends
//
// Two backends produce that text behind one interface:
//
//   - go-git (always available): reads the repository through go-git and
//     this package's own readers (index, pack indexes) and renders git's
//     formats itself, so the tool works where no git binary exists. Its diff
//     engine follows xdiff (record cleanup, divide-and-conquer Myers with
//     git's cost limits, change compaction with the indent heuristic, the
//     default hunk-header function context), its blame follows git's
//     algorithm on top of it, and its status uses the index stat cache, the
//     cache-tree and parallel lstat like git's preload-index.
//   - the git CLI: runs `git` with the command lines of §4.3 (with
//     GIT_OPTIONAL_LOCKS=0 so a read never rewrites the index, and
//     COLUMNS=80 so --stat does not depend on the agent's terminal).
//
// Tests compare both backends byte for byte with the git CLI on real
// repositories. The per-action choice when a git binary is on PATH:
//
//   - log: go-git. Its text matches git's for the contract's fixed format
//     (walk order, history simplification for a path, --author as a POSIX
//     basic regular expression, --since/--until) and user configuration
//     cannot change it; it is about ten times faster than starting git on a
//     small repository. A date or author pattern the native parsers do not
//     understand is handed to the binary.
//   - status, diff, show, blame: the CLI. The native renderers match git
//     with git's default configuration, but the user's configuration and
//     repository features change git's text in ways only git implements:
//     diff.algorithm, .gitattributes diff drivers, textconv and eol filters,
//     .mailmap (show and blame), log.date and format.pretty (show),
//     status.showUntrackedFiles, submodules, fsmonitor and sparse checkouts.
//     For status on large trees the native path is not faster either: on a
//     20,000-file repository it measured 0.98–1.16× the time of
//     `git status --porcelain` (BenchmarkStatusInterleaved).
//
// Without a git binary (or with Options.DisableCLI) every action uses
// go-git. Known differences from git there, beyond the configuration above:
// inexact renames are paired greedily by git's similarity score rather than
// through git's full candidate matrix; merge commits whose combined diff is
// not empty, unmerged paths in diffs, reflog (@{…}) and search (:/…)
// revisions are refused with a message asking for the git binary;
// submodule changes are not reported by status; object alternates and the
// multi-pack-index are not consulted for abbreviations.
package git
