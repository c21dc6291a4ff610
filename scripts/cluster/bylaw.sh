# Sourced by scripts/cluster.sh: `up DIR --with-bylaw` starts Bylaw from the checkout against the
# cluster, as the ServiceAccount and RBAC deploy/ ships (not as admin), registered and Ready.
#
#   objects               deploy/crds, then from `kubectl kustomize deploy/base` the namespace and the objects
#                         labelled app.kubernetes.io/component=admission-controller (its ServiceAccount, RBAC and
#                         the empty bylaw-tls Secret) or =webhook-configuration (the empty configurations): the
#                         same files the Deployment runs with; not the Deployment, PDB or Service
#   arguments             the Deployment's own (scripts/cluster/deploy-args.mjs reads them from the render:
#                         --cluster --register --leader-elect --tls-secret bylaw-tls …), with what a pod gets
#                         from the kubelet and the cluster given outside one: POD_NAMESPACE/POD_NAME, --kubeconfig,
#                         loopback ports, --server-url (Kyverno's --serverIP) and --dns-name 127.0.0.1 (an IP SAN)
#   policies              ClusterPolicy/Policy/PolicyException objects in the cluster (kubectl apply), as
#                         deploy/ runs it: it reads them from the CRDs
#   DIR/bylaw.kubeconfig  a token for system:serviceaccount:bylaw:bylaw (TokenRequest, 24 h)
#   DIR/bylaw.env         BYLAW_PORT, BYLAW_METRICS_PORT for tests
#   DIR/logs/bylaw.log    its log; DIR/pids/bylaw.pid, stopped by `down` like the other components
#   restart-bylaw DIR     stop and start it again (cmd_restart_bylaw); earlier logs in DIR/logs/bylaw.<n>.log
#   BYLAW_CLUSTER_BYLAW_ARGS
#                         extra `bylaw serve` arguments after deploy/'s (split on blanks), for a test of
#                         a flag deploy/ does not set (e.g. --enable-policy-exception); unset: none
#   BYLAW_CLUSTER_NODE_ARGS
#                         Node.js flags for Bylaw's process (split on blanks), e.g. to profile a bench:
#                         "--cpu-prof --cpu-prof-dir=/tmp/prof" (written when Bylaw stops); unset: none

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
  # What deploy/ ships for the admission controller, from the base's render: the CRDs, its namespace,
  # ServiceAccount, RBAC and certificate Secret, and the (empty) webhook configurations it fills in;
  # the cleanup and reports controllers' RBAC (they run in the same process; their ClusterRoles
  # aggregate into the admission controller's), and the background controller's ServiceAccount and
  # RBAC (serve's generate controller acts as it); nothing else (no Deployment: it runs here).
  $k apply --server-side --force-conflicts -k "$BYLAW_ROOT/deploy/crds" >/dev/null
  kubectl kustomize "$BYLAW_ROOT/deploy/base" >"$dir/bylaw-base.yaml"
  $k apply --server-side -f "$dir/bylaw-base.yaml" -l 'pod-security.kubernetes.io/enforce' >/dev/null
  $k apply --server-side -f "$dir/bylaw-base.yaml" -l 'app.kubernetes.io/component in (admission-controller, cleanup-controller, reports-controller, background-controller, webhook-configuration)' >/dev/null
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

# Starts `bylaw serve` (the checkout's) on the given ports as the ServiceAccount in DIR/bylaw.kubeconfig,
# with the arguments of deploy/base's Deployment (DIR/bylaw-base.yaml) and what a pod would get.
run_bylaw() { # <dir> <port> <metrics-port>
  local dir="$1" port="$2" metrics_port="$3" node_bin arg next="" args=()
  node_bin="$(readlink -f "$(command -v node)")"
  while IFS= read -r arg; do
    case "$next" in
      port) arg="$port" ;;
      metrics) arg="$metrics_port" ;;
    esac
    next=""
    case "$arg" in
      --port) next=port ;;
      --metrics-port) next=metrics ;;
      '$(POD_NAMESPACE)') arg=bylaw ;; # the kubelet's expansion of the env var
    esac
    args+=("$arg")
  done < <(node "$BYLAW_ROOT/scripts/cluster/deploy-args.mjs" <"$dir/bylaw-base.yaml")
  [[ "${args[0]:-}" == serve ]] || die "deploy/base's Deployment does not run bylaw serve"
  local extra=() node_args=()
  read -r -a extra <<<"${BYLAW_CLUSTER_BYLAW_ARGS:-}"
  read -r -a node_args <<<"${BYLAW_CLUSTER_NODE_ARGS:-}"
  (
    export POD_NAMESPACE=bylaw POD_NAME=bylaw-local
    start "$dir" bylaw "$node_bin" "${node_args[@]}" "$BYLAW_ROOT/bin/bylaw.js" "${args[@]}" \
      --kubeconfig "$dir/bylaw.kubeconfig" --host 127.0.0.1 --server-url "https://127.0.0.1:$port" --dns-name 127.0.0.1 "${extra[@]}"
  )
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
