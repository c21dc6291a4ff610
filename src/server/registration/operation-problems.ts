/**
 * A policies.kyverno.io policy's `matchConstraints.resourceRules[].operations` (and
 * `excludeResourceRules`) must name operations the API server sends: CREATE, UPDATE, DELETE,
 * CONNECT, or `*` alone (admissionregistration's OperationType; Kyverno's CRDs list no enum, the
 * kyverno.io kinds' do). An unknown value such as `CRAETE` can never match a request: Bylaw would
 * register no webhook rule for it and never evaluate the policy, with no sign of why; Kyverno
 * would write it into its webhook configuration, which the API server then refuses whole. `bylaw
 * serve` refuses the one policy at load instead, naming the field, so its status says why.
 */
import { isObject, problem, type CompiledPolicy, type JsonValue, type PolicyProblem } from "../../engine/index.js";
import { celSpecOf } from "../policy-source/cel-policy-compile.js";

const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

export function operationProblems(policy: CompiledPolicy): PolicyProblem[] {
  const spec = celSpecOf(policy);
  const constraints = spec?.["matchConstraints"];
  if (!isObject(constraints)) return [];
  return ["resourceRules", "excludeResourceRules"].flatMap((list) =>
    rulesProblems(constraints[list], `spec.matchConstraints.${list}`),
  );
}

function rulesProblems(rules: JsonValue | undefined, path: string): PolicyProblem[] {
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule, i) => {
    const ops = isObject(rule) ? rule["operations"] : undefined;
    if (!Array.isArray(ops)) return [];
    const at = `${path}[${i}].operations`;
    const out: PolicyProblem[] = [];
    ops.forEach((op, j) => {
      if (op === "*" || (typeof op === "string" && OPERATIONS.has(op))) return;
      out.push(
        problem(
          `${at}[${j}]`,
          `Unsupported value: ${JSON.stringify(op)}: supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE" (no request ever has it, so the rule would never be registered nor the policy evaluated)`,
        ),
      );
    });
    if (ops.includes("*") && ops.length > 1)
      out.push(
        problem(at, `Invalid value: ${JSON.stringify(ops)}: if '*' is present, must not specify other operations`),
      );
    return out;
  });
}
