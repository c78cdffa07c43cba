#!/usr/bin/env bash
# differential.sh — compare codewhale's tools with the reference tools on a
# real repository, and print agree/disagree counts per action.
#
#   scripts/differential.sh REPO [MAX_COMMITS]   a git repository (a checkout or a bare/mirror git dir)
#   scripts/differential.sh BUNDLE [MAX_COMMITS]  a git bundle (cloned first)
#   scripts/differential.sh --foreign [MAX_COMMITS]
#       the vendored public repository internal/tools/git/testdata/go-isatty.bundle
#       (mattn/go-isatty; its README says where it comes from)
#   scripts/differential.sh --goroot [MAX_COMMITS]
#       $(go env GOROOT)/src as a repository: its tree committed, then
#       MAX_COMMITS synthetic commits (edits, renames, deletions, mode
#       changes, newline changes) on top — GOROOT itself is not a git repo.
#
# Each section replays the newest MAX_COMMITS (default 20) commits of the
# repository's first-parent history through the same Go differential tests
# `go test` runs on the fixture and this project's own history:
#   git    — every Git action (status, diff, log, show, blame with their
#            common options) against the git CLI, with and without the git
#            binary (the go-git backend);
#   patch  — File patch applying `git diff A B` for every consecutive pair,
#            the resulting tree compared with B's (or git apply's);
#   search — File search_content against rg (--sort path --crlf --hidden
#            --no-require-git) on the working tree: a set of patterns with
#            and without -i, match for match in path order (needs rg; a bare
#            repository has no tree and is skipped).
# A section is one function; add one (e.g. search vs rg) by writing
# section_<name> and listing it in SECTIONS.
#
# Exit status: 0 when nothing disagrees, 1 otherwise.
set -euo pipefail

cd "$(dirname "$0")/.."
SECTIONS=(git patch search)

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make_goroot_repo DIR N: GOROOT/src committed, then N synthetic commits.
make_goroot_repo() {
	local dir=$1 n=$2 src
	src="$(go env GOROOT)/src"
	mkdir -p "$dir"
	cp -R "$src/." "$dir/"
	(
		cd "$dir"
		export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
		git init -q -b main
		git config user.name "Differential"
		git config user.email "differential@example.com"
		git config core.autocrlf false
		git config gc.auto 0
		git add -A
		GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000" git commit -q -m "GOROOT/src $(go env GOVERSION)"
		mapfile -t files < <(git ls-files -- '*.go' | awk 'NR % 97 == 0')
		local i k f
		for ((i = 1; i <= n; i++)); do
			k=$(( (i * 7) % ${#files[@]} ))
			f=${files[$k]}
			[ -f "$f" ] && printf '\n// differential edit %d\n' "$i" >>"$f"
			f=${files[$(( (k + 1) % ${#files[@]} ))]}
			[ -f "$f" ] && sed -i '3i // inserted by the differential run' "$f"
			f=${files[$(( (k + 2) % ${#files[@]} ))]}
			[ -f "$f" ] && git mv -f "$f" "${f%.go}_moved$i.go"
			f=${files[$(( (k + 3) % ${#files[@]} ))]}
			[ -f "$f" ] && git rm -q "$f"
			f=${files[$(( (k + 4) % ${#files[@]} ))]}
			[ -f "$f" ] && chmod +x "$f"
			f=${files[$(( (k + 5) % ${#files[@]} ))]}
			[ -f "$f" ] && printf '%s' "$(cat "$f")" >"$f.tmp" && mv "$f.tmp" "$f"   # drop the final newline
			git add -A
			GIT_AUTHOR_DATE="$((1700000000 + i * 3600)) +0000" GIT_COMMITTER_DATE="$((1700000000 + i * 3600)) +0000" \
				git commit -q -m "Synthetic change $i"
		done
	)
}

run_test() { # package, test name, repo, max
	go test "$1" -count=1 -timeout 90m -run "^$2\$" -v -args \
		-differential.repo="$3" -differential.max="$4" 2>&1 | tee "$tmp/$2.log" |
		grep '^DIFFERENTIAL' || true
	if grep -q -- '--- FAIL\|^FAIL\|^panic' "$tmp/$2.log"; then
		grep -v '^DIFFERENTIAL\|^=== ' "$tmp/$2.log" | head -60 >&2
		return 1
	fi
}

section_git() { run_test ./internal/tools/git TestGitDifferentialHistory "$1" "$2"; }
section_patch() { run_test ./internal/tools/file TestPatchDifferentialHistory "$1" "$2"; }
section_search() {
	if [ "$(git -C "$1" rev-parse --is-bare-repository 2>/dev/null)" = true ]; then
		echo "DIFFERENTIAL search skipped: $1 is a bare repository (no working tree)"
		return 0
	fi
	CODEWHALE_DIFF_TREE="$1" go test ./internal/tools/file -count=1 -timeout 90m -run '^TestDifferentialSearchTree$' -v \
		2>&1 | tee "$tmp/search.log" | grep '^DIFFERENTIAL' || true
	if grep -q -- '--- FAIL\|^FAIL\|^panic' "$tmp/search.log"; then
		grep -v '^DIFFERENTIAL\|^=== ' "$tmp/search.log" | head -60 >&2
		return 1
	fi
}

if [ "$1" = --goroot ]; then
	max=${2:-20}
	repo="$tmp/goroot-src"
	echo "building a repository from $(go env GOROOT)/src with $max synthetic commits…" >&2
	make_goroot_repo "$repo" "$max"
elif [ "$1" = --foreign ] || [ -f "$1" ]; then
	bundle=$1
	[ "$bundle" = --foreign ] && bundle=internal/tools/git/testdata/go-isatty.bundle
	max=${2:-20}
	repo="$tmp/bundle-clone"
	git clone -q "$bundle" "$repo"
else
	repo=$(cd "$1" && pwd)
	max=${2:-20}
fi

status=0
for s in "${SECTIONS[@]}"; do
	echo "== $s: $repo (newest $max commits)"
	"section_$s" "$repo" "$max" || status=1
done
exit $status
