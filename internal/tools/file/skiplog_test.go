package file

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// rgSkipped is what rg leaves unsearched in dir: the files `rg --files`
// lists that `rg -l ”` does not report, less the empty ones (nothing to
// match). With search_content's flags (rgBase) those are the binary files
// and the files over 10 MiB.
func rgSkipped(t *testing.T, dir string) []string {
	t.Helper()
	list := func(args ...string) []string {
		cmd := exec.Command("rg", append([]string{"--no-require-git", "--hidden", "--no-config", "-g", "!.git", "-0"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("rg %v: %v", args, err)
		}
		return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	}
	searched := list("--max-filesize", "10M", "-l", "") // --files would drop the big files too
	var skipped []string
	for _, f := range list("--files") {
		if fi, err := os.Stat(dir + "/" + f); err == nil && fi.Size() > 0 && !slices.Contains(searched, f) {
			skipped = append(skipped, f)
		}
	}
	return skipped
}

// TestSearchNamesWhatItSkipped holds search_content's account of skipped
// files to rg's: every file rg leaves unsearched (binary, over 10 MiB) is
// counted, the first maxSkipListed in path order are named with the reason;
// what search_content alone refuses to read (secret files and folders) is
// counted and never named, and search_name counts the secret folder it
// never entered (CONTRACT.md §6.2).
func TestSearchNamesWhatItSkipped(t *testing.T) {
	needRG(t)
	t.Parallel()
	e := newEnv(t, Options{})
	for rel, content := range rgTree {
		e.put(rel, content)
	}
	for i := range maxSkipListed + 5 {
		e.put(fmt.Sprintf("bins/b%02d.bin", i), "Alpha\x00binary\n")
	}
	e.put("certs/server.pem", "-----BEGIN PRIVATE KEY-----\nAlpha\n")
	e.put(".ssh/id_rsa", "Alpha key\n")
	huge := e.put("huge.txt", "Alpha\n")
	if err := os.Truncate(huge, 11<<20); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range rgSkipped(t, e.ws) {
		want[p] = skipBinary
		if p == "huge.txt" {
			want[p] = skipTooLarge
		}
	}
	if want["huge.txt"] == "" || want["bin.dat"] == "" || len(want) < maxSkipListed+5 {
		t.Fatalf("rg skipped %v; the tree should make it skip huge.txt, bin.dat and the bins", want)
	}

	_, r := searchHits(t, e, map[string]any{"pattern": "Alpha"})
	var got []string
	for _, s := range r.SkippedPaths {
		got = append(got, s.Path+": "+s.Reason)
	}
	var wantList []string
	for p, why := range want {
		wantList = append(wantList, p+": "+why)
	}
	sort.Strings(wantList)
	if !slices.Equal(got, wantList[:maxSkipListed]) {
		t.Errorf("skipped_paths:\n%s\nwant the first %d of:\n%s", strings.Join(got, "\n"), maxSkipListed, strings.Join(wantList, "\n"))
	}
	if r.SkippedMore != len(want)-maxSkipListed {
		t.Errorf("skipped_paths_not_listed = %d, want %d", r.SkippedMore, len(want)-maxSkipListed)
	}
	if r.Skipped == nil || r.Skipped.Secret != 2 || r.Skipped.Binary != int64(maxSkipListed+6) || r.Skipped.TooLarge != 1 {
		t.Errorf("files_skipped = %+v, want 2 secret (counted, never named), %d binary, 1 over 10 MiB", r.Skipped, maxSkipListed+6)
	}

	res := e.callOK(js(map[string]any{"action": "search_name", "query": "id_rsa", "exclude": []string{}}))
	named := decode[nameResult](t, res.Content)
	if len(named.Matches) != 0 || named.SecretDirs != 1 || strings.Contains(res.Content, ".ssh") {
		t.Errorf("search_name of a name inside a secret folder: %s, want no match and one secret folder counted, unnamed", res.Content)
	}
}

// TestWalkNamesAnUnreadableFolder: a folder the walk cannot read is named
// with the system's reason, not dropped in silence. (Permission bits do not
// stop root, so the folder here is one that is not a directory by the time
// it is read.)
func TestWalkNamesAnUnreadableFolder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := e.put("not-a-dir", "x\n")
	log := newSkipLog(e.tc.Rel)
	spec := walkSpec{fs: confine.NewSet(e.ws), base: base, ign: ignoreFor(e.ws, e.ws), skipped: log}
	if err := walk(context.Background(), spec, func(walkFile) bool { return true }); err != nil {
		t.Fatal(err)
	}
	got, more := log.report()
	if len(got) != 1 || more != 0 || got[0].Path != "not-a-dir/" || !strings.HasPrefix(got[0].Reason, "unreadable directory, not entered: ") {
		t.Errorf("skipped = %+v (+%d), want not-a-dir/ named as an unreadable directory with its reason", got, more)
	}
}
