package file

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
