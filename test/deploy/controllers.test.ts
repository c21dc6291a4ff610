/**
 * The controllers' Deployments (issue 35 §7): deploy/base runs the background, reports and cleanup
 * controllers as Deployments of their own (2 replicas, leader-elected, each as its own
 * ServiceAccount), deploy/components/monitoring the monitoring component, and the chart renders the
 * same with values to turn each on or off, the `view` binding (rbac.createViewRoleBinding), the
 * PrometheusRule and the dashboards.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { byIdentity, helmMissing, helmTemplate } from "./helm.js";
import { podOf } from "./manifest-checks.js";
import { at, byKind, kubectlMissing, list, one, render, repoRoot, selects, type Manifest } from "./render.js";

const SKIP = kubectlMissing();
const HELM_SKIP = helmMissing() ?? SKIP;
const root = repoRoot();
const CONTROLLERS = ["background", "reports", "cleanup"] as const;

/** deploy/base with deploy/components/<component>. */
function withComponent(component: string): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-controllers-"));
  try {
    const base = relative(dir, join(root, "deploy", "base"));
    const comp = relative(dir, join(root, "deploy", "components", component));
    writeFileSync(join(dir, "kustomization.yaml"), `resources:\n  - ${base}\ncomponents:\n  - ${comp}\n`);
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first container of a Deployment, and its pod spec. */
function podSpec(d: Manifest): { pod: unknown; container: unknown; args: string[] } {
  const pod = at(d, "spec", "template", "spec");
  const container = at(pod, "containers", 0);
  return { pod, container, args: list(at(container, "args")).map(String) };
}

describe("deploy/base: the controllers' Deployments", { skip: SKIP ?? false }, () => {
  const manifests = SKIP === undefined ? render(join(root, "deploy", "base")) : [];

  for (const c of CONTROLLERS) {
    test(`${c}: 2 replicas of \`bylaw serve --cluster --component ${c} --leader-elect\` as bylaw-${c}-controller, with a PodDisruptionBudget`, () => {
      const d = one(manifests, "Deployment", `bylaw-${c}-controller`);
      assert.equal(at(d, "spec", "replicas"), 2);
      const { pod, container, args } = podSpec(d);
      assert.equal(at(pod, "serviceAccountName"), `bylaw-${c}-controller`);
      assert.equal(at(pod, "automountServiceAccountToken"), true);
      assert.deepEqual(args.slice(0, 5), ["serve", "--cluster", "--component", c, "--leader-elect"]);
      assert.ok(!args.includes("--register") && !args.includes("--tls-secret"), "no admission-only flag");
      const labels = at(d, "spec", "template", "metadata", "labels");
      assert.ok(selects(at(d, "spec", "selector", "matchLabels"), labels));
      const admission = podOf(manifests);
      assert.ok(
        !selects(at(admission.deployment, "spec", "selector", "matchLabels"), labels),
        "the admission Deployment (and its Service) does not select the controller's pods",
      );
      // Probes, securityContext and resources as the admission controller's.
      for (const field of ["readinessProbe", "livenessProbe", "securityContext"])
        assert.deepEqual(at(container, field), at(admission.container, field), field);
      assert.deepEqual(at(pod, "securityContext"), at(admission.pod, "securityContext"));
      assert.ok(at(container, "resources", "limits", "memory") !== undefined, "a memory limit");
      const pdb = one(manifests, "PodDisruptionBudget", `bylaw-${c}-controller`);
      assert.equal(at(pdb, "spec", "maxUnavailable"), 1);
      assert.ok(selects(at(pdb, "spec", "selector", "matchLabels"), labels));
    });
  }

  test("the monitoring component (deploy/components/monitoring): one replica, no Lease, a Service for /metrics", () => {
    assert.deepEqual(byKind(manifests, "Deployment", "bylaw-monitoring"), [], "not in the base");
    const rendered = withComponent("monitoring");
    const d = one(rendered, "Deployment", "bylaw-monitoring");
    assert.equal(at(d, "metadata", "namespace"), "bylaw");
    assert.equal(at(d, "spec", "replicas"), 1);
    const { pod, args } = podSpec(d);
    assert.equal(at(pod, "serviceAccountName"), "bylaw-monitoring");
    assert.deepEqual(args.slice(0, 4), ["serve", "--cluster", "--component", "monitoring"]);
    assert.ok(!args.includes("--leader-elect"), "monitoring elects no leader");
    const service = one(rendered, "Service", "bylaw-monitoring");
    assert.ok(selects(at(service, "spec", "selector"), at(d, "spec", "template", "metadata", "labels")));
    assert.equal(at(service, "spec", "ports", 0, "targetPort"), "metrics");
  });
});

describe("charts/bylaw: the controllers", { skip: HELM_SKIP ?? false }, () => {
  const defaults = HELM_SKIP === undefined ? helmTemplate() : [];

  test("replicas, resources, tolerations and extra arguments of each controller reach its Deployment", () => {
    const resources = { requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "500m", memory: "192Mi" } };
    const tolerations = [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }];
    for (const c of CONTROLLERS) {
      const values = { enabled: true, replicas: 3, resources, tolerations, extraArgs: ["--log-level", "debug"] };
      const d = one(helmTemplate({ [`${c}Controller`]: values }), "Deployment", `bylaw-${c}-controller`);
      assert.equal(at(d, "spec", "replicas"), 3);
      const { pod, container, args } = podSpec(d);
      assert.deepEqual(at(pod, "tolerations"), tolerations);
      assert.deepEqual(at(container, "resources"), resources);
      assert.deepEqual(args.slice(-2), ["--log-level", "debug"]);
    }
  });

  test("enabled: false leaves a controller's Deployment and PodDisruptionBudget out (its ServiceAccount and RBAC stay)", () => {
    const out = helmTemplate({ "cleanupController.enabled": false });
    assert.deepEqual(byKind(out, "Deployment", "bylaw-cleanup-controller"), []);
    assert.deepEqual(byKind(out, "PodDisruptionBudget", "bylaw-cleanup-controller"), []);
    one(out, "ServiceAccount", "bylaw-cleanup-controller");
    one(out, "Deployment", "bylaw-background-controller");
  });

  test("monitoringController.enabled renders deploy/components/monitoring's objects; off by default", () => {
    assert.deepEqual(byKind(defaults, "Deployment", "bylaw-monitoring"), []);
    const got = byIdentity(helmTemplate({ "monitoringController.enabled": true }));
    const want = byIdentity(withComponent("monitoring"));
    for (const id of ["Deployment/bylaw/bylaw-monitoring", "PodDisruptionBudget/bylaw/bylaw-monitoring"])
      assert.deepEqual(got.get(id), want.get(id), id);
    assert.deepEqual(got.get("Service/bylaw/bylaw-monitoring"), want.get("Service/bylaw/bylaw-monitoring"));
  });

  test("rbac.createViewRoleBinding (default true) binds rbac.viewRoleName to the controllers; false binds nothing", () => {
    const viewBindings = (ms: readonly Manifest[], role = "view"): Manifest[] =>
      byKind(ms, "ClusterRoleBinding").filter((b) => at(b, "roleRef", "name") === role);
    assert.deepEqual(
      viewBindings(defaults)
        .map((b) => String(at(b, "subjects", 0, "name")))
        .sort(),
      ["bylaw-background-controller", "bylaw-cleanup-controller", "bylaw-reports-controller"],
    );
    assert.deepEqual(viewBindings(helmTemplate({ "rbac.createViewRoleBinding": false })), []);
    assert.equal(viewBindings(helmTemplate({ "rbac.viewRoleName": "my-view" }), "my-view").length, 3);
  });

  test("metrics.prometheusRule renders deploy/components/prometheusrule's PrometheusRule; off by default", () => {
    assert.deepEqual(byKind(defaults, "PrometheusRule"), []);
    const got = byIdentity(helmTemplate({ "metrics.prometheusRule.enabled": true })).get("PrometheusRule/bylaw/bylaw");
    const want = byIdentity(withComponent("prometheusrule")).get("PrometheusRule/bylaw/bylaw");
    assert.ok(want !== undefined);
    assert.deepEqual(got, want);
  });

  test("metrics.dashboards: one ConfigMap per dashboard of deploy/monitoring/dashboards, labelled for Grafana; off by default", () => {
    assert.deepEqual(byKind(defaults, "ConfigMap"), []);
    const out = helmTemplate({ "metrics.dashboards.enabled": true });
    const dir = join(root, "deploy", "monitoring", "dashboards");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    assert.equal(byKind(out, "ConfigMap").length, files.length);
    for (const f of files) {
      const cm = one(out, "ConfigMap", `bylaw-dashboard-${f.replace(/\.json$/, "")}`);
      assert.equal(at(cm, "metadata", "labels", "grafana_dashboard"), "1");
      assert.deepEqual(JSON.parse(String(at(cm, "data", f))), JSON.parse(readFileSync(join(dir, f), "utf8")), f);
    }
  });
});
