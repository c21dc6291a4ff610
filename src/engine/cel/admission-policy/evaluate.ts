/**
 * One ValidatingAdmissionPolicy against one request, as Kyverno 1.19's CLI evaluates it offline
 * (pkg/admissionpolicy `Validate`, `processVAPNoBindings`, `processVAPWithoutClient`,
 * `validateResource`; the differences from the API server are in docs/vap-cli-vs-api-server.md):
 * - no binding names the policy: the policy's matchConstraints decide whether it applies (no
 *   result when not) and it runs once, with `params` null;
 * - bindings name it: the policy's matchConstraints are not consulted. Each binding in turn whose
 *   matchResources match (a binding without them matches every resource) runs the policy with the
 *   params its paramRef selects (params/binding-params.ts), and the LAST such binding's outcome is
 *   the policy's one result; no binding matches: no result.
 * A match Bylaw cannot decide is an error. Each run is run-once.ts. When a test gave clusterResources,
 * Kyverno's CLI takes its cluster path instead (`processVAPWithClient`): with-cluster.ts.
 */
import type { RuleResult } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelServices } from "../kyverno/index.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import type { CompiledAdmissionPolicy, CompiledBinding } from "./compiled.js";
import { selectBindingParams } from "../params/index.js";
import { evaluateOnce, resultOf, type Outcome } from "./run-once.js";
import { evaluateWithCluster } from "./with-cluster.js";

export function evaluateAdmissionPolicy(
  ap: CompiledAdmissionPolicy,
  req: MatchRequest,
  input: CelRuleInput,
  services: CelServices,
): RuleResult | undefined {
  if (ap.bindings.length === 0) {
    const verdict = ap.body.constraints.decide(req);
    if (verdict.kind === "no-match") return undefined;
    if (verdict.kind === "error") return resultOf(ap, undefined, { status: "error", message: verdict.message });
    return resultOf(ap, undefined, evaluateOnce(ap.body, input, null, services));
  }
  if (services.ports.context.clusterGiven === true) return evaluateWithCluster(ap, req, input, services);
  let last: RuleResult | undefined;
  for (const binding of ap.bindings) {
    const verdict = binding.constraints?.decide(req);
    if (verdict?.kind === "no-match") continue;
    // Kyverno's CLI would go on to the next binding; Bylaw cannot tell whether this one applies, so it answers, never drops it.
    if (verdict?.kind === "error")
      return resultOf(ap, binding, { status: "error", message: `binding ${binding.name}: ${verdict.message}` });
    last = resultOf(ap, binding, evaluateBinding(ap, binding, input, services));
  }
  return last;
}

function evaluateBinding(
  ap: CompiledAdmissionPolicy,
  binding: CompiledBinding,
  input: CelRuleInput,
  services: CelServices,
): Outcome {
  if (binding.paramRef === undefined) return evaluateOnce(ap.body, input, null, services);
  const listed = services.ports.context.paramObjects?.();
  if (listed !== undefined && !listed.ok)
    return { status: "error", message: `binding ${binding.name}: parameter objects: ${listed.error.message}` };
  const chosen = selectBindingParams(binding.paramRef, listed?.value ?? []);
  if (!chosen.ok) return { status: "error", message: `binding ${binding.name}: ${chosen.message}` };
  return evaluateOnce(ap.body, input, chosen.params, services);
}
