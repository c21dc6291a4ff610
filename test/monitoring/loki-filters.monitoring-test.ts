/**
 * Policy Reporter's Loki target filters, as `bylaw serve --component monitoring` reads them from its
 * flags, against a real receiver of Loki's push API (VictoriaLogs, scripts/monitoring/sinks.sh): new
 * results of a few reports go through the monitoring component's sender and Bylaw's Loki client,
 * and LogsQL shows the lines the filters keep present, with their labels, and the others absent.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../src/engine/index.js";
import { lokiResultFilter } from "../../src/cli/commands/serve/loki-filter-flags.js";
import { ResultSender } from "../../src/controllers/monitoring/result-sender.js";
import { MONITORED_SOURCES } from "../../src/controllers/monitoring/sources.js";
import { LokiClient } from "../../src/platform/loki/index.js";
import { queryLogs, startSinks, waitForLogs, type Sinks } from "../support/monitoring-sinks.js";

let sinks: Sinks;
before(async () => {
  sinks = await startSinks();
});
after(async () => {
  await sinks?.down();
});

const run = `f${Date.now()}`;

interface Row {
  readonly policy: string;
  readonly severity: string;
  readonly result: string;
  readonly source: string;
}

const report = (namespace: string, rows: readonly Row[], labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "PolicyReport",
  metadata: { name: `pod-${namespace}`, namespace, labels },
  results: rows.map((r) => ({
    ...r,
    rule: "check",
    message: `${namespace} ${r.policy} ${r.severity} ${r.result} ${r.source}`,
    resources: [{ apiVersion: "v1", kind: "Pod", name: "web", namespace }],
  })),
});

const ROWS: Row[] = [
  { policy: "require-team", severity: "high", result: "fail", source: "kyverno" },
  { policy: "require-team", severity: "low", result: "fail", source: "kyverno" },
  { policy: "require-team", severity: "critical", result: "pass", source: "kyverno" },
  { policy: "disallow-latest", severity: "critical", result: "fail", source: "kyverno" },
  { policy: "CVE-2021-3121", severity: "high", result: "fail", source: "Trivy Vulnerability" },
  { policy: "require-team", severity: "medium", result: "fail", source: "falco" },
];

test("the lines the filters keep arrive with their labels; those they leave out do not", async () => {
  const filter = lokiResultFilter({
    "loki-minimum-severity": "medium",
    "loki-sources": ["kyverno,Trivy *"],
    "loki-filter": ["namespaces.exclude=kube-*", "policies.include=require-*,CVE-*", "status.exclude=pass"],
  });
  assert.ok(filter.ok, filter.ok ? "" : filter.error);
  const loki = new LokiClient({ connection: { url: sinks.lokiPushUrl }, batchWaitMs: 50 });
  const sender = new ResultSender({
    push: (labels, entry) => assert.equal(loki.push(labels, entry), undefined),
    extraLabels: { run },
    now: Date.now,
    filter: filter.value,
  });
  const polrs = MONITORED_SOURCES[0] ?? assert.fail("policyreports");
  sender.listed(polrs, []);
  for (const ns of ["shop", "kube-system"]) sender.changed(polrs, report(ns, ROWS));
  const stats = await loki.close(10_000);
  assert.equal(stats.sent, 2);
  const rows = await waitForLogs(sinks, `{run="${run}"}`, { count: 2 });
  assert.deepEqual(rows.map((r) => r["_msg"]).sort(), [
    "[HIGH] shop CVE-2021-3121 high fail Trivy Vulnerability",
    "[HIGH] shop require-team high fail kyverno",
  ]);
  const kept = rows.find((r) => (r["_msg"] ?? "").includes("require-team")) ?? {};
  for (const label of ['policy="require-team"', 'severity="high"', 'status="fail"', 'namespace="shop"'])
    assert.ok((kept["_stream"] ?? "").includes(label), `${label} in ${kept["_stream"]}`);
  // What each filter left out is absent, not late: VictoriaLogs has flushed the kept lines already.
  for (const query of [
    `{run="${run}", namespace="kube-system"}`,
    `{run="${run}", severity="low"}`,
    `{run="${run}", status="pass"}`,
    `{run="${run}", policy="disallow-latest"}`,
    `{run="${run}", source="falco"}`,
  ])
    assert.deepEqual(await queryLogs(sinks, query), [], query);
});

test("without filters the same reports are every line (the filters above are what left them out)", async () => {
  const loki = new LokiClient({ connection: { url: sinks.lokiPushUrl }, batchWaitMs: 50 });
  const sender = new ResultSender({
    push: (labels, entry) => loki.push(labels, entry),
    extraLabels: { run: `${run}-all` },
    now: Date.now,
  });
  const polrs = MONITORED_SOURCES[0] ?? assert.fail("policyreports");
  sender.listed(polrs, []);
  for (const ns of ["shop", "kube-system"]) sender.changed(polrs, report(ns, ROWS));
  await loki.close(10_000);
  const rows = await waitForLogs(sinks, `{run="${run}-all"}`, { count: 12 });
  assert.equal(rows.length, 12);
});
