// Package slash is the composer's completion child: the slash-command menu
// a lone `/token` opens and the @-mention list (MCP resources, then
// workspace files, indexed once off the UI goroutine). It keeps the rows
// and the selection, takes its keys in Key and its own messages in Update,
// and draws itself in View; the root model owns the composer and the
// command table and hands them over in Config.
package slash

import (
	"io/fs"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/composer"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Config is what the menu is built with.
type Config struct {
	Theme    *theme.Theme
	Composer *composer.Composer
	// Commands is the command table, brought up to date first (the
	// project's commands may have been reloaded).
	Commands func() *commands.Registry
	// Resources lists the MCP servers' resources for @server:uri (nil:
	// none).
	Resources func() []mcp.ResourceRef
	// Files lists workspace files for @-mentions; nil walks Workspace.
	Files     func() []string
	Workspace string
}

// kind is which list is open.
type kind int

const (
	none kind = iota
	slashMenu
	mention
)

// Rows is how many rows are shown at once.
const Rows = 8

type item struct{ label, hint, value string }

// Menu is the slash menu or the @-mention list inside the composer area.
type Menu struct {
	c         Config
	kind      kind
	items     []item
	sel       int
	dismissed string // composer text when Esc hid it; it stays hidden until the text changes
	files     fileIndex
}

// New builds the menu.
func New(c Config) *Menu { return &Menu{c: c} }

// Visible reports whether a list is open.
func (p *Menu) Visible() bool { return p.kind != none && len(p.items) > 0 }

// Len is the number of rows of the open list.
func (p *Menu) Len() int { return len(p.items) }

func (p *Menu) hide() { p.kind, p.items, p.sel = none, nil, 0 }

// Refresh recomputes the list from the composer text: a lone `/token`
// opens the slash menu, an `@partial` before the cursor opens the file
// list (indexing the workspace on first use).
func (p *Menu) Refresh() tea.Cmd {
	comp := p.c.Composer
	v := comp.Value()
	if p.dismissed != "" && v == p.dismissed {
		p.hide()
		return nil
	}
	p.dismissed = ""
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t\n") {
		var items []item
		for _, c := range p.c.Commands().Complete(v[1:]) {
			label := "/" + c.Name
			if c.Matched != c.Name {
				label += " (/" + c.Matched + ")"
			}
			items = append(items, item{label: label, hint: c.Help, value: c.Name})
		}
		p.set(slashMenu, items)
		return nil
	}
	tok := comp.TokenBeforeCursor()
	if !strings.HasPrefix(tok, "@") {
		p.hide()
		return nil
	}
	res := p.resourceItems(tok[1:])
	if !p.files.loaded {
		if len(res) > 0 {
			p.set(mention, res)
		} else {
			p.hide()
		}
		return p.loadFiles()
	}
	p.set(mention, append(res, p.files.match(tok[1:])...))
	return nil
}

// resourceItems are the connected MCP servers' listed resources matching
// a partial @server:uri, as mention rows (listed before the files).
func (p *Menu) resourceItems(partial string) []item {
	if p.c.Resources == nil || partial == "" {
		return nil
	}
	var refs []string
	hints := map[string]string{}
	for _, r := range p.c.Resources() {
		v := r.Server + ":" + r.URI
		refs = append(refs, v)
		hints[v] = strings.TrimSpace(r.Name + " · MCP resource, " + r.MIMEType)
	}
	var items []item
	for i, mt := range fuzzy.Find(partial, refs) {
		if i == 20 {
			break
		}
		items = append(items, item{label: "@" + mt.Str, hint: hints[mt.Str], value: mt.Str})
	}
	return items
}

func (p *Menu) set(k kind, items []item) {
	if p.kind != k {
		p.sel = 0
	}
	p.kind, p.items = k, items
	p.sel = min(p.sel, max(len(items)-1, 0))
}

// Result says what became of a key.
type Result int

const (
	// Pass: the menu left the key to the composer.
	Pass Result = iota
	// Handled: the menu took the key.
	Handled
	// Submit: the menu completed a command; the composer's text is to be
	// submitted as if Enter was pressed on it.
	Submit
)

// Key handles a key while the menu is open.
func (p *Menu) Key(k tea.KeyMsg) (tea.Cmd, Result) {
	comp := p.c.Composer
	switch k.String() {
	case "up", "ctrl+p":
		p.sel = max(p.sel-1, 0)
	case "down", "ctrl+n":
		p.sel = min(p.sel+1, len(p.items)-1)
	case "esc":
		p.dismissed = comp.Value()
		p.hide()
	case "tab":
		return p.accept(), Handled
	case "enter":
		if p.kind == mention {
			return p.accept(), Handled
		}
		typed := strings.TrimPrefix(comp.Value(), "/")
		if _, exact := p.c.Commands().Lookup(strings.ToLower(typed)); !exact {
			comp.SetValue("/" + p.items[p.sel].value)
		}
		p.hide()
		return nil, Submit
	default:
		return nil, Pass
	}
	return nil, Handled
}

// accept completes the selected row into the composer.
func (p *Menu) accept() tea.Cmd {
	it := p.items[p.sel]
	if p.kind == slashMenu {
		p.c.Composer.SetValue("/" + it.value + " ")
	} else {
		p.c.Composer.ReplaceTokenBeforeCursor("@" + it.value + " ")
	}
	p.hide()
	return p.Refresh()
}

// Update takes the menu's own messages (the file index); ok is false for
// any other.
func (p *Menu) Update(msg tea.Msg) (tea.Cmd, bool) {
	if msg, ok := msg.(FilesMsg); ok {
		p.files.set(msg.Files)
		return p.Refresh(), true
	}
	return nil, false
}

// View draws n rows of the open list, width w.
func (p *Menu) View(n, w int) []string {
	if n == 0 {
		return nil
	}
	th := p.c.Theme
	first := max(min(p.sel-n/2, len(p.items)-n), 0)
	labelW := 0
	for _, it := range p.items[first : first+n] {
		labelW = max(labelW, termtext.Width(it.label))
	}
	rows := make([]string, 0, n)
	for i := first; i < first+n; i++ {
		it := p.items[i]
		row := "  " + termtext.PadRight(it.label, labelW)
		if it.hint != "" {
			row += "  " + th.Dim.Render(it.hint)
		}
		row = termtext.Truncate(row, w, "…")
		if i == p.sel {
			row = th.Selected.Render(termtext.PadRight(termtext.Strip(row), w))
		}
		rows = append(rows, row)
	}
	return rows
}

// fileIndex is the workspace file list for @-mentions, built once.
type fileIndex struct {
	files   []string
	loading bool
	loaded  bool
}

// FilesMsg delivers the file list.
type FilesMsg struct{ Files []string }

// Loading reports whether the file index is being built.
func (p *Menu) Loading() bool { return p.files.loading }

func (f *fileIndex) set(files []string) { f.files, f.loading, f.loaded = files, false, true }

// match ranks files against a partial path, best first.
func (f *fileIndex) match(partial string) []item {
	var names []string
	if partial == "" {
		names = f.files[:min(Rows, len(f.files))]
	} else {
		for i, mt := range fuzzy.Find(partial, f.files) {
			if i == 50 {
				break
			}
			names = append(names, mt.Str)
		}
	}
	items := make([]item, len(names))
	for i, n := range names {
		items[i] = item{label: "@" + n, value: n}
	}
	return items
}

func (p *Menu) loadFiles() tea.Cmd {
	if p.files.loading {
		return nil
	}
	p.files.loading = true
	list, root := p.c.Files, p.c.Workspace
	return func() tea.Msg {
		if list != nil {
			return FilesMsg{Files: list()}
		}
		return FilesMsg{Files: walkFiles(root, maxIndexedFiles)}
	}
}

// maxIndexedFiles bounds the mention index on huge trees.
const maxIndexedFiles = 20000

// skipDirs are never indexed for mentions.
var skipDirs = map[string]bool{"node_modules": true, "target": true, "dist": true, "build": true, "vendor": true,
	"__pycache__": true}

// walkFiles lists files under root (relative, slash-separated), skipping
// hidden and generated directories.
func walkFiles(root string, limit int) []string {
	var out []string
	if root == "" {
		return nil
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
		if len(out) >= limit {
			return fs.SkipAll
		}
		return nil
	})
	return out
}
