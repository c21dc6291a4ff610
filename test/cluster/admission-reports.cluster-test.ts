/**
 * Issue 35 §4, done-when 3 (last part) and report ownership, end to end against `scripts/cluster.sh
 * up DIR --with-bylaw` with kubectl (Bylaw as deploy/ ships it, `--reports-controller
 * --background-scan-interval 10s`):
 * - a Pod admitted with an Audit violation of a `background: false` policy shows that row in its
 *   PolicyReport, beside the background scan's row, and a rescan keeps it;
 * - a ConfigMap, a kind no background policy matches, gets a report with its admission row, and the
 *   sweep of full scans leaves it;
 * - the sweep deletes Bylaw's own orphaned reports, never a report Bylaw did not write (Kyverno's,
 *   labelled only `app.kubernetes.io/managed-by: kyverno`).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

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

const PSS = `apiVersion: kyverno.io/v1
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

const TEAM = `apiVersion: kyverno.io/v1
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
              kinds: [Pod, ConfigMap]
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

interface Row {
  policy: string;
  rule: string;
  result: string;
  message?: string;
  properties?: Record<string, string>;
}
interface Report {
  metadata: { name: string; labels?: Record<string, string> };
  scope?: { kind: string; name: string; uid?: string };
  summary?: Record<string, number>;
  results?: Row[];
}

async function reports(): Promise<Report[]> {
  return (JSON.parse(await ok(["get", "polr", "-n", "shop", "-o", "json"])) as { items: Report[] }).items;
}

function uidOf(kind: string, name: string): Promise<string> {
  return ok(["get", kind, name, "-n", "shop", "-o", "jsonpath={.metadata.uid}"]);
}

/** The report named `uid` once its rows are exactly `want` (`policy:result`, sorted). */
function reportWith(uid: string, want: readonly string[]): Promise<Report> {
  return eventually(`the PolicyReport ${uid} to hold ${want.join(", ")}`, 90_000, async () => {
    const report = (await reports()).find((r) => r.metadata.name === uid);
    const rows = (report?.results ?? []).map((r) => `${r.policy}:${r.result}`).sort();
    return report !== undefined && JSON.stringify(rows) === JSON.stringify(want) ? report : undefined;
  });
}

/** A report for a resource that does not exist, labelled as `labels`. */
function orphan(name: string, labels: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: { name, namespace: "shop", labels },
    scope: { apiVersion: "v1", kind: "Pod", name: `gone-${name}`, namespace: "shop", uid: name },
    summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
    results: [{ policy: "pss-baseline", rule: "baseline", result: "fail", source: "kyverno" }],
  });
}

describe("admission results land in the per-resource PolicyReport", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    process.env["BYLAW_CLUSTER_BYLAW_ARGS"] = "--reports-controller --background-scan-interval 10s";
    try {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    } finally {
      delete process.env["BYLAW_CLUSTER_BYLAW_ARGS"];
    }
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
    await ok(["apply", "-f", "-"], PSS);
    await ok(["apply", "-f", "-"], TEAM);
    for (const name of ["pss-baseline", "require-team"])
      await ok(["wait", "--for=condition=Ready", `clusterpolicy/${name}`, "--timeout=60s"]);
  });
  after(() => tearDown(cluster));

  test("a Pod admitted with an Audit violation of a background: false policy shows it beside the scan's row, and a rescan keeps it", async () => {
    await eventually("the Pod to be admitted", 60_000, async () =>
      (await current().kubectl(["apply", "-f", "-"], POD)).code === 0 ? true : undefined,
    );
    const uid = await uidOf("pod", "web");
    const report = await reportWith(uid, ["pss-baseline:fail", "require-team:fail"]);
    const team = report.results?.find((r) => r.policy === "require-team");
    assert.equal(team?.properties?.["process"], "admission review");
    assert.match(team?.message ?? "", /a team label is required/);
    assert.equal(report.results?.find((r) => r.policy === "pss-baseline")?.properties?.["process"], "background scan");
    assert.deepEqual(report.summary, { pass: 0, fail: 2, warn: 0, error: 0, skip: 0 });
    const table = await ok(["get", "polr", "-n", "shop"]);
    assert.match(table, new RegExp(`^${uid}\\s+Pod\\s+web\\s+0\\s+2\\s+0\\s+0\\s+0\\s`, "m"), table);

    // Two scan intervals: the scan rewrites nothing of the admission row.
    await new Promise((r) => setTimeout(r, 25_000));
    await reportWith(uid, ["pss-baseline:fail", "require-team:fail"]);

    // Labelled, the Pod's update is admitted again and its row turns to pass.
    await ok(["label", "pod", "web", "-n", "shop", "team=shop"]);
    await reportWith(uid, ["pss-baseline:fail", "require-team:pass"]);
  });

  test("a ConfigMap no background policy scans keeps the report admission wrote through full scans", async () => {
    await ok(["create", "configmap", "settings", "-n", "shop", "--from-literal=a=b"]);
    const uid = await uidOf("configmap", "settings");
    const report = await reportWith(uid, ["require-team:fail"]);
    assert.equal(report.scope?.kind, "ConfigMap");
    assert.equal(report.metadata.labels?.["reports.bylaw.dev/managed-by"], "bylaw");
    await new Promise((r) => setTimeout(r, 25_000));
    await reportWith(uid, ["require-team:fail"]);
  });

  test("the sweep deletes Bylaw's orphaned reports and never one Bylaw did not write", async () => {
    const kyvernoOwn = "00000000-0000-0000-0000-00000000000a";
    const bylawOwn = "00000000-0000-0000-0000-00000000000b";
    await ok(["apply", "-f", "-"], orphan(kyvernoOwn, { "app.kubernetes.io/managed-by": "kyverno" }));
    await ok(
      ["apply", "-f", "-"],
      orphan(bylawOwn, { "app.kubernetes.io/managed-by": "kyverno", "reports.bylaw.dev/managed-by": "bylaw" }),
    );
    await eventually("Bylaw's orphaned report to be swept", 90_000, async () =>
      (await reports()).some((r) => r.metadata.name === bylawOwn) ? undefined : true,
    );
    // Another full scan after that one: Kyverno's report is still there.
    await new Promise((r) => setTimeout(r, 15_000));
    assert.ok(
      (await reports()).some((r) => r.metadata.name === kyvernoOwn),
      "a report Bylaw did not write is never deleted",
    );
  });
});
