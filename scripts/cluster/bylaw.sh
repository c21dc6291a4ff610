# Sourced by scripts/cluster.sh: `up DIR --with-bylaw` starts Bylaw from the checkout against the
# cluster, as the ServiceAccount and RBAC deploy/ ships (not as admin), registered and Ready.
#
#   policies              ClusterPolicy/Policy/PolicyException objects in the cluster (kubectl apply), as
#                         deploy/ runs it: bylaw serve --kubeconfig without --policies reads them from CRDs
#   DIR/bylaw.kubeconfig  a token for system:serviceaccount:bylaw:bylaw (TokenRequest, 24 h)
#   DIR/bylaw.env         BYLAW_PORT, BYLAW_METRICS_PORT for tests
#   DIR/logs/bylaw.log    its log; DIR/pids/bylaw.pid, stopped by `down` like the other components
#   restart-bylaw DIR     stop and start it again (cmd_restart_bylaw); earlier logs in DIR/logs/bylaw.<n>.log

BYLAW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

bylaw_ready() { # <port>
  curl -sfk --max-time 2 "https://127.0.0.1:$1/health/readiness" >/dev/null
}

# Registered: the policy-validating webhook exists and points at this server.
bylaw_registered() { # <dir> <port>
  [[ "$(kubectl --kubeconfig "$1/kubeconfig" get validatingwebhookconfiguration bylaw-policy-validating-webhook-cfg \
    -o 'jsonpath={.webhooks[0].clientConfig.url}')" == "https://127.0.0.1:$2/policyvalidate" ]]
}

start_bylaw() { # <dir>
  local dir="$1" k="kubectl --kubeconfig $1/kubeconfig"
  [[ -d "$BYLAW_ROOT/dist/src" ]] || die "Bylaw is not built: run npm run build in $BYLAW_ROOT"
  # What deploy/ ships for the admission controller: the CRDs, its namespace, ServiceAccount and RBAC,
  # and the (empty) webhook configurations it fills in; nothing else (no Deployment: it runs here).
  $k apply --server-side --force-conflicts -k "$BYLAW_ROOT/deploy/crds" >/dev/null
  $k apply -f "$BYLAW_ROOT/deploy/base/namespace.yaml" >/dev/null
  $k apply -n bylaw -f "$BYLAW_ROOT/deploy/base/serviceaccount.yaml" -f "$BYLAW_ROOT/deploy/base/rbac/admission-controller.yaml" >/dev/null
  $k apply -f "$BYLAW_ROOT/deploy/base/validating-webhook.yaml" -f "$BYLAW_ROOT/deploy/base/mutating-webhook.yaml" >/dev/null
  local token server
  token="$($k create token bylaw -n bylaw --duration=24h)"
  server="$($k config view --minify -o 'jsonpath={.clusters[0].cluster.server}')"
  (
    umask 077
    cat >"$dir/bylaw.kubeconfig" <<KCFG
apiVersion: v1
kind: Config
clusters:
- name: bylaw-local
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 <"$dir/pki/ca.crt")
users:
- name: bylaw
  user:
    token: $token
contexts:
- name: bylaw-local
  context:
    cluster: bylaw-local
    user: bylaw
current-context: bylaw-local
KCFG
  )
  local port metrics_port
  read -r port metrics_port <<<"$(free_ports 2)"
  printf 'BYLAW_PORT=%s\nBYLAW_METRICS_PORT=%s\n' "$port" "$metrics_port" >"$dir/bylaw.env"
  run_bylaw "$dir" "$port" "$metrics_port"
  wait_for_bylaw "$dir" "$port"
}

# Starts `bylaw serve` (the checkout's) on the given ports as the ServiceAccount in DIR/bylaw.kubeconfig.
run_bylaw() { # <dir> <port> <metrics-port>
  local dir="$1" port="$2" metrics_port="$3" node_bin
  node_bin="$(readlink -f "$(command -v node)")"
  start "$dir" bylaw "$node_bin" "$BYLAW_ROOT/bin/bylaw.js" serve \
    --self-signed --dns-name bylaw.bylaw.svc --host 127.0.0.1 --port "$port" --metrics-port "$metrics_port" \
    --kubeconfig "$dir/bylaw.kubeconfig" --register --server-url "https://127.0.0.1:$port" --service-namespace bylaw
}

wait_for_bylaw() { # <dir> <port>
  wait_for "$1" "bylaw serve /health/readiness" bylaw_ready "$2"
  wait_for "$1" "Bylaw's webhook configurations" bylaw_registered "$1" "$2"
}

# `restart-bylaw DIR [--no-wait]`: stops Bylaw if it runs and starts it again as start_bylaw does,
# on the same ports (DIR/bylaw.env) and ServiceAccount token; nothing else is applied, so what an
# admin changed meanwhile (RBAC, deleted webhook configurations) stays. The previous log is kept as
# DIR/logs/bylaw.<n>.log. Waits until Ready and registered, unless --no-wait.
cmd_restart_bylaw() { # <dir> [--no-wait]
  local dir="$1" pid i n=1 BYLAW_PORT="" BYLAW_METRICS_PORT=""
  [[ -f "$dir/bylaw.env" && -f "$dir/bylaw.kubeconfig" ]] || die "$dir has no Bylaw (up DIR --with-bylaw first)"
  source "$dir/bylaw.env"
  if pid="$(live_pid "$dir" bylaw)"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do gone "$pid" && break; sleep 0.25; done
    gone "$pid" || die "Bylaw (pid $pid) has not exited 15 s after SIGTERM"
  fi
  while [[ -e "$dir/logs/bylaw.$n.log" ]]; do n=$((n + 1)); done
  [[ ! -f "$dir/logs/bylaw.log" ]] || mv "$dir/logs/bylaw.log" "$dir/logs/bylaw.$n.log"
  run_bylaw "$dir" "$BYLAW_PORT" "$BYLAW_METRICS_PORT"
  [[ "${2:-}" == --no-wait ]] || wait_for_bylaw "$dir" "$BYLAW_PORT"
}
