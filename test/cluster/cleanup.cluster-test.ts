/**
 * Issue 35 §5, the cleanup controller, end to end against `scripts/cluster.sh up DIR --with-bylaw`
 * with kubectl (Bylaw as deploy/ ships it; the user grants what it may delete with a ClusterRole
 * labelled rbac.kyverno.io/aggregate-to-cleanup-controller, as for Kyverno):
 * - a Pod labelled `cleanup.kyverno.io/ttl: 5s` is deleted; one with a time far ahead is not; one
 *   whose label is not a TTL stays and gets a Warning Event;
 * - a ClusterCleanupPolicy on `*\/1 * * * *` deletes the Pods it matches and nothing else (a Pod it
 *   does not match and one it excludes stay), writes status.lastExecutionTime and a Ready condition,
 *   counts kyverno_cleanup_controller_deletedobjects_total and writes Kyverno's Event;
 * - a CleanupPolicy in tenant-a whose match names Pods everywhere deletes only in tenant-a;
 * - a ClusterCleanupPolicy on a kind Bylaw may not delete is not Ready, and says why.
 * One schedule wait (about a minute) serves every schedule check.
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
  name: cleanup-pods
  labels:
    rbac.kyverno.io/aggregate-to-cleanup-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch, delete]
`;

const POLICIES = `apiVersion: kyverno.io/v2
kind: ClusterCleanupPolicy
metadata:
  name: sweep-pods
spec:
  schedule: "*/1 * * * *"
  match:
    any:
      - resources:
          kinds: [Pod]
          namespaces: [sweep]
          selector:
            matchLabels:
              doomed: "yes"
  exclude:
    any:
      - resources:
          names: ["spared-*"]
  conditions:
    all:
      - key: "{{ target.metadata.namespace }}"
        operator: Equals
        value: sweep
---
apiVersion: kyverno.io/v2
kind: CleanupPolicy
metadata:
  name: tenant-sweep
  namespace: tenant-a
spec:
  schedule: "*/1 * * * *"
  match:
    any:
      - resources:
          kinds: [Pod]
          selector:
            matchLabels:
              doomed: "yes"
---
apiVersion: kyverno.io/v2
kind: ClusterCleanupPolicy
metadata:
  name: sweep-configmaps
spec:
  schedule: "*/1 * * * *"
  match:
    any:
      - resources:
          kinds: [ConfigMap]
          namespaces: [sweep]
`;

const pod = (name: string, namespace: string, labels: Record<string, string> = {}): string =>
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

const readyCondition = async (kind: string, name: string, ns?: string): Promise<Record<string, string> | undefined> => {
  const out = await ok(["get", kind, name, ...(ns !== undefined ? ["-n", ns] : []), "-o", "json"]);
  const s = (JSON.parse(out) as { status?: { conditions?: Record<string, string>[] } }).status;
  return s?.conditions?.find((c) => c["type"] === "Ready");
};

describe("the cleanup controller: TTL label and cleanup policies", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    // The cleanup controller is opt-in (serve --cleanup-controller) until it has its own Deployment.
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true, bylawArgs: "--cleanup-controller" });
    await ok(["apply", "-f", "-"], GRANT);
    await bylawGranted(current(), { verb: "delete", resource: "pods" });
    for (const ns of ["sweep", "tenant-a", "tenant-b", "ttl"]) await ok(["create", "namespace", ns]);
    await ok(["create", "-f", "-"], pod("doomed-1", "sweep", { doomed: "yes" }));
    await ok(["create", "-f", "-"], pod("spared-1", "sweep", { doomed: "yes" }));
    await ok(["create", "-f", "-"], pod("bystander", "sweep"));
    await ok(["create", "-f", "-"], pod("a-doomed", "tenant-a", { doomed: "yes" }));
    await ok(["create", "-f", "-"], pod("b-doomed", "tenant-b", { doomed: "yes" }));
    await ok(["create", "configmap", "kept", "-n", "sweep"]);
    await ok(["create", "-f", "-"], pod("ttl-short", "ttl", { "cleanup.kyverno.io/ttl": "5s" }));
    await ok(["create", "-f", "-"], pod("ttl-future", "ttl", { "cleanup.kyverno.io/ttl": "2099-01-01" }));
    await ok(["create", "-f", "-"], pod("ttl-bad", "ttl", { "cleanup.kyverno.io/ttl": "soon" }));
    // Admitted by the policy webhook: the cleanup controller runs them.
    await ok(["apply", "-f", "-"], POLICIES);
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a Pod labelled cleanup.kyverno.io/ttl: 5s is deleted; a future one and an unreadable one stay", async () => {
    await eventually("ttl-short deleted", 150_000, async () =>
      (await deleted("ttl-short", "ttl")) ? true : undefined,
    );
    assert.equal(await deleted("ttl-future", "ttl"), false);
    assert.equal(await deleted("ttl-bad", "ttl"), false);
    const warning = await eventually("the InvalidTTL Event on ttl-bad", 30_000, async () => {
      const out = await ok(["get", "events", "-n", "ttl", "--field-selector", "reason=InvalidTTL", "-o", "json"]);
      const items = (JSON.parse(out) as { items: { message?: string; involvedObject?: { name?: string } }[] }).items;
      return items.find((e) => e.involvedObject?.name === "ttl-bad");
    });
    assert.match(warning.message ?? "", /label "soon" is neither a duration .*; the object is not deleted/);
  });

  test("the ClusterCleanupPolicy deletes the Pod it matches on its schedule, and nothing else", async () => {
    await eventually("doomed-1 deleted", 150_000, async () =>
      (await deleted("doomed-1", "sweep")) ? true : undefined,
    );
    assert.equal(await deleted("spared-1", "sweep"), false, "excluded by name");
    assert.equal(await deleted("bystander", "sweep"), false, "not selected");
    const status = JSON.parse(await ok(["get", "clustercleanuppolicy", "sweep-pods", "-o", "json"])) as {
      status?: { lastExecutionTime?: string };
    };
    assert.match(status.status?.lastExecutionTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    assert.equal((await readyCondition("clustercleanuppolicy", "sweep-pods"))?.["status"], "True");
  });

  test("a CleanupPolicy in tenant-a deletes only in tenant-a, though its match names Pods everywhere", async () => {
    await eventually("a-doomed deleted", 150_000, async () =>
      (await deleted("a-doomed", "tenant-a")) ? true : undefined,
    );
    // The ClusterCleanupPolicy and the CleanupPolicy have both run by now (same schedule).
    await eventually("tenant-sweep's run recorded", 30_000, async () => {
      const out = await ok([
        "get",
        "cleanuppolicy",
        "tenant-sweep",
        "-n",
        "tenant-a",
        "-o",
        "jsonpath={.status.lastExecutionTime}",
      ]);
      return out.trim() !== "" ? true : undefined;
    });
    assert.equal(await deleted("b-doomed", "tenant-b"), false);
  });

  test("Kyverno's Events and counter record each deletion", async () => {
    const out = await ok(["get", "events", "-n", "default", "--field-selector", "reason=PolicyApplied", "-o", "json"]);
    const items = (
      JSON.parse(out) as { items: { message?: string; source?: { component?: string }; reportingComponent?: string }[] }
    ).items;
    const applied = items.find((e) => e.message === "successfully cleaned up the target resource Pod/sweep/doomed-1");
    assert.ok(applied !== undefined, `no PolicyApplied Event for doomed-1 in ${out}`);
    assert.equal(applied.reportingComponent, "kyverno-cleanup");
    const tenant = await ok([
      "get",
      "events",
      "-n",
      "tenant-a",
      "--field-selector",
      "reason=PolicyApplied",
      "-o",
      "jsonpath={.items[*].message}",
    ]);
    assert.match(tenant, /successfully cleaned up the target resource Pod\/tenant-a\/a-doomed/);
    const port = bylawEnv(current().dir)["BYLAW_METRICS_PORT"];
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = metrics
      .split("\n")
      .find(
        (l) =>
          l.startsWith("kyverno_cleanup_controller_deletedobjects_total{") && l.includes('policy_name="sweep-pods"'),
      );
    assert.ok(line !== undefined, "kyverno_cleanup_controller_deletedobjects_total for sweep-pods");
    assert.match(line, /policy_type="ClusterCleanupPolicy"/);
    assert.match(line, /resource_kind="Pod"/);
    assert.match(line, /resource_namespace="sweep"/);
    assert.match(line, / 1$/);
    assert.match(
      metrics,
      /kyverno_ttl_controller_deletedobjects_total\{resource_group="",resource_version="v1",resource_resource="pods",resource_namespace="ttl"\} 1/,
    );
  });

  test("a ClusterCleanupPolicy on a kind Bylaw may not delete is not Ready, and its condition says why", async () => {
    const ready = await eventually("sweep-configmaps' Ready condition", 30_000, () =>
      readyCondition("clustercleanuppolicy", "sweep-configmaps"),
    );
    assert.equal(ready["status"], "False");
    assert.equal(ready["reason"], "Forbidden");
    assert.match(
      ready["message"] ?? "",
      /Bylaw's ServiceAccount may not delete configmaps in all namespaces: grant them to Bylaw with a ClusterRole labelled rbac\.kyverno\.io\/aggregate-to-cleanup-controller: "true"/,
    );
    assert.equal((await ok(["get", "configmap", "kept", "-n", "sweep", "-o", "name"])).trim(), "configmap/kept");
  });
});
