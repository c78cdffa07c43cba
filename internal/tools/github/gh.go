package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/tools"
)

// ref names one issue or pull request.
type ref struct {
	host   string // as named by the call ("" = none); bind sets the host the call goes to
	repo   string // owner/name; "" = the workspace's remote ({owner}/{repo})
	number int
}

func (r ref) path(suffix string) string {
	repo := r.repo
	if repo == "" {
		repo = "{owner}/{repo}"
	}
	return "repos/" + repo + suffix
}

func (r ref) label() string {
	if r.repo == "" {
		return "#" + strconv.Itoa(r.number)
	}
	return r.repo + "#" + strconv.Itoa(r.number)
}

// refuseOptions refuses a repo or url shaped like an option
// ("--hostname=x/o/n"): nothing the model sends reaches gh's command line
// as a flag.
func refuseOptions(in *contract) error {
	for _, v := range []struct{ key, val string }{{"repo", in.Repo}, {"url", in.URL}} {
		if strings.HasPrefix(strings.TrimSpace(v.val), "-") {
			return tools.InvalidInput("github: `%s` may not start with \"-\" (got %q): pass owner/name, host/owner/name "+
				"or an issue/pull request URL", v.key, v.val)
		}
	}
	return nil
}

// parseRef reads {number, repo} or {url}.
func parseRef(in *contract) (ref, error) {
	if in.URL != "" {
		return parseURL(in.URL)
	}
	n, repo := in.Number, in.Repo
	if n <= 0 {
		return ref{}, tools.InvalidInput("github: pass `number` (with optional `repo` owner/name) or an issue/pull request `url`")
	}
	r := ref{number: n}
	parts := strings.Split(strings.Trim(strings.TrimSpace(repo), "/"), "/")
	switch {
	case repo == "":
	case len(parts) == 2 && validName(parts[0]) && validName(parts[1]):
		r.repo = parts[0] + "/" + parts[1]
	case len(parts) == 3 && parts[0] != "" && validName(parts[1]) && validName(parts[2]):
		r.host, r.repo = parts[0], parts[1]+"/"+parts[2]
	default:
		return ref{}, tools.InvalidInput("github: repo must be owner/name or host/owner/name; got %q", repo)
	}
	return r, nil
}

// parseURL reads https://HOST/OWNER/NAME/(issues|pull)/N.
func parseURL(raw string) (ref, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ref{}, tools.InvalidInput("github: %q is not an issue or pull request URL", raw)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || (parts[2] != "issues" && parts[2] != "pull" && parts[2] != "pulls") || !validName(parts[0]) || !validName(parts[1]) {
		return ref{}, tools.InvalidInput("github: %q is not an issue or pull request URL (expected https://host/owner/name/issues/N or /pull/N)", raw)
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return ref{}, tools.InvalidInput("github: %q has no issue or pull request number", raw)
	}
	r := ref{repo: parts[0] + "/" + parts[1], number: n}
	if h := strings.ToLower(u.Host); h != "github.com" && h != "www.github.com" {
		r.host = u.Host
	}
	return r, nil
}

// validName admits GitHub owner and repository names and nothing that could
// change the API path or read as an option.
func validName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// gh runs `gh api` in the workspace with the user's own authentication,
// against the one host bind chose (env fixes GH_HOST).
type gh struct {
	bin string
	dir string
	env []string
	err error // gh is missing
}

func (t *Tool) runner(workspace string, env []string) *gh {
	g := &gh{bin: t.opts.GH, dir: workspace, env: env}
	if g.bin == "" {
		g.bin = "gh"
	}
	p, err := binpath.LookPath(g.bin, workspace) // not one a workspace directory on PATH holds
	if err != nil {
		g.err = tools.NotAvailable("github: the GitHub CLI `gh` is not installed; install it (https://cli.github.com, " +
			"or `apt install gh`), run `gh auth login`, and try again")
		return g
	}
	g.bin = p
	return g
}

// api calls `gh api` and returns the response body. Paginated array
// responses are merged into one array.
func (g *gh) api(ctx context.Context, r ref, method, path string, opts apiOpts) ([]byte, error) {
	if g.err != nil {
		return nil, g.err
	}
	args := []string{"api"}
	if method != "" && method != "GET" {
		args = append(args, "-X", method)
	}
	if opts.accept != "" {
		args = append(args, "-H", "Accept: "+opts.accept)
	}
	if opts.paginate {
		args = append(args, "--paginate")
	}
	var stdin []byte
	if opts.body != nil {
		var err error
		if stdin, err = json.Marshal(opts.body); err != nil {
			return nil, err
		}
		args = append(args, "--input", "-")
	}
	args = append(args, path)
	cmd := exec.CommandContext(ctx, g.bin, args...)
	// GH_HOST (in g.env) rather than --hostname: gh's flag refuses a
	// host:port.
	cmd.Dir, cmd.Env = g.dir, g.env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, classify(ctx, r, path, out.Bytes(), errb.String(), err)
	}
	if opts.paginate {
		return mergePages(out.Bytes())
	}
	return out.Bytes(), nil
}

type apiOpts struct {
	accept   string
	paginate bool
	body     any
}

// classify turns gh's failure into a model-readable error naming the fix.
func classify(ctx context.Context, r ref, path string, stdout []byte, stderr string, err error) error {
	if ctx.Err() != nil {
		return tools.ExecutionFailed("github: gh api %s was cancelled or timed out", path)
	}
	msg := strings.TrimSpace(stderr)
	var apiErr struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(stdout, &apiErr) == nil && apiErr.Message != "" && !strings.Contains(msg, apiErr.Message) {
		msg = strings.TrimSpace(msg + " (" + apiErr.Message + ")")
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "gh auth login") || strings.Contains(low, "http 401") || strings.Contains(low, "bad credentials") ||
		strings.Contains(low, "authentication"):
		host := r.host
		if host == "" {
			host = "the GitHub host"
		}
		return tools.PermissionDenied("github: gh is not authenticated for %s: run `gh auth login` (or set GH_TOKEN / GH_ENTERPRISE_TOKEN) and try again. gh said: %s", host, firstLine(msg))
	case strings.Contains(low, "http 404") || strings.Contains(low, "not found"):
		return tools.ExecutionFailed("github: %s was not found (or this account cannot see it). gh said: %s", r.label(), firstLine(msg))
	case strings.Contains(low, "could not determine base repo") || strings.Contains(low, "none of the git remotes") ||
		strings.Contains(low, "not a git repository"):
		return tools.InvalidInput("github: this workspace has no GitHub remote gh can use; pass `repo` as owner/name or an issue/pull request `url`")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return tools.ExecutionFailed("github: running gh failed: %v", err)
	}
	return tools.ExecutionFailed("github: gh api %s failed (exit %d): %s", path, ee.ExitCode(), firstLine(msg))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

// mergePages joins the JSON arrays `gh api --paginate` prints one after
// another into a single array.
func mergePages(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var all []json.RawMessage
	for dec.More() {
		var page []json.RawMessage
		if err := dec.Decode(&page); err != nil {
			return nil, fmt.Errorf("github: gh printed something that is not a JSON array page: %w", err)
		}
		all = append(all, page...)
	}
	if all == nil {
		all = []json.RawMessage{}
	}
	return json.Marshal(all)
}
