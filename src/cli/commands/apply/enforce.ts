/**
 * `--enforce`: run policies as if they said Enforce. Applied to the documents before they compile,
 * so autogen rules inherit it: `spec.validationFailureAction` becomes Enforce, and so does every
 * rule-level `validate.failureAction` that is set (a rule's own action outranks the spec's).
 * `failureActionOverrides` and `validationFailureActionOverrides` are left alone: an override that
 * names namespaces still decides there, as it would in the cluster.
 */
import { classify, isObject, type JsonObject, type JsonValue } from "../../../engine/index.js";

export function enforceDocument(doc: JsonValue): JsonValue {
  const c = classify(doc);
  if (!isObject(doc) || c.role !== "policy" || c.kind.language !== "kyverno" || !isObject(doc["spec"])) return doc;
  const spec = doc["spec"];
  const rules = Array.isArray(spec["rules"]) ? spec["rules"] : [];
  const hasValidate = rules.some((r) => isObject(r) && isObject(r["validate"]));
  if (!hasValidate && spec["validationFailureAction"] === undefined) return doc;
  const next: JsonObject = { ...spec, validationFailureAction: "Enforce" };
  if (Array.isArray(spec["rules"])) next["rules"] = rules.map(enforceRule);
  return { ...doc, spec: next };
}

function enforceRule(rule: JsonValue): JsonValue {
  if (!isObject(rule) || !isObject(rule["validate"]) || rule["validate"]["failureAction"] === undefined) return rule;
  return { ...rule, validate: { ...rule["validate"], failureAction: "Enforce" } };
}
