import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../../engine/index.js";
import { ResultSender } from "../../../controllers/monitoring/result-sender.js";
import { MONITORED_SOURCES } from "../../../controllers/monitoring/sources.js";
import { lokiResultFilter, type LokiFilterFlags } from "./loki-filter-flags.js";

const NOW = Date.parse("2026-11-30T04:00:00Z");
const polrs = MONITORED_SOURCES[0] ?? assert.fail("policyreports");
const cpolrs = MONITORED_SOURCES[1] ?? assert.fail("clusterpolicyreports");

interface Row {
  readonly ns: string;
  readonly policy: string;
  readonly severity?: string;
  readonly status?: string;
  readonly source?: string;
}

const report = (rows: readonly Row[], labels: Record<string, string> = {}, ns = "team-a"): JsonObject => ({
  kind: "PolicyReport",
  metadata: { name: `r-${ns}`, namespace: ns, labels },
  results: rows.map((r) => ({
    policy: r.policy,
    rule: "r",
    result: r.status ?? "fail",
    ...(r.severity !== undefined ? { severity: r.severity } : {}),
    source: r.source ?? "kyverno",
    message: `${r.ns}/${r.policy}/${r.severity ?? ""}/${r.status ?? "fail"}/${r.source ?? "kyverno"}`,
    resources: [{ apiVersion: "v1", kind: "Pod", name: "p", namespace: r.ns }],
  })),
});

/** The lines sent for these rows (as `ns/policy/severity/status/source`) under these flags. */
function sentWith(flags: LokiFilterFlags, rows: readonly Row[], labels: Record<string, string> = {}): string[] {
  const filter = lokiResultFilter(flags);
  assert.ok(filter.ok, filter.ok ? "" : filter.error);
  const lines: string[] = [];
  const s = new ResultSender({
    push: (_labels, entry) => lines.push(entry.line.replace(/^\[[A-Z]*\] /, "")),
    extraLabels: {},
    now: () => NOW,
    filter: filter.value,
  });
  s.listed(polrs, []);
  s.changed(polrs, report(rows, labels));
  return lines;
}

const SEVERITIES: Row[] = ["", "info", "low", "medium", "high", "critical", "urgent"].map((severity) => ({
  ns: "team-a",
  policy: "p",
  ...(severity !== "" ? { severity } : {}),
}));

test("no filter flag: every result is sent, and no filter is compiled", () => {
  const none = lokiResultFilter({});
  assert.deepEqual(none, { ok: true, value: undefined });
  assert.equal(sentWith({}, SEVERITIES).length, 7);
});

test("--loki-minimum-severity: that severity and above; no severity is below all, an unknown one counts as info", () => {
  assert.deepEqual(sentWith({ "loki-minimum-severity": "medium" }, SEVERITIES), [
    "team-a/p/medium/fail/kyverno",
    "team-a/p/high/fail/kyverno",
    "team-a/p/critical/fail/kyverno",
  ]);
  assert.deepEqual(sentWith({ "loki-minimum-severity": "info" }, SEVERITIES).length, 6);
  assert.ok(sentWith({ "loki-minimum-severity": "info" }, SEVERITIES).includes("team-a/p/urgent/fail/kyverno"));
  const bad = lokiResultFilter({ "loki-minimum-severity": "warning" });
  assert.equal(
    bad.ok ? "" : bad.error,
    '--loki-minimum-severity "warning": use one of info, low, medium, high, critical',
  );
});

test("--loki-sources: only those sources (wildcards, case counts), and it cannot be given with a sources filter", () => {
  const rows: Row[] = ["kyverno", "Trivy Vulnerability", "Trivy ConfigAudit", "KyvernoValidatingPolicy"].map(
    (source) => ({ ns: "team-a", policy: "p", source }),
  );
  assert.deepEqual(sentWith({ "loki-sources": ["kyverno,Trivy *"] }, rows), [
    "team-a/p//fail/kyverno",
    "team-a/p//fail/Trivy Vulnerability",
    "team-a/p//fail/Trivy ConfigAudit",
  ]);
  assert.deepEqual(sentWith({ "loki-filter": ["sources.exclude=Trivy*"] }, rows), [
    "team-a/p//fail/kyverno",
    "team-a/p//fail/KyvernoValidatingPolicy",
  ]);
  const both = lokiResultFilter({ "loki-sources": ["kyverno"], "loki-filter": ["sources.include=x"] });
  assert.equal(both.ok ? "" : both.error, "give --loki-sources or --loki-filter sources.*, not both");
});

test("--loki-filter namespaces and policies: include or exclude wildcards", () => {
  const rows: Row[] = [
    { ns: "team-a", policy: "require-team" },
    { ns: "team-b", policy: "require-team" },
    { ns: "kube-system", policy: "require-team" },
    { ns: "team-a", policy: "disallow-latest" },
  ];
  assert.deepEqual(sentWith({ "loki-filter": ["namespaces.include=team-*"] }, rows), [
    "team-a/require-team//fail/kyverno",
    "team-b/require-team//fail/kyverno",
    "team-a/disallow-latest//fail/kyverno",
  ]);
  assert.deepEqual(sentWith({ "loki-filter": ["namespaces.exclude=kube-*,team-?"] }, rows), []);
  assert.deepEqual(
    sentWith({ "loki-filter": ["policies.include=require-*", "namespaces.exclude=kube-system"] }, rows),
    ["team-a/require-team//fail/kyverno", "team-b/require-team//fail/kyverno"],
  );
});

test("--loki-filter severities and status: exact values, case not counted; every filter must pass", () => {
  const rows: Row[] = [
    { ns: "a", policy: "p", severity: "high", status: "fail" },
    { ns: "a", policy: "p", severity: "high", status: "pass" },
    { ns: "a", policy: "p", severity: "low", status: "fail" },
    { ns: "a", policy: "p", severity: "low", status: "warn" },
  ];
  assert.deepEqual(sentWith({ "loki-filter": ["status.include=FAIL,warn"] }, rows), [
    "a/p/high/fail/kyverno",
    "a/p/low/fail/kyverno",
    "a/p/low/warn/kyverno",
  ]);
  assert.deepEqual(sentWith({ "loki-filter": ["status.exclude=pass", "severities.include=low"] }, rows), [
    "a/p/low/fail/kyverno",
    "a/p/low/warn/kyverno",
  ]);
});

test("--loki-filter reportLabels: NAME:VALUE on the report's labels (VALUE a wildcard, * when left out)", () => {
  const rows: Row[] = [{ ns: "a", policy: "p" }];
  const managed = { "app.kubernetes.io/managed-by": "kyverno", team: "shop" };
  assert.equal(sentWith({ "loki-filter": ["reportLabels.include=team:sh*"] }, rows, managed).length, 1);
  assert.equal(sentWith({ "loki-filter": ["reportLabels.include=team:ops"] }, rows, managed).length, 0);
  assert.equal(sentWith({ "loki-filter": ["reportLabels.include=team"] }, rows, managed).length, 1);
  assert.equal(sentWith({ "loki-filter": ["reportLabels.exclude=team"] }, rows, managed).length, 0);
  assert.equal(sentWith({ "loki-filter": ["reportLabels.exclude=team"] }, rows, {}).length, 1);
});

test("a result left out is not remembered; a cluster report's results pass a namespace filter and meet the others", () => {
  const filter = lokiResultFilter({ "loki-minimum-severity": "high", "loki-filter": ["namespaces.include=team-a"] });
  assert.ok(filter.ok);
  const lines: string[] = [];
  const s = new ResultSender({
    push: (_l, e) => lines.push(e.line),
    extraLabels: {},
    now: () => NOW,
    filter: filter.value,
  });
  s.listed(cpolrs, []);
  const cluster = report(
    [
      { ns: "", policy: "p", severity: "low" },
      { ns: "", policy: "q", severity: "critical" },
    ],
    {},
    "",
  );
  s.changed(cpolrs, cluster);
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? "", /^\[CRITICAL\] \/q\//);
  assert.equal(s.remembered, 1);
});

test("malformed --loki-filter values are refused with the flag and the accepted shape", () => {
  const error = (flags: LokiFilterFlags): string => {
    const r = lokiResultFilter(flags);
    return r.ok ? "" : r.error;
  };
  assert.equal(
    error({ "loki-filter": ["kinds.include=Pod"] }),
    '--loki-filter "kinds.include=Pod": use FIELD.include=V1,V2 or FIELD.exclude=V1,V2 with FIELD one of namespaces, policies, sources, severities, status, reportLabels',
  );
  assert.match(error({ "loki-filter": ["namespaces=a"] }), /use FIELD\.include=V1,V2/);
  assert.equal(
    error({ "loki-filter": ["namespaces.include= , "] }),
    '--loki-filter "namespaces.include= , ": give at least one value',
  );
  assert.equal(
    error({ "loki-filter": ["namespaces.include=a", "namespaces.exclude=b"] }),
    "--loki-filter: give namespaces.include or namespaces.exclude, not both (Policy Reporter would ignore the exclude list)",
  );
});
