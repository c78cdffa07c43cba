package file

import "slices"

// description is the model-facing description of an instance.
func description(writable, patch bool) string {
	d := "Read, list and search workspace files with structured results. read returns small files whole and " +
		"larger ones as numbered windows (start_line, max_lines up to 500); list shows a directory (depth up to 5); " +
		"search_name finds files by fuzzy name; search_content searches file contents with a regex (or plain " +
		"text with literal=true), returning matches in path order with an exact total. list and the searches honour " +
		".gitignore, .ignore, .rgignore, .git/info/exclude and the global excludes file as ripgrep does, and say what " +
		"they left out and how to get it; these four actions need no approval."
	switch {
	case writable && patch:
		d += " write replaces or creates a whole file; edit replaces one exact, unique match of `search` in a " +
			"file you have read in this session; patch applies a unified diff (or full-file `replace` entries) " +
			"to one or more files, all or nothing."
	case writable:
		d += " write replaces or creates a whole file; edit replaces one exact, unique match of `search` in a " +
			"file you have read in this session."
	default:
		d += " This mode is read-only: write, edit and patch are unavailable."
	}
	return d
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func strList(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

// replaceEntries is the schema of the patch form's [{path, content}] array.
func replaceEntries(desc string) map[string]any {
	return map[string]any{"type": "array", "description": desc, "items": map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}},
		"required":   []any{"path", "content"},
	}}
}

// schema is the input schema of an instance running actions: the action
// enum lists exactly those, and fields only write/edit/patch use are left
// out where those actions are (CONTRACT.md §4.5).
func schema(actions []string) map[string]any {
	enum := make([]any, len(actions))
	for i, a := range actions {
		enum[i] = a
	}
	p := map[string]any{
		"action": map[string]any{"type": "string", "enum": enum, "description": "The operation to perform."},
		"path": prop("string", "File or directory, relative to the workspace or absolute inside it. Required for "+
			"read, write and edit; default `.` for list and the searches; for patch, the single file the hunks apply to."),
		"start_line": prop("integer", "read: first line to show, 1-based (default 1)."),
		"max_lines":  prop("integer", "read: number of lines to show (default and maximum 500)."),
		"pages":      prop("string", "read, PDF only: page `N` or range `N-M`."),
		"depth":      prop("integer", "list: directory levels to show (default 1, maximum 5)."),
		"query":      prop("string", "search_name: file name or path fragment, matched fuzzily."),
		"limit":      prop("integer", "search_name: maximum results (default 20, 1-200)."),
		"extensions": strList("search_name: only files with these extensions (no dot, case-insensitive)."),
		"pattern": prop("string", "search_content: regular expression in RE2 syntax read as ripgrep reads it: \\w, \\d "+
			"and \\s are Unicode-aware, case_insensitive uses Unicode case folding, `$` matches before CRLF; \\b is an "+
			"ASCII word boundary, and bytes that are not UTF-8 read as U+FFFD. Or plain text with literal=true."),
		"literal": prop("boolean", "search_content: treat `pattern` as plain text instead of a regex (default false)."),
		"include": strList("search_content: only files matching these globs (e.g. `*.go`, `src/**/*.ts`); a glob " +
			"with `/` is relative to the workspace root, one without matches a name at any depth."),
		"exclude": strList("search_content and search_name: skip paths matching these globs (as for include). " +
			"Replaces the default excludes (directories named node_modules, target, dist, build, …; minified files), " +
			"which never skip a directory holding tracked files and are reported when they skip something; " +
			"`exclude: []` searches everything."),
		"context_lines":    prop("integer", "search_content: lines of context before and after each match (default 2, max 1000)."),
		"case_insensitive": prop("boolean", "search_content: match case-insensitively (default false)."),
		"max_results": prop("integer", "search_content: maximum matches (default 100; fewer when the result "+
			"budget is reached, which the result says). On search_name, same as `limit`."),
		"offset": prop("integer", "search_content: skip this many matches in path order (default 0); a truncated "+
			"result gives the `next_offset` to continue from."),
	}
	if slices.Contains(actions, "write") {
		p["content"] = prop("string", "write: the file's complete new content.")
		p["search"] = prop("string", "edit: exact text to find; must match exactly one location.")
		p["replace"] = map[string]any{"type": "string", "description": "edit: text that replaces `search`."}
	}
	if slices.Contains(actions, "patch") {
		p["replace"] = map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "description": "edit: text that replaces `search`."},
			replaceEntries("patch: full-file replacements, each {path, content}."),
		}}
		p["patch"] = prop("string", "patch: unified diff with `---`/`+++` headers and `@@ -a,b +c,d @@` hunks; `git diff` "+
			"output applies as is (renames, copies, modes, \"\\ No newline at end of file\"); binary and symlink changes are refused.")
		p["changes"] = replaceEntries("patch: deprecated alias of `replace`.")
		p["fuzz"] = prop("integer", "patch: lines a hunk may be moved from its stated position (default 3, max 50); past that a hunk "+
			"moves only to its one exact match in the file.")
		p["create_if_missing"] = prop("boolean", "patch: create the target file if it does not exist (default false).")
	}
	return map[string]any{"type": "object", "properties": p, "required": []any{"action"}}
}
