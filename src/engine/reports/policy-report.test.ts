import { test } from "node:test";
import assert from "node:assert/strict";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { buildPolicyReports } from "./policy-report.js";
import { reportResult } from "./report-result.js";
import { reportRows } from "./report-results.js";

function response(o: { scored: boolean; namespace: string; status: "pass" | "fail" }): PolicyResponse {
  const policy = {
    name: "require-team",
    namespace: "",
    scored: o.scored,
    background: true,
    origin: { document: { metadata: { name: "require-team" } } },
  } as unknown as CompiledPolicy;
  const metadata = o.namespace === "" ? { name: "n1" } : { name: "p1", namespace: o.namespace };
  return {
    policy,
    resource: { apiVersion: "v1", kind: o.namespace === "" ? "Namespace" : "Pod", metadata },
    rules: [
      { rule: "check-team", type: "Validation", status: o.status, message: "team label" },
    ] as PolicyResponse["rules"],
  };
}

test("a failed rule of an unscored policy reports warn; every other status as it is", () => {
  assert.equal(reportResult("fail", false), "warn");
  assert.equal(reportResult("fail", true), "fail");
  assert.equal(reportResult("skip", false), "skip");
});

test("one report per namespace, cluster-scoped resources in a ClusterPolicyReport, stamped with the time passed in", () => {
  const reports = buildPolicyReports(
    [
      response({ scored: true, namespace: "team-b", status: "fail" }),
      response({ scored: false, namespace: "team-a", status: "fail" }),
      response({ scored: true, namespace: "", status: "pass" }),
    ],
    1_700_000_000_999,
  );
  assert.deepEqual(
    reports.map((r) => [r["kind"], (r["metadata"] as { namespace?: string }).namespace, r["summary"]]),
    [
      ["ClusterPolicyReport", undefined, { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 }],
      ["PolicyReport", "team-a", { pass: 0, fail: 0, warn: 1, error: 0, skip: 0 }],
      ["PolicyReport", "team-b", { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 }],
    ],
  );
  const [result] = reports[1]?.["results"] as { timestamp: unknown; properties: unknown }[];
  assert.deepEqual(result?.timestamp, { seconds: 1_700_000_000, nanos: 0 });
  assert.deepEqual(result?.properties, { process: "background scan" });
});

test("each row's source names the policy's kind as Kyverno's reports do (pkg/utils/report/source.go)", () => {
  const sourceOf = (kind: string): unknown => {
    const r = response({ scored: true, namespace: "team-a", status: "fail" });
    return reportRows({ ...r, policy: { ...r.policy, kind } as CompiledPolicy }, 0, true)[0]?.["source"];
  };
  assert.deepEqual(
    [
      "ClusterPolicy",
      "Policy",
      "ValidatingPolicy",
      "NamespacedValidatingPolicy",
      "ValidatingAdmissionPolicy",
      "MutatingPolicy",
      "MutatingAdmissionPolicy",
      "ImageValidatingPolicy",
      "GeneratingPolicy",
    ].map(sourceOf),
    [
      "kyverno",
      "kyverno",
      "KyvernoValidatingPolicy",
      "KyvernoValidatingPolicy",
      "ValidatingAdmissionPolicy",
      "KyvernoMutatingPolicy",
      "MutatingAdmissionPolicy",
      "KyvernoImageValidatingPolicy",
      "KyvernoGeneratingPolicy",
    ],
  );
});
