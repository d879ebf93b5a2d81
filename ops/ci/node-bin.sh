#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version (22, 24 …), installing it on first
# use from the npm registry's `node` package into .cache/node-<major>/ (ignored by git) and reusing it
# afterwards. Used by .ci/run to run suites on every supported Node; nothing else is downloaded.
set -euo pipefail
major="${1:?usage: node-bin.sh <major>}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/.cache/node-$major"
bin="$dir/node_modules/.bin/node"
if [ ! -x "$bin" ] || ! "$bin" -v >/dev/null 2>&1; then
  mkdir -p "$dir"
  # The `node` package's install script fetches the matching `node-<os>-<arch>` package from the
  # registry; npm 11 runs it only when allowed.
  printf '{"name":"r3-node-%s","private":true,"allowScripts":{"node":true}}\n' "$major" > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --no-save --loglevel=error "node@$major" >&2)
fi
"$bin" -e "if (process.versions.node.split('.')[0] !== '$major') process.exit(1)"
echo "$bin"
