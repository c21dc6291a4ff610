/**
 * Issue 37, the Loki half of done-when 2, 3 and 4, end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl and a real VictoriaLogs (scripts/monitoring/sinks.sh) taking Loki's
 * push API; every line is queried back with LogsQL. Bylaw runs `--component admission --component
 * monitoring --loki URL --loki-events` (and the reports controller), bound to the shipped
 * `bylaw:monitoring` ClusterRole:
 * - a Pod failing an Audit policy: its PolicyReport row is a Loki line with Policy Reporter's
 *   labels and line within 10 s of `kubectl run`, sent once (not again at the next resync);
 * - trivy-operator's example reports applied: their results are lines (source Trivy …);
 * - a denied `kubectl run` → the policy's PolicyViolation Event → a line that the seed's
 *   `{job="kubernetes-event"} | json | line_format "[{{.type}}] {{.reason}}: {{.message}}"` reads,
 *   checked with its LogsQL equivalent (field filters on the JSON line VictoriaLogs parsed, format).
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): a line must reach VictoriaLogs within 10 s.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
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
import { MONITORING_BINDING } from "./monitoring-binding.js";
import { queryLogs, startSinks, waitForLogs, type Sinks } from "../support/monitoring-sinks.js";

const buildTimeoutMs = 90 * 60_000;
const fixtures = join(process.cwd(), "test", "fixtures", "monitoring", "trivy-operator");
let cluster: Cluster | undefined;
let sinks: Sinks | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const logs = (): Sinks => {
  if (sinks === undefined) throw new Error("VictoriaLogs did not start (see the before hook)");
  return sinks;
};

const args = (lokiPushUrl: string): string =>
  `--reports-controller --component admission --component monitoring --loki ${lokiPushUrl} --loki-label cluster=e2e --loki-events --loki-event-match type=Warning`;

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  validationFailureAction: Audit
  background: false
  rules:
    - name: check-team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [shop]
      validate:
        message: "label 'team' is required"
        pattern:
          metadata:
            labels:
              team: "?*"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: no-latest
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: pinned-tag
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [locked]
      validate:
        message: "an image tag other than latest is required"
        pattern:
          spec:
            containers:
              - image: "!*:latest"
`;

/** trivy-operator's example report, made valid for its CRDs (as monitoring-metrics.cluster-test.ts does). */
function trivyExample(file: string, namespace: string): string {
  const report = load(readFileSync(join(fixtures, "examples", file), "utf8")) as {
    metadata: { namespace?: string; labels?: Record<string, string>; ownerReferences?: unknown };
    report: { os?: unknown; vulnerabilities?: Record<string, unknown>[] };
  };
  delete report.metadata.ownerReferences;
  report.metadata.namespace = namespace;
  report.metadata.labels = Object.fromEntries(
    Object.entries(report.metadata.labels ?? {}).filter(([, v]) => !v.includes("<HASH>")),
  );
  if (report.report.vulnerabilities !== undefined) {
    report.report.os ??= { family: "alpine", name: "3.13" };
    for (const v of report.report.vulnerabilities) {
      v["publishedDate"] ??= "2021-01-01T00:00:00Z";
      v["lastModifiedDate"] ??= "2021-01-01T00:00:00Z";
    }
  }
  return JSON.stringify(report);
}

describe(
  "the monitoring component's Loki lines, read back from a real VictoriaLogs",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      sinks = await startSinks();
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true, bylawArgs: args(logs().lokiPushUrl) });
      const base = readFileSync(join(current().dir, "bylaw-base.yaml"), "utf8");
      await ok(["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=monitoring"], base);
      await ok(["apply", "-f", "-"], MONITORING_BINDING);
      await ok(["apply", "--server-side", "-f", join(fixtures, "crds")]);
      await crdsEstablished(current(), [
        "crd/vulnerabilityreports.aquasecurity.github.io",
        "crd/configauditreports.aquasecurity.github.io",
      ]);
      await restartBylaw(current(), { extraArgs: args(logs().lokiPushUrl) });
      await ok(["create", "namespace", "shop"]);
      await ok(["create", "namespace", "locked"]);
      await ok(["apply", "-f", "-"], POLICIES);
      for (const name of ["require-team", "no-latest"])
        await eventually(`${name} to be Ready`, 60_000, async () =>
          (await ok(["get", "clusterpolicy", name, "-o", "jsonpath={.status.conditions[0].status}"])) === "True"
            ? true
            : undefined,
        );
    });
    after(async () => {
      await tearDown(cluster);
      await sinks?.down();
    });

    test("a Pod failing an Audit policy: its PolicyReport row is a Loki line within 10 s, sent once", async () => {
      const createdAt = performance.now();
      await ok(["run", "web", "-n", "shop", "--image", "nginx:1.27"]);
      const query = `{createdBy="policy-reporter", policy="require-team", namespace="shop", name="web", status="fail"}`;
      const rows = await waitForLogs(logs(), query, { count: 1, timeoutMs: 30_000 });
      const seconds = (performance.now() - createdAt) / 1000;
      assert.equal(rows.length, 1, `no line for ${query}`);
      assert.ok(seconds <= 10, `the line reached VictoriaLogs after ${seconds.toFixed(1)} s`);
      const row = rows[0] ?? {};
      assert.match(row["_msg"] ?? "", /^\[\] validation error: label 'team' is required/);
      for (const label of ['rule="check-team"', 'source="kyverno"', 'apiVersion="v1"', 'kind="Pod"', 'cluster="e2e"'])
        assert.ok((row["_stream"] ?? "").includes(label), `${label} in ${row["_stream"]}`);
      // The next background scan and resync rewrite the report; the row is not sent again.
      await new Promise((r) => setTimeout(r, 5000));
      assert.equal((await queryLogs(logs(), query)).length, 1);
      // The fix: the pass row is new, so it is a line.
      await ok(["label", "pod", "web", "-n", "shop", "team=shop"]);
      const pass = await waitForLogs(logs(), `{policy="require-team", name="web", status="pass"}`, {
        count: 1,
        timeoutMs: 30_000,
      });
      assert.equal(pass.length, 1);
    });

    test("trivy-operator's example reports applied: their results are Loki lines", async () => {
      await ok(["create", "namespace", "trivy-demo"]);
      await ok(["apply", "-f", "-"], trivyExample("vulnerabilityreport.yaml", "trivy-demo"));
      await ok(["apply", "-f", "-"], trivyExample("pod-configauditreport.yaml", "trivy-demo"));
      const vulns = await waitForLogs(logs(), `{source="Trivy Vulnerability"}`, { count: 1, timeoutMs: 30_000 });
      assert.equal(vulns.length, 1);
      assert.match(vulns[0]?.["_stream"] ?? "", /policy="CVE-2021-3121"/);
      assert.match(vulns[0]?.["_msg"] ?? "", /^\[HIGH\] gogo\/protobuf/);
      const audits = await waitForLogs(logs(), `{source="Trivy ConfigAudit"}`, { count: 13, timeoutMs: 30_000 });
      assert.equal(audits.length, 13);
      assert.ok(audits.some((r) => (r["_stream"] ?? "").includes('rule="KSV001"')));
    });

    test("a denied kubectl run → its Event → a Loki line the seed's query reads", async () => {
      const r = await current().kubectl(["run", "latest", "-n", "locked", "--image", "nginx:latest"]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /denied the request/);
      // LogsQL for {job="kubernetes-event"} | json | line_format "[{{.type}}] {{.reason}}: {{.message}}".
      // VictoriaLogs' Loki endpoint parses a JSON line into fields as it stores it (Loki's `| json` does
      // the same at query time), so the fields are filtered and formatted directly.
      const query =
        '{job="kubernetes-event", cluster="e2e"} reason:="PolicyViolation" message:"locked/latest" | format "[<type>] <reason>: <message>" as line';
      const rows = await waitForLogs(logs(), query, { count: 1, timeoutMs: 30_000 });
      assert.equal(rows.length, 1, "one line for the denied Pod's Event");
      assert.match(
        rows[0]?.["line"] ?? "",
        /^\[Warning\] PolicyViolation: Pod locked\/latest: \[pinned-tag\] fail \(blocked\)/,
      );
      // Normal Events (e.g. the allowed Pod's scheduling) are left out by --loki-event-match type=Warning.
      const normal = await queryLogs(logs(), '{job="kubernetes-event"} type:="Normal"');
      assert.equal(normal.length, 0);
    });
  },
);
