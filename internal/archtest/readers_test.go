package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// confinedReader is the package that reads files on the model's behalf
// (docs/ARCHITECTURE.md: internal/tools/confine).
const confinedReader = "internal/tools/confine"

// readSite is a function that opens a file for reading by name.
type readSite struct {
	key  string // package/file.go:Func
	pos  string
	call string
}

// readSites lists every production call of os.ReadFile, os.Open, and
// os.OpenFile without O_WRONLY, keyed by the function holding it.
func readSites(t *testing.T) []readSite {
	t.Helper()
	var out []readSite
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		for _, name := range append(append([]string(nil), p.GoFiles...), p.IgnoredGoFiles...) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			os := importName(f, "os")
			if os == "" {
				continue
			}
			for _, d := range f.Decls {
				holder := "(package level)"
				if fn, ok := d.(*ast.FuncDecl); ok {
					holder = funcName(fn)
				}
				ast.Inspect(d, func(n ast.Node) bool {
					if call, what := readCall(n, os); call != nil {
						out = append(out, readSite{key: rel + "/" + name + ":" + holder, call: what,
							pos: rel + "/" + name + ":" + strconv.Itoa(fset.Position(call.Pos()).Line)})
					}
					return true
				})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return filepath.Base(path)
		}
	}
	return ""
}

// readCall reports a call that opens a file for reading by name.
func readCall(n ast.Node, os string) (*ast.CallExpr, string) {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return nil, ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != os {
		return nil, ""
	}
	switch sel.Sel.Name {
	case "ReadFile", "Open":
		return call, "os." + sel.Sel.Name
	case "OpenFile":
		if len(call.Args) > 1 && !mentions(call.Args[1], "O_WRONLY") {
			return call, "os.OpenFile"
		}
	}
	return nil, ""
}

func mentions(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == name {
			found = true
		}
		return !found
	})
	return found
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// personReads are the functions outside the confined reader that may open
// a file by name for reading: the paths are the person's (their config,
// $CODEWHALE_HOME's stores, a flag's argument), fixed system files, or
// workspace files whose bytes never reach the model or the provider (only a
// verdict, a hash comparison or a name does). Each group says why. A file
// the model names, or a workspace file whose content is shown or sent, is
// read with confine.ReadFile, confine.ReadBeneath or Set.ReadFile
// (docs/ARCHITECTURE.md, internal/tools/confine).
var personReads = []struct {
	why   string
	sites []string
}{
	{"$CODEWHALE_HOME's stores: sessions, their index, owner and lock files, their images", []string{
		"internal/session/index.go:readIndex", "internal/session/legacy.go:readLedger", "internal/session/legacy.go:importDoc",
		"internal/session/load.go:readJournal", "internal/session/lock_unix.go:isLockedFile", "internal/session/lock_unix.go:syncDir",
		"internal/session/owner.go:acquireOwner", "internal/session/owner.go:holderPID", "internal/session/rewrite.go:backupDamaged",
		"internal/session/summarize.go:summarize", "internal/session/images.go:readImage"}},
	{"$CODEWHALE_HOME's stores: tasks, sub-agent transcripts, automations, memory, checkpoints' log, job records", []string{
		"internal/tools/tasks/fsutil.go:syncDir", "internal/tools/tasks/load.go:readRecord", "internal/tools/tasks/load.go:Store.loadQueue",
		"internal/tools/tasks/procs.go:Store.claimRunner", "internal/tools/agent/transcript.go:readTranscript",
		"internal/tools/agent/transcript.go:readLegacy", "internal/tools/agent/transcript.go:reconcileLegacy",
		"internal/tools/agent/transcript.go:reconcileJournal", "internal/tools/agent/transcript.go:appendRecords",
		"internal/automation/store.go:Store.load", "internal/tools/memory/block.go:readEntries",
		"internal/tools/memory/lock_unix.go:Store.locked", "internal/tools/memory/store.go:readFile",
		"internal/tools/memory/store.go:writeAtomic", "internal/checkpoint/recorder.go:Recorder.Turns",
		"internal/checkpoint/store.go:Store.readSkips",
		"internal/jobs/persist.go:Manager.loadStale", "internal/filelock/filelock.go:TryAcquire",
		"internal/provider/modellist.go:ModelCache.Load"}},
	{"the person's configuration: the user config file, secrets store (API keys, MCP OAuth tokens), trust records, MCP config, global rules", []string{
		"internal/config/file.go:readFile", "internal/config/secrets.go:ReadSecret", "internal/config/mcptokens.go:MCPTokens.LoadToken", "internal/config/settings.go:SetKey",
		"internal/config/trust.go:readWorkspaceTrust", "internal/projecttrust/projecttrust.go:Read", "internal/mcp/config.go:LoadConfig",
		"internal/mcp/configedit.go:editServers", "internal/permissions/file.go:readRules", "internal/sandbox/caches.go:goEnvFile",
		"internal/httptransport/httptransport.go:extraRoots"}},
	{"a file the person names: --api-key-file, --json-schema (sent as their instruction), and their own $EDITOR's temp file, shown in the composer before it is sent", []string{
		"cmd/codewhale/apikey.go:readKeyFrom", "cmd/codewhale/exec_schema.go:loadAnswerSchema", "internal/tui/handoff/editor.go:Handoff.Editor"}},
	{"the kernel's own files under /proc", []string{
		"internal/jobs/ident_linux.go:procStat", "internal/sandbox/userns_linux.go:inNewNamespaces"}},
	{"git metadata parsed as git's formats (a gitdir: line, commondir, the index, pack indexes, info/exclude lines compared before one is added): only paths, names and hashes a repository holds leave", []string{
		"internal/tools/agent/worktree.go:addExclude",
		"internal/gitrepo/gitrepo.go:commonDir", "internal/gitrepo/gitrepo.go:dotGit", "internal/sandbox/policy.go:gitDirsOf",
		"internal/tools/git/index.go:readIndex", "internal/tools/git/native.go:packedObjectCount",
		"internal/tools/git/objects.go:packIndexPrefix", "internal/tools/file/defaults.go:trackedDirs.load",
		"internal/shellpolicy/githistory.go:historyKey", "internal/shellpolicy/gitrepo.go:classifier.gitRepo",
		"internal/shellpolicy/gitrepo.go:gitDirAt"}},
	{"workspace files git reads by convention, used as rules or compared, never shown: ignore patterns, git config values, .gitattributes, a worktree file's hash against the index", []string{
		"internal/ignore/config.go:configValue", "internal/ignore/ignore.go:ReadRegular", "internal/tools/git/attr.go:attributes.dirRules",
		"internal/tools/git/status_worktree.go:worktreeCheck.sameContent"}},
	{"workspace files inspected for a verdict only: which test runner a workspace uses, and a script the command classifier judges", []string{
		"internal/tools/run/detect.go:readPackageJSON", "internal/tools/run/detect.go:pytestSignals",
		"internal/tools/run/detect.go:makeTestTarget", "internal/shellpolicy/flow.go:readSmall"}},
}

// TestModelReadsGoThroughConfine fails on a production call of os.ReadFile,
// os.Open or os.OpenFile for reading outside the confined reader and the
// functions personReads lists (issue 23: check-then-open by name let a link
// swapped in after the check be read), and on a listed function that no
// longer reads, so the list stays honest.
// CONTRACT.md §5: every read on the model's behalf goes through the confined reader.
func TestModelReadsGoThroughConfine(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{}
	for _, g := range personReads {
		for _, s := range g.sites {
			allowed[s] = true
		}
	}
	used := map[string]bool{}
	for _, s := range readSites(t) {
		switch {
		case strings.HasPrefix(s.key, confinedReader+"/"), strings.HasPrefix(s.key, "internal/testutil/"):
		case allowed[s.key]:
			used[s.key] = true
		default:
			t.Errorf("%s: %s opens a file by name; a file the model names or could have planted is read through "+
				"internal/tools/confine (ReadFile, ReadBeneath, Set.ReadFile). If the path is the person's, add %s "+
				"to personReads with the reason", s.pos, s.call, s.key)
		}
	}
	for key := range allowed {
		if !used[key] {
			t.Errorf("personReads lists %s, which no longer opens a file: take it off the list", key)
		}
	}
}
