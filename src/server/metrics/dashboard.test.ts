/**
 * Kyverno's Grafana dashboard ("Kyverno Metrics", charts/kyverno/charts/grafana/dashboard) must
 * light up on Bylaw's /metrics: for every query of its classic rows, a series exists with the
 * metric name, the label values it filters on, and the labels it groups by. (`cluster` is a
 * Prometheus external label, not exported by Kyverno; the background-scan and CEL panels have no
 * webhook counterpart and are listed in the report instead.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import type { CompiledPolicy, RuleResult } from "../../engine/index.js";
import { createMetrics } from "./create-metrics.js";
import {
  compiled,
  generatePolicy,
  mutatePolicy,
  snapshot,
  validatePolicy,
} from "../../../test/support/metrics-policies.js";
import { parseExposition, type Series } from "../../../test/support/exposition.js";

type Filter = Readonly<Record<string, string | { readonly not: string }>>;
interface Query {
  readonly panel: string;
  readonly metric: string;
  readonly where?: Filter;
  readonly by?: readonly string[];
  /** The panel counts series `==1` (rule info). */
  readonly one?: boolean;
}

const RESULTS = "kyverno_policy_results_total";
const INFO = "kyverno_policy_rule_info_total";
const EXEC = "kyverno_policy_execution_duration_seconds";
const REVIEW = "kyverno_admission_review_duration_seconds";
const REQUESTS = "kyverno_admission_requests_total";
const CHANGES = "kyverno_policy_changes_total";

const queries: Query[] = [
  { panel: "Rule Execution Failure Rate (24h)", metric: RESULTS, where: { rule_result: "fail" } },
  { panel: "Rule Execution Failure Rate (24h), denominator", metric: RESULTS },
  { panel: "Cluster Policies", metric: INFO, where: { policy_type: "cluster" }, by: ["policy_name"], one: true },
  { panel: "Policies", metric: INFO, where: { policy_type: "namespaced" }, by: ["policy_name"], one: true },
  {
    panel: "Background Scans Failure Rate (24h)",
    metric: RESULTS,
    where: { rule_result: "fail", policy_background_mode: "true" },
  },
  { panel: "Validate Rules", metric: INFO, where: { rule_type: "validate" }, by: ["rule_name"], one: true },
  { panel: "Mutate Rules", metric: INFO, where: { rule_type: "mutate" }, by: ["rule_name"], one: true },
  { panel: "Generate Rules", metric: INFO, where: { rule_type: "generate" }, by: ["rule_name"], one: true },
  {
    panel: "Admission Review Results (per-rule)",
    metric: RESULTS,
    where: { rule_execution_cause: "admission_request" },
    by: ["rule_result"],
  },
  { panel: "Policy Failures", metric: RESULTS, where: { rule_result: "fail" }, by: ["policy_name", "policy_type"] },
  {
    panel: "Admission Review Results (per-policy)",
    metric: RESULTS,
    where: { rule_execution_cause: "admission_request" },
    by: ["policy_name", "rule_result"],
  },
  { panel: "Active Policies (by policy type)", metric: INFO, by: ["policy_name", "policy_type"], one: true },
  {
    panel: "Active Policies (by policy validation action)",
    metric: INFO,
    by: ["policy_name", "policy_validation_mode"],
    one: true,
  },
  {
    panel: "Active Policies running in background mode",
    metric: INFO,
    where: { policy_background_mode: "true" },
    by: ["policy_name", "policy_type"],
    one: true,
  },
  {
    panel: "Active Namespaced Policies (by namespaces)",
    metric: INFO,
    where: { policy_namespace: { not: "-" } },
    by: ["policy_name", "policy_namespace"],
    one: true,
  },
  { panel: "Active Rules (by rule type)", metric: INFO, by: ["rule_type", "rule_name"], one: true },
  { panel: "Average Rule Execution Latency Over Time (sum)", metric: `${EXEC}_sum`, by: ["rule_type"] },
  { panel: "Average Rule Execution Latency Over Time (count)", metric: `${EXEC}_count`, by: ["rule_type"] },
  { panel: "Average Policy Execution Latency Over Time (sum)", metric: `${EXEC}_sum`, by: ["policy_type"] },
  { panel: "Average Policy Execution Latency Over Time (count)", metric: `${EXEC}_count`, by: ["policy_type"] },
  { panel: "Overall Average Policy Execution Latency", metric: `${EXEC}_count`, by: ["policy_name", "policy_type"] },
  {
    panel: "Avg - Admission Review Duration (by operation)",
    metric: `${REVIEW}_sum`,
    by: ["resource_request_operation"],
  },
  {
    panel: "Avg - Admission Review Duration (by operation), count",
    metric: `${REVIEW}_count`,
    by: ["resource_request_operation"],
  },
  { panel: "Avg - Admission Review Duration (by resource kind)", metric: `${REVIEW}_sum`, by: ["resource_kind"] },
  { panel: "Avg - Overall Admission Review Duration", metric: `${REVIEW}_count` },
  { panel: "Rate - Incoming Admission Requests", metric: REQUESTS },
  { panel: "Policy Changes Over Time (by change type)", metric: CHANGES, by: ["policy_change_type"] },
  { panel: "Policy Changes Over Time (by policy type)", metric: CHANGES, by: ["policy_type"] },
  { panel: "Admission Requests (by operation)", metric: REQUESTS, by: ["resource_request_operation"] },
  { panel: "Admission Requests (by resource kind)", metric: REQUESTS, by: ["resource_kind"] },
];

async function workload(): Promise<Series[]> {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "test" });
  const cluster = compiled(validatePolicy("require-labels", { validationFailureAction: "Enforce" }));
  const namespaced = compiled(validatePolicy("team-labels", {}, ["ConfigMap"], "team-a"));
  metrics.policiesLoaded(
    snapshot([cluster, namespaced, compiled(mutatePolicy("add-labels")), compiled(generatePolicy("make-config"))]),
  );
  const response = (policy: CompiledPolicy, status: RuleResult["status"]) => ({
    policy,
    resource: {},
    rules: [{ rule: "check", type: "Validation" as const, status, message: "m" }],
  });
  metrics.policyResults(
    { kind: "Pod", namespace: "default", operation: "CREATE", dryRun: false },
    response(cluster, "fail"),
    "validate",
    0.001,
  );
  metrics.policyResults(
    { kind: "ConfigMap", namespace: "team-a", operation: "CREATE", dryRun: false },
    response(namespaced, "pass"),
    "validate",
    0.001,
  );
  metrics.admission({
    uid: "1",
    webhook: "validate",
    kind: "Pod",
    namespace: "default",
    name: "p",
    operation: "CREATE",
    allowed: false,
    dryRun: false,
    durationSeconds: 0.002,
    warnings: 0,
  });
  metrics.admission({
    uid: "2",
    webhook: "mutate",
    kind: "ConfigMap",
    namespace: "team-a",
    name: "c",
    operation: "UPDATE",
    allowed: true,
    dryRun: false,
    durationSeconds: 0.001,
    patchOps: 1,
    warnings: 0,
  });
  return parseExposition(await registry.metrics());
}

function matches(s: Series, q: Query): boolean {
  if (s.name !== q.metric) return false;
  if (q.one === true && s.value !== 1) return false;
  for (const [label, want] of Object.entries(q.where ?? {})) {
    const got = s.labels[label];
    if (typeof want === "string" ? got !== want : got === undefined || got === want.not) return false;
  }
  return (q.by ?? []).every((l) => s.labels[l] !== undefined && s.labels[l] !== "");
}

test("every classic dashboard query finds a series with its filters and grouping labels", async () => {
  const series = await workload();
  const missing = queries.filter((q) => !series.some((s) => matches(s, q))).map((q) => q.panel);
  assert.deepEqual(missing, []);
});

test("the dashboard's rule-type panels see validate, mutate and generate separately", async () => {
  const series = await workload();
  const types = new Set(series.filter((s) => s.name === INFO && s.value === 1).map((s) => s.labels["rule_type"]));
  assert.deepEqual([...types].sort(), ["generate", "mutate", "validate"]);
});
