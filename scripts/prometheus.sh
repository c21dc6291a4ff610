#!/usr/bin/env bash
# A real Prometheus (Debian's `prometheus` package, 2.42) on loopback, for the monitoring tests:
# the package is fetched with apt-get and unpacked into a cache, not installed (no service, no
# user, nothing in /etc); its promtool checks the alert rules.
#
#   scripts/prometheus.sh install        fetch and unpack into the cache if missing (apt-get; root
#                                        on a cold machine, for apt-get update); prints the bin folder
#   scripts/prometheus.sh up DIR TARGET...
#                                        start Prometheus on a free 127.0.0.1 port scraping each
#                                        TARGET (host:port, /metrics) every second, with
#                                        DIR/rules.yml as its rules if present; waits until ready;
#                                        writes DIR/prometheus.env (PROMETHEUS_URL), logs and pid in DIR
#   scripts/prometheus.sh down DIR       stop what `up DIR` started (by its pid)
#
# Cache: ${BYLAW_PROMETHEUS_CACHE:-$HOME/.cache/bylaw-prometheus}/root/usr/bin/{prometheus,promtool}.
set -euo pipefail

CACHE="${BYLAW_PROMETHEUS_CACHE:-$HOME/.cache/bylaw-prometheus}"
BIN="$CACHE/root/usr/bin"

die() { echo "prometheus: $*" >&2; exit 1; }

cmd_install() {
  if [[ ! -x "$BIN/prometheus" || ! -x "$BIN/promtool" ]]; then
    command -v apt-get >/dev/null || die "apt-get is missing: Prometheus comes from Debian's prometheus package"
    mkdir -p "$CACHE/debs"
    (cd "$CACHE/debs" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus; }; }) ||
      die "apt-get download prometheus failed (run as root so that apt-get update can refresh the lists)"
    local deb
    deb="$(ls -t "$CACHE"/debs/prometheus_*.deb | head -1)"
    dpkg-deb -x "$deb" "$CACHE/root"
    [[ -x "$BIN/prometheus" && -x "$BIN/promtool" ]] || die "$deb holds no usr/bin/prometheus and promtool"
  fi
  echo "$BIN"
}

free_port() {
  node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

cmd_up() { # <dir> <target>...
  local dir="$1" port i
  shift
  cmd_install >/dev/null
  mkdir -p "$dir/data"
  {
    echo "global: { scrape_interval: 1s, evaluation_interval: 1s }"
    [[ -f "$dir/rules.yml" ]] && echo "rule_files: ['$dir/rules.yml']"
    echo "scrape_configs:"
    echo "  - job_name: bylaw"
    echo "    static_configs: [ { targets: [$(printf "'%s'," "$@" | sed 's/,$//')] } ]"
  } >"$dir/prometheus.yml"
  "$BIN/promtool" check config "$dir/prometheus.yml" >/dev/null || die "promtool rejects $dir/prometheus.yml"
  port="$(free_port)"
  setsid "$BIN/prometheus" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" >"$dir/prometheus.log" 2>&1 </dev/null &
  echo "$!" >"$dir/prometheus.pid"
  for ((i = 0; i < 120; i++)); do
    if curl -fsS "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
      echo "PROMETHEUS_URL=http://127.0.0.1:$port" >"$dir/prometheus.env"
      return 0
    fi
    kill -0 "$(cat "$dir/prometheus.pid")" 2>/dev/null || die "Prometheus exited while starting: $(tail -5 "$dir/prometheus.log")"
    sleep 0.5
  done
  die "Prometheus not ready on 127.0.0.1:$port after 60 s"
}

cmd_down() { # <dir>
  local pid
  [[ -f "$1/prometheus.pid" ]] || return 0
  pid="$(cat "$1/prometheus.pid")"
  if [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$BIN/prometheus"* ]]; then
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$1/prometheus.pid"
}

case "${1:-}" in
  install) cmd_install ;;
  up) [[ $# -ge 3 ]] || die "usage: $0 up DIR TARGET..."; shift; cmd_up "$@" ;;
  down) [[ $# -eq 2 ]] || die "usage: $0 down DIR"; cmd_down "$2" ;;
  *) die "usage: $0 install | up DIR TARGET... | down DIR" ;;
esac
