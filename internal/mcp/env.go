package mcp

import (
	"sort"
	"strings"
)

// A stdio server is a user-configured program, but it still should not see
// every secret of the parent (API keys, cloud credentials): it inherits only
// the variables a program needs to start (paths, locale, terminal, language
// runtimes and package managers, proxies, CA bundles). Anything else must be
// passed explicitly with the server's "env".

var inheritedEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "USERNAME": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true,
	"TERM": true, "COLORTERM": true, "NO_COLOR": true, "FORCE_COLOR": true, "SHELL": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true,
	"SYSTEMROOT": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true, "USERPROFILE": true,
	"HOMEDRIVE": true, "HOMEPATH": true, "APPDATA": true, "LOCALAPPDATA": true,
	"NVM_DIR": true, "NVM_BIN": true, "NVM_INC": true, "VOLTA_HOME": true, "COREPACK_HOME": true,
	"NODE_PATH": true, "NODE_OPTIONS": true, "NODE_EXTRA_CA_CERTS": true,
	"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONUNBUFFERED": true,
	"VIRTUAL_ENV": true, "POETRY_HOME": true, "PIPX_HOME": true, "PIPX_BIN_DIR": true,
	"GEM_HOME": true, "GEM_PATH": true, "BUNDLE_PATH": true, "BUNDLE_GEMFILE": true, "JAVA_HOME": true,
	"GOPATH": true, "GOROOT": true, "GOMODCACHE": true, "CARGO_HOME": true, "RUSTUP_HOME": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true, "FTP_PROXY": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true,
}

// inheritedPrefixes are whole namespaces of start-up configuration.
var inheritedPrefixes = []string{"LC_", "XDG_", "NPM_CONFIG_", "UV_"}

// inherits reports whether a parent variable is passed to a stdio server.
// Matching ignores case (Windows names, lower-case proxy variables).
func inherits(key string) bool {
	k := strings.ToUpper(key)
	if inheritedEnv[k] {
		return true
	}
	for _, p := range inheritedPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// childEnv builds a stdio server's environment from the parent's
// ("KEY=value" entries) and the server's own env, which wins.
func childEnv(parent []string, own map[string]string) []string {
	var out []string
	for _, kv := range parent {
		k, _, ok := strings.Cut(kv, "=")
		if ok && inherits(k) && !hasKeyFold(own, k) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+own[k])
	}
	return out
}

func hasKeyFold(m map[string]string, key string) bool {
	for k := range m {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}
