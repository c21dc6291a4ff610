/** Kyverno's metric names, types and label sets (spec §10), recorded into a registry per test. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import type { CompiledPolicy, RuleResult } from "../../engine/index.js";
import type { AdmissionOutcome, ReviewFacts } from "../types.js";
import { createMetrics } from "./create-metrics.js";
import {
  compiled,
  generatePolicy,
  mutatePolicy,
  snapshot,
  validatePolicy,
} from "../../../test/support/metrics-policies.js";

/** A policy's response with these rule results (rule "check", status fail unless given). */
const responseOf = (policy: CompiledPolicy, rules: Partial<RuleResult>[]) => ({
  policy,
  resource: {},
  rules: rules.map((r): RuleResult => ({ rule: "check", type: "Validation", status: "fail", message: "m", ...r })),
});

const outcome = (o: Partial<AdmissionOutcome> = {}): AdmissionOutcome => ({
  uid: "u1",
  webhook: "validate",
  kind: "Pod",
  namespace: "default",
  name: "nginx",
  operation: "CREATE",
  allowed: true,
  dryRun: false,
  durationSeconds: 0.003,
  warnings: 0,
  ...o,
});

function setup(buckets?: number[]) {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v0.1.0", ...(buckets ? { buckets } : {}) });
  return { registry, metrics, text: () => registry.metrics() };
}

const lines = (text: string, prefix: string): string[] => text.split("\n").filter((l) => l.startsWith(prefix));

describe("createMetrics", () => {
  test("kyverno_info{version} is 1 and the policy set starts unhealthy", async () => {
    const { text } = setup();
    const t = await text();
    assert.match(t, /^kyverno_info\{version="v0\.1\.0"\} 1$/m);
    assert.match(t, /^bylaw_policy_set_healthy 0$/m);
    assert.match(t, /^# TYPE kyverno_info gauge$/m);
  });

  test("an admission review counts once and observes its duration in Kyverno's default buckets", async () => {
    const { metrics, text } = setup();
    metrics.admission(outcome());
    const t = await text();
    const labels =
      'resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="true",request_webhook="ValidatingWebhookConfiguration"';
    assert.deepEqual(lines(t, "kyverno_admission_requests_total{"), [`kyverno_admission_requests_total{${labels}} 1`]);
    assert.match(t, /^# TYPE kyverno_admission_requests_total counter$/m);
    assert.match(t, /^# TYPE kyverno_admission_review_duration_seconds histogram$/m);
    const les = lines(t, "kyverno_admission_review_duration_seconds_bucket").map((l) => /le="([^"]+)"/.exec(l)?.[1]);
    assert.deepEqual(les, [
      "0.005",
      "0.01",
      "0.025",
      "0.05",
      "0.1",
      "0.25",
      "0.5",
      "1",
      "2.5",
      "5",
      "10",
      "15",
      "20",
      "25",
      "30",
      "+Inf",
    ]);
    assert.ok(t.includes(`kyverno_admission_review_duration_seconds_bucket{${labels},le="0.005"} 1`));
    assert.ok(t.includes(`kyverno_admission_review_duration_seconds_sum{${labels}} 0.003`));
    assert.ok(t.includes(`kyverno_admission_review_duration_seconds_count{${labels}} 1`));
  });

  test('request_webhook names the webhook configuration kind; denials are request_allowed="false"', async () => {
    const { metrics, text } = setup();
    metrics.admission(outcome({ webhook: "mutate", operation: "UPDATE" }));
    metrics.admission(
      outcome({ webhook: "policyvalidate", kind: "ClusterPolicy", namespace: "", operation: "CREATE" }),
    );
    metrics.admission(outcome({ allowed: false, operation: "DELETE" }));
    metrics.admission(outcome({ allowed: false, operation: "DELETE" }));
    const got = lines(await text(), "kyverno_admission_requests_total{");
    assert.deepEqual(got, [
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="default",resource_request_operation="update",request_allowed="true",request_webhook="MutatingWebhookConfiguration"} 1',
      'kyverno_admission_requests_total{resource_kind="ClusterPolicy",resource_namespace="",resource_request_operation="create",request_allowed="true",request_webhook="ValidatingWebhookConfiguration"} 1',
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="default",resource_request_operation="delete",request_allowed="false",request_webhook="ValidatingWebhookConfiguration"} 2',
    ]);
  });

  test('a rule result carries the 13 labels of kyverno_policy_results_total; a ClusterPolicy\'s namespace is "-"', async () => {
    const { metrics, text } = setup();
    const cluster = compiled(
      validatePolicy("require-labels", { validationFailureAction: "Enforce", background: false }),
    );
    const namespaced = compiled(validatePolicy("team-rule", {}, ["Pod"], "team-a"));
    const review: ReviewFacts = { kind: "Pod", namespace: "default", operation: "CREATE", dryRun: false };
    metrics.policyResults(review, responseOf(cluster, [{ status: "fail" }]), "validate", 0.0004);
    metrics.policyResults(
      { ...review, namespace: "team-a", operation: "UPDATE", dryRun: true },
      responseOf(namespaced, [{ status: "pass" }]),
      "validate",
      0.0004,
    );
    const t = await text();
    assert.deepEqual(lines(t, "kyverno_policy_results_total{"), [
      'kyverno_policy_results_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="false",policy_name="require-labels",policy_namespace="-",resource_kind="Pod",resource_namespace="default",resource_request_operation="create",rule_name="check",rule_result="fail",rule_type="validate",rule_execution_cause="admission_request",dry_run="false"} 1',
      'kyverno_policy_results_total{policy_validation_mode="audit",policy_type="namespaced",policy_background_mode="true",policy_name="team-rule",policy_namespace="team-a",resource_kind="Pod",resource_namespace="team-a",resource_request_operation="update",rule_name="check",rule_result="pass",rule_type="validate",rule_execution_cause="admission_request",dry_run="true"} 1',
    ]);
    assert.equal(lines(t, "kyverno_policy_execution_duration_seconds_count{").length, 2);
    assert.ok(
      t.includes(
        'kyverno_policy_execution_duration_seconds_bucket{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="false",policy_name="require-labels",policy_namespace="-",resource_kind="Pod",resource_namespace="default",resource_request_operation="create",rule_name="check",rule_result="fail",rule_type="validate",rule_execution_cause="admission_request",dry_run="false",le="0.005"} 1',
      ),
    );
  });

  test("each rule result of a response is counted, with its share of the policy's time", async () => {
    const { metrics, text } = setup();
    const policy = compiled(validatePolicy("require-labels", { validationFailureAction: "Enforce" }));
    const review: ReviewFacts = { kind: "Pod", namespace: "default", operation: "CREATE", dryRun: false };
    metrics.policyResults(
      review,
      responseOf(policy, [
        { rule: "a", status: "pass" },
        { rule: "b", status: "fail" },
      ]),
      "validate",
      0.25,
    );
    metrics.policyResults(review, responseOf(policy, [{ rule: "a", status: "pass" }]), "validate", 0.25);
    const t = await text();
    const count = (rule: string, result: string): string | undefined =>
      lines(t, "kyverno_policy_results_total{")
        .find((l) => l.includes(`rule_name="${rule}",rule_result="${result}"`))
        ?.split(" ")
        .pop();
    assert.equal(count("a", "pass"), "2");
    assert.equal(count("b", "fail"), "1");
    assert.ok(
      t.includes(
        'rule_name="a",rule_result="pass",rule_type="validate",rule_execution_cause="admission_request",dry_run="false"} 0.5',
      ),
    );
  });

  test("custom buckets replace the defaults", async () => {
    const { metrics, text } = setup([0.001, 0.002]);
    metrics.admission(outcome());
    const les = lines(await text(), "kyverno_admission_review_duration_seconds_bucket").map(
      (l) => /le="([^"]+)"/.exec(l)?.[1],
    );
    assert.deepEqual(les, ["0.001", "0.002", "+Inf"]);
  });

  test("HTTP requests count by method and path; the query string is dropped", async () => {
    const { metrics, text } = setup();
    metrics.httpRequest("POST", "/validate/fail?timeout=10s", 0.002);
    metrics.httpRequest("POST", "/validate/fail", 0.004);
    metrics.httpRequest("GET", "/health/liveness", 0.0001);
    const t = await text();
    assert.deepEqual(lines(t, "kyverno_http_requests_total{"), [
      'kyverno_http_requests_total{http_method="POST",http_url="/validate/fail"} 2',
      'kyverno_http_requests_total{http_method="GET",http_url="/health/liveness"} 1',
    ]);
    assert.ok(
      t.includes('kyverno_http_requests_duration_seconds_sum{http_method="POST",http_url="/validate/fail"} 0.006'),
    );
  });

  test("two instances on two registries do not share state", async () => {
    const a = setup();
    const b = setup();
    a.metrics.admission(outcome());
    assert.equal(lines(await b.text(), "kyverno_admission_requests_total{").length, 0);
    assert.equal(lines(await a.text(), "kyverno_admission_requests_total{").length, 1);
  });

  test("reviews shed for load are counted by path", async () => {
    const { metrics, text } = setup();
    metrics.reviewShed("/validate/fail");
    metrics.reviewShed("/validate/fail?timeout=10s");
    assert.match(await text(), /^bylaw_admission_shed_total\{http_url="\/validate\/fail"\} 2$/m);
  });

  test("a flood of distinct label sets is capped and the drop is counted (under the histogram that backs the pair)", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v", maxSeriesPerMetric: 3 });
    for (let i = 0; i < 10; i++) metrics.admission(outcome({ kind: `Kind${i}` }));
    const t = await registry.metrics();
    assert.equal(lines(t, "kyverno_admission_requests_total{").length, 3);
    assert.equal(lines(t, "kyverno_admission_review_duration_seconds_count{").length, 3);
    assert.match(t, /^bylaw_metrics_series_dropped_total\{metric="kyverno_admission_review_duration_seconds"\} 7$/m);
  });
});

describe("policy set metrics", () => {
  const ruleInfo = (t: string) => lines(t, "kyverno_policy_rule_info_total{");

  test("every rule of every loaded policy, autogen rules included, has rule info 1", async () => {
    const { metrics, text } = setup();
    metrics.policiesLoaded(
      snapshot([
        compiled(validatePolicy("require-labels", { validationFailureAction: "Enforce" })),
        compiled(mutatePolicy("add-label")),
      ]),
    );
    const t = await text();
    assert.deepEqual(ruleInfo(t), [
      'kyverno_policy_rule_info_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="require-labels",rule_name="check",rule_type="validate",status_ready="true"} 1',
      'kyverno_policy_rule_info_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="require-labels",rule_name="autogen-check",rule_type="validate",status_ready="true"} 1',
      'kyverno_policy_rule_info_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="require-labels",rule_name="autogen-cronjob-check",rule_type="validate",status_ready="true"} 1',
      'kyverno_policy_rule_info_total{policy_validation_mode="audit",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="add-label",rule_name="add",rule_type="mutate",status_ready="true"} 1',
    ]);
    assert.match(t, /^# TYPE kyverno_policy_rule_info_total gauge$/m);
    assert.match(t, /^bylaw_policy_set_healthy 1$/m);
  });

  test("a removed policy's rules flip to 0; a changed label set leaves the old one at 0", async () => {
    const { metrics, text } = setup();
    const first = snapshot(
      [compiled(validatePolicy("keep", {}, ["ConfigMap"])), compiled(validatePolicy("drop", {}, ["ConfigMap"]))],
      1,
    );
    metrics.policiesLoaded(first);
    const second = snapshot(
      [compiled(validatePolicy("keep", { validationFailureAction: "Enforce" }, ["ConfigMap"]))],
      2,
    );
    metrics.policiesLoaded(second, first);
    assert.deepEqual(ruleInfo(await text()), [
      'kyverno_policy_rule_info_total{policy_validation_mode="audit",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="keep",rule_name="check",rule_type="validate",status_ready="true"} 0',
      'kyverno_policy_rule_info_total{policy_validation_mode="audit",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="drop",rule_name="check",rule_type="validate",status_ready="true"} 0',
      'kyverno_policy_rule_info_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="keep",rule_name="check",rule_type="validate",status_ready="true"} 1',
    ]);
  });

  test("kyverno_policy_changes_total counts created, updated and deleted policies", async () => {
    const { metrics, text } = setup();
    const a1 = compiled(validatePolicy("a", {}, ["ConfigMap"]));
    const b1 = compiled(validatePolicy("b", {}, ["ConfigMap"], "team"));
    const g1 = compiled(generatePolicy("g"));
    const s1 = snapshot([a1, b1, g1], 1);
    metrics.policiesLoaded(s1);
    // a: spec changed (kinds); b: unchanged; g: deleted; c: created.
    const s2 = snapshot(
      [
        compiled(validatePolicy("a", {}, ["Secret"])),
        compiled(validatePolicy("b", {}, ["ConfigMap"], "team")),
        compiled(validatePolicy("c", {}, ["ConfigMap"])),
      ],
      2,
    );
    metrics.policiesLoaded(s2, s1);
    const got = lines(await text(), "kyverno_policy_changes_total{");
    const base = (name: string, ns = "-", type = "cluster") =>
      `policy_validation_mode="audit",policy_type="${type}",policy_background_mode="true",policy_namespace="${ns}",policy_name="${name}"`;
    assert.deepEqual(got, [
      `kyverno_policy_changes_total{${base("a")},policy_change_type="created"} 1`,
      `kyverno_policy_changes_total{${base("b", "team", "namespaced")},policy_change_type="created"} 1`,
      `kyverno_policy_changes_total{${base("g")},policy_change_type="created"} 1`,
      `kyverno_policy_changes_total{${base("a")},policy_change_type="updated"} 1`,
      `kyverno_policy_changes_total{${base("c")},policy_change_type="created"} 1`,
      `kyverno_policy_changes_total{${base("g")},policy_change_type="deleted"} 1`,
    ]);
  });

  test("without `previous`, the last snapshot seen is the baseline; the same snapshot twice counts nothing", async () => {
    const { metrics, text } = setup();
    const s1 = snapshot([compiled(validatePolicy("a", {}, ["ConfigMap"]))], 1);
    metrics.policiesLoaded(s1);
    metrics.policiesLoaded(s1);
    metrics.policiesLoaded(snapshot([], 2));
    const got = lines(await text(), "kyverno_policy_changes_total{").map((l) =>
      /policy_change_type="(\w+)"\} (\d+)/.exec(l)?.slice(1).join("="),
    );
    assert.deepEqual(got, ["created=1", "deleted=1"]);
    assert.deepEqual(
      ruleInfo(await text()).map((l) => l.slice(-2)),
      [" 0"],
    );
  });

  test("a rejected load counts an error and marks the set unhealthy until the next good load", async () => {
    const { metrics, text } = setup();
    metrics.policiesLoaded(snapshot([], 1));
    metrics.policyLoadFailed();
    metrics.policyLoadFailed();
    let t = await text();
    assert.match(t, /^bylaw_policy_load_errors_total 2$/m);
    assert.match(t, /^bylaw_policy_set_healthy 0$/m);
    metrics.policiesLoaded(snapshot([], 2));
    t = await text();
    assert.match(t, /^bylaw_policy_set_healthy 1$/m);
    assert.match(t, /^bylaw_policy_load_errors_total 2$/m);
  });
});
