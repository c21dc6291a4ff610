/**
 * Issue 34 §3, DeletingPolicy and NamespacedDeletingPolicy end to end with kubectl on the real control
 * plane (Bylaw as deploy/ ships it, with the cleanup controller; the user grants what it may delete
 * with a ClusterRole labelled rbac.kyverno.io/aggregate-to-cleanup-controller, as for Kyverno):
 * - the policy webhook admits a valid DeletingPolicy and denies one whose schedule is not cron, naming the field;
 * - a DeletingPolicy on `*\/1 * * * *` deletes the Pods whose conditions hold and nothing else, writes
 *   status.lastExecutionTime and conditionStatus.ready, counts kyverno_deleting_controller_deletedobjects_total
 *   (Kyverno 1.19's name and labels for a DeletingPolicy; not the cleanup policies' counter) and writes
 *   Kyverno's PolicyApplied Event;
 * - a Pod a policies.kyverno.io PolicyException (in the --exception-namespace) excepts from the policy is
 *   kept, though its condition holds;
 * - a NamespacedDeletingPolicy in tenant-x whose matchConstraints name Pods everywhere deletes only in tenant-x;
 * - a condition that errors deletes nothing, and a PolicyError Event says why;
 * - a DeletingPolicy over Namespaces reads a Namespace's annotations as `namespaceObject` (Kyverno's
 *   dpol engine gives a Namespace the resolver's copy of itself).
 * One schedule wait (about a minute) serves every check.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  bylawEnv,
  bylawGranted,
  eventually,
  kubectlOk,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: delete-pods
  labels:
    rbac.kyverno.io/aggregate-to-cleanup-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch, delete]
  - apiGroups: [""]
    resources: [namespaces]
    verbs: [get, list, watch, delete]
`;

const podsIn = (namespace: string): string => `
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: ${namespace}`;

const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: expire-pods
spec:
  schedule: "*/1 * * * *"
  deletionPropagationPolicy: Background
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [pods]${podsIn("dsweep")}
  variables:
    - name: expire
      expression: "object.metadata.labels['expire']"
  conditions:
    - name: expired
      expression: "variables.expire == 'true'"
---
apiVersion: policies.kyverno.io/v1
kind: NamespacedDeletingPolicy
metadata:
  name: tenant-expire
  namespace: tenant-x
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [pods]
  conditions:
    - name: expired
      expression: "object.metadata.labels['expire'] == 'true'"
---
apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: broken-condition
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [pods]${podsIn("derr")}
  conditions:
    - name: missing-label
      expression: "object.metadata.labels['missing'] == 'x'"
---
apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: expire-namespaces
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [namespaces]
    objectSelector:
      matchLabels:
        sweep: "yes"
  conditions:
    - name: marked-scratch
      expression: "namespaceObject.metadata.?annotations['scratch'].orValue('') == 'true'"
`;

/** Keeps dsweep/old-excepted from expire-pods (Bylaw runs with --exception-namespace policy-exceptions). */
const EXCEPTION = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: keep-old-excepted
  namespace: policy-exceptions
spec:
  policyRefs:
    - kind: DeletingPolicy
      name: expire-pods
  matchConditions:
    - name: the-excepted-pod
      expression: "object.metadata.name == 'old-excepted'"
`;

const INVALID = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: not-cron
spec:
  schedule: "every minute"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [pods]
`;

const pod = (name: string, namespace: string, labels: Record<string, string>): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

/** Whether the Pod is gone (or being deleted: kwok's nodes finish it shortly). */
async function deleted(name: string, namespace: string): Promise<boolean> {
  const r = await current().kubectl(["get", "pod", name, "-n", namespace, "-o", "json"]);
  if (r.code !== 0) return /NotFound/.test(r.stderr);
  const p = JSON.parse(r.stdout) as { metadata?: { deletionTimestamp?: string } };
  return p.metadata?.deletionTimestamp !== undefined;
}

describe(
  "DeletingPolicy and NamespacedDeletingPolicy in the cleanup controller",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, {
        withBylaw: true,
        bylawArgs: "--cleanup-controller --enable-policy-exception --exception-namespace policy-exceptions",
      });
      await ok(["apply", "-f", "-"], GRANT);
      await bylawGranted(current(), { verb: "delete", resource: "pods" });
      await bylawGranted(current(), { verb: "delete", resource: "namespaces" });
      for (const ns of ["dsweep", "tenant-x", "tenant-y", "derr", "policy-exceptions"])
        await ok(["create", "namespace", ns]);
      // Before the policies: in force when their first run is due.
      await ok(["apply", "-f", "-"], EXCEPTION);
      await ok(["create", "-f", "-"], pod("old-1", "dsweep", { expire: "true" }));
      await ok(["create", "-f", "-"], pod("young", "dsweep", { expire: "false" }));
      await ok(["create", "-f", "-"], pod("old-excepted", "dsweep", { expire: "true" }));
      await ok(["create", "-f", "-"], pod("x-old", "tenant-x", { expire: "true" }));
      await ok(["create", "-f", "-"], pod("y-old", "tenant-y", { expire: "true" }));
      await ok(["create", "-f", "-"], pod("keeper", "derr", { team: "a" }));
      for (const [name, annotations] of [
        ["dns-scratch", { scratch: "true" }],
        ["dns-keep", {}],
      ] as const)
        await ok(
          ["create", "-f", "-"],
          JSON.stringify({
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name, labels: { sweep: "yes" }, annotations },
          }),
        );
      // Admitted by the policy webhook: the cleanup controller runs them.
      await ok(["apply", "-f", "-"], POLICIES);
    });

    after(async () => {
      await tearDown(cluster);
    });

    test("a DeletingPolicy whose schedule is not cron is denied, naming the field", async () => {
      const r = await current().kubectl(["apply", "-f", "-"], INVALID);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /spec\.schedule: DeletingPolicy not-cron: spec\.schedule: Invalid value: "every minute": schedule spec in the deletingPolicy is not in proper cron format/,
      );
    });

    test("a DeletingPolicy on a 1-minute schedule deletes the Pods whose conditions hold, and nothing else", async () => {
      await eventually("old-1 deleted", 150_000, async () => ((await deleted("old-1", "dsweep")) ? true : undefined));
      assert.equal(await deleted("young", "dsweep"), false, "its condition does not hold");
      assert.equal(await deleted("y-old", "tenant-y"), false, "outside its namespaceSelector");
      // The status is written once the run's deletions are done: a moment after old-1 goes.
      const status = await eventually("expire-pods' run recorded in its status", 30_000, async () => {
        const object = JSON.parse(await ok(["get", "deletingpolicy", "expire-pods", "-o", "json"])) as {
          status?: { lastExecutionTime?: string; conditionStatus?: { ready?: boolean } };
        };
        return (object.status?.lastExecutionTime ?? "") !== "" ? object.status : undefined;
      });
      assert.match(status?.lastExecutionTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
      assert.equal(status?.conditionStatus?.ready, true);
    });

    test("a Pod a policies.kyverno.io PolicyException excepts is kept, though its condition holds", async () => {
      await eventually("old-1 deleted", 150_000, async () => ((await deleted("old-1", "dsweep")) ? true : undefined));
      await eventually("expire-pods' run recorded", 30_000, async () => {
        const out = await ok(["get", "dpol", "expire-pods", "-o", "jsonpath={.status.lastExecutionTime}"]);
        return out.trim() !== "" ? true : undefined;
      });
      assert.equal(await deleted("old-excepted", "dsweep"), false, "excepted by keep-old-excepted");
      const pod = JSON.parse(await ok(["get", "pod", "old-excepted", "-n", "dsweep", "-o", "json"])) as {
        metadata?: { labels?: Record<string, string> };
      };
      assert.equal(pod.metadata?.labels?.["expire"], "true");
    });

    test("a NamespacedDeletingPolicy deletes only in its own namespace, though its matchConstraints name Pods everywhere", async () => {
      await eventually("x-old deleted", 150_000, async () => ((await deleted("x-old", "tenant-x")) ? true : undefined));
      await eventually("tenant-expire's run recorded", 30_000, async () => {
        const out = await ok([
          "get",
          "ndpol",
          "tenant-expire",
          "-n",
          "tenant-x",
          "-o",
          "jsonpath={.status.lastExecutionTime}",
        ]);
        return out.trim() !== "" ? true : undefined;
      });
      assert.equal(await deleted("y-old", "tenant-y"), false);
    });

    test("a condition that errors deletes nothing, and a PolicyError Event says why", async () => {
      const event = await eventually("the PolicyError Event for derr/keeper", 150_000, async () => {
        const out = await ok(["get", "events", "-A", "--field-selector", "reason=PolicyError", "-o", "json"]);
        const items = (JSON.parse(out) as { items: { message?: string; regarding?: { name?: string } }[] }).items;
        return items.find((e) => (e.message ?? "").includes("Pod/derr/keeper"));
      });
      assert.match(
        event.message ?? "",
        /^failed to clean up the target resource Pod\/derr\/keeper: cannot evaluate conditions\[0\] \(missing-label\): .+; it was not deleted$/,
      );
      assert.equal(await deleted("keeper", "derr"), false);
    });

    test("a DeletingPolicy over Namespaces reads each Namespace's annotations as namespaceObject", async () => {
      const terminating = async (name: string): Promise<boolean> => {
        const r = await current().kubectl(["get", "namespace", name, "-o", "json"]);
        if (r.code !== 0) return /NotFound/.test(r.stderr);
        return (
          (JSON.parse(r.stdout) as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !==
          undefined
        );
      };
      await eventually("dns-scratch deleted", 150_000, async () =>
        (await terminating("dns-scratch")) ? true : undefined,
      );
      await eventually("expire-namespaces' run recorded", 30_000, async () => {
        const out = await ok(["get", "dpol", "expire-namespaces", "-o", "jsonpath={.status.lastExecutionTime}"]);
        return out.trim() !== "" ? true : undefined;
      });
      assert.equal(await terminating("dns-keep"), false, "not annotated scratch");
    });

    test("Kyverno's Event and counter record each deletion", async () => {
      const out = await ok([
        "get",
        "events",
        "-n",
        "default",
        "--field-selector",
        "reason=PolicyApplied",
        "-o",
        "json",
      ]);
      const items = (JSON.parse(out) as { items: { message?: string; reportingComponent?: string }[] }).items;
      const applied = items.find((e) => e.message === "successfully cleaned up the target resource Pod/dsweep/old-1");
      assert.ok(applied !== undefined, `no PolicyApplied Event for old-1 in ${out}`);
      assert.equal(applied.reportingComponent, "kyverno-cleanup");
      const port = bylawEnv(current().dir)["BYLAW_METRICS_PORT"];
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const line = metrics
        .split("\n")
        .find(
          (l) =>
            l.startsWith("kyverno_deleting_controller_deletedobjects_total{") &&
            l.includes('policy_name="expire-pods"'),
        );
      assert.ok(line !== undefined, "kyverno_deleting_controller_deletedobjects_total for expire-pods");
      assert.match(line, /policy_type="DeletingPolicy"/);
      assert.match(line, /resource="pods"/);
      assert.match(line, /resource_namespace="dsweep"/);
      assert.match(line, /deletion_propagation="Background"/);
      const asCleanup = metrics
        .split("\n")
        .filter((l) => l.startsWith("kyverno_cleanup_controller_deletedobjects_total{"))
        .filter((l) => l.includes('policy_name="expire-pods"'));
      assert.deepEqual(asCleanup, [], "a DeletingPolicy's deletions are not counted as a cleanup policy's");
      assert.match(line, / 1$/);
    });
  },
);
