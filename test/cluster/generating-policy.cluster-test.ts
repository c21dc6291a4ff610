/**
 * GeneratingPolicy in a cluster (issue 34 §3), end to end against the real control plane with
 * Bylaw and kubectl, the background component in its own process as deploy/ runs it:
 * - the policy is admitted at `kubectl apply`, and is not Ready while no background component runs
 *   (its condition names what would run it);
 * - with the background component: Ready, and a new Namespace gets the NetworkPolicy the policy's
 *   generator.Apply asks for, with Kyverno's generate.kyverno.io labels (the done-when); the
 *   UpdateRequest (`cel-generate`) is deleted once done;
 * - one whose expression does not compile is refused at `kubectl apply`, naming the policy and field.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const running: ServeProcess[] = [];

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may write NetworkPolicies. */
const NETPOL_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:networkpolicies:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [networking.k8s.io]
    resources: [networkpolicies]
    verbs: [get, list, watch, create, update, patch, delete]
`;

const NETPOL =
  '[{"apiVersion": dyn("networking.k8s.io/v1"), "kind": dyn("NetworkPolicy"), "metadata": dyn({"name": "default-deny"}), "spec": dyn({"podSelector": dyn({}), "policyTypes": dyn(["Ingress"])})}]';

const gpol = (expression: string): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "default-deny" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
      },
      generate: [{ expression }],
    },
  });

/** The GeneratingPolicy's conditionStatus once its `ready` is `want` (Kyverno's shape: every condition True). */
function ready(want: boolean, timeoutMs: number): Promise<{ ready: boolean; message: string }> {
  return eventually(`default-deny ready ${String(want)}`, timeoutMs, async () => {
    const object = JSON.parse(
      await ok(["get", "generatingpolicies.policies.kyverno.io", "default-deny", "-o", "json"]),
    ) as { status?: { conditionStatus?: { ready?: boolean; message?: string } } };
    const status = object.status?.conditionStatus;
    if (status?.ready !== want) throw new Error(`conditionStatus is ${JSON.stringify(status)}`);
    return { ready: want, message: status.message ?? "" };
  });
}

/** The labels of the NetworkPolicy default-deny in `namespace`, once it exists. */
function netpolLabels(namespace: string, timeoutMs: number): Promise<Record<string, string>> {
  return eventually(`NetworkPolicy default-deny in ${namespace}`, timeoutMs, async () => {
    const r = await current().kubectl(["get", "networkpolicy", "default-deny", "-n", namespace, "-o", "json"]);
    if (r.code !== 0) return undefined;
    return (JSON.parse(r.stdout) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
  });
}

describe("GeneratingPolicy in a cluster", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], NETPOL_GRANTS);
  });

  after(async () => {
    for (const p of running) await p.kill("SIGKILL");
    await tearDown(cluster);
  });

  test("one whose expression does not compile is refused at kubectl apply, naming the policy and field", async () => {
    const text = await eventually("the policy webhook registered", 90_000, async () => {
      const r = await current().kubectl(["apply", "-f", "-"], gpol("generator.Apply(object.metadata.name, ["));
      return r.code !== 0 && r.stderr.includes("denied the request") ? r.stderr : undefined;
    });
    assert.match(text, /GeneratingPolicy default-deny: spec\.generate\[0\]\.expression: compilation failed/);
  });

  test("admitted at kubectl apply; not Ready while no background component runs, naming it", async () => {
    await ok(["apply", "-f", "-"], gpol(`generator.Apply(object.metadata.name, ${NETPOL})`));
    const c = await ready(false, 60_000);
    assert.match(c.message, /GeneratingPolicy default-deny: Bylaw does not run GeneratingPolicies here/);
  });

  test("with the background component: Ready, and each new Namespace gets the NetworkPolicy, with Kyverno's labels", async () => {
    running.push(await startComponent(current(), "background"));
    await ready(true, 90_000);
    for (const ns of ["team-a", "team-b"]) {
      await ok(["create", "namespace", ns]);
      const labels = await netpolLabels(ns, 60_000);
      assert.equal(labels["app.kubernetes.io/managed-by"], "kyverno");
      assert.equal(labels["generate.kyverno.io/policy-name"], "default-deny");
      assert.equal(labels["generate.kyverno.io/trigger-kind"], "Namespace");
      assert.ok((labels["generate.kyverno.io/trigger-uid"] ?? "") !== "", JSON.stringify(labels));
    }
    const spec = await ok([
      "get",
      "networkpolicy",
      "default-deny",
      "-n",
      "team-a",
      "-o",
      "jsonpath={.spec.policyTypes}",
    ]);
    assert.equal(spec, '["Ingress"]');
    await eventually("the UpdateRequests deleted once done", 60_000, async () =>
      (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
    );
  });
});
