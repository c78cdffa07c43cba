#!/usr/bin/env bash
# scripts/third_party.sh verify — what go.mod names is what is built, and a
# copy of other people's code under third_party/ is provably a tag plus its
# patches (make test runs it).
#
#   - go.mod has no replace directive: every module is built as released.
#   - Each third_party/<m>/ has an UPSTREAM file:
#         module  <module path>
#         version <tag>
#         sum     <the tag's go.sum checksum (h1:…)>
#         file    <path in the copy> <path in the module>   (one per file)
#     and may have patches/*.diff (unified diffs, -p1, applied in name order;
#     a file of ours is a patch that creates it); README.md says why the copy
#     exists. UPSTREAM, README.md and patches/ are the copy's own; every other
#     file must be derived. The script downloads the tag
#     into the module cache (go mod download), checks its checksum against
#     UPSTREAM and go.sum, assembles the listed files, applies the patches and
#     fails on any difference from the copy.
#   - It warns (never fails: the proxy may be unreachable) when the module's
#     latest tag is not the copy's.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "${1:-}" = verify ] || { echo "usage: scripts/third_party.sh verify" >&2; exit 2; }

status=0
fail() { echo "third_party: $*" >&2; status=1; }
warn() { echo "third_party: warning: $*" >&2; }

if go mod edit -json | grep -qF '"Replace": ['; then
	fail "go.mod has a replace directive: build the released module, or keep a copy under its own import path (docs/ARCHITECTURE.md §5, \"Third-party code as released\")"
fi

# field KEY FILE: the value of the one "KEY value" line in FILE.
field() { awk -v k="$1" '$1 == k { print $2; n++ } END { exit n != 1 }' "$2"; }

verify() {
	local dir=$1 up=$1/UPSTREAM module version sum json cache got tmp
	[ -f "$up" ] || { fail "$dir has no UPSTREAM file (module, version, sum, files)"; return; }
	module=$(field module "$up") && version=$(field version "$up") && sum=$(field sum "$up") ||
		{ fail "$up needs exactly one module, version and sum line"; return; }
	json=$(go mod download -json "$module@$version") || { fail "$dir: go mod download $module@$version failed"; return; }
	cache=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	got=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
	[ "$got" = "$sum" ] || fail "$dir: $module@$version has checksum $got, UPSTREAM says $sum"
	if grep -q "^$module $version " go.sum && ! grep -q "^$module $version $sum\$" go.sum; then
		fail "$dir: go.sum's checksum for $module@$version is not UPSTREAM's $sum"
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	while read -r kind dst src; do
		[ "$kind" = file ] || continue
		[ -f "$cache/$src" ] || { fail "$dir: $module@$version has no $src"; continue; }
		mkdir -p "$tmp/$(dirname "$dst")"
		cp "$cache/$src" "$tmp/$dst"
		chmod u+w "$tmp/$dst"
	done <"$up"
	for p in "$dir"/patches/*.diff; do
		[ -e "$p" ] || continue
		(cd "$tmp" && patch -p1 -s --no-backup-if-mismatch <"$OLDPWD/$p") || fail "$dir: $p does not apply to $module@$version"
	done
	if ! diff -r --exclude=UPSTREAM --exclude=README.md --exclude=patches "$tmp" "$dir" >"$tmp.diff"; then
		fail "$dir is not $module@$version plus its patches/*.diff:"
		head -40 "$tmp.diff" >&2
	fi
	rm -f "$tmp.diff"
	# The module may not be in go.mod (a copy under our import path): ask
	# the proxy for its latest tag rather than -versions of the build list.
	newest=$(go list -m -f '{{.Version}}' "$module@latest" 2>/dev/null) ||
		{ warn "$dir: could not ask for the latest tag of $module (offline?)"; return; }
	if [ -n "$newest" ] && [ "$newest" != "$version" ]; then
		warn "$dir: $module has $newest, the copy is of $version"
	fi
}

copies=0
for d in third_party/*/; do
	[ -d "$d" ] || continue
	copies=$((copies + 1))
	verify "${d%/}"
done
noun=copies; [ "$copies" = 1 ] && noun=copy
[ "$status" = 0 ] && echo "third_party: go.mod has no replace; $copies $noun, each its tag plus its patches"
exit "$status"
