/**
 * Whether a rule reads namespace labels: a namespaceSelector in its match or exclude, or in a
 * failure-action override (the rule's, else the policy's), that reads any label but
 * `kubernetes.io/metadata.name`. The API server sets that label on every namespace, so a selector
 * on it alone needs nothing beyond the namespace's name. Decided once when the policy compiles;
 * the webhook uses it to answer `error` for such a rule when a namespace's labels are unknown.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";

const NAME_LABEL = "kubernetes.io/metadata.name";

/** The field path of the first namespaceSelector the rule reads labels through, or undefined. */
export function namespaceLabelsField(policy: PolicyDocument, rule: Rule): string | undefined {
  return (
    selectorNeed(rule.match as JsonValue | undefined, "match") ??
    selectorNeed(rule.exclude as JsonValue | undefined, "exclude") ??
    (rule.validate !== undefined
      ? (overrideNeed(
          rule.validate.failureActionOverrides as JsonValue | undefined,
          "validate.failureActionOverrides",
        ) ??
        overrideNeed(
          policy.spec.validationFailureActionOverrides as JsonValue | undefined,
          "spec.validationFailureActionOverrides",
        ))
      : undefined)
  );
}

function overrideNeed(overrides: JsonValue | undefined, path: string): string | undefined {
  if (!Array.isArray(overrides)) return undefined;
  for (let i = 0; i < overrides.length; i++) {
    const o = overrides[i];
    if (isObject(o) && needsLabels(o["namespaceSelector"])) return `${path}[${i}].namespaceSelector`;
  }
  return undefined;
}

/** The path of the first namespaceSelector under a match/exclude block that reads labels other than the name label. */
function selectorNeed(node: JsonValue | undefined, path: string): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = selectorNeed(node[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === "namespaceSelector") {
      if (needsLabels(value)) return `${path}.namespaceSelector`;
    } else if (typeof value === "object" && value !== null) {
      const found = selectorNeed(value, `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Whether a label selector reads any label but `kubernetes.io/metadata.name`. */
export function needsLabels(selector: JsonValue | undefined): boolean {
  if (!isObject(selector)) return false;
  const labels = selector["matchLabels"];
  if (isObject(labels) && Object.keys(labels).some((k) => k !== NAME_LABEL)) return true;
  const expressions = selector["matchExpressions"];
  return Array.isArray(expressions) && expressions.some((e) => !isObject(e) || e["key"] !== NAME_LABEL);
}
