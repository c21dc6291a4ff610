/**
 * charts/bylaw: `helm lint` passes; its defaults render the same objects as the kustomize base and
 * deploy/crds (Helm's own labels aside; the release namespace is not created by the chart); each
 * value renders what the matching kustomize component does; and a setting the chart cannot honour
 * fails the render with a message instead of being ignored.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { byIdentity, helm, helmMissing, helmTemplate, helmTemplateError, identity } from "./helm.js";
import { at, byKind, kubectlMissing, list, one, render, repoRoot, type Manifest } from "./render.js";

const SKIP = helmMissing() ?? kubectlMissing();
const root = repoRoot();
const chart = join(root, "charts", "bylaw");

/** Renders deploy/base with the given components (paths under deploy/components) and patches. */
function kustomize(components: readonly string[], extra = ""): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-helm-"));
  try {
    const lines = ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", "resources:", `  - ${relative(dir, join(root, "deploy", "base"))}`];
    if (components.length > 0) lines.push("components:", ...components.map((c) => `  - ${relative(dir, join(root, "deploy", "components", c))}`));
    writeFileSync(join(dir, "kustomization.yaml"), `${lines.join("\n")}\n${extra}`);
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sameObject(helmRender: readonly Manifest[], kustomizeRender: readonly Manifest[], kind: string, name: string): void {
  const want = byIdentity(byKind(kustomizeRender, kind, name));
  const got = byIdentity(byKind(helmRender, kind, name));
  assert.equal(want.size, 1, `kustomize renders ${kind} ${name}`);
  assert.deepEqual(got, want, `${kind} ${name}`);
}

describe("charts/bylaw", { skip: SKIP ?? false }, () => {
  const base = SKIP === undefined ? render(join(root, "deploy", "base")) : [];
  const defaults = SKIP === undefined ? helmTemplate() : [];

  test("helm lint --strict passes", () => {
    const out = helm(["lint", "--strict", chart]);
    assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test("the defaults render the kustomize base's objects, field for field (Helm's labels aside); the namespace is the release's", () => {
    const want = byIdentity(base.filter((m) => m["kind"] !== "Namespace"));
    const got = byIdentity(defaults);
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), "the same objects");
    for (const [id, object] of want) assert.deepEqual(got.get(id), object, id);
    for (const m of defaults) assert.equal(at(m, "metadata", "labels", "app.kubernetes.io/managed-by"), "Helm", identity(m));
  });

  test("the CRDs are deploy/crds, file for file, and installed before the rest (crds/)", () => {
    const crdFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
    assert.deepEqual(crdFiles(join(chart, "crds")), crdFiles(join(root, "deploy", "crds")));
    for (const f of crdFiles(join(root, "deploy", "crds"))) assert.equal(readFileSync(join(chart, "crds", f), "utf8"), readFileSync(join(root, "deploy", "crds", f), "utf8"), f);
    const rendered = helm(["template", "bylaw", chart, "-n", "bylaw", "--include-crds"]);
    const names = [...rendered.matchAll(/^kind: CustomResourceDefinition\n(?:.*\n)*?\s{2}name: (\S+)$/gm)].map((m) => m[1]);
    assert.equal(names.length, crdFiles(join(root, "deploy", "crds")).length);
    for (const name of ["clusterpolicies.kyverno.io", "policies.kyverno.io", "policyexceptions.kyverno.io", "policyreports.wgpolicyk8s.io", "clusterpolicyreports.wgpolicyk8s.io"]) assert.ok(names.includes(name), name);
  });

  test("tools/sync-chart.mjs --check finds the chart's copies up to date", () => {
    try {
      execFileSync(process.execPath, [join(root, "tools", "sync-chart.mjs"), "--check"], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    } catch (e) {
      assert.fail(`the chart's copies drifted (run node tools/sync-chart.mjs):\n${String((e as { stderr?: unknown }).stderr ?? e)}`);
    }
  });

  test("admissionController: replicas, resources, tolerations and extra arguments reach the Deployment", () => {
    const resources = { requests: { cpu: "200m", memory: "256Mi" }, limits: { cpu: "2", memory: "512Mi" } };
    const tolerations = [{ key: "dedicated", operator: "Equal", value: "policy", effect: "NoSchedule" }];
    const d = one(helmTemplate({ admissionController: { replicas: 5, resources, tolerations, extraArgs: ["--timeout-group", "20"] } }), "Deployment", "bylaw");
    assert.equal(at(d, "spec", "replicas"), 5);
    assert.deepEqual(at(d, "spec", "template", "spec", "tolerations"), tolerations);
    const container = at(d, "spec", "template", "spec", "containers", 0);
    assert.deepEqual(at(container, "resources"), resources);
    assert.deepEqual(list(at(container, "args")).slice(-2), ["--timeout-group", "20"]);
    assert.equal(at(one(defaults, "Deployment", "bylaw"), "spec", "template", "spec", "tolerations"), undefined, "no tolerations by default");
  });

  test("image; the webhook configurations are shipped empty for Bylaw to register", () => {
    const out = helmTemplate({ image: { repository: "registry.example/bylaw", tag: "0.1.0", pullPolicy: "Always" } });
    const container = at(one(out, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0);
    assert.equal(at(container, "image"), "registry.example/bylaw:0.1.0");
    assert.equal(at(container, "imagePullPolicy"), "Always");
    const hooks = [...byKind(out, "MutatingWebhookConfiguration"), ...byKind(out, "ValidatingWebhookConfiguration")].flatMap((c) => list(at(c, "webhooks")));
    assert.equal(hooks.length, 0);
    assert.ok(list(at(container, "args")).includes("--register"));
  });

  test("metrics: the ServiceMonitor and the NodePort Service are the kustomize components'", () => {
    const out = helmTemplate({ metrics: { serviceMonitor: { enabled: true, interval: "30s", scrapeTimeout: "10s" }, nodePort: { enabled: true, port: 30800 } } });
    const want = kustomize(["servicemonitor", "metrics-nodeport"]);
    sameObject(out, want, "ServiceMonitor", "bylaw");
    sameObject(out, want, "Service", "bylaw-metrics");
    assert.deepEqual(byKind(defaults, "ServiceMonitor"), [], "off by default");
    assert.deepEqual(byKind(defaults, "Service", "bylaw-metrics"), [], "off by default");
  });

  test("networkPolicy: the kustomize component with the overlay's addresses", () => {
    const out = helmTemplate({ networkPolicy: { enabled: true, apiServerCIDRs: ["192.0.2.0/28"], prometheus: { namespace: "monitoring", podLabels: { "app.kubernetes.io/name": "prometheus" } }, extraMetricsFrom: [{ ipBlock: { cidr: "192.0.2.10/32" } }] } });
    sameObject(out, render(join(root, "deploy", "overlays", "example")), "NetworkPolicy", "bylaw");
    assert.deepEqual(byKind(defaults, "NetworkPolicy"), [], "off by default");
    assert.match(helmTemplateError({ "networkPolicy.enabled": true }) ?? "", /networkPolicy\.apiServerCIDRs/);
  });

  test("policySets: each set in Audit and Enforce mode fills bylaw-policies as its kustomize component does", () => {
    for (const set of ["pss-baseline", "pss-restricted", "best-practices"]) {
      sameObject(helmTemplate({ policySets: [{ name: set }] }), kustomize([`policy-set-${set}`]), "ConfigMap", "bylaw-policies");
      sameObject(helmTemplate({ policySets: [{ name: set, mode: "Enforce" }] }), kustomize([`policy-set-${set}/enforce`]), "ConfigMap", "bylaw-policies");
    }
    const one_ = helmTemplate({ policySets: [{ name: "best-practices", enforce: ["bp-disallow-latest-tag"] }] });
    sameObject(one_, kustomize(["policy-set-best-practices", "policy-set-best-practices/enforce/bp-disallow-latest-tag"]), "ConfigMap", "bylaw-policies");
  });

  test("policies and clusterFacts fill the ConfigMaps", () => {
    const policy = "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: mine\n";
    const facts = "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespaces:\n  team-a:\n    labels: { team: a }\n";
    const out = helmTemplate({ policies: { "mine.yaml": policy }, clusterFacts: facts });
    assert.deepEqual(at(one(out, "ConfigMap", "bylaw-policies"), "data"), { "mine.yaml": policy });
    assert.equal(at(one(out, "ConfigMap", "bylaw-cluster-facts"), "data", "cluster-facts.yaml"), facts);
  });

  test("a setting the chart cannot honour fails the render, naming it", () => {
    assert.match(helmTemplateError({ "backgroundController.replicas": 2 }) ?? "", /backgroundController/, "controllers have no Deployment yet: their values are refused, not ignored");
    assert.match(helmTemplateError({ "admissionController.replica": 2 }) ?? "", /replica/);
    assert.match(helmTemplateError({ policySets: [{ name: "pss-strict" }] }) ?? "", /pss-strict|name/);
    assert.match(helmTemplateError({ policySets: [{ name: "best-practices", enforce: ["bp-nope"] }] }) ?? "", /best-practices has no policy bp-nope/);
    assert.match(helmTemplateError({ policySets: [{ name: "best-practices" }], policies: { "bp-require-probes.yaml": "x" } }) ?? "", /bp-require-probes\.yaml is also a file of a policy set/);
  });
});

describe("charts/bylaw packaging", { skip: SKIP ?? false }, () => {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-helm-package-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("helm package includes the CRDs, RBAC files and policy sets, and the package renders like the folder", () => {
    mkdirSync(dir, { recursive: true });
    const out = helm(["package", chart, "--destination", dir]);
    const archive = /saved it to: (\S+)/.exec(out)?.[1];
    assert.ok(archive !== undefined, out);
    const fromPackage = helm(["template", "bylaw", archive, "-n", "bylaw", "--set-json", 'policySets=[{"name":"pss-restricted"}]']);
    const fromFolder = helm(["template", "bylaw", chart, "-n", "bylaw", "--set-json", 'policySets=[{"name":"pss-restricted"}]']);
    assert.equal(fromPackage, fromFolder);
  });
});
