/**
 * What `serve` holds against a PolicyException beyond its compile: a condition that does not
 * compile or is not bool exactly (its `refusal`). Offline it loads and fails the policies it names,
 * as Kyverno compiles it with them; a server refuses it instead (the policy webhook at `kubectl
 * apply`, a folder or the cluster's copy as an invalid exception): it is never honoured, and no
 * policy it names stops working because of it.
 */
import { type AnyCompiledException, problem, type PolicyProblem } from "../../engine/index.js";

export function exceptionRefusalProblem(exception: AnyCompiledException): PolicyProblem | undefined {
  const refusal = "refusal" in exception ? exception.refusal : undefined;
  if (refusal === undefined) return undefined;
  return problem(refusal.field, `Invalid value: ${JSON.stringify(refusal.expression)}: ${refusal.reason}`);
}
