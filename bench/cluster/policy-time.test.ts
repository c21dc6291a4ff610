import assert from "node:assert/strict";
import { test } from "node:test";
import { droppedSeries, policyTime, policyTimeLine } from "./policy-time.js";

const line = (policy: string, type: string, op: string, rule: string, v: number): string =>
  `kyverno_policy_execution_duration_seconds_sum{policy_name="${policy}",resource_request_operation="${op}",rule_name="${rule}",rule_type="${type}"} ${v}`;

test("policyTime: the difference of two scrapes by policy and rule type, one operation only, most first", () => {
  const before = [line("a", "validate", "create", "r1", 1), line("b", "mutate", "create", "r", 0.5)].join("\n");
  const after = [
    line("a", "validate", "create", "r1", 1.25),
    line("a", "validate", "create", "r2", 0.5),
    line("b", "mutate", "create", "r", 0.5),
    line("c", "validate", "update", "r", 9),
    'kyverno_policy_execution_duration_seconds_count{policy_name="a"} 7',
  ].join("\n");
  assert.deepEqual(policyTime(before, after, "create"), [{ policy: "a", ruleType: "validate", seconds: 0.75 }]);
  assert.match(
    policyTimeLine(policyTime(before, after, "create"), 10, 5),
    /75\.00 ms per create over 1 .*a \(validate\) 75\.00 ms/,
  );
});

test("droppedSeries: the policy time metric's dropped label sets between two scrapes; the line says it is partial", () => {
  const dropped = (n: number): string =>
    `bylaw_metrics_series_dropped_total{metric="kyverno_admission_requests_total"} 99\nbylaw_metrics_series_dropped_total{metric="kyverno_policy_execution_duration_seconds"} ${n}`;
  assert.equal(droppedSeries(dropped(3), dropped(10)), 7);
  assert.equal(droppedSeries("", ""), 0);
  assert.match(policyTimeLine([], 1, 3, 7), /PARTIAL: 7 label sets/);
  assert.doesNotMatch(policyTimeLine([], 1, 3, 0), /PARTIAL/);
});
