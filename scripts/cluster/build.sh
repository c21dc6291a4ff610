# Sourced by scripts/cluster.sh: builds the control-plane binaries from their Go modules, once per
# version, into a cache outside the checkout:
#   ${BYLAW_CLUSTER_CACHE:-$HOME/.cache/bylaw-cluster}/<component>-<version>/
# Each component has its own go.mod (and go.sum) under scripts/cluster/<component>/, so the
# versions are pinned and verified; a build goes to a temporary folder that is renamed into place
# only when complete, so an interrupted build is never mistaken for a cached one.

CLUSTER_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLUSTER_CACHE="${BYLAW_CLUSTER_CACHE:-$HOME/.cache/bylaw-cluster}"

# The version a component's go.mod requires of a module.
module_version() { # <component dir> <module path>
  awk -v m="$2" '($1 == m && $2 ~ /^v/) || ($1 == "require" && $2 == m) { print ($1 == "require" ? $3 : $2); exit }' \
    "$CLUSTER_SRC/$1/go.mod"
}

ETCD_VERSION="$(module_version etcd go.etcd.io/etcd/server/v3)"
KUBE_VERSION="$(module_version kube k8s.io/kubernetes)"
KWOK_VERSION="$(module_version kwok sigs.k8s.io/kwok)"
HELM_VERSION="$(module_version helm helm.sh/helm/v4)"

ETCD_DIR="$CLUSTER_CACHE/etcd-$ETCD_VERSION"
KUBE_DIR="$CLUSTER_CACHE/kubernetes-$KUBE_VERSION"
KWOK_DIR="$CLUSTER_CACHE/kwok-$KWOK_VERSION"
HELM_DIR="$CLUSTER_CACHE/helm-$HELM_VERSION"

# Builds run at the lowest CPU and I/O priority: the machines are shared.
low_priority() {
  if command -v ionice >/dev/null 2>&1; then nice -n 19 ionice -c3 "$@"; else nice -n 19 "$@"; fi
}

# Builds one component unless every binary is already cached: each <name>=<package> is built with
# `go build` from the module in scripts/cluster/<component>, one after the other.
build_component() { # <component dir> <cache dir> <ldflags> <name>=<package>...
  local comp="$1" dir="$2" ldflags="$3"
  shift 3
  local missing=0 pair
  for pair in "$@"; do [[ -x "$dir/${pair%%=*}" ]] || missing=1; done
  ((missing)) || return 0
  local tmp="$dir.tmp.$$" started=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp"
  echo "cluster: building $(basename "$dir") ..." >&2
  for pair in "$@"; do
    if ! (cd "$CLUSTER_SRC/$comp" && low_priority go build -mod=readonly -trimpath -buildvcs=false \
      -ldflags "-s -w $ldflags" -o "$tmp/${pair%%=*}" "${pair#*=}"); then
      rm -rf "$tmp"
      echo "cluster: building ${pair%%=*} failed (cd $CLUSTER_SRC/$comp && go build ${pair#*=})" >&2
      return 1
    fi
  done
  if [[ "$comp" == kwok ]]; then kwok_stages >"$tmp/stages.yaml" || { rm -rf "$tmp"; return 1; }; fi
  rm -rf "$dir" && mv "$tmp" "$dir"
  echo "cluster: built $(basename "$dir") in $((SECONDS - started)) s" >&2
}

# kwok has no built-in stages: as kwokctl does, use the ones its module ships (nodes become Ready
# and renew their Lease; pods become Running, complete, and go away when deleted).
kwok_stages() {
  local src
  src="$(cd "$CLUSTER_SRC/kwok" && go list -mod=readonly -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage"
  local f
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    [[ -f "$src/$f" ]] || { echo "cluster: kwok stage $src/$f is missing" >&2; return 1; }
    echo "---"
    cat "$src/$f"
  done
}

build_all() {
  command -v go >/dev/null 2>&1 || { echo "cluster: go is not on PATH (needed to build the control plane)" >&2; return 1; }
  mkdir -p "$CLUSTER_CACHE"
  # One build at a time, also across concurrent `up`s sharing the cache.
  exec {lock_fd}>"$CLUSTER_CACHE/.build.lock"
  flock "$lock_fd"
  local kv="k8s.io/component-base/version" cv="k8s.io/client-go/pkg/version"
  local minor="${KUBE_VERSION#v1.}"
  minor="${minor%%.*}"
  local kube_ld="-X $kv.gitVersion=$KUBE_VERSION -X $kv.gitMajor=1 -X $kv.gitMinor=$minor -X $kv.gitTreeState=clean"
  kube_ld+=" -X $cv.gitVersion=$KUBE_VERSION -X $cv.gitMajor=1 -X $cv.gitMinor=$minor -X $cv.gitTreeState=clean"
  local k=k8s.io/kubernetes/cmd
  build_component etcd "$ETCD_DIR" "" etcd=go.etcd.io/etcd/server/v3 &&
    build_component kube "$KUBE_DIR" "$kube_ld" kube-apiserver=$k/kube-apiserver \
      kube-controller-manager=$k/kube-controller-manager kube-scheduler=$k/kube-scheduler &&
    build_component kwok "$KWOK_DIR" "" kwok=sigs.k8s.io/kwok/cmd/kwok &&
    build_component helm "$HELM_DIR" "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" helm=helm.sh/helm/v4/cmd/helm
  local rc=$?
  flock -u "$lock_fd"
  exec {lock_fd}>&-
  return $rc
}
