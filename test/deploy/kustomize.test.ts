/** The deployment manifests, as `kubectl kustomize` renders them, keep the promises of deploy/README.md. */
import assert from "node:assert/strict";
import { join, posix } from "node:path";
import { describe, test } from "node:test";
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
    assert.ok(selects(at(term, "podAffinityTerm", "labelSelector", "matchLabels"), labels), "anti-affinity selects Bylaw's own pods");
    const pdb = one(manifests, "PodDisruptionBudget");
    assert.ok(selects(at(pdb, "spec", "selector", "matchLabels"), labels));
    const minAvailable = at(pdb, "spec", "minAvailable");
    const maxUnavailable = at(pdb, "spec", "maxUnavailable");
    assert.ok(maxUnavailable === 1 || (typeof minAvailable === "number" && minAvailable >= 2), "at most one replica may be evicted at a time");
  });

  test("the container runs `bylaw serve` with the mounted policies, cluster facts and TLS files", () => {
    const { pod, container } = podOf(manifests);
    assert.match(String(at(container, "image")), /^ghcr\.io\/bylaw\/bylaw:/);
    const args = list(at(container, "args"));
    assert.equal(args[0], "serve");
    assert.equal(flag(args, "--port"), "9443");
    assert.equal(flag(args, "--metrics-port"), "8000");
    const mounts = list(at(container, "volumeMounts"));
    const volumeAt = (file: unknown): unknown => {
      const mount = mounts.find((m) => String(file) === at(m, "mountPath") || String(file).startsWith(`${String(at(m, "mountPath"))}/`));
      assert.ok(mount !== undefined, `${String(file)} is on a mounted volume`);
      assert.equal(at(mount, "subPath"), undefined, "no subPath: updates must reach the pod");
      return list(at(pod, "volumes")).find((v) => at(v, "name") === at(mount, "name"));
    };
    assert.equal(at(volumeAt(flag(args, "--policies")), "configMap", "name"), "bylaw-policies");
    const factsFile = String(flag(args, "--cluster-facts"));
    assert.equal(at(volumeAt(factsFile), "configMap", "name"), "bylaw-cluster-facts");
    const factsMap = one(manifests, "ConfigMap", "bylaw-cluster-facts");
    assert.match(String(at(factsMap, "data", posix.basename(factsFile))), /kind: ClusterFacts/);
    assert.equal(flag(args, "--tls-cert-file"), "/tls/tls.crt");
    assert.equal(flag(args, "--tls-key-file"), "/tls/tls.key");
    assert.equal(at(volumeAt("/tls/tls.crt"), "secret", "secretName"), "bylaw-tls");
    one(manifests, "ConfigMap", "bylaw-policies");
  });

  test("probes reach the health endpoints over HTTPS on the webhook port", () => {
    const { container } = podOf(manifests);
    for (const [probe, path] of [["readinessProbe", "/health/readiness"], ["livenessProbe", "/health/liveness"]] as const) {
      const get = at(container, probe, "httpGet");
      assert.equal(at(get, "path"), path);
      assert.equal(at(get, "scheme"), "HTTPS");
      assert.equal(containerPort(container, at(get, "port")), 9443);
    }
  });

  test("requests, limits and a restricted security context", () => {
    const { pod, container } = podOf(manifests);
    for (const kind of ["requests", "limits"]) {
      for (const resource of ["cpu", "memory"]) assert.ok(at(container, "resources", kind, resource) !== undefined, `${kind}.${resource}`);
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

  test("the webhook configurations are shipped empty, for Bylaw to register (--register, the Secret's ca.crt, its own namespace)", () => {
    const configs = [one(manifests, "MutatingWebhookConfiguration"), ...byKind(manifests, "ValidatingWebhookConfiguration")];
    assert.deepEqual(configs.map((c) => String(at(c, "metadata", "name"))).sort(), ["bylaw-policy-validating-webhook-cfg", "bylaw-resource-mutating-webhook-cfg", "bylaw-resource-validating-webhook-cfg"]);
    for (const c of configs) {
      assert.equal(at(c, "metadata", "labels", "app.kubernetes.io/component"), "webhook-configuration", "selectable with -l (README)");
      assert.deepEqual(at(c, "webhooks"), [], "no static webhook: Bylaw writes them, narrowed to its policies");
    }
    const { container } = podOf(manifests);
    const args = list(at(container, "args")).map(String);
    assert.ok(args.includes("--register"));
    assert.equal(flag(args, "--tls-ca-file"), "/tls/ca.crt");
    const env = list(at(container, "env"));
    assert.deepEqual(env.find((e) => at(e, "name") === "POD_NAMESPACE"), { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }, "its own namespace is excluded from the webhooks");
  });

  test("the admission pods run as the bylaw ServiceAccount with its token; the certificate Secret is shipped empty", () => {
    const { pod } = podOf(manifests);
    assert.equal(at(pod, "serviceAccountName"), "bylaw");
    assert.equal(at(pod, "automountServiceAccountToken"), true, "the pods call the API with their own token");
    for (const sa of byKind(manifests, "ServiceAccount")) assert.equal(at(sa, "automountServiceAccountToken"), false, "no other pod in the namespace gets a token by default");
    const secret = one(manifests, "Secret", "bylaw-tls");
    assert.equal(at(secret, "data"), undefined, "applying again never overwrites the certificate");
    assert.equal(at(secret, "stringData"), undefined);
    assert.equal(at(secret, "type"), undefined, "an existing kubernetes.io/tls Secret keeps its type");
  });
});
