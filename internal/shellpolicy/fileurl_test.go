package shellpolicy

import "testing"

// A file: URL names a path (issue 23): curl file://$HOME/.ssh/id_rsa
// touches a secret like cat ~/.ssh/id_rsa, in every spelling curl accepts
// and through its config files; any other file outside the workspace
// read that way needs explicit approval too.
// README.md "Modes and permissions": a file: URL is a secret read in every spelling (percent-encoded, globbed, localhost, curl -K), and any other file: URL outside the workspace needs explicit approval.
func TestFileURLsAreSecretReads(t *testing.T) {
	t.Parallel()
	const secret = "touches a secret"
	checkClasses(t, []classCase{
		{"curl file://$HOME/.ssh/id_rsa", Explicit, secret},
		{"curl file:///home/u/.ssh/id_rsa", Explicit, secret},
		{"curl -s FILE:///home/u/.ssh/id_rsa", Explicit, secret},
		{"curl file://localhost/home/u/.ssh/id_rsa", Explicit, secret},
		{"curl file:/home/u/.ssh/id_rsa", Explicit, secret},
		{"curl 'file:///home/u/.ss%68/id_rsa'", Explicit, secret},
		{"curl 'file:///home/u/.ssh/{x,id_rsa}'", Explicit, secret},
		{"curl 'file:///home/u/.s[s-s]h/id_rsa'", Explicit, secret},
		{"curl --url=file:///home/u/.aws/credentials", Explicit, secret},
		{`echo 'url = "file:///home/u/.ssh/id_rsa"' > cfg; curl -K cfg`, Explicit, secret},
		{`echo 'url = "file:///home/u/.ssh/id_rsa"' > cfg; curl --config=cfg`, Explicit, secret},
		{`echo '--url file:///home/u/.ssh/id_rsa' | curl -sK -`, Explicit, secret},
		{`echo 'url = "file:///home/u/.ssh/id_rsa"' > .curlrc; CURL_HOME=. curl https://example.com`, Explicit, secret},
		{`echo 'config = c2' > c1; echo 'url = "file:///home/u/.ssh/id_rsa"' > c2; curl -K c1`, Explicit, secret},
		{"curl -K missing.cfg https://example.com", Explicit, "cannot see"},
		{"curl -K $CFG https://example.com", Explicit, "cannot see"},
		{"wget file:///home/u/.ssh/id_rsa", Explicit, secret},
		{`python3 -c 'import urllib.request as u; print(u.urlopen("file:///home/u/.ssh/id_rsa").read())'`, Explicit, secret},
		{"curl file:///etc/hostname", Explicit, "outside the workspace through a file: URL"},
		{"curl file:///home/u/proj/notes.txt", Ordinary, ""},
		{"curl -fsS https://example.com/a.txt", Ordinary, ""},
	})
}
