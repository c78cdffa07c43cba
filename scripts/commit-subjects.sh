#!/usr/bin/env bash
# scripts/commit-subjects.sh — every commit since the rule began has a subject
# of the form `pkg: what` in at most 72 characters (AGENTS.md, "Landing a
# change"); the why goes in the body. make test runs it. Older history is
# left as it was: rewriting published commits would cost every clone more
# than long subjects do.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8 # ${#s} counts characters, not bytes (§ is one)

# The first commit the rule holds from is the child of this one.
base=18ecfbe

if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "commit-subjects: warning: not a git checkout (an export?): no history to check" >&2
	exit 0
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
	if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		echo "commit-subjects: warning: this shallow clone does not hold $base; not checked (git fetch --unshallow)" >&2
		exit 0
	fi
	echo "commit-subjects: $base is not in this history" >&2
	exit 1
fi

status=0 n=0
while IFS=$'\t' read -r hash subject; do
	n=$((n + 1))
	if [ "${#subject}" -gt 72 ]; then
		echo "commit-subjects: ${hash:0:12} has a ${#subject}-character subject (at most 72): $subject" >&2
		status=1
	fi
	if ! [[ $subject =~ ^[a-zA-Z0-9_./,{}\ -]+:\ [^\ ] ]]; then
		echo "commit-subjects: ${hash:0:12} does not start with \`pkg: \`: $subject" >&2
		status=1
	fi
done < <(git log --no-merges --format='%H%x09%s' "$base..HEAD")
[ "$status" = 0 ] && echo "commit-subjects: $n commits since $base, each \`pkg: what\` in at most 72 characters"
exit "$status"
