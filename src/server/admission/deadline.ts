/**
 * The per-review deadline. Evaluation is synchronous, so the clock is read between policies: once
 * the review has run longer than `deps.deadlineSeconds` (set below the webhook timeout), no further
 * policy starts. The policies left out then decide by their failurePolicy, as an engine error would:
 * if any of them is Fail the request is denied with the message below; if all are Ignore it is
 * allowed on the results so far.
 */
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { RuleType } from "../../engine/api/rule-result.js";
import type { CompiledPolicy } from "../../engine/policy/compiled-policy.js";
import type { Resource } from "../../engine/api/resource.js";
import type { AdmissionDeps } from "../types.js";
import { failurePolicyOf } from "./policy-traits.js";

export interface Deadline {
  readonly start: number;
  /** Seconds since the review started. */
  elapsed(): number;
  passed(): boolean;
}

export function startDeadline(deps: AdmissionDeps): Deadline {
  const start = deps.now();
  return {
    start,
    elapsed: () => deps.now() - start,
    passed: () => deps.now() - start > deps.deadlineSeconds,
  };
}

/** The denial for policies the deadline left out, when one of them is failurePolicy Fail; else undefined. */
export function deadlineDenial(deadlineSeconds: number, left: readonly CompiledPolicy[]): string | undefined {
  const failing = left.filter((p) => failurePolicyOf(p) === "Fail");
  if (failing.length === 0) return undefined;
  const names = failing.map((p) => (p.namespace === "" ? p.name : `${p.namespace}/${p.name}`)).join(", ");
  return `bylaw: admission review exceeded its deadline of ${deadlineSeconds}s before evaluating ${failing.length} ${failing.length === 1 ? "policy" : "policies"} with failurePolicy Fail (${names}); denied`;
}

/** One policy's evaluation; an exception (an engine bug) becomes an error result, never a crash. */
export function evaluateSafely(policy: CompiledPolicy, resource: Resource, type: RuleType, evaluate: () => PolicyResponse): PolicyResponse {
  try {
    return evaluate();
  } catch (e) {
    return evaluationError(policy, resource, type, e);
  }
}

/** The response for a policy whose evaluation threw: one error result naming the policy. */
export function evaluationError(policy: CompiledPolicy, resource: Resource, type: RuleType, e: unknown): PolicyResponse {
  const reason = e instanceof Error ? e.message : String(e);
  return { policy, resource, rules: [{ rule: "evaluation", type, status: "error", message: `bylaw: evaluating policy ${policy.name} failed: ${reason}` }] };
}
