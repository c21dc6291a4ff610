/**
 * A failing rule's effective action (Kyverno `pkg/engine/api/engineresponse.go`,
 * `HasEnforcedFailure` and `ruleAction`): rule failureActionOverrides, rule failureAction,
 * spec validationFailureActionOverrides, spec validationFailureAction; default Audit.
 */
import type { FailureAction, FailureActionOverride } from "../api/policy.js";
import type { RuleResult } from "../api/rule-result.js";
import { evaluateSelector } from "../match/index.js";
import {
  kyvernoCompiledRules,
  compiledAction,
  type CompiledPolicy,
  type CompiledRule,
} from "../policy/compiled-policy.js";
import { verifyImagesAction } from "../policy/static-action.js";
import { wildcardMatch } from "../values/wildcard.js";

export function effectiveAction(
  policy: CompiledPolicy,
  ruleName: string,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>> = {},
): "Audit" | "Enforce" {
  const rules = kyvernoCompiledRules(policy);
  let compiled: CompiledRule | undefined;
  for (let i = 0; i < rules.length && compiled === undefined; i++) if (rules[i]?.name === ruleName) compiled = rules[i];
  // Most rules' action is known at compile time (no overrides that depend on the namespace).
  if (compiled?.action !== undefined) return compiled.action;
  // The other languages decide their action at compile time, into their bodies.
  if (policy.language !== "kyverno") return compiledAction(policy) ?? "Audit";
  const v = compiled?.rule.validate;
  const action =
    fromOverrides(v?.failureActionOverrides, namespace, namespaceLabels) ??
    v?.failureAction ??
    (compiled === undefined ? undefined : verifyImagesAction(compiled.rule)) ??
    fromOverrides(policy.document.spec.validationFailureActionOverrides, namespace, namespaceLabels) ??
    policy.document.spec.validationFailureAction ??
    "Audit";
  return action.toLowerCase() === "enforce" ? "Enforce" : "Audit";
}

/** A result's own action if it carries one, else its rule's (`effectiveAction`). */
export function resultAction(
  policy: CompiledPolicy,
  result: RuleResult,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>> = {},
): "Audit" | "Enforce" {
  return result.action ?? effectiveAction(policy, result.rule, namespace, namespaceLabels);
}

function fromOverrides(
  list: readonly FailureActionOverride[] | undefined,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>>,
): FailureAction | undefined {
  return list?.find(
    (o) =>
      (o.namespaces === undefined || o.namespaces.some((p) => wildcardMatch(p, namespace))) &&
      (o.namespaceSelector === undefined || selects(o.namespaceSelector, namespaceLabels)),
  )?.action;
}

function selects(
  selector: NonNullable<FailureActionOverride["namespaceSelector"]>,
  labels: Readonly<Record<string, string>>,
): boolean {
  const r = evaluateSelector(selector, labels);
  return r.ok && r.matched;
}
