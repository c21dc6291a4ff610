/**
 * What `kyverno apply` and `kyverno test` do with one resource, in Kyverno's CLI order: every mutate
 * policy in turn, each seeing the resource the previous one patched; then every validate policy on
 * the patched resource; then every generate policy on the resource as given.
 */
import type { Resource } from "../../engine/api/resource.js";
import type { Engine } from "../../engine/engine.js";
import type { ExistingResources } from "../../engine/generate/index.js";
import type { EngineRequest, PolicyResponse } from "../../engine/pipeline/types.js";
import { hasGenerateRules, hasMutateRules, hasValidateRules, type CompiledPolicy } from "../../engine/policy/compiled-policy.js";

export interface Processed {
  readonly responses: readonly PolicyResponse[];
  /** The resource after every mutate policy. */
  readonly patched: Resource;
}

export function processResource(engine: Engine, policies: readonly CompiledPolicy[], resource: Resource, request: (resource: Resource, policy: CompiledPolicy) => EngineRequest, existing: ExistingResources): Processed {
  const responses: PolicyResponse[] = [];
  let current = resource;
  for (const policy of policies) {
    if (!hasMutateRules(policy)) continue;
    const response = engine.mutate(policy, request(current, policy), existing);
    responses.push(response);
    current = response.patchedResource ?? current;
  }
  for (const policy of policies) {
    if (hasValidateRules(policy)) responses.push(engine.validate(policy, request(current, policy)));
  }
  for (const policy of policies) {
    if (hasGenerateRules(policy)) responses.push(engine.generate(policy, request(resource, policy), existing));
  }
  return { responses, patched: current };
}
