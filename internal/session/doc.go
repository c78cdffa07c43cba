// Package session stores conversations under $CODEWHALE_HOME/sessions/ so
// they survive crashes and upgrades, lists them quickly, and loads them back
// for resume (CONTRACT.md §12.2, §15.22, §15.23).
//
// # Why an append-only journal
//
// Each session is one JSON Lines file, <id>.jsonl. Its first line is a
// header (schema_version, id, created_at, workspace, model, mode); after it
// come one line per history message, "system_prompt" lines when the prompt
// changes and "meta" lines carrying the mutable metadata (title, usage, cost,
// model, mode) whenever it changes. The engine calls the Journal after every
// history append; each call becomes a single write(2) of whole lines followed
// by one fsync, before the engine sends its next request.
//
// The alternative, rewriting a whole JSON document atomically on every
// change, costs time proportional to the history: a 5,000-message session
// would rewrite megabytes per message. Appending costs the same for the
// first message and the five-thousandth (one write plus one fsync, about a
// millisecond on ext4; see BenchmarkAppendTo5000MessageSession), and a
// SIGKILL at any moment can only leave a partial final line, the message
// being written, which loading drops and reports. Messages acknowledged to
// the engine are already on disk.
//
// Whole-history replacements (compaction, a persisted SyncSession, repairing
// a damaged file before appending to it) are rare and small, so they rewrite
// the file atomically: temp file, fsync, rename, fsync of the directory. A
// damaged original is kept beside it as <id>.jsonl.damaged-<time> first.
//
// # Safety properties
//
//   - Loading recovers every complete message. A truncated final line, a
//     corrupted line anywhere and an unreadable header are dropped and
//     reported (Damage.Report: one line per dropped record), never fatal.
//     The writer that takes a damaged file over keeps it beside the clean
//     rewrite and hands what it dropped to ResolveOwned, which reports it.
//   - A file whose header declares a newer schema_version is refused with
//     ErrNewerSchema and is never truncated, rewritten, appended to or pruned.
//   - Text is redacted (provider.RedactSecrets plus the configured key values)
//     before it is written: API keys never reach a session file.
//   - One process writes a session at a time: an advisory lock on
//     sessions/<id>.lock, which records the holder's pid (owner.go). Hosts
//     claim a resumed session before sending anything (ResolveOwned), so a
//     second writer is refused up front with the holder's pid. Retention
//     pruning skips sessions that are locked or current.
//
// # Listing
//
// sessions/index.json caches each journal's metadata with the file's size
// and modification time. List stats the directory, re-summarises only the
// journals whose size or mtime changed (reading the header and the tail), and
// rewrites the cache when anything moved; a missing, unreadable or
// older-format index is rebuilt from the journals.
package session
