import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import type { RuleResult } from "../../engine/index.js";
import { createMetrics } from "../metrics/index.js";
import { compiled, validatePolicy } from "../../../test/support/metrics-policies.js";
import { scanResults } from "./scan-results.js";

describe("scanResults", () => {
  test("a background scan's results count in kyverno_policy_results_total as background_scan, operation create", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v0.1.0" });
    const policy = compiled(validatePolicy("require-labels", {}));
    const rule = (status: RuleResult["status"]): RuleResult => ({
      rule: "check",
      type: "Validation",
      status,
      message: "m",
    });
    const record = scanResults(metrics);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team-a" } };
    record(pod, [{ policy, resource: pod, rules: [rule("fail")] }], 0.002);
    record(pod, [{ policy, resource: pod, rules: [rule("fail")] }], 0.002);
    // An admission review's result of the same rule stays apart.
    metrics.policyResults(
      { kind: "Pod", namespace: "team-a", operation: "CREATE", dryRun: false },
      { policy, resource: pod, rules: [rule("fail")] },
      "validate",
      0.001,
    );
    const t = await registry.metrics();
    const counts = t.split("\n").filter((l) => l.startsWith("kyverno_policy_results_total{"));
    assert.equal(counts.length, 2, counts.join("\n"));
    const scan = counts.find((l) => l.includes('rule_execution_cause="background_scan"'));
    assert.ok(scan !== undefined, counts.join("\n"));
    assert.match(scan, /resource_kind="Pod",resource_namespace="team-a",resource_request_operation="create"/);
    assert.match(scan, /rule_name="check",rule_result="fail",rule_type="validate"/);
    assert.match(scan, /dry_run="false"\} 2$/);
    assert.ok(counts.some((l) => l.includes('rule_execution_cause="admission_request"') && l.endsWith(" 1")));
  });

  test("a scan with no rule results records nothing", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v0.1.0" });
    const policy = compiled(validatePolicy("require-labels", {}));
    scanResults(metrics)({ kind: "Pod", metadata: { name: "p" } }, [{ policy, resource: {}, rules: [] }], 0.001);
    assert.doesNotMatch(await registry.metrics(), /^kyverno_policy_results_total\{/m);
  });
});
