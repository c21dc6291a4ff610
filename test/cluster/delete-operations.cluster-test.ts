/**
 * DELETE requests as Kyverno's validate handlers treat them (issue 33 §2), end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` with kubectl:
 * - podSecurity and pattern rules in Enforce do not fail the deletion of an object that breaks them
 *   (Kyverno: "skipping validation on deleted resource"), while they still deny creating one;
 * - a deny rule matching DELETE is evaluated on the object being removed (`request.object` reads
 *   `request.oldObject`): a protected Pod's deletion is denied with the rule's message, an
 *   unprotected one's is not.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: pss-restricted
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: restricted
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [doomed]
      validate:
        podSecurity:
          level: restricted
          version: latest
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [doomed]
      validate:
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: protect-pods
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: protected
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [guarded]
              operations: [DELETE]
      validate:
        message: "{{ request.object.metadata.name }} is protected"
        deny:
          conditions:
            any:
              - key: "{{ request.object.metadata.labels.protected || '' }}"
                operator: Equals
                value: "yes"
`;

const pod = (name: string, namespace: string, labels: Record<string, string> = {}): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

const configMap = (name: string, labels: Record<string, string> = {}): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "doomed", labels } });

describe("DELETE requests, as Kyverno treats them", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    for (const ns of ["doomed", "guarded"]) await ok(["create", "namespace", ns]);
    // Made before the policies: objects that break them, as a cluster has when a policy arrives.
    await ok(["create", "-f", "-"], pod("privileged-style", "doomed"));
    await ok(["create", "-f", "-"], configMap("no-team"));
    await ok(["create", "-f", "-"], pod("keep-me", "guarded", { protected: "yes" }));
    await ok(["create", "-f", "-"], pod("let-go", "guarded"));
    await ok(["apply", "-f", "-"], POLICIES);
    await eventually("the policies enforced", 90_000, async () => {
      const r = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap("probe"));
      return r.code !== 0 && r.stderr.includes("label team is required") ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("creating objects that break the podSecurity and pattern rules is denied", async () => {
    const p = await current().kubectl(["create", "--dry-run=server", "-f", "-"], pod("another", "doomed"));
    assert.notEqual(p.code, 0);
    assert.match(p.stderr, /restricted/);
    const c = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap("another"));
    assert.notEqual(c.code, 0);
    assert.match(c.stderr, /label team is required/);
  });

  test("deleting them is not: podSecurity and pattern rules give no result on DELETE", async () => {
    const p = await current().kubectl(["delete", "pod", "privileged-style", "-n", "doomed", "--wait=false"]);
    assert.equal(p.code, 0, p.stderr);
    const c = await current().kubectl(["delete", "configmap", "no-team", "-n", "doomed"]);
    assert.equal(c.code, 0, c.stderr);
  });

  test("a deny rule on DELETE reads the object being removed: the protected Pod stays, the other goes", async () => {
    const denied = await current().kubectl(["delete", "pod", "keep-me", "-n", "guarded", "--wait=false"]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /keep-me is protected/);
    assert.equal((await ok(["get", "pod", "keep-me", "-n", "guarded", "-o", "name"])).trim(), "pod/keep-me");
    const allowed = await current().kubectl(["delete", "pod", "let-go", "-n", "guarded", "--wait=false"]);
    assert.equal(allowed.code, 0, allowed.stderr);
  });
});
