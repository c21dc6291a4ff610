/** deploy/overlays/example: the base with every optional component (monitoring included), as `kubectl kustomize` renders it. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createEngine, type JsonObject } from "../../src/engine/index.js";
import { fakePorts } from "../support/fake-ports.js";
import { checkCommon, containerPort, podOf, RBAC_KINDS } from "./manifest-checks.js";
import { at, byKind, kubectlMissing, list, one, render, repoRoot, selects, type Manifest } from "./render.js";

const SKIP = kubectlMissing();
const root = repoRoot();

describe("deploy/overlays/example", { skip: SKIP ?? false }, () => {
  const manifests = SKIP === undefined ? render(join(root, "deploy", "overlays", "example")) : [];

  test("keeps the base's namespace rules and its RBAC, adding only the servicemonitor component's for --metrics-auth token", () => {
    checkCommon(manifests);
    const base = render(join(root, "deploy", "base"));
    const metricsAuth = ["bylaw:admission-controller:metrics-auth", "bylaw:metrics-reader"];
    const own = (m: Manifest): boolean => metricsAuth.includes(String(at(m, "metadata", "name")));
    for (const kind of RBAC_KINDS)
      assert.deepEqual(
        byKind(manifests, kind).filter((m) => !own(m)),
        byKind(base, kind),
        kind,
      );
    assert.deepEqual(
      RBAC_KINDS.flatMap((kind) =>
        byKind(manifests, kind)
          .filter(own)
          .map((m) => `${kind} ${String(at(m, "metadata", "name"))}`),
      ),
      [
        "ClusterRole bylaw:admission-controller:metrics-auth",
        "ClusterRole bylaw:metrics-reader",
        "ClusterRoleBinding bylaw:metrics-reader",
      ],
    );
    assert.deepEqual(list(at(podOf(manifests).container, "args")).slice(-2), ["--metrics-auth", "token"]);
    assert.equal(at(podOf(manifests).deployment, "spec", "replicas"), 3);
  });

  test("includes the monitoring component: its Deployment on the pinned image, and the Service that selects its pod", () => {
    const deployment = one(manifests, "Deployment", "bylaw-monitoring");
    const container = at(deployment, "spec", "template", "spec", "containers", 0);
    assert.match(String(at(container, "image")), /^ghcr\.io\/bylaw\/bylaw:\d+\.\d+\.\d+$/);
    const args = list(at(container, "args")).map(String);
    assert.equal(args[args.indexOf("--component") + 1], "monitoring");
    assert.equal(at(deployment, "spec", "template", "spec", "serviceAccountName"), "bylaw-monitoring");
    const service = one(manifests, "Service", "bylaw-monitoring");
    assert.ok(selects(at(service, "spec", "selector"), at(deployment, "spec", "template", "metadata", "labels")));
    assert.ok(
      !selects(
        at(one(manifests, "Service", "bylaw"), "spec", "selector"),
        at(deployment, "spec", "template", "metadata", "labels"),
      ),
      "the webhook Service sends no review to the monitoring pod",
    );
  });

  test("pins the image", () => {
    assert.match(String(at(podOf(manifests).container, "image")), /^ghcr\.io\/bylaw\/bylaw:\d+\.\d+\.\d+$/);
  });

  test("the ServiceMonitor scrapes each pod through the webhook Service's metrics port", () => {
    const monitor = one(manifests, "ServiceMonitor", "bylaw");
    const service = one(manifests, "Service", "bylaw");
    assert.ok(selects(at(monitor, "spec", "selector", "matchLabels"), at(service, "metadata", "labels")));
    assert.ok(
      !selects(
        at(monitor, "spec", "selector", "matchLabels"),
        at(one(manifests, "Service", "bylaw-metrics"), "metadata", "labels"),
      ),
      "the NodePort Service is not scraped twice",
    );
    assert.deepEqual(at(monitor, "spec", "namespaceSelector", "matchNames"), ["bylaw"]);
    const endpoint = at(monitor, "spec", "endpoints", 0);
    assert.equal(at(endpoint, "path"), "/metrics");
    assert.ok(
      list(at(service, "spec", "ports")).some((p) => at(p, "name") === at(endpoint, "port") && at(p, "port") === 8000),
    );
  });

  test("the NodePort Service exposes each node's own pod's metrics", () => {
    const { container, labels } = podOf(manifests);
    const service = one(manifests, "Service", "bylaw-metrics");
    assert.equal(at(service, "spec", "type"), "NodePort");
    assert.equal(at(service, "spec", "externalTrafficPolicy"), "Local", "a scrape must not land on a random replica");
    assert.ok(selects(at(service, "spec", "selector"), labels));
    const [port] = list(at(service, "spec", "ports"));
    assert.equal(containerPort(container, at(port, "targetPort")), 8000);
    assert.equal(typeof at(port, "nodePort"), "number");
  });

  test("the NetworkPolicy admits the webhook and metrics ports only, and lets out only calls to the API server", () => {
    const { labels } = podOf(manifests);
    const policy = one(manifests, "NetworkPolicy", "bylaw");
    assert.ok(selects(at(policy, "spec", "podSelector", "matchLabels"), labels));
    assert.deepEqual(at(policy, "spec", "policyTypes"), ["Ingress", "Egress"]);
    assert.deepEqual(
      list(at(policy, "spec", "egress")).flatMap((rule) => list(at(rule, "ports")).map((p) => at(p, "port"))),
      [443, 6443],
    );
    const ports = list(at(policy, "spec", "ingress")).flatMap((rule) =>
      list(at(rule, "ports")).map((p) => at(p, "port")),
    );
    assert.deepEqual([...new Set(ports)].sort(), [8000, 9443]);
    const cidrs = list(at(policy, "spec", "ingress")).flatMap((rule) =>
      list(at(rule, "from")).map((f) => at(f, "ipBlock", "cidr")),
    );
    assert.ok(cidrs.includes("192.0.2.10/32"), "the out-of-cluster Prometheus may scrape");
  });

  test("the policies are cluster-scoped ClusterPolicy objects Bylaw compiles: the example's own and the pss-baseline set", () => {
    const engine = createEngine(fakePorts());
    const policies = byKind(manifests, "ClusterPolicy");
    const names = policies.map((p) => String(at(p, "metadata", "name")));
    for (const name of ["disallow-latest-tag", "require-team-label", "pss-baseline", "pss-host-namespaces"])
      assert.ok(names.includes(name), name);
    for (const policy of policies) {
      assert.equal(
        at(policy, "metadata", "namespace"),
        undefined,
        `${String(at(policy, "metadata", "name"))} has no namespace`,
      );
      const compiled = engine.compile(policy as JsonObject);
      assert.ok(
        compiled.ok,
        `${String(at(policy, "metadata", "name"))}: ${compiled.ok ? "" : JSON.stringify(compiled.problems)}`,
      );
    }
    assert.deepEqual(
      byKind(manifests, "ConfigMap"),
      [],
      "no policy or cluster-facts ConfigMap: Bylaw reads the CRDs and the cluster",
    );
  });

  test("no caBundle to fill in: the webhook configurations are shipped empty and Bylaw registers them (--register)", () => {
    const configs = [
      ...byKind(manifests, "MutatingWebhookConfiguration"),
      ...byKind(manifests, "ValidatingWebhookConfiguration"),
    ];
    assert.deepEqual(configs.map((c) => String(at(c, "metadata", "name"))).sort(), [
      "bylaw-policy-validating-webhook-cfg",
      "bylaw-resource-mutating-webhook-cfg",
      "bylaw-resource-validating-webhook-cfg",
    ]);
    for (const c of configs) assert.deepEqual(at(c, "webhooks"), [], String(at(c, "metadata", "name")));
    assert.deepEqual(byKind(manifests, "ConfigMap", "bylaw-ca-bundle"), []);
  });
});
