/**
 * Issue 35 §7: each component runs under its own ServiceAccount with least privilege, as deploy/base
 * ships it, checked by the API server's own authorizer (`kubectl auth can-i --as`):
 * - each may do what it needs, and may not create Pods or read Secrets it does not need;
 * - the background, reports and cleanup controllers may list Pods and Deployments through `view`
 *   (rbac/view.yaml, as Kyverno's chart binds it), the monitoring component may not;
 * - a ClusterRole labelled rbac.kyverno.io/aggregate-to-cleanup-controller extends the cleanup
 *   controller's grants;
 * and each component, started as its own process under its ServiceAccount (as its Deployment runs
 * it), loads only what it runs: no request of its is refused (`forbidden` never in its log).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { componentAccount, startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const running: ServeProcess[] = [];
const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

type Component = "background" | "reports" | "cleanup" | "monitoring";

/** `kubectl auth can-i VERB RESOURCE --as` the component's ServiceAccount, in every namespace: yes or no. */
async function canI(component: Component, verb: string, resource: string): Promise<string> {
  const as = `system:serviceaccount:bylaw:${componentAccount(component)}`;
  const r = await current().kubectl(["auth", "can-i", verb, resource, "--as", as, "-A"]);
  return r.stdout.trim();
}

/** What each component needs (yes) and what it must not do (no), beyond its Lease. */
const EXPECTED: Record<Component, { yes: [string, string][]; no: [string, string][] }> = {
  background: {
    yes: [
      ["create", "updaterequests.kyverno.io"],
      ["list", "clusterpolicies.kyverno.io"],
      ["list", "pods"],
      ["list", "deployments.apps"],
    ],
    no: [
      ["create", "pods"],
      ["get", "secrets"],
      ["create", "secrets"],
      ["delete", "pods"],
    ],
  },
  reports: {
    yes: [
      ["create", "policyreports.wgpolicyk8s.io"],
      ["list", "policies.kyverno.io"],
      ["list", "pods"],
      ["list", "deployments.apps"],
    ],
    no: [
      ["create", "pods"],
      ["get", "secrets"],
      ["create", "updaterequests.kyverno.io"],
    ],
  },
  cleanup: {
    yes: [
      ["list", "clustercleanuppolicies.kyverno.io"],
      ["list", "deletingpolicies.policies.kyverno.io"],
      ["list", "pods"],
      ["list", "deployments.apps"],
    ],
    no: [
      ["create", "pods"],
      ["delete", "pods"],
      ["get", "secrets"],
      ["list", "clusterpolicies.kyverno.io"],
    ],
  },
  monitoring: {
    yes: [["list", "policyreports.wgpolicyk8s.io"]],
    no: [
      ["list", "pods"],
      ["create", "pods"],
      ["get", "secrets"],
      ["list", "clusterpolicies.kyverno.io"],
    ],
  },
};

const CLEANUP_PODS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:cleanup:delete-pods
  labels:
    rbac.kyverno.io/aggregate-to-cleanup-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [delete]
`;

describe("the components' RBAC and what each process loads", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    // --with-bylaw applies the controllers' RBAC; the monitoring component's (and the view bindings) from the same render.
    const base = readFileSync(join(current().dir, "bylaw-base.yaml"), "utf8");
    await ok(["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=monitoring"], base);
  });
  after(async () => {
    for (const p of running) await p.kill("SIGKILL");
    await tearDown(cluster);
  });

  for (const component of Object.keys(EXPECTED) as Component[]) {
    test(`${component}: may do what it needs, and no more`, async () => {
      const { yes, no } = EXPECTED[component];
      for (const [verb, resource] of yes)
        assert.equal(await canI(component, verb, resource), "yes", `${verb} ${resource}`);
      for (const [verb, resource] of no)
        assert.equal(await canI(component, verb, resource), "no", `${verb} ${resource}`);
    });
  }

  test("a ClusterRole labelled rbac.kyverno.io/aggregate-to-cleanup-controller extends the cleanup controller's grants", async () => {
    assert.equal(await canI("cleanup", "delete", "pods"), "no");
    await ok(["apply", "-f", "-"], CLEANUP_PODS);
    await eventually("the aggregated grant to reach bylaw-cleanup-controller", 60_000, async () =>
      (await canI("cleanup", "delete", "pods")) === "yes" ? true : undefined,
    );
    assert.equal(await canI("background", "delete", "pods"), "no", "and no other component's");
    await ok(["delete", "clusterrole", "kyverno:cleanup:delete-pods"]);
  });

  for (const component of Object.keys(EXPECTED) as Component[]) {
    test(`${component} as its own process under its ServiceAccount: ready, and nothing it asks for is forbidden`, async () => {
      const p = await startComponent(current(), component);
      running.push(p);
      await eventually(`${component} ready`, 60_000, async () => {
        const r = await p.get("/health/readiness");
        if (r.status !== 200) throw new Error(`${r.status} ${r.body}\n${p.output()}`);
        return true;
      });
      // A few seconds of its watches and loops (a refused list is retried, and logged, within them).
      await new Promise((r) => setTimeout(r, 5_000));
      const refused = p
        .output()
        .split("\n")
        .filter((line) => /forbidden/i.test(line));
      assert.deepEqual(refused, [], `${component}'s log`);
      await p.stop();
    });
  }
});
