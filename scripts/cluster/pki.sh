# Sourced by scripts/cluster.sh: the certificates, service-account keys and kubeconfigs of a local
# control plane, made with openssl. ECDSA P-256 keys throughout (fast to generate; accepted by the
# API server for serving, client certificates and service-account tokens, ES256).

new_key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1" 2>/dev/null && chmod 600 "$1"; }

# A certificate signed by a CA (ca, or front-proxy-ca). <kind> is "server" or "client".
sign_cert() { # <pki dir> <name> <subject> <kind> [subjectAltName] [CA name]
  local pki="$1" name="$2" subj="$3" kind="$4" san="${5:-}" ca="${6:-ca}"
  new_key "$pki/$name.key"
  openssl req -new -key "$pki/$name.key" -subj "$subj" -out "$pki/$name.csr" 2>/dev/null
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=${kind}Auth"
    if [[ -n "$san" ]]; then echo "subjectAltName=$san"; fi
  } >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}

new_ca() { # <pki dir> <name> <common name>
  new_key "$1/$2.key"
  openssl req -x509 -new -key "$1/$2.key" -subj "/CN=$3" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$1/$2.crt" 2>/dev/null
}

make_pki() { # <pki dir>
  local pki="$1"
  mkdir -p "$pki" && chmod 700 "$pki"
  new_ca "$pki" ca bylaw-local-cluster-ca
  # The front proxy's own CA: the API server presents front-proxy-client to aggregated API servers,
  # and the controller-manager and scheduler read its CA to authenticate delegated requests.
  new_ca "$pki" front-proxy-ca bylaw-local-front-proxy-ca
  sign_cert "$pki" front-proxy-client "/CN=front-proxy-client" client "" front-proxy-ca
  # Serving certificate: loopback, and the names in-cluster clients use for the `kubernetes` Service.
  sign_cert "$pki" apiserver "/CN=kube-apiserver" server \
    "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  # Client identities: the components as kubeadm names them (so the bootstrap RBAC applies to them),
  # and a cluster-admin. kwok acts for the fake kubelets, so it is an admin too.
  sign_cert "$pki" admin "/O=system:masters/CN=kubernetes-admin" client
  sign_cert "$pki" controller-manager "/CN=system:kube-controller-manager" client
  sign_cert "$pki" scheduler "/CN=system:kube-scheduler" client
  sign_cert "$pki" kwok "/O=system:masters/CN=kwok-controller" client
  # Service-account token signing pair.
  new_key "$pki/sa.key"
  openssl ec -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

# A kubeconfig with the CA and a client certificate embedded (so it can be copied elsewhere).
write_kubeconfig() { # <file> <pki dir> <client name> <server url>
  local file="$1" pki="$2" name="$3" server="$4"
  local b64="base64 -w0"
  (
    umask 077
    cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: bylaw-local
  cluster:
    server: $server
    certificate-authority-data: $($b64 <"$pki/ca.crt")
users:
- name: $name
  user:
    client-certificate-data: $($b64 <"$pki/$name.crt")
    client-key-data: $($b64 <"$pki/$name.key")
contexts:
- name: bylaw-local
  context:
    cluster: bylaw-local
    user: $name
current-context: bylaw-local
EOF
  )
}
