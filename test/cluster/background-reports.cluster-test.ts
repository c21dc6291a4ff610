/**
 * Issue 35 §4, background scans and PolicyReports, end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl (Bylaw as deploy/ ships it, `--background-scan-interval 10s`; the user
 * grants what it may scan with a ClusterRole labelled rbac.kyverno.io/aggregate-to-reports-controller,
 * as for Kyverno):
 * - a privileged Pod created before an Audit PSS ClusterPolicy appears as `fail` in its PolicyReport
 *   (named by its uid, owned by it, scoped to it) within one scan, and `kubectl get polr` shows it;
 * - a rescan with nothing changed writes nothing (the report's resourceVersion stays); rows someone
 *   edited are written back by the next scan;
 * - the Pod recreated compliant gets a report with `pass`, and the old Pod's report is gone;
 * - a MutatingPolicy is scanned as Kyverno scans it: a Pod its mutation would still change fails
 *   "mutation is not applied"; once the Pod carries the change, it passes;
 * - /metrics counts the scans with Kyverno's names: `kyverno_controller_reconcile_total` for the
 *   background-scan-controller, and the scans' results in `kyverno_policy_results_total` with
 *   `rule_execution_cause="background_scan"` and `resource_request_operation="create"`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bylawEnv, eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
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

const POLICY = `apiVersion: kyverno.io/v1
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
`;

const pod = (privileged: boolean): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop" },
    spec: { containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged } }] },
  });

interface Report {
  metadata: { name: string; resourceVersion: string; ownerReferences?: { kind: string; name: string; uid: string }[] };
  scope?: { kind: string; name: string; namespace?: string; uid?: string };
  summary?: Record<string, number>;
  results?: {
    policy: string;
    rule: string;
    result: string;
    source: string;
    message?: string;
    properties?: Record<string, string>;
  }[];
}

async function reports(namespace = "shop"): Promise<Report[]> {
  return (JSON.parse(await ok(["get", "polr", "-n", namespace, "-o", "json"])) as { items: Report[] }).items;
}

/** Adds label foo=bar to the Pods of namespace tagged. */
const ADD_FOO = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-foo
spec:
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: tagged
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: "bar"}}}
`;

async function podUid(): Promise<string> {
  return ok(["get", "pod", "web", "-n", "shop", "-o", "jsonpath={.metadata.uid}"]);
}

/** The report of the Pod with this uid, once its one row has `result`. */
function reportWith(uid: string, result: string): Promise<Report> {
  return eventually(`the PolicyReport of Pod web (${uid}) to show ${result}`, 60_000, async () => {
    const report = (await reports()).find((r) => r.metadata.name === uid);
    return report?.results?.length === 1 && report.results[0]?.result === result ? report : undefined;
  });
}

describe("background scans write one PolicyReport per resource", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, {
      withBylaw: true,
      bylawArgs: "--reports-controller --background-scan-interval 10s",
    });
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
  });
  after(async () => {
    // What Bylaw logged about reports, to see why when a wait above timed out.
    if (cluster !== undefined && process.env["BYLAW_TEST_SHOW_LOG"] !== undefined)
      console.log(
        readFileSync(join(cluster.dir, "logs", "bylaw.log"), "utf8")
          .split("\n")
          .filter((l) => l.includes("report"))
          .slice(-30)
          .join("\n"),
      );
    await tearDown(cluster);
  });

  test("a privileged Pod that existed before an Audit PSS policy fails in its report; a rescan writes nothing; fixed, it passes", async () => {
    await ok(["apply", "-f", "-"], pod(true));
    const uid = await podUid();
    await ok(["apply", "-f", "-"], POLICY);

    const failing = await reportWith(uid, "fail");
    assert.deepEqual(failing.scope, { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop", uid });
    assert.deepEqual(
      failing.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
      [["Pod", "web", uid]],
    );
    assert.deepEqual(failing.summary, { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
    const [row] = failing.results ?? [];
    assert.equal(row?.policy, "pss-baseline");
    assert.equal(row?.rule, "baseline");
    assert.equal(row?.source, "kyverno");
    assert.equal(row?.properties?.["process"], "background scan");
    const table = await ok(["get", "polr", "-n", "shop"]);
    assert.match(table, new RegExp(`^${uid}\\s+Pod\\s+web\\s+0\\s+1\\s+0\\s+0\\s+0\\s`, "m"), table);

    // Two scan intervals with nothing changed: the report is not written again.
    await new Promise((r) => setTimeout(r, 25_000));
    const unchanged = (await reports()).find((r) => r.metadata.name === uid);
    assert.equal(unchanged?.metadata.resourceVersion, failing.metadata.resourceVersion, "no write on a rescan");

    // Someone edits the rows (the scan watches reports' metadata only): the next scan writes them back.
    const edit = [{ op: "replace", path: "/results/0/result", value: "pass" }];
    await ok(["patch", "polr", uid, "-n", "shop", "--type=json", "-p", JSON.stringify(edit)]);
    const edited = (await reports()).find((r) => r.metadata.name === uid);
    assert.equal(edited?.results?.[0]?.result, "pass");
    const restored = await reportWith(uid, "fail");
    assert.notEqual(restored.metadata.resourceVersion, edited?.metadata.resourceVersion);

    await ok(["delete", "pod", "web", "-n", "shop", "--grace-period=0", "--force", "--wait=false"]);
    await eventually("Pod web to be gone", 60_000, async () => {
      const r = await current().kubectl(["get", "pod", "web", "-n", "shop"]);
      return r.code !== 0 && /NotFound/.test(r.stderr) ? true : undefined;
    });
    await ok(["apply", "-f", "-"], pod(false));
    const fixedUid = await podUid();
    assert.notEqual(fixedUid, uid);
    const passing = await reportWith(fixedUid, "pass");
    assert.deepEqual(passing.summary, { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
    await eventually("the deleted Pod's report to be gone", 60_000, async () =>
      (await reports()).some((r) => r.metadata.name === uid) ? undefined : true,
    );
  });

  test("a MutatingPolicy: a Pod its mutation would still change fails 'mutation is not applied'; changed, it passes", async () => {
    await ok(["create", "namespace", "tagged"]);
    await ok(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "plain", namespace: "tagged" },
        spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
      }),
    );
    const uid = await ok(["get", "pod", "plain", "-n", "tagged", "-o", "jsonpath={.metadata.uid}"]);
    await ok(["apply", "-f", "-"], ADD_FOO);
    const rowOf = (result: string) =>
      eventually(`the PolicyReport of Pod plain to show add-foo ${result}`, 60_000, async () => {
        const report = (await reports("tagged")).find((r) => r.metadata.name === uid);
        const row = report?.results?.find((x) => x.policy === "add-foo");
        return row?.result === result ? row : undefined;
      });
    const failing = await rowOf("fail");
    assert.equal(failing.message, "mutation is not applied");
    assert.equal(failing.properties?.["process"], "background scan");
    // An UPDATE goes through the webhook, which applies the mutation: the stored Pod now carries it.
    await ok(["label", "pod", "plain", "-n", "tagged", "touched=yes"]);
    assert.equal(await ok(["get", "pod", "plain", "-n", "tagged", "-o", "jsonpath={.metadata.labels.foo}"]), "bar");
    await rowOf("pass");
  });

  test("/metrics: the scans as background-scan-controller's reconciles, their results as background_scan", async () => {
    const port = bylawEnv(current().dir)["BYLAW_METRICS_PORT"];
    const metrics = await (await fetch(`http://127.0.0.1:${port ?? ""}/metrics`)).text();
    const reconciled =
      /^kyverno_controller_reconcile_total\{controller_name="background-scan-controller"\} (\d+)$/m.exec(metrics);
    assert.ok(reconciled !== null && Number(reconciled[1]) >= 2, `the scans reconciled:\n${metrics.slice(0, 4000)}`);
    const results = metrics
      .split("\n")
      .filter((l) => l.startsWith("kyverno_policy_results_total{") && l.includes('policy_name="pss-baseline"'));
    const scanned = (result: string): string | undefined =>
      results.find(
        (l) =>
          l.includes('rule_execution_cause="background_scan"') &&
          l.includes('resource_request_operation="create"') &&
          l.includes('resource_kind="Pod",resource_namespace="shop"') &&
          l.includes(`rule_result="${result}"`),
      );
    assert.ok(scanned("fail") !== undefined, results.join("\n"));
    assert.ok(scanned("pass") !== undefined, results.join("\n"));
  });
});
