/**
 * What `kyverno apply` and `kyverno test` do with one resource, in Kyverno's CLI order: every mutate
 * policy in turn (its verifyImages rules too: signatures, digests, the verify-images annotation),
 * each seeing the resource the previous one patched; then every validate policy on
 * the patched resource; then every generate policy on the resource as given.
 */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  type EngineRequest,
  type AuthzRequest,
  type ExistingResources,
  hasGenerateRules,
  hasImageVerifyRules,
  hasMutateRules,
  hasValidateRules,
  type PolicyExplanation,
  type PolicyResponse,
  type JsonObject,
  type Resource,
  type RuleResult,
  runsOnAuthz,
  runsOnJson,
} from "../engine/index.js";

interface Processed {
  readonly responses: readonly PolicyResponse[];
  /** The resource after every mutate policy. */
  readonly patched: Resource;
}

export function processResource(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  resource: Resource,
  request: (resource: Resource, policy: CompiledPolicy) => EngineRequest,
  existing: ExistingResources,
): Processed {
  const responses: PolicyResponse[] = [];
  let current = resource;
  for (const policy of policies) {
    if (!hasMutateRules(policy) && !hasImageVerifyRules(policy)) continue;
    const response = engine.mutate(policy, request(current, policy), existing);
    responses.push(response);
    current = response.patchedResource ?? current;
  }
  for (const policy of policies) {
    // A DeletingPolicy answers in the validate pass: whether it would delete the resource (kinds/deleting/evaluate.ts).
    if (hasValidateRules(policy) || policy.phases.includes("delete"))
      responses.push(engine.validate(policy, request(current, policy)));
  }
  for (const policy of policies) {
    if (hasGenerateRules(policy)) responses.push(engine.generate(policy, request(resource, policy), existing));
  }
  return { responses, patched: current };
}

/**
 * `--explain`: how each policy's results on the resource came about (engine.explain), for the
 * policies that concern it: a rule gave a result, or one is written for the resource's kind (its
 * match or exclude then says why it did not apply). Each policy is explained on the request its
 * validate rules saw (the resource after every mutate policy).
 */
export function explainProcessed(
  engine: Engine,
  processed: Processed,
  request: (resource: Resource, policy: CompiledPolicy) => EngineRequest,
): PolicyExplanation[] {
  const byPolicy = new Map<CompiledPolicy, RuleResult[]>();
  // What each policy's mutate phase was given (the resource the mutate policies before it patched).
  const mutateInputs = new Map<CompiledPolicy, Resource>();
  for (const response of processed.responses) {
    const results = byPolicy.get(response.policy) ?? [];
    results.push(...response.rules);
    byPolicy.set(response.policy, results);
    if (response.patchedResource !== undefined && !mutateInputs.has(response.policy))
      mutateInputs.set(response.policy, response.resource);
  }
  const out: PolicyExplanation[] = [];
  for (const [policy, results] of byPolicy) {
    const mutateInput = mutateInputs.get(policy);
    const explained = engine.explain(
      policy,
      request(processed.patched, policy),
      results,
      mutateInput !== undefined ? { mutateInput } : {},
    );
    if (results.length > 0 || explained.rules.some((r) => r.match.elsewhere !== true)) out.push(explained);
  }
  return out;
}

/** Every JSON-mode policy on one payload, in policy order. */
export function applyToPayload(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  payload: JsonObject,
  exceptions: readonly AnyCompiledException[],
): PolicyResponse[] {
  return policies
    .filter(runsOnJson)
    .map((p) => engine.validateJson(p, exceptions.length > 0 ? { payload, exceptions } : { payload }));
}

/**
 * Every policy of the request's mode (HTTP or Envoy) on one request, in policy order (Kyverno's
 * AuthzProcessor); each response's resource is empty.
 */
export function applyToAuthzRequest(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  request: AuthzRequest,
): PolicyResponse[] {
  return policies.filter((p) => runsOnAuthz(p, request.mode)).map((p) => engine.validateAuthz(p, request));
}
