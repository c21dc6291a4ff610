/**
 * Issue 35 §4, `--openreports-enabled` (Kyverno's `--openreportsEnabled`), end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` with kubectl: with the CRDs of
 * deploy/components/openreports applied and `--reports-controller --openreports-enabled`, a
 * privileged Pod's background result and its admission result land in one openreports.io/v1alpha1
 * Report (named by its uid, owned by it, scoped to it), `kubectl get reps` shows it, and no
 * wgpolicyk8s.io PolicyReport is written.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  crdsEstablished,
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
const ARGS = "--reports-controller --openreports-enabled --background-scan-interval 10s";
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

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

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: pss-baseline
spec:
  background: true
  validationFailureAction: Audit
  rules:
    - name: baseline
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [shop]
      validate:
        podSecurity:
          level: baseline
          version: latest
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  background: false
  validationFailureAction: Audit
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [shop]
      validate:
        message: "a team label is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

const POD = JSON.stringify({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "shop" },
  spec: { containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged: true } }] },
});

interface Report {
  apiVersion: string;
  kind: string;
  metadata: { name: string; ownerReferences?: { kind: string; uid: string }[]; labels?: Record<string, string> };
  scope?: { kind: string; name: string; uid?: string };
  summary?: Record<string, number>;
  results?: { policy: string; result: string; properties?: Record<string, string> }[];
}

describe("--openreports-enabled writes openreports.io Reports", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    const component = join(process.cwd(), "deploy", "components", "openreports");
    for (const file of ["openreports.io_reports.yaml", "openreports.io_clusterreports.yaml"])
      await ok(["apply", "--server-side", "-f", join(component, file)]);
    await crdsEstablished(current(), ["crd/reports.openreports.io", "crd/clusterreports.openreports.io"]);
    await restartBylaw(current(), { extraArgs: ARGS });
    await ok(["apply", "-f", "-"], GRANT);
    await eventually("the aggregated grant to reach Bylaw's ServiceAccount", 60_000, async () => {
      const r = await current().kubectl([
        "auth",
        "can-i",
        "watch",
        "pods",
        "--as",
        "system:serviceaccount:bylaw:bylaw",
        "-A",
      ]);
      return r.stdout.trim() === "yes" ? true : undefined;
    });
    await ok(["create", "namespace", "shop"]);
    await ok(["apply", "-f", "-"], POLICIES);
    for (const name of ["pss-baseline", "require-team"])
      await ok(["wait", "--for=condition=Ready", `clusterpolicy/${name}`, "--timeout=60s"]);
  });
  after(() => tearDown(cluster));

  test("a privileged Pod's scan and admission results are one Report; no PolicyReport is written", async () => {
    await ok(["apply", "-f", "-"], POD);
    const uid = await ok(["get", "pod", "web", "-n", "shop", "-o", "jsonpath={.metadata.uid}"]);
    const report = await eventually("the Pod's Report to hold both results", 90_000, async () => {
      const items = (
        JSON.parse(await ok(["get", "reports.openreports.io", "-n", "shop", "-o", "json"])) as { items: Report[] }
      ).items;
      const found = items.find((r) => r.metadata.name === uid);
      return found?.results?.length === 2 ? found : undefined;
    });
    assert.equal(report.apiVersion, "openreports.io/v1alpha1");
    assert.equal(report.kind, "Report");
    assert.deepEqual(report.scope, { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop", uid });
    assert.deepEqual(
      report.metadata.ownerReferences?.map((o) => [o.kind, o.uid]),
      [["Pod", uid]],
    );
    assert.equal(report.metadata.labels?.["app.kubernetes.io/managed-by"], "kyverno");
    assert.deepEqual(
      report.results?.map((r) => [r.policy, r.result, r.properties?.["process"]]),
      [
        ["pss-baseline", "fail", "background scan"],
        ["require-team", "fail", "admission review"],
      ],
    );
    assert.deepEqual(report.summary, { pass: 0, fail: 2, warn: 0, error: 0, skip: 0 });
    const table = await ok(["get", "reps", "-n", "shop", "-o", "wide"]);
    assert.match(table, new RegExp(`^${uid}\\s+Pod\\s+web\\s+0\\s+2\\s+0\\s+0\\s+0\\s`, "m"), table);
    assert.equal((await ok(["get", "polr", "-n", "shop", "-o", "name"])).trim(), "", "no PolicyReport");
  });
});
