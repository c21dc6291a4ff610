/** The deployment manifests, as `kubectl kustomize` renders them, keep the promises of deploy/README.md. */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { checkCommon, containerPort, podOf } from "./manifest-checks.js";
import { at, byKind, flag, kubectlMissing, list, one, render, repoRoot, selects } from "./render.js";

const SKIP = kubectlMissing();
const root = repoRoot();

describe("deploy/base", { skip: SKIP ?? false }, () => {
  const manifests = SKIP === undefined ? render(join(root, "deploy", "base")) : [];

  test("the namespace, and every namespaced object in it", () => {
    one(manifests, "Namespace", "bylaw");
    checkCommon(manifests);
  });

  test("the Deployment: 3 replicas spread across nodes, covered by a PodDisruptionBudget", () => {
    const { deployment, pod, labels } = podOf(manifests);
    assert.equal(at(deployment, "spec", "replicas"), 3);
    assert.ok(selects(at(deployment, "spec", "selector", "matchLabels"), labels));
    const [term] = list(at(pod, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution"));
    assert.equal(at(term, "podAffinityTerm", "topologyKey"), "kubernetes.io/hostname");
    assert.ok(
      selects(at(term, "podAffinityTerm", "labelSelector", "matchLabels"), labels),
      "anti-affinity selects Bylaw's own pods",
    );
    const pdb = one(manifests, "PodDisruptionBudget", "bylaw");
    assert.ok(selects(at(pdb, "spec", "selector", "matchLabels"), labels));
    const minAvailable = at(pdb, "spec", "minAvailable");
    const maxUnavailable = at(pdb, "spec", "maxUnavailable");
    assert.ok(
      maxUnavailable === 1 || (typeof minAvailable === "number" && minAvailable >= 2),
      "at most one replica may be evicted at a time",
    );
  });

  test("the container runs the cluster engine: `bylaw serve --cluster --register --leader-elect --tls-secret`, for its own Service", () => {
    const { pod, container } = podOf(manifests);
    assert.match(String(at(container, "image")), /^ghcr\.io\/bylaw\/bylaw:/);
    const args = list(at(container, "args")).map(String);
    assert.equal(args[0], "serve");
    for (const f of ["--cluster", "--register", "--leader-elect"]) assert.ok(args.includes(f), f);
    for (const f of [
      "--policies",
      "--cluster-facts",
      "--tls-cert-file",
      "--tls-key-file",
      "--self-signed",
      "--server-url",
    ])
      assert.ok(!args.includes(f), `no ${f}: policies from the CRDs, the certificate from the Secret the leader keeps`);
    assert.equal(flag(args, "--tls-secret"), "bylaw-tls");
    one(manifests, "Secret", "bylaw-tls");
    const service = one(manifests, "Service", String(flag(args, "--service-name")));
    assert.equal(
      flag(args, "--service-namespace"),
      "$(POD_NAMESPACE)",
      "the Service's namespace, expanded by the kubelet from the env",
    );
    assert.equal(at(service, "metadata", "namespace"), "bylaw");
    assert.equal(flag(args, "--port"), "9443");
    assert.equal(flag(args, "--metrics-port"), "8000");
    const env = list(at(container, "env"));
    for (const [name, field] of [
      ["POD_NAMESPACE", "metadata.namespace"],
      ["POD_NAME", "metadata.name"],
    ]) {
      assert.deepEqual(
        env.find((e) => at(e, "name") === name),
        { name, valueFrom: { fieldRef: { fieldPath: field } } },
        `${name} (the Lease, the Secret and the namespace the webhooks skip; the Lease holder)`,
      );
    }
    assert.deepEqual(
      list(at(container, "volumeMounts")).map((m) => at(m, "mountPath")),
      ["/tmp"],
      "nothing mounted but /tmp: no hand-made TLS Secret, no policy or cluster-facts ConfigMap",
    );
    assert.deepEqual(
      byKind(manifests, "ConfigMap"),
      [],
      "no ConfigMap: folder mode is a component (deploy/components/folder-mode)",
    );
    assert.equal(list(at(pod, "volumes")).length, 1);
  });

  test("probes reach the health endpoints over HTTPS on the webhook port", () => {
    const { container } = podOf(manifests);
    for (const [probe, path] of [
      ["readinessProbe", "/health/readiness"],
      ["livenessProbe", "/health/liveness"],
    ] as const) {
      const get = at(container, probe, "httpGet");
      assert.equal(at(get, "path"), path);
      assert.equal(at(get, "scheme"), "HTTPS");
      assert.equal(containerPort(container, at(get, "port")), 9443);
    }
  });

  test("requests, limits and a restricted security context", () => {
    const { pod, container } = podOf(manifests);
    for (const kind of ["requests", "limits"]) {
      for (const resource of ["cpu", "memory"])
        assert.ok(at(container, "resources", kind, resource) !== undefined, `${kind}.${resource}`);
    }
    assert.equal(at(pod, "securityContext", "runAsNonRoot"), true);
    assert.equal(at(pod, "securityContext", "seccompProfile", "type"), "RuntimeDefault");
    const sc = at(container, "securityContext");
    assert.equal(at(sc, "runAsNonRoot"), true);
    assert.equal(at(sc, "allowPrivilegeEscalation"), false);
    assert.equal(at(sc, "readOnlyRootFilesystem"), true);
    assert.deepEqual(at(sc, "capabilities", "drop"), ["ALL"]);
    assert.equal(at(sc, "capabilities", "add"), undefined);
    assert.equal(at(sc, "seccompProfile", "type"), "RuntimeDefault");
    assert.equal(at(pod, "hostNetwork"), undefined);
  });

  test("the Service maps 443 to the webhook port and 8000 to metrics", () => {
    const { container, labels } = podOf(manifests);
    const service = one(manifests, "Service", "bylaw");
    assert.ok(selects(at(service, "spec", "selector"), labels));
    const ports = list(at(service, "spec", "ports"));
    const port = (name: string): unknown => ports.find((p) => at(p, "name") === name);
    assert.equal(at(port("https"), "port"), 443);
    assert.equal(containerPort(container, at(port("https"), "targetPort")), 9443);
    assert.equal(at(port("metrics"), "port"), 8000);
    assert.equal(containerPort(container, at(port("metrics"), "targetPort")), 8000);
  });

  test("the webhook configurations are shipped empty, for Bylaw to register (--register, the Secret's ca.crt)", () => {
    const configs = [
      one(manifests, "MutatingWebhookConfiguration"),
      ...byKind(manifests, "ValidatingWebhookConfiguration"),
    ];
    assert.deepEqual(configs.map((c) => String(at(c, "metadata", "name"))).sort(), [
      "bylaw-policy-validating-webhook-cfg",
      "bylaw-resource-mutating-webhook-cfg",
      "bylaw-resource-validating-webhook-cfg",
    ]);
    for (const c of configs) {
      assert.equal(
        at(c, "metadata", "labels", "app.kubernetes.io/component"),
        "webhook-configuration",
        "selectable with -l (README)",
      );
      assert.deepEqual(at(c, "webhooks"), [], "no static webhook: Bylaw writes them, narrowed to its policies");
    }
    const { container } = podOf(manifests);
    const args = list(at(container, "args")).map(String);
    assert.ok(args.includes("--register"));
    assert.equal(flag(args, "--tls-ca-file"), undefined, "the caBundle is the Secret's ca.crt, which the leader keeps");
  });

  test("the admission pods run as the bylaw ServiceAccount with its token; the certificate Secret is shipped empty", () => {
    const { pod } = podOf(manifests);
    assert.equal(at(pod, "serviceAccountName"), "bylaw");
    assert.equal(at(pod, "automountServiceAccountToken"), true, "the pods call the API with their own token");
    for (const sa of byKind(manifests, "ServiceAccount"))
      assert.equal(
        at(sa, "automountServiceAccountToken"),
        false,
        "no other pod in the namespace gets a token by default",
      );
    const secret = one(manifests, "Secret", "bylaw-tls");
    assert.equal(at(secret, "data"), undefined, "applying again never overwrites the certificate");
    assert.equal(at(secret, "stringData"), undefined);
    assert.equal(at(secret, "type"), undefined, "an existing kubernetes.io/tls Secret keeps its type");
  });
});

describe("deploy/components/folder-mode", { skip: SKIP ?? false }, () => {
  const work = mkdtempSync(join(tmpdir(), "bylaw-folder-mode-"));
  after(() => rmSync(work, { recursive: true, force: true }));

  test("serves the bylaw-policies ConfigMap (mounted whole) instead of the CRDs; the rest of the base stays", () => {
    // As deploy/README.md ("Folder mode") shows: the overlay creates the ConfigMap.
    mkdirSync(join(work, "policies"));
    copyFileSync(
      join(root, "deploy", "overlays", "example", "policies", "disallow-latest-tag.yaml"),
      join(work, "policies", "disallow-latest-tag.yaml"),
    );
    const generator = [
      "generatorOptions:",
      "  disableNameSuffixHash: true",
      "configMapGenerator:",
      "  - name: bylaw-policies",
      "    namespace: bylaw",
      "    files:",
      "      - policies/disallow-latest-tag.yaml",
    ];
    writeFileSync(
      join(work, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:",
        `  - ${relative(work, join(root, "deploy", "base"))}`,
        "components:",
        `  - ${relative(work, join(root, "deploy", "components", "folder-mode"))}`,
        ...generator,
        "",
      ].join("\n"),
    );
    const manifests = render(work);
    const base = render(join(root, "deploy", "base"));
    const { pod, container } = podOf(manifests);
    const args = list(at(container, "args")).map(String);
    const baseArgs = list(at(podOf(base).container, "args")).map(String);
    assert.deepEqual(
      args,
      [...baseArgs.slice(0, 2), "--policies", "/policies", ...baseArgs.slice(2)],
      "--policies /policies after --cluster: live context stays, policies come from the folder",
    );
    const mount = list(at(container, "volumeMounts")).find((m) => at(m, "mountPath") === "/policies");
    assert.equal(at(mount, "subPath"), undefined, "no subPath: updates must reach the pod");
    assert.equal(at(mount, "readOnly"), true);
    const volume = list(at(pod, "volumes")).find((v) => at(v, "name") === at(mount, "name"));
    assert.equal(at(volume, "configMap", "name"), "bylaw-policies");
    assert.equal(at(one(manifests, "ConfigMap", "bylaw-policies"), "metadata", "namespace"), "bylaw");
    assert.deepEqual(Object.keys(at(one(manifests, "ConfigMap", "bylaw-policies"), "data") ?? {}), [
      "disallow-latest-tag.yaml",
    ]);
    checkCommon(manifests);
    for (const m of base.filter((b) => b["kind"] !== "Deployment"))
      assert.deepEqual(
        manifests.find((x) => x["kind"] === m["kind"] && at(x, "metadata", "name") === at(m, "metadata", "name")),
        m,
      );
  });
});
