/**
 * `spec.webhookConfiguration.matchConditions` of a kyverno.io ClusterPolicy/Policy, compiled once at
 * policy load. Kyverno registers such a policy in its own ("fine-grained") webhook carrying these
 * conditions, so the API server evaluates them, and its engine evaluates them again before the
 * rules (`pkg/engine/internal` `MatchPolicyContext`): a request they do not match gets no result
 * from the policy (pipeline/policy-match-conditions.ts).
 *
 * Checked as Kubernetes checks a webhook's matchConditions (and Kyverno's policy validation,
 * `ValidateCustomWebhookMatchConditions`): at most 64, each with a qualified `name`, unique, and a
 * bool `expression` over `object`, `oldObject` and `request`. A compile error makes the policy
 * invalid, naming the field and the position.
 *
 * `authorizer` is declared by Kubernetes for matchConditions but Bylaw has no authorizer: an
 * expression that reads it compiles to a condition that answers every evaluation with an error
 * naming it (never a silent match or skip).
 */
import { isObject, type JsonValue } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import type { CelEngine, CelProgram } from "../cel/types.js";
import { matchConditionFields } from "../cel/match-condition-fields.js";

const MAX_MATCH_CONDITIONS = 64;

export interface CompiledMatchCondition {
  readonly name: string;
  /** The compiled expression, or the reason it cannot be evaluated by Bylaw (answered as an error). */
  readonly program: CelProgram | { readonly unsupported: string };
}

const FIELD = "spec.webhookConfiguration.matchConditions";

/** The policy's matchConditions, or undefined when it has none; problems are pushed to `problems`. */
export function compileWebhookMatchConditions(
  webhookConfiguration: JsonValue | undefined,
  cel: () => CelEngine,
  problems: PolicyProblem[],
): readonly CompiledMatchCondition[] | undefined {
  if (!isObject(webhookConfiguration)) return undefined;
  const list = webhookConfiguration["matchConditions"];
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) {
    problems.push(problem(FIELD, "must be a list of {name, expression}"));
    return undefined;
  }
  if (list.length === 0) return undefined;
  if (list.length > MAX_MATCH_CONDITIONS)
    problems.push(problem(FIELD, `Too many: ${list.length}: must have at most ${MAX_MATCH_CONDITIONS} items`));
  const names = new Set<string>();
  const out: CompiledMatchCondition[] = [];
  list.forEach((c, i) => {
    const at = `${FIELD}[${i}]`;
    const fields = matchConditionFields(c, at, names, problems);
    if (fields === undefined) return;
    const { name } = fields;
    const expression = fields.expression.trim();
    const compiled = cel().compile(expression, { expectType: "bool" });
    if (compiled.ok) return void out.push({ name, program: compiled.value });
    if (/undeclared reference to 'authorizer'/.test(compiled.error.message)) {
      return void out.push({
        name,
        program: {
          unsupported:
            "it reads `authorizer`, which Bylaw does not provide (no SubjectAccessReview from the engine); the condition was not evaluated",
        },
      });
    }
    problems.push(
      problem(
        `${at}.expression`,
        `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${compiled.error.message}`,
      ),
    );
  });
  return out;
}
