/**
 * How a ValidatingPolicy answers a review (Kyverno's vpol admission handler): with Deny, each
 * failed validation is an error `Policy <name> failed: <message>` (an evaluation error
 * `Policy <name> error: <message>`), the errors joined by "; " (Go's multierr) as the denial
 * message; with Warn, the same texts are admission warnings; Audit only records. An evaluation
 * error blocks only under failurePolicy Fail: under Ignore it is answered as allowed.
 * A policies.kyverno.io kind Bylaw serves without evaluating it (MutatingPolicy, ImageValidatingPolicy:
 * policy-source/cel-policy-compile.ts) answers each matched request with an error: denied under
 * Fail, and under Ignore allowed with that error as a warning, so it is never a silent allow.
 * A compiled ValidatingPolicy is recognised by the `validationActions` its head holds (engine kinds/head.ts).
 */
import type { CompiledPolicy, PolicyResponse } from "../../engine/index.js";
import { failurePolicyOf } from "./policy-traits.js";

/** The validationActions of a ValidatingPolicy (its head's); undefined for a kyverno.io policy. */
function celValidationActions(policy: CompiledPolicy): readonly string[] | undefined {
  return policy.validationActions;
}

export function isCelPolicy(policy: CompiledPolicy): boolean {
  return celValidationActions(policy) !== undefined;
}

function texts(response: PolicyResponse): string[] {
  const out: string[] = [];
  for (const r of response.rules) {
    if (r.status === "fail") out.push(`Policy ${response.policy.name} failed: ${r.message}`);
    else if (r.status === "error") out.push(`Policy ${response.policy.name} error: ${r.message}`);
  }
  return out;
}

/** The denial errors of the ValidatingPolicies among `responses` (empty: none blocks). */
export function celDenials(responses: readonly PolicyResponse[]): string[] {
  const out: string[] = [];
  for (const response of responses) {
    const actions = celValidationActions(response.policy);
    if (actions === undefined || !actions.includes("Deny")) continue;
    const ignore = failurePolicyOf(response.policy) === "Ignore";
    for (const r of response.rules) {
      if (r.status === "fail") out.push(`Policy ${response.policy.name} failed: ${r.message}`);
      else if (r.status === "error" && !ignore) out.push(`Policy ${response.policy.name} error: ${r.message}`);
    }
  }
  return out;
}

/**
 * The admission warnings of a ValidatingPolicy's response: its failures and errors when it has the
 * Warn action; the errors of a kind Bylaw does not evaluate when its failurePolicy is Ignore.
 */
export function celWarnings(response: PolicyResponse): string[] {
  const actions = celValidationActions(response.policy);
  if (actions !== undefined && actions.includes("Warn")) return texts(response);
  if (response.policy.language === "unsupported" && failurePolicyOf(response.policy) === "Ignore")
    return texts(response);
  return [];
}
