#!/usr/bin/env bash
# Debian's chromium for the report UI's browser test (test/cluster/ui.cluster-test.ts drives it with
# playwright-core's executablePath; no browser is ever downloaded).
#
#   scripts/chromium.sh install    apt-get install chromium if /usr/bin/chromium (or $BYLAW_CHROMIUM)
#                                  is missing (root, on a cold machine); prints the binary's path
set -euo pipefail

BIN="${BYLAW_CHROMIUM:-/usr/bin/chromium}"

die() { echo "chromium: $*" >&2; exit 1; }

cmd_install() {
  if [[ ! -x "$BIN" ]]; then
    command -v apt-get >/dev/null || die "apt-get is missing: the browser test uses Debian's chromium package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } ||
      die "apt-get install chromium failed (run as root so that apt-get can install it)"
    [[ -x "$BIN" ]] || die "chromium was installed but $BIN is not there (set BYLAW_CHROMIUM to its path)"
  fi
  echo "$BIN"
}

case "${1:-}" in
  install) cmd_install ;;
  *) die "usage: scripts/chromium.sh install" ;;
esac
