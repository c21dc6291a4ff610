/**
 * A per-resource report's rows in Kyverno 1.19's order (`SortReportResults`): policy, then rule,
 * then source, compared as Go compares strings, never by locale.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { ruleResult } from "../api/rule-result.js";
import { createEngine } from "../engine.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { buildResourceReport } from "./resource-report.js";

const engine = createEngine(fakePorts());

const pod: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "shop", uid: "u-1" },
  spec: { containers: [{ name: "app", image: "nginx" }] },
};

function response(name: string, rules: readonly string[]): PolicyResponse {
  const compiled = engine.compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      background: true,
      rules: rules.map((rule) => ({
        name: rule,
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "m", pattern: { metadata: { name: "?*" } } },
      })),
    },
  });
  assert.ok(compiled.ok, JSON.stringify(compiled));
  return { policy: compiled.policy, resource: pod, rules: rules.map((r) => ruleResult(r, "Validation", "pass", "ok")) };
}

test("rows are ordered by policy, then rule, by code unit as Kyverno sorts them: a name before the longer one it begins, upper case before lower", () => {
  const report = buildResourceReport(
    pod,
    [
      response("disallow-capabilities-strict", ["require-drop-all", "adding-capabilities-strict"]),
      response("disallow-capabilities", ["adding-capabilities"]),
      response("restrict-seccomp", ["check-seccomp", "Check-Seccomp"]),
    ],
    1_000_000,
  );
  const rows = (report?.["results"] as JsonObject[]).map((r) => `${r["policy"] as string}/${r["rule"] as string}`);
  assert.deepEqual(rows, [
    "disallow-capabilities/adding-capabilities",
    "disallow-capabilities-strict/adding-capabilities-strict",
    "disallow-capabilities-strict/require-drop-all",
    "restrict-seccomp/Check-Seccomp",
    "restrict-seccomp/check-seccomp",
  ]);
});

test("a row's fields come in Kyverno's order, the timestamp last, and a kept row of a rule no fresh row covers stays (sorted in)", () => {
  const fresh = response("restrict-seccomp", ["check-seccomp"]);
  const withMeta = { ...fresh, policy: { ...fresh.policy, severity: "medium", category: "Pod Security" } };
  const kept = [
    { policy: "restrict-seccomp", rule: "check-seccomp", result: "fail", source: "kyverno" },
    { policy: "audit-only", rule: "r", result: "warn", source: "kyverno" },
  ];
  const report = buildResourceReport(pod, [withMeta], 1_000_000, kept);
  const rows = report?.["results"] as JsonObject[];
  // The digest written with a report is of its rows' JSON: the key order is part of what it says.
  assert.deepEqual(Object.keys(rows[1] ?? {}), [
    "source",
    "policy",
    "rule",
    "result",
    "message",
    "scored",
    "severity",
    "category",
    "properties",
    "timestamp",
  ]);
  assert.deepEqual(
    rows.map((r) => `${r["policy"] as string}/${r["rule"] as string}: ${r["result"] as string}`),
    ["audit-only/r: warn", "restrict-seccomp/check-seccomp: pass"],
  );
  assert.deepEqual(rows[1]?.["timestamp"], { seconds: 1000, nanos: 0 });
});
