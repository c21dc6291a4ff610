/**
 * One admission request through every mutate policy, in order, each seeing the resource the
 * previous one patched (Kyverno `pkg/webhooks/resource/handlers.go` `Mutate`), and the net change as one RFC 6902 patch: what the
 * mutating webhook returns. The patch applies to the request's object and gives the patched one.
 */
import { jsonEqual } from "../api/json-equal.js";
import type { Resource } from "../api/resource.js";
import type { ExistingResources } from "../generate/index.js";
import { createJsonPatch, type JsonPatchOp } from "../mutate/json-patch/index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { kyvernoCompiledRules } from "../policy/compiled-policy.js";
import { mutatePolicy } from "./mutate-policy.js";
import { PreparedRequest } from "./prepared-request.js";
import type { EngineEnv, EngineRequest, PolicyResponse } from "./types.js";

export interface MutationResult {
  readonly responses: readonly PolicyResponse[];
  readonly patched: Resource;
  /** The net change, minimal and ordered; empty when nothing changed. */
  readonly patch: readonly JsonPatchOp[];
}

export function mutateRequest(
  policies: readonly CompiledPolicy[],
  request: EngineRequest,
  env: EngineEnv,
  existing?: ExistingResources,
): MutationResult {
  const responses: PolicyResponse[] = [];
  let current = request.resource;
  // Prepared once per object: a policy that patched nothing hands the next one the same preparation.
  let prepared = new PreparedRequest(request);
  for (const policy of policies) {
    // The rules, not the head's phases: the mutating webhook's plan passes policies with their mutate-existing rules left out.
    if (!kyvernoCompiledRules(policy).some((r) => r.rule.mutate !== undefined)) continue;
    prepared = prepared.withResource(current);
    const response = mutatePolicy(policy, prepared, env, existing);
    responses.push(response);
    current = response.patchedResource ?? current;
  }
  const patch = jsonEqual(current, request.resource) ? [] : createJsonPatch(request.resource, current);
  return { responses, patched: current, patch };
}
