/**
 * Requests on subresources reach the policies written for them (issue 33 §1), end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` with kubectl:
 * - `kubectl debug` (an UPDATE of pods/ephemeralcontainers) is denied by a rule on
 *   `Pod/ephemeralcontainers`: the old Pod, matched as created (no subresource), does not excuse it
 *   as a pre-existing violation, as in Kyverno;
 * - an eviction through the API (CREATE of pods/eviction, an Eviction object) by a rule on `Pod/eviction`;
 * - `kubectl scale` of a StatefulSet by a validate.cel rule on `StatefulSet/scale`, and of a
 *   Deployment by a pattern on `Deployment/scale`: the rules see the Scale object (spec.replicas),
 *   and a scale within the bound is admitted.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const rule = (name: string, kind: string, validate: string): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: ${name}
      match:
        any:
          - resources:
              kinds: [${kind}]
              namespaces: [sub]
      validate:
${validate}
`;

const POLICIES = [
  rule(
    "no-debug",
    "Pod/ephemeralcontainers",
    `        message: "ephemeral containers are not allowed"\n        deny: {}`,
  ),
  rule("no-evict", "Pod/eviction", `        message: "evictions are not allowed"\n        deny: {}`),
  rule(
    "sts-scale",
    "StatefulSet/scale",
    `        cel:\n          expressions:\n            - expression: "object.spec.replicas <= 3"\n              message: "at most 3 statefulset replicas"`,
  ),
  rule(
    "deploy-scale",
    "Deployment/scale",
    `        message: "at most 3 deployment replicas"\n        pattern:\n          spec:\n            replicas: "<=3"`,
  ),
].join("---\n");

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s, namespace: sub}
spec:
  serviceName: s
  replicas: 1
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec: {containers: [{name: c, image: "nginx:1.27"}]}
`;

describe("subresource requests reach their policies", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["create", "namespace", "sub"]);
    await ok(["-n", "sub", "run", "p", "--image=nginx:1.27"]);
    await ok(["-n", "sub", "create", "deployment", "d", "--image=nginx:1.27"]);
    await ok(["apply", "-f", "-"], STATEFULSET);
    await ok(["apply", "-f", "-"], POLICIES);
    await eventually("the policies enforced", 90_000, async () => {
      const r = await current().kubectl(["-n", "sub", "scale", "deployment", "d", "--replicas=9"]);
      return r.code !== 0 && r.stderr.includes("at most 3 deployment replicas") ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("kubectl debug (pods/ephemeralcontainers) is denied, and no ephemeral container is added", async () => {
    const r = await current().kubectl([
      "-n",
      "sub",
      "debug",
      "p",
      "--image=busybox:1.36",
      "--container=dbg",
      "--profile=general",
      "--",
      "sleep",
      "1",
    ]);
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /ephemeral containers are not allowed/);
    const added = await ok(["-n", "sub", "get", "pod", "p", "-o", "jsonpath={.spec.ephemeralContainers}"]);
    assert.equal(added.trim(), "");
  });

  test("an eviction through the API (pods/eviction) is denied", async () => {
    const eviction = JSON.stringify({
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p", namespace: "sub" },
    });
    const r = await current().kubectl(
      ["create", "--raw", "/api/v1/namespaces/sub/pods/p/eviction", "-f", "-"],
      eviction,
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /evictions are not allowed/);
  });

  test("kubectl scale: validate.cel on StatefulSet/scale and a pattern on Deployment/scale see the Scale object", async () => {
    const sts = await current().kubectl(["-n", "sub", "scale", "statefulset", "s", "--replicas=5"]);
    assert.notEqual(sts.code, 0);
    assert.match(sts.stderr, /at most 3 statefulset replicas/);
    const dep = await current().kubectl(["-n", "sub", "scale", "deployment", "d", "--replicas=5"]);
    assert.notEqual(dep.code, 0);
    assert.match(dep.stderr, /at most 3 deployment replicas/);
    await ok(["-n", "sub", "scale", "statefulset", "s", "--replicas=2"]);
    await ok(["-n", "sub", "scale", "deployment", "d", "--replicas=3"]);
  });
});
