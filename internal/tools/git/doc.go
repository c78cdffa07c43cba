// Package git implements the canonical read-only Git tool (CONTRACT.md §6.3,
// CONTRACT.md §15.14): the actions status, diff, log, show and blame. Content is
// the text git itself prints for the equivalent read — status as
// `--porcelain=v1 -b`, unified diffs, log lines in the contract's pretty
// format, show, blame — capped at 40000 characters, with structured metadata
// (command, working_dir, pathspec, truncation, backend and the action's
// parameters).
//
// # Paths
//
// `path` is a pathspec, passed to git literally (GIT_LITERAL_PATHSPECS): it
// is joined to the workspace and cleaned lexically, and no link is followed
// to decide what it names, so a tracked symlink is the link itself. A path
// that is gone from disk is allowed (the history of a deleted file or
// folder); when a read of it comes back empty and neither the index nor any
// commit reachable from a ref has it, the call is refused as an unknown
// path.
//
// git runs at the root the path lies in (the workspace or a trusted root)
// with the rest of the path as the pathspec, never inside a submodule or
// nested repository on the way; a workspace below its repository's top
// level is the scope `.` of every call, and show refuses a blob or tree
// outside it (CONTRACT.md §6.3, showscope.go).
//
// # Backends
//
// Two backends produce that text behind one interface:
//
//   - the git CLI: runs `git` with the command lines of CONTRACT.md §6.3 (with
//     GIT_OPTIONAL_LOCKS=0 so a read never rewrites the index, and
//     COLUMNS=80 so --stat does not depend on the agent's terminal). It
//     serves every action whenever a binary is present: its text is exact
//     under the user's configuration and repository features, and git's
//     own log is faster than the go-git walk (3–5× for a plain log, about
//     10× for the log of a path, measured in issue 32).
//   - go-git (always available, CONTRACT.md §15.14): reads the repository through
//     go-git and this package's own readers (index, pack indexes) and
//     renders git's formats for what it does exactly — status (index stat
//     cache, cache-tree, parallel lstat like git's preload-index), log (walk
//     order, history simplification for a path, --author as a POSIX basic
//     regular expression, --since/--until, rev and A..B / A...B), and show of
//     tags, trees, blobs and commit headers. It does not reimplement git's
//     diff machinery: diff, blame and show with a patch or stat need the
//     binary, and say so (docs/PERFORMANCE.md records the decision).
//
// Input the go-git backend cannot answer exactly (a date or author pattern
// its parsers do not know, reflog and search revisions, configuration that
// changes status) is handed to the binary, or refused with that reason when
// there is none. Differential tests compare both backends with the git CLI
// over every commit of a fixture history and this project's own history.
package git
