import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import type { JsonObject } from "../../engine/index.js";
import type { LokiEntry } from "../../platform/loki/index.js";
import { ResultSender } from "./result-sender.js";
import { MONITORED_SOURCES, type MonitoredSource } from "./sources.js";

const NOW = Date.parse("2026-11-30T04:00:00Z");

const source = (resource: string): MonitoredSource => {
  const s = MONITORED_SOURCES.find((m) => m.gvr.resource === resource);
  assert.ok(s);
  return s;
};

const polr = (results: JsonObject[]): JsonObject => ({
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "PolicyReport",
  metadata: { name: "uid-1", namespace: "shop" },
  scope: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop", uid: "uid-1" },
  results,
});

const row = (result: string, extra: JsonObject = {}): JsonObject => ({
  policy: "require-team",
  rule: "check-team",
  result,
  severity: "medium",
  category: "Best Practices",
  source: "kyverno",
  message: "validation error: label 'team' is required",
  timestamp: { seconds: NOW / 1000 - 60, nanos: 5_000_000 },
  ...extra,
});

function sender() {
  const sent: { labels: Readonly<Record<string, string>>; entry: LokiEntry }[] = [];
  const s = new ResultSender({
    push: (labels, entry) => sent.push({ labels, entry }),
    extraLabels: {},
    now: () => NOW,
  });
  return { s, sent };
}

test("a new result is one line with Policy Reporter's labels and line; the same result again is not sent again", () => {
  const { s, sent } = sender();
  const polrs = source("policyreports");
  s.listed(polrs, []);
  s.changed(polrs, polr([row("fail")]));
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0]?.labels, {
    status: "fail",
    policy: "require-team",
    createdBy: "policy-reporter",
    rule: "check-team",
    category: "Best Practices",
    severity: "medium",
    source: "kyverno",
    apiVersion: "v1",
    kind: "Pod",
    name: "web",
    namespace: "shop",
  });
  assert.equal(sent[0]?.entry.line, "[MEDIUM] validation error: label 'team' is required");
  assert.equal(sent[0]?.entry.timestampNs, BigInt(NOW - 60_000 + 5) * 1_000_000n);
  // A resync (the same report again, or a relist) sends nothing new.
  s.changed(polrs, polr([row("fail")]));
  s.listed(polrs, [polr([row("fail")])]);
  assert.equal(sent.length, 1);
  // The fix: the fail row becomes pass: the pass line is new, and only it is sent.
  s.changed(polrs, polr([row("pass", { message: "validation rule 'check-team' passed." })]));
  assert.equal(sent.length, 2);
  assert.equal(sent[1]?.labels["status"], "pass");
  assert.equal(s.remembered, 1);
  s.deleted(polrs, polr([]));
  assert.equal(s.remembered, 0);
});

test("results there at the first list are not sent (skipExistingOnStartup); a later relist sends what changed", () => {
  const { s, sent } = sender();
  const polrs = source("policyreports");
  s.listed(polrs, [polr([row("fail")])]);
  assert.equal(sent.length, 0);
  s.listed(polrs, [polr([row("fail"), row("fail", { rule: "other" })])]);
  assert.deepEqual(
    sent.map((x) => x.labels["rule"]),
    ["other"],
  );
});

test("an empty severity is [] in the line and no label; properties are structured metadata; a too-old time is now", () => {
  const { s, sent } = sender();
  const polrs = source("clusterpolicyreports");
  s.listed(polrs, []);
  s.changed(polrs, {
    kind: "ClusterPolicyReport",
    metadata: { name: "ns-shop" },
    scope: { kind: "Namespace", name: "shop" },
    results: [
      {
        policy: "owner",
        result: "fail",
        message: "owner is required",
        properties: { "process.time": "1ms", "a[0]": "x" },
        timestamp: { seconds: 1_700_000_000, nanos: 0 },
      },
    ],
  });
  assert.deepEqual(sent[0]?.labels, { status: "fail", policy: "owner", createdBy: "policy-reporter" });
  assert.equal(sent[0]?.entry.line, "[] owner is required");
  assert.deepEqual(sent[0]?.entry.metadata, { process_time: "1ms", a0: "x" });
  assert.equal(sent[0]?.entry.timestampNs, BigInt(NOW) * 1_000_000n);
});

const fixture = (file: string): JsonObject =>
  load(
    readFileSync(join(process.cwd(), "test", "fixtures", "monitoring", "trivy-operator", "examples", file), "utf8"),
  ) as JsonObject;

test("trivy-operator's example VulnerabilityReport: a line per vulnerability, as the polr adapter maps them", () => {
  const { s, sent } = sender();
  const vulns = source("vulnerabilityreports");
  s.listed(vulns, []);
  s.changed(vulns, fixture("vulnerabilityreport.yaml"));
  // The example lists one vulnerability (its summary counts are for a longer list).
  assert.equal(sent.length, 1);
  const first = sent.find((x) => x.labels["policy"] === "CVE-2021-3121");
  assert.deepEqual(first?.labels, {
    status: "fail",
    policy: "CVE-2021-3121",
    createdBy: "policy-reporter",
    category: "Vulnerability Scan",
    severity: "high",
    source: "Trivy Vulnerability",
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    name: "coredns-558bd4d5db",
    namespace: "kube-system",
  });
  assert.match(first?.entry.line ?? "", /^\[HIGH\] gogo\/protobuf: plugin/);
  assert.equal(first?.entry.metadata?.["resource"], "github.com/gogo/protobuf");
  assert.equal(first?.entry.metadata?.["artifact_repository"], "coredns/coredns");
});

test("trivy-operator's example ConfigAuditReport: one line per check, policy its title and rule its ID", () => {
  const { s, sent } = sender();
  const audits = source("configauditreports");
  s.listed(audits, []);
  s.changed(audits, fixture("pod-configauditreport.yaml"));
  assert.equal(sent.length, 13);
  const ksv001 = sent.find((x) => x.labels["rule"] === "KSV001");
  assert.equal(ksv001?.labels["policy"], "Can elevate its own privileges");
  assert.equal(ksv001?.labels["source"], "Trivy ConfigAudit");
  assert.equal(ksv001?.labels["severity"], "medium");
  assert.match(ksv001?.entry.line ?? "", /^\[MEDIUM\] A program inside the container can elevate/);
  assert.match(ksv001?.entry.metadata?.["1_ message"] ?? "", /allowPrivilegeEscalation/);
});
