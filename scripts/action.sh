#!/usr/bin/env bash
# The GitHub Action's step (action.yml): find or build codewhale, run
# `codewhale -p` with the inputs, write the `result` and `cost` outputs to
# $GITHUB_OUTPUT and exit with codewhale's exit code. Run locally by
# cmd/codewhale TestActionScript.
set -euo pipefail
tmp=${RUNNER_TEMP:-$(mktemp -d)}

bin=$(command -v codewhale || true)
if [ -z "$bin" ]; then
  bin="$tmp/codewhale"
  if [ -f "${GITHUB_ACTION_PATH:-}/go.mod" ]; then
    (cd "$GITHUB_ACTION_PATH" && CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/codewhale)
  else
    GOBIN="$tmp" go install "github.com/codewhale/codewhale/cmd/codewhale@${INPUT_VERSION:-latest}"
  fi
fi

args=(-p "$INPUT_PROMPT" --output-format json)
[ -n "${INPUT_MODEL:-}" ] && args+=(--model "$INPUT_MODEL")
[ -n "${INPUT_PROVIDER:-}" ] && args+=(--provider "$INPUT_PROVIDER")
[ -n "${INPUT_APPROVAL_POLICY:-}" ] && args+=(--approval-policy "$INPUT_APPROVAL_POLICY")
[ -n "${INPUT_JSON_SCHEMA:-}" ] && args+=(--json-schema "$INPUT_JSON_SCHEMA")

code=0
"$bin" "${args[@]}" </dev/null >"$tmp/codewhale-result.json" || code=$?

if jq -e . "$tmp/codewhale-result.json" >/dev/null 2>&1; then
  result=$(jq -r 'if has("structured_output") then (.structured_output | tojson) else .output end' "$tmp/codewhale-result.json")
  cost=$(jq -r '.cost // ""' "$tmp/codewhale-result.json")
else
  result="" cost=""
fi
delim="codewhale_$RANDOM$RANDOM$RANDOM"
{
  echo "result<<$delim"
  printf '%s\n' "$result"
  echo "$delim"
  echo "cost=$cost"
} >>"${GITHUB_OUTPUT:-/dev/stdout}"
exit "$code"
