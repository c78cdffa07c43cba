package secrets

import (
	"path/filepath"
	"strings"
)

// IsSecretPath reports whether abs (absolute, symlinks resolved, as
// tools.Context.ResolvePath returns it) holds credentials no tool may show,
// and a short reason naming what it is. A directory is secret when
// everything below it is; callers that walk a tree skip it whole.
//
// Secret are: the real CodeWhale home (honouring a custom CODEWHALE_HOME)
// with its config.toml and secrets/ store, ~/.deepseek, the active config
// file and its .bak; ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.kube,
// ~/.docker/config.json, ~/.netrc, ~/.git-credentials; /etc/shadow and
// /etc/gshadow; and, anywhere, a directory named .ssh, .aws or .gnupg,
// dotenv files (.env, .env.*, *.env), private keys and certificates (*.pem,
// *.key, *.p12, *.pfx, id_rsa/id_dsa/id_ecdsa/id_ed25519 and their
// variants, but not their .pub halves), .netrc, .git-credentials, .pgpass.
//
// Dotenv templates meant to be committed and read (.env.example,
// .env.sample, .env.template, .env.dist, .env.defaults) are not secret: they
// document the variables a project needs, and refusing them would only push
// the model to a shell `cat`.
func (p *Policy) IsSecretPath(abs string) (reason string, ok bool) {
	if abs == "" {
		return "", false
	}
	r := p.roots()
	for _, d := range r.dirs {
		if within(abs, d.dir) {
			return d.reason, true
		}
	}
	if why, ok := r.file(abs); ok {
		return why, true
	}
	if why, ok := secretComponent(abs); ok {
		return why, true
	}
	return secretName(filepath.Base(abs))
}

// secretComponent matches a credential directory anywhere in abs: a
// workspace may carry a copy of a home directory. Names compare without
// case, as ProtectedWrite's do: on a case-folding filesystem (APFS, NTFS)
// .SSH/config is .ssh/config.
func secretComponent(abs string) (string, bool) {
	for rest := abs; rest != ""; {
		i := strings.IndexByte(rest, filepath.Separator)
		var c string
		if i < 0 {
			c, rest = rest, ""
		} else {
			c, rest = rest[:i], rest[i+1:]
		}
		switch strings.ToLower(c) {
		case ".ssh":
			return "an SSH key directory (.ssh)", true
		case ".aws":
			return "an AWS credentials directory (.aws)", true
		case ".gnupg":
			return "a GnuPG keyring (.gnupg)", true
		}
	}
	return "", false
}

// secretName matches a credential file by its name alone.
func secretName(base string) (string, bool) {
	lower := strings.ToLower(base)
	switch {
	case lower == ".env" || strings.HasPrefix(lower, ".env.") && !dotenvTemplate(lower[len(".env."):]):
		return "a dotenv file (" + base + ")", true
	case strings.HasSuffix(lower, ".env") && len(lower) > len(".env"):
		return "a dotenv file (" + base + ")", true
	case strings.HasSuffix(lower, ".pem"), strings.HasSuffix(lower, ".key"),
		strings.HasSuffix(lower, ".p12"), strings.HasSuffix(lower, ".pfx"):
		return "a private key or certificate file (" + base + ")", true
	case sshPrivateKey(lower):
		return "an SSH private key (" + base + ")", true
	case lower == ".netrc", lower == "_netrc", lower == ".git-credentials", lower == ".pgpass":
		return "a credentials file (" + base + ")", true
	}
	return "", false
}

func dotenvTemplate(suffix string) bool {
	switch suffix {
	case "example", "sample", "template", "dist", "defaults":
		return true
	}
	return false
}

// sshPrivateKey matches id_rsa, id_ed25519, id_ecdsa_sk, id_rsa_work,
// id_ed25519.github … but not the public halves (*.pub) nor source files that
// merely start with "id_" (id_test.go).
func sshPrivateKey(lower string) bool {
	if strings.HasSuffix(lower, ".pub") {
		return false
	}
	for _, alg := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss"} {
		if !strings.HasPrefix(lower, alg) {
			continue
		}
		rest := lower[len(alg):]
		if rest == "" || rest[0] == '_' || rest[0] == '-' || rest[0] == '.' {
			return true
		}
	}
	return false
}

// ProtectedWrite reports whether writing abs needs an explicit human
// approval (in every posture but Full Access), and a reason the approval card
// shows. Protected are: anything inside a git directory (.git/** — config,
// hooks, index and refs decide what git runs and what it reports) and a .git
// file; the project's .codewhale/** (configuration, permission rules); and the
// user-level configuration and credential locations (the CodeWhale home, the
// active config, ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.deepseek, …).
// Component names compare case-insensitively: on a case-folding filesystem
// .GIT/config is .git/config.
func (p *Policy) ProtectedWrite(abs, workspace string) (reason string, ok bool) {
	if abs == "" {
		return "", false
	}
	for _, d := range p.roots().protect {
		if within(abs, d.dir) {
			return "writes " + d.reason, true
		}
	}
	rel := abs
	if workspace != "" && within(abs, workspace) {
		rel = strings.TrimPrefix(abs[len(workspace):], string(filepath.Separator))
	}
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		switch {
		case strings.EqualFold(c, ".git"):
			return "writes git metadata (.git: its config, hooks, index and refs decide what git runs)", true
		case strings.EqualFold(c, ".codewhale"):
			return "writes project CodeWhale settings (.codewhale: configuration and permission rules)", true
		}
	}
	return "", false
}
