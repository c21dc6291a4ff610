#!/usr/bin/env bash
# A real Kubernetes control plane as local processes, on loopback, for Bylaw's cluster tests and
# benchmarks (docs/adr/0007-local-control-plane.md): etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, and kwok for a fake Node and Pod status. No container runtime is needed.
#
#   scripts/cluster.sh build      build what is missing into the cache (CI warms it this way)
#   scripts/cluster.sh up DIR     build, start, wait until the API is ready and the Node is Ready,
#                                 write DIR/kubeconfig (cluster-admin); logs in DIR/logs, pids in DIR/pids
#   scripts/cluster.sh up DIR --with-bylaw
#                                 also start Bylaw from the checkout (npm run build first) as the
#                                 ServiceAccount and RBAC deploy/ ships, registered and Ready
#                                 (scripts/cluster/bylaw.sh: DIR/policies, DIR/bylaw.env)
#   scripts/cluster.sh restart-bylaw DIR [--no-wait]
#                                 stop Bylaw and start it again on the same ports, as --with-bylaw did
#                                 (waits until Ready and registered unless --no-wait)
#   scripts/cluster.sh down DIR   stop everything `up DIR` started
#
# Cache: ${BYLAW_CLUSTER_CACHE:-$HOME/.cache/bylaw-cluster}/<component>-<version>/.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/process-state.sh"
source "$(dirname "${BASH_SOURCE[0]}")/cluster/build.sh"
source "$(dirname "${BASH_SOURCE[0]}")/cluster/pki.sh"
source "$(dirname "${BASH_SOURCE[0]}")/cluster/bylaw.sh"

# Stopped in reverse order: Bylaw (started last, with --with-bylaw) first, etcd last.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok bylaw)
WAIT_SECONDS="${BYLAW_CLUSTER_WAIT_SECONDS:-120}"

die() { echo "cluster: $*" >&2; exit 1; }

# Starts a component in the background, its output in DIR/logs, its pid (and binary) in DIR/pids.
start() { # <dir> <component> <binary> <args>...
  local dir="$1" name="$2" bin="$3"
  shift 3
  setsid "$bin" "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  printf '%s\n%s\n' "$!" "$bin" >"$dir/pids/$name.pid"
}

# Free loopback ports, chosen by the kernel (listen on port 0), as many as asked.
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

# Polls <command> every 0.25 s until it succeeds; fails early if a started component has exited.
wait_for() { # <dir> <what> <command>...
  local dir="$1" what="$2" deadline=$((SECONDS + WAIT_SECONDS)) c
  shift 2
  until "$@" >/dev/null 2>&1; do
    for c in "${COMPONENTS[@]}"; do
      if exited "$dir" "$c"; then
        echo "cluster: $c exited while waiting for $what; the end of $dir/logs/$c.log:" >&2
        tail -n 30 "$dir/logs/$c.log" >&2 || true
        return 1
      fi
    done
    ((SECONDS < deadline)) || { echo "cluster: timed out after ${WAIT_SECONDS} s waiting for $what" >&2; return 1; }
    sleep 0.25
  done
}

api_ready() { # <dir> <port>
  [[ "$(curl -sf --max-time 2 --cacert "$1/pki/ca.crt" --cert "$1/pki/admin.crt" --key "$1/pki/admin.key" \
    "https://127.0.0.1:$2/readyz")" == ok ]]
}

node_ready() { # <dir>
  [[ "$(kubectl --kubeconfig "$1/kubeconfig" get node kwok-node-0 \
    -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}

fake_node() {
  cat <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    kubernetes.io/hostname: kwok-node-0
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
status:
  allocatable: { cpu: "64", memory: 256Gi, pods: "1000" }
  capacity: { cpu: "64", memory: 256Gi, pods: "1000" }
EOF
}

cmd_down() { # <dir>
  local dir="$1" c pid i left=() pids=()
  [[ -d "$dir/pids" ]] || return 0
  # Reverse start order: the clients first, etcd last. Only processes that are still the binary
  # recorded at start are signalled (a recycled pid is left alone).
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    c="${COMPONENTS[i]}"
    if pid="$(live_pid "$dir" "$c")"; then kill -TERM "$pid" 2>/dev/null || true; pids+=("$c=$pid"); fi
  done
  for ((i = 0; i < 60; i++)); do
    left=()
    for c in "${pids[@]}"; do gone "${c#*=}" || left+=("$c"); done
    ((${#left[@]} == 0)) && break
    sleep 0.25
  done
  for c in "${left[@]}"; do
    echo "cluster: ${c%%=*} (pid ${c#*=}) has not exited 15 s after SIGTERM; killing it" >&2
    kill -KILL "${c#*=}" 2>/dev/null || true
  done
  for c in "${left[@]}"; do
    for ((i = 0; i < 40; i++)); do gone "${c#*=}" && break; sleep 0.25; done
    gone "${c#*=}" || die "${c%%=*} (pid ${c#*=}) is still running after SIGKILL"
  done
  rm -rf "$dir/pids"
}

cmd_up() { # <dir> [--with-bylaw]
  local with_bylaw="${2:-}"
  mkdir -p "$1"
  local dir
  dir="$(cd "$1" && pwd)"
  local c
  for c in "${COMPONENTS[@]}"; do
    ! live_pid "$dir" "$c" >/dev/null || die "$dir already has a running cluster ($c); run: $0 down $dir"
  done
  command -v kubectl >/dev/null || die "kubectl is not on PATH"
  build_all || die "the build failed"

  local t0=$SECONDS
  trap "up_failed '$dir'" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM HUP
  rm -rf "$dir/pids" "$dir/logs" "$dir/pki" "$dir/etcd" "$dir/kubeconfig" "$dir"/*.kubeconfig "$dir/bylaw.env"
  mkdir -p "$dir/pids" "$dir/logs"
  make_pki "$dir/pki"
  local etcd_port etcd_peer api_port kcm_port sched_port kwok_port
  read -r etcd_port etcd_peer api_port kcm_port sched_port kwok_port <<<"$(free_ports 6)"
  local api="https://127.0.0.1:$api_port" p
  for p in admin controller-manager scheduler kwok; do write_kubeconfig "$dir/$p.kubeconfig" "$dir/pki" "$p" "$api"; done
  mv "$dir/admin.kubeconfig" "$dir/kubeconfig"

  start "$dir" etcd "$ETCD_DIR/etcd" --name=etcd0 --data-dir="$dir/etcd" \
    --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
    --listen-peer-urls="http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer" \
    --initial-cluster="etcd0=http://127.0.0.1:$etcd_peer" --unsafe-no-fsync=true --log-level=warn
  wait_for "$dir" "etcd" curl -sf --max-time 2 "http://127.0.0.1:$etcd_port/health"

  # ValidatingAdmissionPolicy is GA; MutatingAdmissionPolicy is beta in 1.35, off by default: enable
  # its feature gate and the admissionregistration.k8s.io/v1beta1 API. The `kubernetes` Service gets
  # no Endpoints (a loopback address is not a valid endpoint), as nothing runs in pods here.
  # BYLAW_CLUSTER_APISERVER_ARGS adds flags (space-separated), e.g. a test that needs watches served
  # from etcd passes --watch-cache-sizes=configmaps#0.
  local extra_args=()
  read -r -a extra_args <<<"${BYLAW_CLUSTER_APISERVER_ARGS:-}"
  start "$dir" kube-apiserver "$KUBE_DIR/kube-apiserver" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$api_port" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --client-ca-file="$dir/pki/ca.crt" --tls-cert-file="$dir/pki/apiserver.crt" \
    --tls-private-key-file="$dir/pki/apiserver.key" \
    --requestheader-client-ca-file="$dir/pki/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file="$dir/pki/front-proxy-client.crt" \
    --proxy-client-key-file="$dir/pki/front-proxy-client.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC --allow-privileged=true \
    --endpoint-reconciler-type=none --feature-gates=MutatingAdmissionPolicy=true \
    --runtime-config=admissionregistration.k8s.io/v1beta1=true --profiling=false --v=1 "${extra_args[@]}"
  wait_for "$dir" "kube-apiserver /readyz" api_ready "$dir" "$api_port"
  local api_seconds=$((SECONDS - t0))

  start "$dir" kube-controller-manager "$KUBE_DIR/kube-controller-manager" \
    --kubeconfig="$dir/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$dir/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$dir/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$kcm_port" --leader-elect=false \
    --use-service-account-credentials=true --service-account-private-key-file="$dir/pki/sa.key" \
    --root-ca-file="$dir/pki/ca.crt" --cluster-signing-cert-file="$dir/pki/ca.crt" \
    --cluster-signing-key-file="$dir/pki/ca.key" --service-cluster-ip-range=10.0.0.0/24 --profiling=false --v=1
  start "$dir" kube-scheduler "$KUBE_DIR/kube-scheduler" --kubeconfig="$dir/scheduler.kubeconfig" \
    --authentication-kubeconfig="$dir/scheduler.kubeconfig" --authorization-kubeconfig="$dir/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$sched_port" --leader-elect=false --profiling=false --v=1
  start "$dir" kwok "$KWOK_DIR/kwok" --kubeconfig="$dir/kwok.kubeconfig" --config="$KWOK_DIR/stages.yaml" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --server-address="127.0.0.1:$kwok_port" --node-ip=127.0.0.1 --cidr=10.244.0.0/16 --node-lease-duration-seconds=40

  fake_node | kubectl --kubeconfig "$dir/kubeconfig" apply -f - >/dev/null
  wait_for "$dir" "the kwok Node to be Ready" node_ready "$dir"
  # Pods need their namespace's default ServiceAccount, which the controller-manager creates.
  wait_for "$dir" "the default ServiceAccount" kubectl --kubeconfig "$dir/kubeconfig" get serviceaccount default

  local node_seconds=$((SECONDS - t0)) bylaw_note=""
  if [[ "$with_bylaw" == --with-bylaw ]]; then
    start_bylaw "$dir"
    bylaw_note=", Bylaw registered and Ready in $((SECONDS - t0)) s (DIR/bylaw.env)"
  fi

  trap - EXIT INT TERM HUP
  echo "cluster: API ready in ${api_seconds} s, Node Ready in ${node_seconds} s${bylaw_note}; KUBECONFIG=$dir/kubeconfig" >&2
}

up_failed() { # <dir>
  local rc=$?
  echo "cluster: up failed; stopping what it started (logs in $1/logs)" >&2
  cmd_down "$1" || true
  exit $((rc == 0 ? 1 : rc))
}

case "${1:-}" in
  build) build_all ;;
  up)
    [[ $# -eq 2 || ($# -eq 3 && "$3" == --with-bylaw) ]] || die "usage: $0 up DIR [--with-bylaw]"
    cmd_up "$2" "${3:-}"
    ;;
  restart-bylaw)
    [[ $# -eq 2 || ($# -eq 3 && "$3" == --no-wait) ]] || die "usage: $0 restart-bylaw DIR [--no-wait]"
    cmd_restart_bylaw "$(cd "$2" && pwd)" "${3:-}"
    ;;
  down) [[ $# -eq 2 ]] || die "usage: $0 down DIR"; [[ -d "$2" ]] || exit 0; cmd_down "$(cd "$2" && pwd)" ;;
  *) die "usage: $0 build | up DIR [--with-bylaw] | restart-bylaw DIR [--no-wait] | down DIR" ;;
esac
