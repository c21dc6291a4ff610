import { test } from "node:test";
import assert from "node:assert/strict";
import { countBy, rowsOfReport } from "./report-rows.js";

test("a per-resource report's results take the report's scope; results naming resources take theirs", () => {
  const rows = rowsOfReport("PolicyReport", {
    metadata: { name: "abc", namespace: "shop" },
    scope: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop" },
    results: [
      { policy: "require-team", rule: "team", result: "fail", message: "no team", source: "kyverno" },
      {
        policy: "p2",
        rule: "r",
        result: "pass",
        severity: "high",
        category: "Security",
        resources: [
          { apiVersion: "v1", kind: "ConfigMap", name: "a", namespace: "other" },
          { apiVersion: "v1", kind: "ConfigMap", name: "b" },
        ],
      },
    ],
  });
  assert.deepEqual(
    rows.map((r) => [r.policy, r.result, r.kind, r.namespace, r.name, r.severity, r.report]),
    [
      ["require-team", "fail", "Pod", "shop", "web", "", "PolicyReport shop/abc"],
      ["p2", "pass", "ConfigMap", "other", "a", "high", "PolicyReport shop/abc"],
      ["p2", "pass", "ConfigMap", "shop", "b", "high", "PolicyReport shop/abc"],
    ],
  );
});

test("a cluster report's rows have no namespace; a malformed report gives no row and no throw", () => {
  const rows = rowsOfReport("ClusterPolicyReport", {
    metadata: { name: "n1" },
    scope: { apiVersion: "v1", kind: "Namespace", name: "shop" },
    results: [{ policy: "ns-labels", rule: "r", result: "warn" }],
  });
  assert.deepEqual(
    rows.map((r) => [r.kind, r.namespace, r.name, r.report]),
    [["Namespace", "", "shop", "ClusterPolicyReport n1"]],
  );
  assert.deepEqual(rowsOfReport("PolicyReport", null), []);
  assert.deepEqual(rowsOfReport("PolicyReport", { results: "x" }), []);
  assert.equal(
    rowsOfReport("PolicyReport", { results: [7] })[0]?.policy,
    "",
    "a result that is not an object is kept, blank",
  );
});

test("countBy sorts by failures and errors, then by name", () => {
  const row = (policy: string, result: string) =>
    rowsOfReport("PolicyReport", { scope: { kind: "Pod", name: "x" }, results: [{ policy, result }] })[0]!;
  const groups = countBy(
    [row("b", "pass"), row("a", "pass"), row("c", "fail"), row("c", "error"), row("d", "fail")],
    (r) => r.policy,
  );
  assert.deepEqual(
    groups.map((g) => [g.key, g.counts]),
    [
      ["c", { fail: 1, error: 1 }],
      ["d", { fail: 1 }],
      ["a", { pass: 1 }],
      ["b", { pass: 1 }],
    ],
  );
});

test("a result's timestamp is kept in seconds; a missing, negative or non-numeric one is 0", () => {
  const rows = rowsOfReport("PolicyReport", {
    scope: { kind: "Pod", name: "x" },
    results: [
      { policy: "a", timestamp: { seconds: 1_764_633_600, nanos: 5 } },
      { policy: "b", timestamp: { seconds: "1764633601" } },
      { policy: "c" },
      { policy: "d", timestamp: { seconds: -5 } },
      { policy: "e", timestamp: { seconds: "soon" } },
      { policy: "f", timestamp: "2026-12-02T00:00:00Z" },
    ],
  });
  assert.deepEqual(
    rows.map((r) => r.time),
    [1_764_633_600, 1_764_633_601, 0, 0, 0, 0],
  );
});
