/**
 * Why a label selector is not one Kubernetes accepts (apimachinery `metav1validation.ValidateLabelSelector`,
 * as the API server checks a webhook's namespaceSelector and objectSelector): `matchLabels` keys are
 * qualified names and values label values; each `matchExpressions` entry has a valid key, an operator
 * of In, NotIn, Exists or DoesNotExist, values for In and NotIn, none for Exists and DoesNotExist, and
 * values that are label values. Kyverno's wildcards in `matchLabels` are its own extension and are not
 * accepted here. Empty when the selector is valid.
 */
import { isObject, type JsonValue } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { labelKeyProblem, labelValueProblem } from "./label-selector.js";

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

export function labelSelectorProblems(selector: JsonValue | undefined, path: string): PolicyProblem[] {
  if (selector === undefined || selector === null) return [];
  if (!isObject(selector)) return [problem(path, "must be a label selector (matchLabels, matchExpressions)")];
  const out: PolicyProblem[] = [];
  const labels = selector["matchLabels"];
  if (isObject(labels)) {
    for (const [k, v] of Object.entries(labels)) {
      const why =
        labelKeyProblem(k) ?? (typeof v === "string" ? labelValueProblem(v) : `label value of "${k}" must be a string`);
      if (why !== undefined) out.push(problem(`${path}.matchLabels`, why));
    }
  }
  const exprs = Array.isArray(selector["matchExpressions"]) ? selector["matchExpressions"] : [];
  exprs.forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const r = isObject(e) ? e : {};
    const operator = typeof r["operator"] === "string" ? r["operator"] : "";
    const values = Array.isArray(r["values"]) ? r["values"] : [];
    if (!OPERATORS.has(operator))
      out.push(problem(`${at}.operator`, `Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`));
    else if ((operator === "In" || operator === "NotIn") && values.length === 0)
      out.push(problem(`${at}.values`, "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((operator === "Exists" || operator === "DoesNotExist") && values.length > 0)
      out.push(
        problem(`${at}.values`, "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
      );
    const key = typeof r["key"] === "string" ? r["key"] : "";
    const keyWhy = labelKeyProblem(key);
    if (keyWhy !== undefined) out.push(problem(`${at}.key`, keyWhy));
    values.forEach((v, j) => {
      const why = typeof v === "string" ? labelValueProblem(v) : "must be a string";
      if (why !== undefined) out.push(problem(`${at}.values[${j}]`, why));
    });
  });
  return out;
}
