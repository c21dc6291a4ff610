/**
 * The JSON Patch each mutate rule of a kyverno.io policy made, for an explanation. Rules patch in
 * turn, each seeing what the rules before it made (pipeline/mutate-policy.ts), so the policy's own
 * mutate phase is run with one rule at a time, each on the resource the one before it left, and a
 * rule's patch is the change it made. Runs only for an explanation.
 */
import { jsonEqual } from "../api/json-equal.js";
import type { Resource } from "../api/resource.js";
import { evaluationOf } from "../kinds/evaluation.js";
import { createJsonPatch, type JsonPatchOp } from "../mutate/json-patch/index.js";
import { isMutateExisting } from "../pipeline/mutate-policy.js";
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { EngineEnv } from "../pipeline/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

/** By rule name: the patch the rule made (absent: it made none, or does not patch the request's object). */
export function rulePatches(
  policy: CompiledPolicy,
  request: PreparedRequest,
  env: EngineEnv,
): ReadonlyMap<string, readonly JsonPatchOp[]> {
  const out = new Map<string, readonly JsonPatchOp[]>();
  if (policy.language !== "kyverno") return out;
  const mutating = policy.rules.filter((r) => r.rule.mutate !== undefined && !isMutateExisting(r));
  const evaluation = evaluationOf(policy);
  let before: Resource = request.request.resource;
  for (const rule of mutating) {
    const at = request.withResource(before);
    const response = evaluation.mutate({ ...policy, rules: [rule] }, at, env);
    const after = response.patchedResource ?? before;
    if (!jsonEqual(before, after)) out.set(rule.name, patchBetween(before, after));
    before = after;
    // applyRules: One stops at the first rule that patched.
    if (policy.applyRules === "One" && response.rules.some((r) => r.status === "pass")) break;
  }
  return out;
}

/** The net change from `before` to `after` as a JSON Patch. */
export function patchBetween(before: Resource, after: Resource): readonly JsonPatchOp[] {
  return jsonEqual(before, after) ? [] : createJsonPatch(before, after);
}
