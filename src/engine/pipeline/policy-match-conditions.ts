/**
 * A kyverno.io policy's `spec.webhookConfiguration.matchConditions`, evaluated before its rules, as
 * Kyverno's engine does (`pkg/engine/internal` `MatchPolicyContext`, through Kubernetes' webhook
 * matchconditions matcher) and as the API server does for the policy's own webhook:
 *
 * - any condition false → the policy does not apply: no result at all (Kyverno's CLI prints none);
 * - otherwise, any condition that cannot be evaluated (an error, a non-bool, `authorizer`) → an
 *   `error` result for each rule the request matches, naming the condition. The API server answers
 *   such a request under the webhook's failurePolicy (Fail refuses it, Ignore skips the webhook);
 *   `bylaw serve` answers an error result the same way (Fail denies, Ignore allows and records it),
 *   and offline the error is shown rather than passed;
 * - all true → the rules run.
 *
 * The variables are Kubernetes' for matchConditions: `object` (null on DELETE), `oldObject` (null
 * unless UPDATE/DELETE) and `request` (the AdmissionRequest; offline, the one Bylaw builds).
 */
import type { JsonObject } from "../api/json.js";
import { celRuleInput } from "../cel/validate-rule/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../cel/types.js";
import { webhookMatchConditions, type CompiledPolicy } from "../policy/compiled-policy.js";
import type { PreparedRequest } from "./prepared-request.js";

type MatchConditionsOutcome =
  | { readonly kind: "match" }
  | { readonly kind: "no-match"; readonly condition: string }
  | { readonly kind: "error"; readonly message: string };

const MATCH: MatchConditionsOutcome = { kind: "match" };
/** The key of a request's CEL values (object, oldObject, request) in its PreparedRequest. */
const INPUT: unique symbol = Symbol("matchConditions input");

export function policyMatchConditions(
  policy: CompiledPolicy,
  request: PreparedRequest,
  base: JsonObject,
): MatchConditionsOutcome {
  const conditions = webhookMatchConditions(policy);
  if (conditions.length === 0) return MATCH;
  const input = request.derived(INPUT, () => celRuleInput(request.request, base));
  const activation = { object: input.object, oldObject: input.oldObject, request: input.request };
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const errors: string[] = [];
  for (const c of conditions) {
    if ("unsupported" in c.program) {
      errors.push(`${c.name}: ${c.program.unsupported}`);
      continue;
    }
    const r = c.program.evaluate(activation, budget);
    if (!r.ok) errors.push(`${c.name}: ${r.error.message}`);
    else if (r.value === false) return { kind: "no-match", condition: c.name };
    else if (r.value !== true) errors.push(`${c.name}: did not evaluate to a bool`);
  }
  if (errors.length === 0) return MATCH;
  return {
    kind: "error",
    message: `spec.webhookConfiguration.matchConditions could not be evaluated (${errors.join("; ")}); the policy's rules were not evaluated`,
  };
}
