/**
 * Issue 35 §6/§7, RBACPermissionsGranted with the reports component in a process of its own (as
 * deploy/ runs it: `bylaw serve --cluster --component reports --leader-elect`, as its ServiceAccount
 * bylaw-reports-controller), while the admission controller, which writes policy status, runs
 * elsewhere (`scripts/cluster.sh up DIR --with-bylaw`):
 * - before the reports component was ever started, a ValidatingPolicy on Secrets gets no
 *   RBACPermissionsGranted (nobody runs background scans; nothing was checked);
 * - once it runs, the condition is about its ServiceAccount: False naming get, list and watch on
 *   Secrets (deploy/ binds it to `view`, which reads no Secrets), as Kyverno words it;
 * - granting Secrets to bylaw-reports-controller alone (a ClusterRoleBinding to that ServiceAccount,
 *   not to Bylaw's admission one, which still may not read them) turns it True and the policy ready.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let reports: ServeProcess | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: secrets-typed
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [secrets]
  validations:
    - expression: "has(object.type)"
`;

/** Secrets for the reports component's ServiceAccount only. */
const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reports-secrets
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: reports-secrets
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: reports-secrets
subjects:
  - kind: ServiceAccount
    name: bylaw-reports-controller
    namespace: bylaw
`;

const condition = (type: string, field: "status" | "message"): Promise<string> =>
  ok([
    "get",
    "vpol",
    "secrets-typed",
    "-o",
    `jsonpath={.status.conditionStatus.conditions[?(@.type=="${type}")].${field}}`,
  ]);

const canList = async (account: string): Promise<boolean> =>
  (
    await current().kubectl([
      "auth",
      "can-i",
      "list",
      "secrets",
      "--as",
      `system:serviceaccount:bylaw:${account}`,
      "-A",
    ])
  ).stdout.trim() === "yes";

describe(
  "RBACPermissionsGranted with the reports component in its own process",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    });
    after(async () => {
      await reports?.stop();
      await tearDown(cluster);
    });

    test("the reports component never started: WebhookConfigured True, no RBACPermissionsGranted", async () => {
      await ok(["apply", "-f", "-"], POLICY);
      await eventually("WebhookConfigured True", 60_000, async () =>
        (await condition("WebhookConfigured", "status")) === "True" ? true : undefined,
      );
      // A status resync passes without the condition (nothing runs background scans).
      await new Promise((r) => setTimeout(r, 5_000));
      assert.equal(await condition("RBACPermissionsGranted", "status"), "");
    });

    test("started: RBACPermissionsGranted False for bylaw-reports-controller, naming get, list and watch on Secrets", async () => {
      assert.equal(await canList("bylaw-reports-controller"), false, "deploy/ grants the reports component no Secrets");
      reports = await startComponent(current(), "reports");
      const refused = await eventually("RBACPermissionsGranted False", 90_000, async () =>
        (await condition("RBACPermissionsGranted", "status")) === "False"
          ? condition("RBACPermissionsGranted", "message")
          : undefined,
      );
      assert.match(
        refused,
        /^Policy is not ready for reporting, missing permissions: get \/v1, Resource=secrets: [^;]*; list \/v1, Resource=secrets: [^;]*; watch \/v1, Resource=secrets: [^;]*\.$/,
      );
      assert.equal(
        await ok(["get", "vpol", "secrets-typed", "-o", "jsonpath={.status.conditionStatus.ready}"]),
        "false",
      );
    });

    test("Secrets granted to bylaw-reports-controller alone: True and ready, though admission still may not read them", async () => {
      await ok(["apply", "-f", "-"], GRANT);
      await eventually("the grant to reach bylaw-reports-controller", 60_000, () =>
        canList("bylaw-reports-controller"),
      );
      assert.equal(await canList("bylaw"), false, "the admission controller's own ServiceAccount is not what is asked");
      const r = await current().kubectl([
        "wait",
        "vpol/secrets-typed",
        "--for=jsonpath={.status.conditionStatus.ready}=true",
        "--timeout=120s",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await condition("RBACPermissionsGranted", "status"), "True");
      assert.equal(await condition("RBACPermissionsGranted", "message"), "Policy is ready for reporting.");
    });
  },
);
