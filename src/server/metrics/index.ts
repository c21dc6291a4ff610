export { createMetrics } from "./create-metrics.js";
export type { BylawMetrics, MetricsOptions } from "./types.js";
export { KYVERNO_BUCKETS } from "./series.js";
export {
  policyLabels,
  policyValidationMode,
  ruleType,
  type PolicyLabels,
  type RuleType,
  type ValidationMode,
} from "./policy-labels.js";
export { diffPolicies, type PolicyChange, type PolicyChangeType } from "./policy-changes.js";
export { bindPolicySource } from "./bind-policy-source.js";
