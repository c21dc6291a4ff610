/**
 * Issue 22 §7 and the CRD install of §4, against the real API server of `scripts/cluster.sh up`
 * (`npm run test:cluster`): deploy/crds applies (server-side, as deploy/README.md says) and makes
 * `kubectl get cpol,pol,polex` work; the kustomize base and the Helm chart's defaults (and its
 * options) pass `kubectl apply --dry-run=server`, with the webhook configurations empty for Bylaw to
 * register (deploy/README.md, "Self-registration"); the RBAC the base ships grants what it says and aggregates the ClusterRoles
 * users label for Kyverno; and applying the base again keeps a filled certificate Secret.
 * Needs helm (built by `scripts/cluster.sh build`): this test fails, never skips, without it.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { helmBinary } from "../deploy/helm.js";
import { repoRoot } from "../deploy/render.js";
import {
  crdsEstablished,
  eventually,
  processRunning,
  run,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";

const root = repoRoot();
const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let caBundle = "";

const current = (): Cluster => started(cluster);

const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

/** The API server's address here, set as an overlay sets it in the base's NetworkPolicy (deploy/README.md, "NetworkPolicy"). */
const API_SERVER_CIDR = "127.0.0.1/32";

/** `kubectl kustomize DIR`, with the NetworkPolicy's API server addresses set unless `unset`. */
async function kustomize(dir: string, unset = false): Promise<string> {
  const text = await kubectlOk(["kustomize", join(root, dir)]);
  return unset ? text : text.replaceAll("API_SERVER_CIDR_PLACEHOLDER", API_SERVER_CIDR);
}

async function helmTemplate(args: readonly string[]): Promise<string> {
  const bin = helmBinary();
  assert.ok(
    bin !== undefined,
    "helm is needed: run scripts/cluster.sh build (it builds helm into ~/.cache/bylaw-cluster)",
  );
  const r = await run(
    bin,
    ["template", "bylaw", join(root, "charts", "bylaw"), "--namespace", "bylaw", ...args],
    60_000,
  );
  assert.equal(r.code, 0, `helm template failed: ${r.stderr}`);
  return r.stdout;
}

/** Whether the ServiceAccount of a component may do something (kubectl auth can-i --as). */
async function can(account: string, ...args: string[]): Promise<boolean> {
  const r = await current().kubectl(["auth", "can-i", `--as=system:serviceaccount:bylaw:${account}`, ...args]);
  assert.ok(
    r.stdout.trim() === "yes" || r.stdout.trim() === "no",
    `kubectl auth can-i ${args.join(" ")}: ${r.stdout}${r.stderr}`,
  );
  return r.stdout.trim() === "yes";
}

describe("install: deploy/ and charts/bylaw on a real API server", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(
    async () => {
      cluster = await startCluster(buildTimeoutMs);
      caBundle = readFileSync(join(cluster.dir, "pki", "ca.crt")).toString("base64");
      console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
    },
    { timeout: buildTimeoutMs + 60_000 },
  );

  after(async () => {
    if (cluster === undefined) return;
    const down = await stopCluster(cluster.dir);
    assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
    assert.deepEqual(
      [...cluster.pids].filter(([, pid]) => processRunning(pid)),
      [],
      "every component has exited after down",
    );
    rmSync(cluster.dir, { recursive: true, force: true });
  });

  test("deploy/crds applies server-side; every CRD is Established and `kubectl get cpol,pol,polex` works", async () => {
    await kubectlOk(["apply", "--server-side", "--dry-run=server", "-k", join(root, "deploy", "crds")]);
    const applied = await kubectlOk(["apply", "--server-side", "-k", join(root, "deploy", "crds")]);
    assert.equal(applied.trim().split("\n").length, 22, applied);
    await crdsEstablished(current(), ["crd", "--all"]);
    const names = await kubectlOk(["api-resources", "--api-group=kyverno.io", "-o", "name"]);
    for (const r of [
      "clusterpolicies.kyverno.io",
      "policies.kyverno.io",
      "policyexceptions.kyverno.io",
      "globalcontextentries.kyverno.io",
    ])
      assert.ok(names.split("\n").includes(r), r);
    const listed = await current().kubectl(["get", "cpol,pol,polex,polr,cpolr", "-A"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stderr, /No resources found/);
  });

  test("a Kyverno ClusterPolicy from examples/ is accepted by the CRD's schema and listed by `kubectl get cpol`", async () => {
    await kubectlOk(["apply", "-f", join(root, "examples", "policies", "disallow-latest-tag.yaml")]);
    const got = await kubectlOk(["get", "cpol", "-o", "name"]);
    assert.match(got, /clusterpolicy\.kyverno\.io\/disallow-latest-tag/);
  });

  test("the kustomize base passes --dry-run=server, its webhook configurations empty for Bylaw to register", async () => {
    const rendered = await kustomize("deploy/base");
    // The namespace for real (a dry run creates nothing, so the namespaced objects would have none).
    await kubectlOk(
      ["apply", "--server-side", "-f", "-", "-l", "pod-security.kubernetes.io/enforce=restricted"],
      rendered,
    );
    const unset = await current().kubectl(
      ["apply", "--server-side", "--dry-run=server", "-f", "-"],
      await kustomize("deploy/base", true),
    );
    assert.notEqual(unset.code, 0, "the base's NetworkPolicy is refused until the API server's addresses are set");
    assert.match(unset.stderr, /NetworkPolicy[\s\S]*API_SERVER_CIDR_PLACEHOLDER|invalid CIDR/i, unset.stderr);
    const out = await kubectlOk(["apply", "--server-side", "--dry-run=server", "-f", "-"], rendered);
    assert.match(out, /deployment\.apps\/bylaw serverside-applied \(server dry run\)/);
    assert.match(out, /networkpolicy\.networking\.k8s\.io\/bylaw serverside-applied \(server dry run\)/);
    assert.match(
      out,
      /validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/bylaw-resource-validating-webhook-cfg serverside-applied \(server dry run\)/,
    );
    assert.match(
      out,
      /validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/bylaw-policy-validating-webhook-cfg serverside-applied \(server dry run\)/,
    );
  });

  test("the Helm chart's defaults, and its options, pass --dry-run=server", async () => {
    const defaults = await helmTemplate(["--set-json", `networkPolicy.apiServerCIDRs=["${API_SERVER_CIDR}"]`]);
    const out = await kubectlOk(["apply", "--server-side", "--dry-run=server", "-f", "-"], defaults);
    assert.match(out, /deployment\.apps\/bylaw serverside-applied \(server dry run\)/);
    assert.match(out, /clusterrole\.rbac\.authorization\.k8s\.io\/bylaw:admission-controller serverside-applied/);
    const options = await helmTemplate([
      "--set-json",
      'policySets=[{"name":"pss-restricted","mode":"Enforce"},{"name":"best-practices","enforce":["bp-disallow-latest-tag"]}]',
      "--set-json",
      'networkPolicy={"enabled":true,"apiServerCIDRs":["127.0.0.1/32"],"prometheus":{"namespace":"monitoring","podLabels":{"app.kubernetes.io/name":"prometheus"}},"extraMetricsFrom":[]}',
      "--set",
      "metrics.nodePort.enabled=true",
      "--set-json",
      'admissionController.tolerations=[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]',
    ]);
    const withOptions = await kubectlOk(["apply", "--server-side", "--dry-run=server", "-f", "-"], options);
    assert.match(withOptions, /networkpolicy\.networking\.k8s\.io\/bylaw serverside-applied/);
    assert.match(withOptions, /service\/bylaw-metrics serverside-applied/);
  });

  test("applied for real (webhooks last, as the README says): each component's ServiceAccount gets its grants and no more", async () => {
    const rendered = await kustomize("deploy/base");
    await kubectlOk(
      ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component!=webhook-configuration"],
      rendered,
    );
    await kubectlOk(["-n", "bylaw", "rollout", "status", "deployment/bylaw", "--timeout=120s"]);
    assert.equal(await can("bylaw", "list", "clusterpolicies.kyverno.io"), true);
    assert.equal(await can("bylaw", "patch", "clusterpolicies.kyverno.io", "--subresource=status"), true);
    assert.equal(await can("bylaw", "update", "clusterpolicies.kyverno.io"), false, "the spec is the user's");
    assert.equal(await can("bylaw", "watch", "namespaces"), true);
    assert.equal(await can("bylaw", "list", "clusterrolebindings"), true);
    assert.equal(await can("bylaw", "-n", "bylaw", "update", "secret/bylaw-tls"), true);
    assert.equal(await can("bylaw", "-n", "bylaw", "get", "secret/other"), false);
    assert.equal(await can("bylaw", "-n", "kube-system", "get", "secrets"), false);
    assert.equal(await can("bylaw", "-n", "bylaw", "create", "leases.coordination.k8s.io"), true);
    assert.equal(await can("bylaw", "-n", "default", "create", "leases.coordination.k8s.io"), false);
    assert.equal(
      await can("bylaw", "patch", "validatingwebhookconfiguration/bylaw-resource-validating-webhook-cfg"),
      true,
    );
    assert.equal(
      await can("bylaw", "patch", "validatingwebhookconfiguration/bylaw-policy-validating-webhook-cfg"),
      true,
    );
    assert.equal(await can("bylaw", "create", "validatingwebhookconfigurations"), false);
    assert.equal(await can("bylaw", "patch", "validatingwebhookconfiguration/someone-elses"), false);
    assert.equal(await can("bylaw", "list", "pods"), false, "no */* read, unlike Kyverno");
    assert.equal(
      await can("bylaw-reports-controller", "create", "policyreports.wgpolicyk8s.io", "-n", "default"),
      true,
    );
    assert.equal(await can("bylaw-background-controller", "create", "updaterequests.kyverno.io", "-n", "bylaw"), true);
    assert.equal(await can("bylaw-cleanup-controller", "list", "cleanuppolicies.kyverno.io", "-A"), true);
    assert.equal(await can("bylaw-cleanup-controller", "delete", "pods", "-n", "default"), false);
  });

  test("a ClusterRole labelled rbac.kyverno.io/aggregate-to-<component>, as written for Kyverno, is aggregated into that component's grants", async () => {
    const grant = (component: string, resource: string): string =>
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: {
          name: `kyverno:${component}:${resource}`,
          labels: { [`rbac.kyverno.io/aggregate-to-${component}`]: "true" },
        },
        rules: [{ apiGroups: [""], resources: [resource], verbs: ["get", "list", "watch"] }],
      });
    // Secrets: a kind no component reads by default (the controllers read Pods through `view`).
    await kubectlOk(["apply", "-f", "-"], grant("admission-controller", "secrets"));
    await kubectlOk(["apply", "-f", "-"], grant("background-controller", "services"));
    await eventually("the aggregation controller to add the grants", 30_000, async () =>
      (await can("bylaw", "list", "secrets")) && (await can("bylaw-background-controller", "list", "services"))
        ? true
        : undefined,
    );
    assert.equal(
      await can("bylaw-reports-controller", "list", "secrets"),
      false,
      "only into the component the label names",
    );
  });

  test("applying the base again keeps a filled certificate Secret, whatever its type", async () => {
    await kubectlOk([
      "-n",
      "bylaw",
      "patch",
      "secret",
      "bylaw-tls",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { "tls.crt": caBundle, "tls.key": "a2V5" } }),
    ]);
    const rendered = await kustomize("deploy/base");
    await kubectlOk(
      ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component!=webhook-configuration"],
      rendered,
    );
    await kubectlOk(["apply", "-f", "-", "-l", "app.kubernetes.io/component!=webhook-configuration"], rendered);
    assert.equal(
      await kubectlOk(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.data.tls\\.crt}"]),
      caBundle,
    );
    await kubectlOk(["-n", "bylaw", "delete", "secret", "bylaw-tls"]);
    await kubectlOk([
      "-n",
      "bylaw",
      "create",
      "secret",
      "tls",
      "bylaw-tls",
      `--cert=${join(current().dir, "pki", "ca.crt")}`,
      `--key=${join(current().dir, "pki", "ca.key")}`,
    ]);
    await kubectlOk(
      ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component!=webhook-configuration"],
      rendered,
    );
    assert.equal(
      await kubectlOk(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.type}"]),
      "kubernetes.io/tls",
    );
  });
});
