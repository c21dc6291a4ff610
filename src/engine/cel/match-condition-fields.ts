/**
 * The fields of one `matchConditions` entry as Kubernetes validates them (a webhook's, a
 * policies.kyverno.io PolicyException's, a kyverno.io policy's `webhookConfiguration`): a required
 * qualified `name`, unique in its list, and a required `expression`. Compiling the expression is
 * the caller's: each list has its own CEL environment.
 */
import { isObject, type JsonValue } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { qualifiedName } from "./libraries/name-validation.js";

/**
 * The entry at `at` (`spec.matchConditions[2]`): its name and expression, or undefined when it has no
 * expression to compile. Problems go to `problems`; `names` collects the names seen so far.
 */
export function matchConditionFields(
  c: JsonValue,
  at: string,
  names: Set<string>,
  problems: PolicyProblem[],
): { readonly name: string; readonly expression: string } | undefined {
  if (!isObject(c)) {
    problems.push(problem(at, "must be a mapping with name and expression"));
    return undefined;
  }
  const name = typeof c["name"] === "string" ? c["name"] : "";
  if (name === "") problems.push(problem(`${at}.name`, "Required value"));
  // Kubernetes' qualified name (apimachinery IsQualifiedName): a name part of at most 63 alphanumerics,
  // '-', '_' and '.', after an optional DNS-subdomain prefix (at most 253) and '/'.
  else if (qualifiedName(name).length > 0)
    problems.push(problem(`${at}.name`, `Invalid value: ${JSON.stringify(name)}: ${qualifiedName(name).join("; ")}`));
  else if (names.has(name)) problems.push(problem(`${at}.name`, `Duplicate value: ${JSON.stringify(name)}`));
  names.add(name);
  const expression = typeof c["expression"] === "string" ? c["expression"] : "";
  if (expression.trim() === "") {
    problems.push(problem(`${at}.expression`, "Required value"));
    return undefined;
  }
  return { name, expression };
}
