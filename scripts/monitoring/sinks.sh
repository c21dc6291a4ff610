#!/usr/bin/env bash
# The real servers Bylaw's monitoring side pushes to, as local processes on loopback, for its tests
# (as scripts/cluster.sh starts the control plane): the Prometheus Pushgateway (Debian's
# prometheus-pushgateway package, unpacked, not installed) and VictoriaLogs (built from its Go
# module; it accepts Loki's push API in JSON and in snappy protobuf, and is queried back with LogsQL).
# Loki itself is not built here (its licence); see ../shared/spec/monitoring.md §6.
#
#   scripts/monitoring/sinks.sh build              fetch and build what is missing into the cache
#   scripts/monitoring/sinks.sh up DIR             build, start both on free loopback ports, wait until
#                                                  ready; DIR/sinks.env has PUSHGATEWAY_URL and
#                                                  VICTORIALOGS_URL; logs in DIR/logs, pids in DIR/pids
#       BYLAW_VICTORIALOGS_ARGS="-tls -tlsCertFile=F -tlsKeyFile=K -httpAuth.username=U -httpAuth.password=P"
#                                                  more VictoriaLogs flags (with -tls its URL is https)
#   scripts/monitoring/sinks.sh stop DIR NAME      stop one (pushgateway or victorialogs)
#   scripts/monitoring/sinks.sh start DIR NAME     start it again on the same port and data, wait until ready
#   scripts/monitoring/sinks.sh down DIR           stop everything `up DIR` started
#
# Cache: ${BYLAW_MONITORING_CACHE:-$HOME/.cache/bylaw-monitoring}/<component>-<version>/.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../process-state.sh
source "$SRC/../process-state.sh"
CACHE="${BYLAW_MONITORING_CACHE:-$HOME/.cache/bylaw-monitoring}"
WAIT_SECONDS="${BYLAW_MONITORING_WAIT_SECONDS:-60}"
# Debian bookworm's package; a different candidate version is a different cache folder.
PUSHGATEWAY_PACKAGE=prometheus-pushgateway
VL_MODULE=github.com/VictoriaMetrics/VictoriaLogs
VL_VERSION="$(awk -v m="$VL_MODULE" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$SRC/victorialogs/go.mod")"
VL_DIR="$CACHE/victorialogs-$VL_VERSION"
COMPONENTS=(pushgateway victorialogs)

die() { echo "monitoring: $*" >&2; exit 1; }

low_priority() {
  if command -v ionice >/dev/null 2>&1; then nice -n 19 ionice -c3 "$@"; else nice -n 19 "$@"; fi
}

pushgateway_dir() {
  local v
  v="$(apt-cache policy "$PUSHGATEWAY_PACKAGE" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }')"
  if [[ -z "$v" || "$v" == "(none)" ]]; then
    # An older cache is still usable when the package index is not there (offline).
    local cached
    cached="$(ls -d "$CACHE"/pushgateway-* 2>/dev/null | grep -v '\.tmp\.' | tail -n 1 || true)"
    [[ -n "$cached" ]] || return 1
    echo "$cached"
    return 0
  fi
  echo "$CACHE/pushgateway-${v//[^A-Za-z0-9.+~-]/_}"
}

# apt-get download + dpkg-deb -x: the binary without installing the package (no service starts).
build_pushgateway() {
  local dir
  if ! dir="$(pushgateway_dir)"; then
    echo "monitoring: apt-get update (no candidate for $PUSHGATEWAY_PACKAGE yet)" >&2
    apt-get update -qq >&2 || die "apt-get update failed"
    dir="$(pushgateway_dir)" || die "Debian has no $PUSHGATEWAY_PACKAGE package here (apt-cache policy $PUSHGATEWAY_PACKAGE)"
  fi
  [[ -x "$dir/prometheus-pushgateway" ]] && return 0
  local tmp="$dir.tmp.$$" started=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp/deb"
  echo "monitoring: fetching $(basename "$dir") ..." >&2
  if ! (cd "$tmp/deb" && apt-get download -qq "$PUSHGATEWAY_PACKAGE" >&2 2>/dev/null) ||
    ! dpkg-deb -x "$tmp"/deb/*.deb "$tmp/root"; then
    rm -rf "$tmp"
    die "fetching $PUSHGATEWAY_PACKAGE failed (apt-get download $PUSHGATEWAY_PACKAGE)"
  fi
  mv "$tmp/root/usr/bin/prometheus-pushgateway" "$tmp/prometheus-pushgateway"
  rm -rf "$tmp/deb" "$tmp/root"
  rm -rf "$dir" && mv "$tmp" "$dir"
  echo "monitoring: fetched $(basename "$dir") in $((SECONDS - started)) s" >&2
}

build_victorialogs() {
  [[ -x "$VL_DIR/victoria-logs" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go is not on PATH (needed to build VictoriaLogs)"
  local tmp="$VL_DIR.tmp.$$" started=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp"
  echo "monitoring: building victorialogs-$VL_VERSION ..." >&2
  # Pure Go (CGO_ENABLED=0): VictoriaLogs falls back to its Go zstd, so no C toolchain is needed.
  if ! (cd "$SRC/victorialogs" && CGO_ENABLED=0 low_priority go build -mod=readonly -trimpath -buildvcs=false \
    -ldflags "-s -w" -o "$tmp/victoria-logs" "$VL_MODULE/app/victoria-logs"); then
    rm -rf "$tmp"
    die "building VictoriaLogs failed (cd $SRC/victorialogs && go build $VL_MODULE/app/victoria-logs)"
  fi
  rm -rf "$VL_DIR" && mv "$tmp" "$VL_DIR"
  echo "monitoring: built victorialogs-$VL_VERSION in $((SECONDS - started)) s" >&2
}

build_all() {
  mkdir -p "$CACHE"
  exec {lock_fd}>"$CACHE/.build.lock"
  flock "$lock_fd"
  build_pushgateway
  build_victorialogs
  flock -u "$lock_fd"
}

free_ports() { # <count>
  node -e '
    const net = require("node:net");
    const n = Number(process.argv[1]);
    const servers = Array.from({ length: n }, () => net.createServer());
    let ready = 0;
    for (const s of servers) s.listen(0, "127.0.0.1", () => {
      if (++ready < n) return;
      console.log(servers.map((x) => x.address().port).join(" "));
      for (const x of servers) x.close();
    });' "$1"
}

# Starts one component from what DIR/sinks.env records (its port), in the background. When its port
# was taken meanwhile (another program's socket: the ports are free when chosen, not reserved), it
# answers 3 after stopping the component; `up` then chooses other ports, `start` waits and tries again.
start_one() { # <dir> <component>
  local dir="$1" name="$2" before=0
  [[ -f "$dir/logs/$name.log" ]] && before="$(stat -c %s "$dir/logs/$name.log")"
  launch_one "$dir" "$name" && return 0
  if tail -c +"$((before + 1))" "$dir/logs/$name.log" 2>/dev/null | grep -qi 'address already in use'; then
    stop_one "$dir" "$name"
    return 3
  fi
  return 1
}

launch_one() { # <dir> <component>
  local dir="$1" name="$2" bin
  # shellcheck disable=SC1091
  source "$dir/sinks.env"
  case "$name" in
    pushgateway)
      bin="$(pushgateway_dir)/prometheus-pushgateway"
      setsid "$bin" --web.listen-address="127.0.0.1:$PUSHGATEWAY_PORT" --persistence.file="" \
        >>"$dir/logs/$name.log" 2>&1 </dev/null &
      ;;
    victorialogs)
      bin="$VL_DIR/victoria-logs"
      local extra=()
      read -r -a extra <<<"${VICTORIALOGS_ARGS:-}"
      setsid "$bin" -httpListenAddr="127.0.0.1:$VICTORIALOGS_PORT" -storageDataPath="$dir/victorialogs-data" \
        -retentionPeriod=8d -inmemoryDataFlushInterval=1s -loggerLevel=WARN "${extra[@]}" \
        >>"$dir/logs/$name.log" 2>&1 </dev/null &
      ;;
    *) die "unknown component $name (pushgateway or victorialogs)" ;;
  esac
  printf '%s\n%s\n' "$!" "$bin" >"$dir/pids/$name.pid"
  wait_ready "$dir" "$name"
}

wait_ready() { # <dir> <component>
  local dir="$1" name="$2" url deadline=$((SECONDS + WAIT_SECONDS))
  # shellcheck disable=SC1091
  source "$dir/sinks.env"
  case "$name" in
    pushgateway) url="$PUSHGATEWAY_URL/-/ready" ;;
    victorialogs) url="$VICTORIALOGS_URL/health" ;;
  esac
  # -k: readiness only (a test's own CA signs a TLS VictoriaLogs); /health needs no credentials.
  until curl -kfsS --max-time 2 -o /dev/null "$url" 2>/dev/null; do
    # Between the fork and the exec the recorded process still runs this shell or setsid: not an exit.
    if exited "$dir" "$name"; then
      echo "monitoring: $name exited while starting; the end of $dir/logs/$name.log:" >&2
      tail -n 30 "$dir/logs/$name.log" >&2 || true
      return 1
    fi
    ((SECONDS < deadline)) || { echo "monitoring: timed out after ${WAIT_SECONDS} s waiting for $name" >&2; return 1; }
    sleep 0.2
  done
}

stop_one() { # <dir> <component>
  local pid i
  pid="$(live_pid "$1" "$2")" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 75; i++)); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$1/pids/$2.pid"; return 0; }
    sleep 0.2
  done
  echo "monitoring: $2 (pid $pid) has not exited 15 s after SIGTERM; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$1/pids/$2.pid"
}

cmd_up() { # <dir>
  local dir="$1" c ports
  for c in "${COMPONENTS[@]}"; do
    ! live_pid "$dir" "$c" >/dev/null || die "$dir already runs $c; run: $0 down $dir"
  done
  build_all
  mkdir -p "$dir/logs" "$dir/pids"
  local vl_args="${BYLAW_VICTORIALOGS_ARGS:-}" vl_scheme=http attempt rc
  [[ " $vl_args " == *" -tls "* ]] && vl_scheme=https
  for ((attempt = 1; attempt <= 3; attempt++)); do
    read -r -a ports <<<"$(free_ports 2)"
    cat >"$dir/sinks.env" <<ENV
PUSHGATEWAY_PORT=${ports[0]}
PUSHGATEWAY_URL=http://127.0.0.1:${ports[0]}
VICTORIALOGS_PORT=${ports[1]}
VICTORIALOGS_URL=$vl_scheme://127.0.0.1:${ports[1]}
VICTORIALOGS_ARGS=$(printf '%q' "$vl_args")
ENV
    rc=0
    for c in "${COMPONENTS[@]}"; do
      start_one "$dir" "$c" || { rc=$?; break; }
    done
    ((rc == 0)) && return 0
    cmd_down "$dir"
    ((rc == 3)) || return 1
    echo "monitoring: a chosen port was taken before $c bound it; choosing others" >&2
  done
  return 1
}

# `start DIR NAME`: on the port DIR/sinks.env records; while something else holds it, waits and tries again.
cmd_start() { # <dir> <component>
  local attempt rc
  for ((attempt = 1; attempt <= 10; attempt++)); do
    rc=0
    start_one "$1" "$2" || rc=$?
    ((rc == 3)) || return "$rc"
    echo "monitoring: the port of $2 is held by another program; trying again in 1 s" >&2
    sleep 1
  done
  return 1
}

cmd_down() { # <dir>
  local c
  for c in "${COMPONENTS[@]}"; do stop_one "$1" "$c"; done
}

component_arg() { # <name>
  [[ " ${COMPONENTS[*]} " == *" $1 "* ]] || die "unknown component $1 (pushgateway or victorialogs)"
}

case "${1:-}" in
  build) [[ $# -eq 1 ]] || die "usage: $0 build"; build_all ;;
  up) [[ $# -eq 2 ]] || die "usage: $0 up DIR"; mkdir -p "$2"; cmd_up "$(cd "$2" && pwd)" ;;
  stop) [[ $# -eq 3 ]] || die "usage: $0 stop DIR NAME"; component_arg "$3"; stop_one "$(cd "$2" && pwd)" "$3" ;;
  start) [[ $# -eq 3 ]] || die "usage: $0 start DIR NAME"; component_arg "$3"; cmd_start "$(cd "$2" && pwd)" "$3" ;;
  down) [[ $# -eq 2 ]] || die "usage: $0 down DIR"; [[ -d "$2" ]] || exit 0; cmd_down "$(cd "$2" && pwd)" ;;
  *) die "usage: $0 build | up DIR | stop DIR NAME | start DIR NAME | down DIR" ;;
esac
