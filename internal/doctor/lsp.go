package doctor

import "fmt"

// LSPServer is one configured language server: Found with the program's
// Path, or Why not; Builtin servers are optional (used when installed).
type LSPServer struct {
	Name, Files, Path, Why string
	Found, Builtin         bool
}

// LSPReport is the [lsp] table's servers, or that it is off.
type LSPReport struct {
	Enabled bool
	Servers []LSPServer
}

// lspCheck lists the language servers and which are present. A built-in
// one that is absent is no fault (it is used when installed); one the
// config names that cannot start is a warning.
func lspCheck(r *Report, o Options) {
	if o.LSP == nil {
		return
	}
	rep, err := o.LSP()
	switch {
	case err != nil:
		r.add(Check{Name: "lsp", Status: Fail, Detail: err.Error(), Fix: "fix [lsp.servers.*] in config.toml"})
		return
	case !rep.Enabled:
		r.add(Check{Name: "lsp", Status: OK, Detail: "off ([lsp] enabled = false): edits are not checked"})
		return
	}
	for _, s := range rep.Servers {
		c := Check{Name: "lsp " + s.Name, Status: OK, Data: map[string]any{"found": s.Found, "files": s.Files}}
		switch {
		case s.Found:
			c.Detail = fmt.Sprintf("%s (%s)", s.Path, s.Files)
			c.Data["path"] = s.Path
		case s.Builtin:
			c.Detail = fmt.Sprintf("not installed: %s files are not checked (%s)", s.Files, s.Why)
		default:
			c.Status, c.Detail = Warn, s.Why
			c.Fix = "install it, or correct [lsp.servers." + s.Name + "] command"
		}
		r.add(c)
	}
}
