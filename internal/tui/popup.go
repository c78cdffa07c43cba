package tui

import (
	"io/fs"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"
)

// popupKind is which composer popup is open.
type popupKind int

const (
	popupNone popupKind = iota
	popupSlash
	popupMention
)

// popupRows is how many popup rows are shown at once.
const popupRows = 8

type popupItem struct{ label, hint, value string }

// popup is the slash menu or the @-mention list inside the composer area.
type popup struct {
	kind      popupKind
	items     []popupItem
	sel       int
	dismissed string // composer text when Esc hid it; it stays hidden until the text changes
}

func (p *popup) visible() bool { return p.kind != popupNone && len(p.items) > 0 }

func (p *popup) hide() { p.kind, p.items, p.sel = popupNone, nil, 0 }

// refreshPopup recomputes the popup from the composer text: a lone
// `/token` opens the slash menu, an `@partial` before the cursor opens the
// file list (indexing the workspace on first use).
func (m *Model) refreshPopup() tea.Cmd {
	v := m.comp.Value()
	if m.popup.dismissed != "" && v == m.popup.dismissed {
		m.popup.hide()
		return nil
	}
	m.popup.dismissed = ""
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t\n") {
		m.syncCommands()
		var items []popupItem
		for _, c := range m.reg.Complete(v[1:]) {
			label := "/" + c.Name
			if c.Matched != c.Name {
				label += " (/" + c.Matched + ")"
			}
			items = append(items, popupItem{label: label, hint: c.Help, value: c.Name})
		}
		m.setPopup(popupSlash, items)
		return nil
	}
	tok := m.comp.TokenBeforeCursor()
	if !strings.HasPrefix(tok, "@") {
		m.popup.hide()
		return nil
	}
	res := m.resourceItems(tok[1:])
	if !m.files.loaded {
		if len(res) > 0 {
			m.setPopup(popupMention, res)
		} else {
			m.popup.hide()
		}
		return m.loadFiles()
	}
	m.setPopup(popupMention, append(res, m.files.match(tok[1:])...))
	return nil
}

// resourceItems are the connected MCP servers' listed resources matching
// a partial @server:uri, as mention rows (listed before the files).
func (m *Model) resourceItems(partial string) []popupItem {
	if m.o.MCP == nil || partial == "" {
		return nil
	}
	var refs []string
	hints := map[string]string{}
	for _, r := range m.o.MCP.Resources() {
		v := r.Server + ":" + r.URI
		refs = append(refs, v)
		hints[v] = strings.TrimSpace(r.Name + " · MCP resource, " + r.MIMEType)
	}
	var items []popupItem
	for i, mt := range fuzzy.Find(partial, refs) {
		if i == 20 {
			break
		}
		items = append(items, popupItem{label: "@" + mt.Str, hint: hints[mt.Str], value: mt.Str})
	}
	return items
}

func (m *Model) setPopup(kind popupKind, items []popupItem) {
	if m.popup.kind != kind {
		m.popup.sel = 0
	}
	m.popup.kind, m.popup.items = kind, items
	m.popup.sel = min(m.popup.sel, max(len(items)-1, 0))
}

// popupKey handles keys while a popup is open; ok is false for keys it
// leaves to the composer.
func (m *Model) popupKey(k tea.KeyMsg) (tea.Cmd, bool) {
	p := &m.popup
	switch k.String() {
	case "up", "ctrl+p":
		p.sel = max(p.sel-1, 0)
	case "down", "ctrl+n":
		p.sel = min(p.sel+1, len(p.items)-1)
	case "esc":
		p.dismissed = m.comp.Value()
		p.hide()
	case "tab":
		return m.acceptPopup(), true
	case "enter":
		if p.kind == popupMention {
			return m.acceptPopup(), true
		}
		typed := strings.TrimPrefix(m.comp.Value(), "/")
		if _, exact := m.reg.Lookup(strings.ToLower(typed)); !exact {
			m.comp.SetValue("/" + p.items[p.sel].value)
		}
		p.hide()
		return m.submitKey(), true
	default:
		return nil, false
	}
	return nil, true
}

// acceptPopup completes the selected row into the composer.
func (m *Model) acceptPopup() tea.Cmd {
	it := m.popup.items[m.popup.sel]
	if m.popup.kind == popupSlash {
		m.comp.SetValue("/" + it.value + " ")
	} else {
		m.comp.ReplaceTokenBeforeCursor("@" + it.value + " ")
	}
	m.popup.hide()
	return m.refreshPopup()
}

// fileIndex is the workspace file list for @-mentions, built once.
type fileIndex struct {
	files   []string
	loading bool
	loaded  bool
}

// filesMsg delivers the file list.
type filesMsg struct{ files []string }

func (f *fileIndex) set(files []string) { f.files, f.loading, f.loaded = files, false, true }

// match ranks files against a partial path, best first.
func (f *fileIndex) match(partial string) []popupItem {
	var names []string
	if partial == "" {
		names = f.files[:min(popupRows, len(f.files))]
	} else {
		for i, mt := range fuzzy.Find(partial, f.files) {
			if i == 50 {
				break
			}
			names = append(names, mt.Str)
		}
	}
	items := make([]popupItem, len(names))
	for i, n := range names {
		items[i] = popupItem{label: "@" + n, value: n}
	}
	return items
}

func (m *Model) loadFiles() tea.Cmd {
	if m.files.loading {
		return nil
	}
	m.files.loading = true
	list, root := m.o.Files, m.o.Workspace
	return func() tea.Msg {
		if list != nil {
			return filesMsg{files: list()}
		}
		return filesMsg{files: walkFiles(root, maxIndexedFiles)}
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
