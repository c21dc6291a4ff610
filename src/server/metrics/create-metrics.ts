/**
 * Kyverno's Prometheus metrics (spec §10; names, types and labels as its OpenTelemetry exporter
 * exposes them: counters end in `_total`, histograms have `_bucket`, `_sum`, `_count`), recorded
 * into a registry the caller owns. Plus two of Bylaw's own: policy load errors and set health.
 */
import { Counter, Gauge } from "prom-client";
import {
  type CompiledPolicy,
  isObject,
  type JsonObject,
  type JsonValue,
  type PolicyResponse,
  type Rule,
  type RuleResult,
  kyvernoCompiledRules,
} from "../../engine/index.js";
import type { AdmissionOutcome, PolicySnapshot, ResultRuleType, ReviewFacts } from "../types.js";
import { diffPolicies } from "./policy-changes.js";
import { unservedRule } from "../policy-source/unserved-parts.js";
import { policyLabels, ruleType, type PolicyLabels } from "./policy-labels.js";
import { boundLabelValue, LabelValueCap } from "./label-bounds.js";
import { HistogramFamily, KYVERNO_BUCKETS, RenderLane, SeriesBudget } from "./series.js";
import type { BylawMetrics, ContextKind, MetricsOptions } from "./types.js";

const RESULT_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_name",
  "policy_namespace",
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "rule_name",
  "rule_result",
  "rule_type",
  "rule_execution_cause",
  "dry_run",
] as const;
const ADMISSION_LABELS = [
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "request_allowed",
  "request_webhook",
] as const;
const HTTP_LABELS = ["http_method", "http_url"] as const;
const RULE_INFO_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
  "rule_name",
  "rule_type",
  "status_ready",
] as const;
const CHANGE_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
  "policy_change_type",
] as const;

/** Kyverno's `request_webhook` values: the kind of webhook configuration that sent the review. */
const WEBHOOK_CONFIGURATION: Readonly<Record<AdmissionOutcome["webhook"], string>> = {
  mutate: "MutatingWebhookConfiguration",
  validate: "ValidatingWebhookConfiguration",
  policyvalidate: "ValidatingWebhookConfiguration",
};

const MAX_URL_LABEL = 256;
/** Labels whose values come from the request: folded into `_overflow` when a family is full. */
const REQUEST_LABELS = ["resource_kind", "resource_namespace", "http_url"] as const;
/** Default size bound of the series the reviews create; the rest of `/metrics` is small and fixed. */
const DEFAULT_MAX_SERIES_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_NAMESPACES = 200;
const DEFAULT_MAX_KINDS = 100;

export function createMetrics(options: MetricsOptions): BylawMetrics {
  const { registry } = options;
  const { results, reviews, http } = reviewFamilies(options);
  const namespaces = new LabelValueCap(options.maxNamespaces ?? DEFAULT_MAX_NAMESPACES);
  const kinds = new LabelValueCap(options.maxKinds ?? DEFAULT_MAX_KINDS);
  const { ruleInfo, changes, loadErrors, healthy, shed } = policyGauges(registry, options.version);
  const { labelsOf, resultScopeOf } = policyLabelCaches();
  // Per-instance state (nothing module-level).
  const scratch: string[] = ["", "", "", ""];
  /** The scope of the per-request families' cells, and their scratch key lists. */
  const perRequest = {};
  const reviewKeys: string[] = ["", "", "", "", ""];
  const httpKeys: string[] = ["", ""];
  let lastReview: ReviewScope = {
    kind: "",
    namespace: "",
    operation: "",
    dryRun: false,
    kindLabel: "",
    namespaceLabel: "",
    key: "",
  };
  /** Rule-info label sets currently at 1, by a key of their values. */
  let liveRules = new Map<string, Record<string, string>>();
  let last: PolicySnapshot | undefined;

  return {
    admission(o: AdmissionOutcome): void {
      // Keyed by the capped kind and namespace, which map one to one onto the label values.
      const kind = kinds.labelFor(o.kind);
      const namespace = namespaces.labelFor(o.namespace);
      reviewKeys[0] = kind;
      reviewKeys[1] = namespace;
      reviewKeys[2] = o.operation;
      reviewKeys[3] = o.allowed ? "true" : "false";
      reviewKeys[4] = o.webhook;
      if (reviews.observeKeyed(perRequest, reviewKeys, o.durationSeconds)) return;
      const values = [
        kind,
        namespace,
        `${o.operation}`.toLowerCase(),
        o.allowed ? "true" : "false",
        WEBHOOK_CONFIGURATION[o.webhook] ?? o.webhook,
      ];
      reviews.observeNew(perRequest, reviewKeys, values, o.durationSeconds);
    },

    policyResults(review: ReviewFacts, response: PolicyResponse, type: ResultRuleType, secondsEach: number): void {
      lastReview = reviewScope(review, lastReview, kinds, namespaces);
      // One scratch key list for every result: observeKeyed reads it at once.
      const policy = response.policy;
      scratch[0] = lastReview.key;
      scratch[3] = type;
      for (const r of response.rules) {
        scratch[1] = r.rule;
        scratch[2] = r.status;
        if (!results.observeKeyed(policy, scratch, secondsEach))
          results.observeNew(
            policy,
            scratch,
            resultLabelValues(resultScopeOf(policy), lastReview, review, r, type),
            secondsEach,
          );
      }
    },

    policiesLoaded(snapshot: PolicySnapshot, previous?: PolicySnapshot): void {
      healthy.set(1);
      const before = previous ?? last;
      last = snapshot;
      if (before === snapshot) return;
      countChanges(changes, labelsOf, before, snapshot);
      const live = ruleInfoLabels(snapshot, labelsOf, options);
      for (const [key, labels] of liveRules) if (!live.has(key)) ruleInfo.set(labels, 0);
      for (const labels of live.values()) ruleInfo.set(labels, 1);
      liveRules = live;
    },

    policyLoadFailed(): void {
      loadErrors.inc();
      healthy.set(0);
    },

    reviewShed(url: string): void {
      shed.inc({ http_url: urlLabel(url) });
    },

    httpRequest(method: string, url: string, seconds: number): void {
      httpKeys[0] = method;
      httpKeys[1] = urlLabel(url);
      if (!http.observeKeyed(perRequest, httpKeys, seconds))
        http.observeNew(perRequest, httpKeys, [method, httpKeys[1]], seconds);
    },
  };
}

/** The last review's raw kind and namespace, their label values, and the key of the labels it shares with its results. */
interface ReviewScope {
  readonly kind: string;
  readonly namespace: string;
  readonly operation: string;
  readonly dryRun: boolean;
  readonly cause?: "background_scan";
  readonly kindLabel: string;
  readonly namespaceLabel: string;
  readonly key: string;
}

/** The labels a review shares (kind, namespace, operation, dry run), keyed once per review: `last` while they stay the same. */
function reviewScope(
  review: ReviewFacts,
  last: ReviewScope,
  kinds: LabelValueCap,
  namespaces: LabelValueCap,
): ReviewScope {
  if (
    review.kind === last.kind &&
    review.namespace === last.namespace &&
    review.operation === last.operation &&
    review.dryRun === last.dryRun &&
    review.cause === last.cause
  )
    return last;
  const kindLabel = kinds.labelFor(review.kind);
  const namespaceLabel = namespaces.labelFor(review.namespace);
  return {
    kind: review.kind,
    namespace: review.namespace,
    operation: review.operation,
    dryRun: review.dryRun,
    ...(review.cause !== undefined ? { cause: review.cause } : {}),
    kindLabel,
    namespaceLabel,
    key: `${kindLabel}\u001f${namespaceLabel}\u001f${review.operation}\u001f${review.dryRun ? "1" : "0"}\u001f${review.cause ?? ""}`,
  };
}

/** The histogram families of reviews, rule results and HTTP requests, each with its count counter. */
function reviewFamilies(options: MetricsOptions): {
  results: HistogramFamily;
  reviews: HistogramFamily;
  http: HistogramFamily;
} {
  const { registry } = options;
  const buckets = options.buckets ?? KYVERNO_BUCKETS;
  const maxSeries = options.maxSeriesPerMetric ?? 20_000;
  const maxBytes = options.maxSeriesBytes ?? DEFAULT_MAX_SERIES_BYTES;
  // The budget is split so that a flood of rule results cannot starve the per-review families.
  const resultBudget = new SeriesBudget(maxBytes * 0.6);
  const reviewBudget = new SeriesBudget(maxBytes * 0.3);
  const httpBudget = new SeriesBudget(maxBytes * 0.1);

  const onDropped = droppedSeriesCounter(registry);
  const counted = (h: HistogramFamily, name: string, help: string): void => {
    h.countAs(name, help).register(registry);
  };
  const lane = new RenderLane();
  const histogram = (name: string, help: string, labels: readonly string[], budget: SeriesBudget): HistogramFamily =>
    new HistogramFamily(name, help, labels, buckets, maxSeries, onDropped, budget, REQUEST_LABELS, lane).register(
      registry,
    );

  // Each counter below is the observation count of a histogram with the same labels, as Kyverno
  // records both for every event: one lookup per event feeds the pair.
  const results = histogram(
    "kyverno_policy_execution_duration_seconds",
    "Seconds one rule took to evaluate one admission request",
    RESULT_LABELS,
    resultBudget,
  );
  counted(
    results,
    "kyverno_policy_results_total",
    "Rule results (pass, fail, warn, error, skip) by policy, rule and resource",
  );
  const reviews = histogram(
    "kyverno_admission_review_duration_seconds",
    "Seconds one admission review took end to end, all policies included",
    ADMISSION_LABELS,
    reviewBudget,
  );
  counted(
    reviews,
    "kyverno_admission_requests_total",
    "Admission reviews answered, by resource, operation, decision and webhook",
  );
  const http = histogram(
    "kyverno_http_requests_duration_seconds",
    "Seconds one HTTP request took",
    HTTP_LABELS,
    httpBudget,
  );
  counted(http, "kyverno_http_requests_total", "HTTP requests served, by method and path");

  return { results, reviews, http };
}

/** The counter of series that could not be made; returns what a family calls on each drop. */
function droppedSeriesCounter(registry: MetricsOptions["registry"]): (metric: string) => void {
  const dropped = new Counter({
    name: "bylaw_metrics_series_dropped_total",
    help: "New label sets that did not get a series of their own (the metric was at its series or size bound): each was recorded under _overflow request labels, or dropped when that series could not be made either",
    labelNames: ["metric"],
    registers: [registry],
    // Drops are tallied in plain numbers on the hot path (at 300 policies most result observations
    // are drops) and added to the counter when it is scraped.
    collect() {
      for (const [metric, n] of pendingDrops) dropped.inc({ metric }, n);
      pendingDrops.clear();
    },
  });
  const pendingDrops = new Map<string, number>();
  const onDropped = (metric: string): void => {
    pendingDrops.set(metric, (pendingDrops.get(metric) ?? 0) + 1);
  };
  return onDropped;
}

/** The per-policy-set gauges and counters, and Bylaw's own load and shed counters. */
function policyGauges(registry: MetricsOptions["registry"], version: string) {
  const ruleInfo = new Gauge({
    name: "kyverno_policy_rule_info_total",
    help: "1 for each rule of each loaded policy; 0 for a rule that was loaded before and is gone",
    labelNames: RULE_INFO_LABELS,
    registers: [registry],
  });
  const changes = new Counter({
    name: "kyverno_policy_changes_total",
    help: "Policies created, updated (spec changed) and deleted between loaded policy sets",
    labelNames: CHANGE_LABELS,
    registers: [registry],
  });
  const info = new Gauge({
    name: "kyverno_info",
    help: "Always 1; the version label is Bylaw's version",
    labelNames: ["version"],
    registers: [registry],
  });
  info.set({ version }, 1);
  const loadErrors = new Counter({
    name: "bylaw_policy_load_errors_total",
    help: "Policy set loads that were rejected; the last good set stayed in use",
    registers: [registry],
  });
  const healthy = new Gauge({
    name: "bylaw_policy_set_healthy",
    help: "1 when the last policy load succeeded, 0 when it was rejected or nothing has loaded yet",
    registers: [registry],
  });
  healthy.set(0);
  const shed = new Counter({
    name: "bylaw_admission_shed_total",
    help: "Reviews answered 503 without being evaluated, to stay within the in-flight byte budget or the memory limit; the API server applied the webhook's failurePolicy",
    labelNames: ["http_url"],
    registers: [registry],
  });

  return { ruleInfo, changes, loadErrors, healthy, shed };
}

/** Per-policy label values, computed once per compiled policy. */
function policyLabelCaches(): {
  labelsOf: (p: CompiledPolicy) => PolicyLabels;
  resultScopeOf: (policy: CompiledPolicy) => { readonly values: readonly string[] };
} {
  // Per-instance caches and state (nothing module-level).
  const labelsCache = new WeakMap<CompiledPolicy, PolicyLabels>();
  const labelsOf = (p: CompiledPolicy): PolicyLabels => {
    let l = labelsCache.get(p);
    if (l === undefined) {
      const raw = policyLabels(p);
      l = { ...raw, name: boundLabelValue(raw.name), namespace: boundLabelValue(raw.namespace) };
      labelsCache.set(p, l);
    }
    return l;
  };
  /** Per policy, its label values for results: one lookup per result. */
  const resultScopes = new WeakMap<CompiledPolicy, { readonly values: readonly string[] }>();
  const resultScopeOf = (policy: CompiledPolicy): { readonly values: readonly string[] } => {
    let s = resultScopes.get(policy);
    if (s === undefined) {
      const p = labelsOf(policy);
      s = { values: [p.validationMode, p.type, p.background, p.name, p.namespace] };
      resultScopes.set(policy, s);
    }
    return s;
  };
  return { labelsOf, resultScopeOf };
}

/** Counts the policies created, updated and deleted between two sets. */
function countChanges(
  changes: Counter<(typeof CHANGE_LABELS)[number]>,
  labelsOf: (p: CompiledPolicy) => PolicyLabels,
  before: PolicySnapshot | undefined,
  snapshot: PolicySnapshot,
): void {
  for (const c of diffPolicies(before?.policies ?? [], snapshot.policies)) {
    const p = labelsOf(c.policy);
    changes.inc({
      policy_validation_mode: p.validationMode,
      policy_type: p.type,
      policy_background_mode: p.background,
      policy_namespace: p.namespace,
      policy_name: p.name,
      policy_change_type: c.change,
    });
  }
}

/** The rule-info label sets of a policy set, by a key of their values. */
function ruleInfoLabels(
  snapshot: PolicySnapshot,
  labelsOf: (p: CompiledPolicy) => PolicyLabels,
  options: Pick<MetricsOptions, "canLoadContext" | "generateRuns">,
): Map<string, Record<string, string>> {
  const live = new Map<string, Record<string, string>>();
  for (const policy of snapshot.policies) {
    const p = labelsOf(policy);
    for (const row of ruleInfoRows(policy, options)) {
      const labels = {
        policy_validation_mode: p.validationMode,
        policy_type: p.type,
        policy_background_mode: p.background,
        policy_namespace: p.namespace,
        policy_name: p.name,
        rule_name: boundLabelValue(row.name),
        rule_type: row.type,
        status_ready: row.ready ? "true" : "false",
      };
      live.set(Object.values(labels).join("\u001f"), labels);
    }
  }
  return live;
}

/**
 * What a policy's rule-info series are made from: a kyverno.io policy's compiled rules; a
 * ValidatingPolicy's or ValidatingAdmissionPolicy's programs, each as a rule named as its results are
 * (no rule type). Other kinds have none. A rule Bylaw cannot run (a field it does not support, CEL
 * that does not compile, a generate or mutate-existing rule, a context entry or image registry the
 * server cannot read) is loaded but not ready: it answers only errors, or does nothing
 * (unserved-parts.ts).
 */
function ruleInfoRows(
  policy: CompiledPolicy,
  options: Pick<MetricsOptions, "canLoadContext" | "generateRuns">,
): { readonly name: string; readonly type: string; readonly ready: boolean }[] {
  if (policy.language === "cel")
    return policy.validating.programs.map((p) => ({ name: p.resultName, type: "-", ready: p.failure === undefined }));
  return kyvernoCompiledRules(policy).map((rule) => ({
    name: rule.name,
    type: ruleType(rule.rule),
    ready:
      unservedRule(rule, { generate: options.generateRuns?.() === true }).length === 0 &&
      contextLoads(rule.rule, options.canLoadContext),
  }));
}

/** The path alone: a query string would make one series per request. */
function urlLabel(url: string): string {
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  return path.length > MAX_URL_LABEL ? path.slice(0, MAX_URL_LABEL) : path;
}

/** A result's label values. Kyverno labels every result with the policy-level mode (spec.validationFailureAction), not the rule's. */
function resultLabelValues(
  scope: { readonly values: readonly string[] },
  capped: { readonly kindLabel: string; readonly namespaceLabel: string },
  review: ReviewFacts,
  r: RuleResult,
  type: ResultRuleType,
): string[] {
  return [
    ...scope.values,
    capped.kindLabel,
    capped.namespaceLabel,
    `${review.operation}`.toLowerCase(),
    r.rule,
    r.status,
    type,
    review.cause ?? "admission_request",
    review.dryRun ? "true" : "false",
  ];
}

/** Whether every context entry of the rule (and of its foreach lists) is of a kind the server can load. */
function contextLoads(rule: Rule, canLoad: ((kind: ContextKind) => boolean) | undefined): boolean {
  if (canLoad === undefined) return true;
  const loads = (e: Partial<Record<ContextKind, unknown>>): boolean =>
    CONTEXT_KINDS.every((kind) => e[kind] === undefined || canLoad(kind));
  const nested: JsonObject[] = [];
  const walk = (v: JsonValue | undefined): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) {
      const context = v["context"];
      if (Array.isArray(context)) for (const e of context) if (isObject(e)) nested.push(e);
      for (const [k, child] of Object.entries(v)) if (k !== "context") walk(child);
    }
  };
  for (const part of [rule.validate, rule.mutate, rule.generate]) walk((part as JsonObject | undefined)?.["foreach"]);
  // verifyImages reads image registries (signatures, digests) as imageRegistry entries do.
  const registry = (rule.verifyImages ?? []).length === 0 || canLoad("imageRegistry");
  return registry && (rule.context ?? []).every(loads) && nested.every(loads);
}

const CONTEXT_KINDS: readonly ContextKind[] = ["configMap", "apiCall", "imageRegistry", "globalReference"];
