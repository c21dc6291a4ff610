import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { collectFamilies } from "./collect.js";
import { MONITORED_SOURCES, type MonitoredSource } from "./sources.js";
import { REPORT_LABELS, SIMPLE_REPORT_LABELS, type Family } from "./types.js";

const source = (resource: string): MonitoredSource => {
  const s = MONITORED_SOURCES.find((m) => m.gvr.resource === resource);
  assert.ok(s);
  return s;
};

const polr = (name: string, results: JsonObject[]): JsonObject => ({
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "PolicyReport",
  metadata: { name, namespace: "shop" },
  scope: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop" },
  summary: { pass: 1, fail: results.filter((r) => r["result"] === "fail").length },
  results,
});

const row = (policy: string, result: string): JsonObject => ({
  policy,
  rule: "check",
  result,
  severity: "high",
  category: "Pod Security",
  source: "kyverno",
});

const family = (families: Family[], name: string): Family => {
  const f = families.find((x) => x.name === name);
  assert.ok(f, name);
  return f;
};

test("a PolicyReport's rows are policy_report_result series with Policy Reporter's detailed labels; its summary is policy_report_summary", () => {
  const families = collectFamilies({
    sources: [{ source: source("policyreports"), objects: [polr("uid-1", [row("pss", "fail"), row("team", "pass")])] }],
    labels: REPORT_LABELS,
    maxSeries: 100,
  });
  assert.deepEqual(family(families, "policy_report_result").samples[0], {
    labels: {
      namespace: "shop",
      rule: "check",
      policy: "pss",
      report: "uid-1",
      kind: "Pod",
      name: "web",
      status: "fail",
      severity: "high",
      category: "Pod Security",
      source: "kyverno",
    },
    value: 1,
  });
  assert.deepEqual(
    family(families, "policy_report_summary").samples.map((s) => [s.labels["status"], s.value]),
    [
      ["Pass", 1],
      ["Fail", 1],
      ["Warn", 0],
      ["Error", 0],
      ["Skip", 0],
    ],
  );
});

test("the operator's labels: simple drops per-resource labels and rows sharing them add up; a cluster report has no namespace", () => {
  const families = collectFamilies({
    sources: [
      {
        source: source("policyreports"),
        objects: [polr("a", [row("pss", "fail")]), polr("b", [row("pss", "fail")])],
      },
      {
        source: source("clusterpolicyreports"),
        objects: [{ metadata: { name: "ns-report" }, results: [row("ns", "warn")] }],
      },
    ],
    labels: SIMPLE_REPORT_LABELS,
    maxSeries: 100,
  });
  const results = family(families, "policy_report_result");
  assert.deepEqual(results.labelNames, SIMPLE_REPORT_LABELS);
  assert.equal(results.samples.length, 1);
  assert.equal(results.samples[0]?.value, 2);
  const cluster = family(families, "cluster_policy_report_result");
  assert.equal(cluster.labelNames.includes("namespace"), false);
  assert.equal(cluster.samples[0]?.labels["status"], "warn");
});

test("a flood of reports is capped per family and what was left out is counted", () => {
  const many = Array.from({ length: 50 }, (_, i) => polr(`r${i}`, [row(`p${i}`, "fail")]));
  const families = collectFamilies({
    sources: [{ source: source("policyreports"), objects: many }],
    labels: REPORT_LABELS,
    maxSeries: 10,
  });
  assert.equal(family(families, "policy_report_result").samples.length, 10);
  const dropped = family(families, "bylaw_monitoring_series_dropped").samples;
  assert.equal(dropped.find((s) => s.labels["metric"] === "policy_report_result")?.value, 40);
});

test("trivy reports are counts by severity; a kind that cannot be read is source_up 0, not an empty answer", () => {
  const vuln: JsonObject = {
    metadata: {
      name: "replicaset-coredns",
      namespace: "kube-system",
      labels: {
        "trivy-operator.resource.kind": "ReplicaSet",
        "trivy-operator.resource.name": "coredns-558bd4d5db",
        "trivy-operator.container.name": "coredns",
      },
    },
    report: { summary: { criticalCount: 0, highCount: 12, mediumCount: 6, lowCount: 0, unknownCount: 9 } },
  };
  const families = collectFamilies({
    sources: [
      { source: source("vulnerabilityreports"), objects: [vuln] },
      { source: source("configauditreports"), objects: undefined },
    ],
    labels: REPORT_LABELS,
    maxSeries: 100,
  });
  const high = family(families, "trivy_image_vulnerabilities").samples.find((s) => s.labels["severity"] === "High");
  assert.deepEqual(high, {
    labels: {
      namespace: "kube-system",
      resource_kind: "ReplicaSet",
      resource_name: "coredns-558bd4d5db",
      container_name: "coredns",
      severity: "High",
    },
    value: 12,
  });
  assert.deepEqual(
    family(families, "bylaw_monitoring_source_up").samples.map((s) => [s.labels["resource"], s.value]),
    [
      ["vulnerabilityreports.aquasecurity.github.io", 1],
      ["configauditreports.aquasecurity.github.io", 0],
    ],
  );
});
