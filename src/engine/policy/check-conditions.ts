/** Condition operator names must be Kyverno's exact spellings at policy creation (spec §2.8). */
import { isObject, type JsonValue } from "../api/json.js";
import type { Conditions, Rule } from "../api/policy.js";
import { checkOperatorName } from "../conditions/index.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";

export function checkRuleConditions(rule: Rule, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  if (rule.preconditions !== undefined) out.push(...checkConditions(rule.preconditions, `${path}.preconditions`));
  const deny = rule.validate?.deny?.conditions;
  if (deny !== undefined) out.push(...checkConditions(deny, `${path}.validate.deny.conditions`));
  (rule.validate?.foreach ?? []).forEach((f, i) => {
    if (f.preconditions) out.push(...checkConditions(f.preconditions, `${path}.validate.foreach[${i}].preconditions`));
    if (f.deny?.conditions)
      out.push(...checkConditions(f.deny.conditions, `${path}.validate.foreach[${i}].deny.conditions`));
  });
  return out;
}

function checkConditions(c: Conditions, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  const check = (list: unknown, p: string): void => {
    if (!Array.isArray(list)) {
      out.push(problem(p, "conditions must be a list"));
      return;
    }
    list.forEach((cond: JsonValue, i) => {
      if (!isObject(cond) || typeof cond["operator"] !== "string") {
        // Kyverno's wording (pkg/validation/policy validateConditionValues).
        out.push(problem(`${p}[${i}]`, "entered value of `key`, `value` or `operator` is missing or misspelled"));
        return;
      }
      const msg = checkOperatorName(cond["operator"]);
      if (msg === undefined) return;
      if (cond["operator"] === "In" || cond["operator"] === "NotIn") out.push(warning(`${p}[${i}].operator`, msg));
      else out.push(problem(`${p}[${i}].operator`, msg));
    });
  };
  if (Array.isArray(c)) check(c, path);
  else if (isObject(c)) {
    const ac = c as { any?: unknown; all?: unknown };
    if (ac.any !== undefined) check(ac.any, `${path}.any`);
    if (ac.all !== undefined) check(ac.all, `${path}.all`);
  } else out.push(problem(path, "conditions must be {any, all} or a list"));
  return out;
}
