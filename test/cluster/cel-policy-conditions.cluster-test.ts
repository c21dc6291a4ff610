/**
 * Issue 35 §6, the conditions of a policies.kyverno.io policy as Kyverno 1.19 writes them, end to
 * end with kubectl against `scripts/cluster.sh up DIR --with-bylaw` running background scans beside
 * admission (`--reports-controller`), waited on as Kyverno's users wait on them
 * (`kubectl wait --for=jsonpath=…` on `status.conditionStatus`):
 * - a ValidatingPolicy on Pods while Bylaw may not read Pods: WebhookConfigured True, but
 *   RBACPermissionsGranted False naming each missing verb as Kyverno words it, and not ready;
 * - once the user grants get/list/watch on Pods (a ClusterRole labelled
 *   rbac.kyverno.io/aggregate-to-reports-controller, as for Kyverno), RBACPermissionsGranted turns
 *   True ("Policy is ready for reporting.") and the policy ready, within the status resync.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: pods-named
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  validations:
    - expression: "object.metadata.name != ''"
`;

const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reports-pods
  labels:
    rbac.kyverno.io/aggregate-to-reports-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch]
`;

const condition = (type: string, field: "status" | "message"): Promise<string> =>
  ok([
    "get",
    "vpol",
    "pods-named",
    "-o",
    `jsonpath={.status.conditionStatus.conditions[?(@.type=="${type}")].${field}}`,
  ]);

const canReadPods = async (): Promise<boolean> =>
  (
    await current().kubectl(["auth", "can-i", "list", "pods", "--as", "system:serviceaccount:bylaw:bylaw", "-A"])
  ).stdout.trim() === "yes";

describe(
  "a ValidatingPolicy's conditions: WebhookConfigured and RBACPermissionsGranted",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true, bylawArgs: "--reports-controller" });
    });
    after(async () => tearDown(cluster));

    test("Bylaw may not read Pods: WebhookConfigured True, RBACPermissionsGranted False naming get, list and watch; not ready", async () => {
      assert.equal(await canReadPods(), false, "deploy/ grants no Pod reads to the reports controller");
      await ok(["apply", "-f", "-"], POLICY);
      await eventually("kubectl wait for WebhookConfigured", 60_000, async () => {
        const r = await current().kubectl([
          "wait",
          "vpol/pods-named",
          '--for=jsonpath={.status.conditionStatus.conditions[?(@.type=="WebhookConfigured")].status}=True',
          "--timeout=10s",
        ]);
        if (r.code !== 0) throw new Error(r.stderr);
        return true;
      });
      const refused = await eventually("RBACPermissionsGranted False", 60_000, async () =>
        (await condition("RBACPermissionsGranted", "status")) === "False"
          ? condition("RBACPermissionsGranted", "message")
          : undefined,
      );
      assert.match(
        refused,
        /^Policy is not ready for reporting, missing permissions: get \/v1, Resource=pods: [^;]*; list \/v1, Resource=pods: [^;]*; watch \/v1, Resource=pods: [^;]*\.$/,
      );
      assert.equal(await ok(["get", "vpol", "pods-named", "-o", "jsonpath={.status.conditionStatus.ready}"]), "false");
    });

    test("granted with Kyverno's aggregation label: RBACPermissionsGranted True and ready, as kubectl wait sees it", async () => {
      await ok(["apply", "-f", "-"], GRANT);
      await eventually("the grant to reach Bylaw's ServiceAccount", 60_000, canReadPods);
      const r = await current().kubectl([
        "wait",
        "vpol/pods-named",
        "--for=jsonpath={.status.conditionStatus.ready}=true",
        "--timeout=120s",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await condition("RBACPermissionsGranted", "status"), "True");
      assert.equal(await condition("RBACPermissionsGranted", "message"), "Policy is ready for reporting.");
      assert.equal(await condition("WebhookConfigured", "message"), "Webhook configured.");
    });
  },
);
