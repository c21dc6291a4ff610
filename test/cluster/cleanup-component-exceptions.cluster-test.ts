/**
 * The cleanup component in a Deployment of its own (deploy/base/controllers/cleanup-controller.yaml)
 * loads no policy set, so it reads the policies.kyverno.io PolicyExceptions a DeletingPolicy heeds
 * itself (src/server/app/cleanup-exceptions.ts), with the RBAC deploy/ ships for it. End to end with
 * kubectl: the admission controller alone in the Bylaw process, the cleanup component as its own
 * process under its own ServiceAccount with `--enable-policy-exception --exception-namespace
 * policy-exceptions`; a DeletingPolicy on a 1-minute schedule deletes the expired Pod and keeps the
 * one an exception names; the component's log has no `forbidden`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let cleanup: ServeProcess | undefined;

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
`;

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: expire-pods
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [pods]
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: csweep
  conditions:
    - name: expired
      expression: "object.metadata.labels['expire'] == 'true'"
`;

const EXCEPTION = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: keep-excepted
  namespace: policy-exceptions
spec:
  policyRefs:
    - kind: DeletingPolicy
      name: expire-pods
  matchConditions:
    - name: the-excepted-pod
      expression: "object.metadata.name == 'excepted'"
`;

const pod = (name: string, labels: Record<string, string>): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "csweep", labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

async function gone(name: string): Promise<boolean> {
  const r = await current().kubectl(["get", "pod", name, "-n", "csweep", "-o", "json"]);
  if (r.code !== 0) return /NotFound/.test(r.stderr);
  return (
    (JSON.parse(r.stdout) as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !== undefined
  );
}

describe(
  "the cleanup component in its own process heeds policies.kyverno.io PolicyExceptions",
  { timeout: buildTimeoutMs + 8 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      await ok(["apply", "-f", "-"], GRANT);
      await eventually("the cleanup ServiceAccount may delete Pods", 60_000, async () => {
        const r = await current().kubectl([
          "auth",
          "can-i",
          "delete",
          "pods",
          "--as",
          "system:serviceaccount:bylaw:bylaw-cleanup-controller",
          "-A",
        ]);
        return r.stdout.trim() === "yes";
      });
      for (const ns of ["csweep", "policy-exceptions"]) await ok(["create", "namespace", ns]);
      await ok(["apply", "-f", "-"], EXCEPTION);
      await ok(["create", "-f", "-"], pod("expired", { expire: "true" }));
      await ok(["create", "-f", "-"], pod("excepted", { expire: "true" }));
      cleanup = await startComponent(current(), "cleanup", [
        "--enable-policy-exception",
        "--exception-namespace",
        "policy-exceptions",
      ]);
      // Admitted once the admission controller sees the cleanup component's Lease.
      await eventually("the DeletingPolicy admitted", 90_000, async () => {
        const r = await current().kubectl(["apply", "-f", "-"], POLICY);
        return r.code === 0 ? true : undefined;
      });
    });

    after(async () => {
      await cleanup?.stop();
      await tearDown(cluster);
    });

    test("the expired Pod is deleted on the schedule; the one a PolicyException excepts is kept", async () => {
      await eventually("expired deleted", 150_000, async () => ((await gone("expired")) ? true : undefined));
      await eventually("expire-pods' run recorded", 30_000, async () => {
        const out = await ok(["get", "dpol", "expire-pods", "-o", "jsonpath={.status.lastExecutionTime}"]);
        return out.trim() !== "" ? true : undefined;
      });
      assert.equal(await gone("excepted"), false, "excepted by keep-excepted");
    });

    test("the component's own RBAC lets it read what it reads: no forbidden in its log", () => {
      const log = cleanup?.output() ?? "";
      assert.deepEqual(
        log.split("\n").filter((l) => /forbidden/i.test(l)),
        [],
      );
    });
  },
);
