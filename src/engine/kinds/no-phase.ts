/**
 * The answer of a kind that takes no part in a phase (a ValidatingPolicy asked to mutate): no
 * results, the resource unchanged, as the pipeline answers a policy without rules of that phase.
 */
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { PolicyResponse } from "../pipeline/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

const NO_RESULTS = Object.freeze([]);

export function noMutation(policy: CompiledPolicy, request: PreparedRequest): PolicyResponse {
  const resource = request.request.resource;
  return {
    policy,
    resource: request.operation === "DELETE" ? request.subject : resource,
    rules: NO_RESULTS,
    patchedResource: resource,
  };
}

export function noGeneration(policy: CompiledPolicy, request: PreparedRequest): PolicyResponse {
  return {
    policy,
    resource: request.operation === "DELETE" ? request.subject : request.request.resource,
    rules: NO_RESULTS,
  };
}
