/**
 * The fields of one `matchConditions` entry as Kubernetes validates them (a webhook's, a
 * policies.kyverno.io PolicyException's, a kyverno.io policy's `webhookConfiguration`): a required
 * qualified `name`, unique in its list, and a required `expression`. Compiling the expression is
 * the caller's: each list has its own CEL environment.
 */
import { isObject, type JsonValue } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";

/** Kubernetes' qualified name: an optional DNS-subdomain prefix and a name of alphanumerics, '-', '_' and '.'. */
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * The entry at `at` (`spec.matchConditions[2]`): its name and expression, or undefined when it has no
 * expression to compile. Problems go to `problems`; `names` collects the names seen so far.
 */
export function matchConditionFields(c: JsonValue, at: string, names: Set<string>, problems: PolicyProblem[]): { readonly name: string; readonly expression: string } | undefined {
  if (!isObject(c)) {
    problems.push(problem(at, "must be a mapping with name and expression"));
    return undefined;
  }
  const name = typeof c["name"] === "string" ? c["name"] : "";
  if (name === "") problems.push(problem(`${at}.name`, "Required value"));
  else if (!QUALIFIED_NAME.test(name)) problems.push(problem(`${at}.name`, `Invalid value: ${JSON.stringify(name)}: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`));
  else if (names.has(name)) problems.push(problem(`${at}.name`, `Duplicate value: ${JSON.stringify(name)}`));
  names.add(name);
  const expression = typeof c["expression"] === "string" ? c["expression"] : "";
  if (expression.trim() === "") {
    problems.push(problem(`${at}.expression`, "Required value"));
    return undefined;
  }
  return { name, expression };
}
