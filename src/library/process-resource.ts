/**
 * What `kyverno apply` and `kyverno test` do with one resource, in Kyverno's CLI order (the engine's
 * cliStages per kind, kinds/types.ts): kyverno.io mutate, kyverno.io verifyImages (signatures,
 * digests, the verify-images annotation; after every policy's mutate rules, each policy's its own
 * response), kyverno.io validate, MutatingAdmissionPolicy,
 * MutatingPolicy, ValidatingAdmissionPolicy, ValidatingPolicy, GeneratingPolicy, kyverno.io
 * generate; each stage's policies in policy order, each seeing the resource every mutation before it
 * made (so a kyverno.io validate rule sees no MutatingPolicy's patch, a ValidatingPolicy and
 * either generate stage see them all).
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
  mutationPassOf,
  type PolicyExplanation,
  type PolicyResponse,
  type PreparedRequest,
  type JsonObject,
  type Resource,
  type RuleResult,
  runsOnAuthz,
  runsOnJson,
} from "../engine/index.js";

interface Processed {
  /** The responses of the resource's stages, in Kyverno's CLI order. */
  readonly responses: readonly PolicyResponse[];
  /**
   * The responses of the kinds Kyverno's CLI runs apart from the stages (cliStages `apart`:
   * ImageValidatingPolicies, then DeletingPolicies), on the resource as given, validate only.
   * `test` lists them after the resource's others, `apply` after every resource's.
   */
  readonly apart: readonly PolicyResponse[];
  /** The resource after every mutation. */
  readonly patched: Resource;
  /** What each policy's validate pass was given (its stage's resource: a kyverno.io validate rule sees no MutatingPolicy's patch). */
  readonly validateInputs: ReadonlyMap<CompiledPolicy, Resource>;
}

type Pass = "mutate" | "verifyImages" | "validate" | "generate";

interface Step {
  readonly stage: number;
  readonly pass: Pass;
  readonly policy: CompiledPolicy;
}

/** Every (policy, pass) the policies take part in, in stage order (stable: policy order within one). */
function stepsOf(policies: readonly CompiledPolicy[]): Step[] {
  const steps: Step[] = [];
  for (const pass of ["mutate", "verifyImages", "validate", "generate"] as const)
    for (const policy of policies) {
      if (apartRank(policy) === undefined && takesPart(policy, pass))
        steps.push({ stage: policy.origin.kind.cliStages[pass], pass, policy });
    }
  return steps.sort((a, b) => a.stage - b.stage);
}

/** Where Kyverno's CLI runs the policy apart from the stages (kinds/types.ts CliStages `apart`); undefined when it does not. */
export function apartRank(policy: CompiledPolicy): number | undefined {
  return policy.origin.kind.cliStages.apart;
}

/** The policies run apart, in rank order (stable: policy order within a rank). */
function apartOf(policies: readonly CompiledPolicy[]): CompiledPolicy[] {
  return policies
    .filter((p) => apartRank(p) !== undefined && takesPart(p, "validate"))
    .sort((a, b) => (apartRank(a) ?? 0) - (apartRank(b) ?? 0));
}

/** Whether the compiled policy has the pass's rules (a kyverno.io policy may have some passes only). */
function takesPart(policy: CompiledPolicy, pass: Pass): boolean {
  if (pass === "mutate") return hasMutateRules(policy);
  if (pass === "verifyImages") return hasImageVerifyRules(policy);
  // A DeletingPolicy answers in the validate pass: whether it would delete the resource (kinds/deleting/evaluate.ts).
  if (pass === "validate") return hasValidateRules(policy) || policy.phases.includes("delete");
  return hasGenerateRules(policy);
}

export function processResource(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  resource: Resource,
  request: (resource: Resource, policy: CompiledPolicy) => EngineRequest,
  existing: ExistingResources,
): Processed {
  const input = preparedOnce(engine, request);
  const responses: PolicyResponse[] = [];
  // Listed after all the others (Kyverno's CLI appends ValidatingAdmissionPolicies' responses last).
  const last: PolicyResponse[] = [];
  const validateInputs = new Map<CompiledPolicy, Resource>();
  let current = resource;
  let batch: number[] = [];
  const closeBatch = () => {
    // Kyverno's mpol engine reports the batch's final object under each of its policies.
    for (const i of batch) responses[i] = { ...responses[i]!, patchedResource: current };
    batch = [];
  };
  for (const { pass, policy } of stepsOf(policies)) {
    if (pass !== "mutate" || !policy.origin.kind.cliStages.mutateAsBatch) closeBatch();
    if (pass === "mutate" || pass === "verifyImages") {
      // The response names the policy itself, not the pass's part of it (explain and rows key on it).
      const response = { ...engine.mutate(mutationPassOf(policy, pass), input(current, policy), existing), policy };
      current = response.patchedResource ?? current;
      // A policy's verifyImages pass that matched nothing adds nothing beside its mutate pass's response.
      if (pass === "verifyImages" && response.rules.length === 0 && hasMutateRules(policy)) continue;
      if (policy.origin.kind.cliStages.mutateAsBatch) batch.push(responses.length);
      responses.push(response);
    } else if (pass === "validate") {
      validateInputs.set(policy, current);
      const response = engine.validate(policy, input(current, policy));
      (policy.origin.kind.cliStages.listedLast ? last : responses).push(response);
    } else responses.push(engine.generate(policy, input(current, policy), existing));
  }
  closeBatch();
  const apart = apartOf(policies).map((policy) => {
    validateInputs.set(policy, resource);
    return engine.validate(policy, input(resource, policy));
  });
  return { responses: [...responses, ...last], apart, patched: current, validateInputs };
}

/**
 * The caller's requests, each prepared once (engine.prepare): a builder that gives several policies
 * the same request object (one without values of their own, as `apply` does) has its base context
 * and match decisions worked out once for all of them, as the webhook does for a review.
 */
function preparedOnce(
  engine: Engine,
  request: (resource: Resource, policy: CompiledPolicy) => EngineRequest,
): (resource: Resource, policy: CompiledPolicy) => PreparedRequest {
  const prepared = new Map<EngineRequest, PreparedRequest>();
  return (resource, policy) => {
    const r = request(resource, policy);
    let p = prepared.get(r);
    if (p === undefined) {
      p = engine.prepare(r);
      prepared.set(r, p);
    }
    return p;
  };
}

/**
 * `--explain`: how each policy's results on the resource came about (engine.explain), for the
 * policies that concern it: a rule gave a result, or one is written for the resource's kind (its
 * match or exclude then says why it did not apply). Each policy is explained on the request its
 * validate rules saw (its stage's resource; the resource after every mutation for a policy with none).
 */
export function explainProcessed(
  engine: Engine,
  processed: Processed,
  request: (resource: Resource, policy: CompiledPolicy) => EngineRequest,
): PolicyExplanation[] {
  const byPolicy = new Map<CompiledPolicy, RuleResult[]>();
  // What each policy's mutate phase was given (the resource the mutate policies before it patched).
  const mutateInputs = new Map<CompiledPolicy, Resource>();
  for (const response of [...processed.responses, ...processed.apart]) {
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
      request(processed.validateInputs.get(policy) ?? processed.patched, policy),
      results,
      mutateInput !== undefined ? { mutateInput } : {},
    );
    if (results.length > 0 || explained.rules.some((r) => r.match.elsewhere !== true)) out.push(explained);
  }
  return out;
}

/**
 * The policies Kyverno's CLI runs apart (kinds/types.ts CliStages `apart`) on one JSON payload, in
 * rank then policy order: a DeletingPolicy says whether it would delete it ("json matched");
 * kinds that give a payload nothing leave no response.
 */
export function applyApartToPayload(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  payload: JsonObject,
  exceptions: readonly AnyCompiledException[],
): PolicyResponse[] {
  return apartOf(policies)
    .map((p) => engine.validateJson(p, exceptions.length > 0 ? { payload, exceptions } : { payload }))
    .filter((r) => r.rules.length > 0);
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
