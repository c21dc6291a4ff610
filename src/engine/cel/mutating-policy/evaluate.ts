/**
 * One MutatingPolicy against one request, as Kyverno's MutatingPolicy engine answers
 * (pkg/cel/policies/mpol): for each body (the policy's own, then its autogen copies) whose
 * matchConstraints match: matchConstraints undecidable → error (rule `match`); matchConditions not
 * all true → skip "skip"; an error in them, in a variable or a mutation → error (rule `evaluation`,
 * "failed to evaluate policy: …"); otherwise each mutation in order, each seeing the object the
 * previous one patched, and pass "success" (rule ""). Variables are lazy, as a ValidatingPolicy's; a variable's error reads as cel's own, unprefixed, as Kyverno reports it.
 * policies.kyverno.io PolicyExceptions naming the policy run first, as a ValidatingPolicy's do
 * (validating-policy/exceptions.ts): a full exemption answers skip (or pass, by its reportResult)
 * with rule "exception" and leaves the object unpatched; a partial one fills the `exceptions`
 * variable; an exception's condition error is the policy's error (Kyverno's mpol engine does not
 * consult the failurePolicy there).
 */
import { isObject } from "../../api/json.js";
import type { Resource } from "../../api/resource.js";
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import { applyJsonPatchV4, operationsV4 } from "../../mutate/json-patch/index.js";
import { applyConfigurationRefusal, type TypedKinds } from "../../mutate/typed/index.js";
import type { CelServices } from "../kyverno/index.js";
import { policyActivation } from "../lazy-variables.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import { fromCel, toCel } from "../values.js";
import { applyConfiguration } from "./apply-configuration.js";
import type { CompiledMutatingBody, CompiledMutation } from "./compiled.js";
import type { CompiledCelException } from "../../exceptions/cel/index.js";
import { decideExceptions } from "../validating-policy/exceptions.js";
import type { ExistingResources } from "../../generate/types.js";
import { evaluateTargets, type TargetTrigger } from "./targets.js";

/** What the policy's bodies did: a result per body that matched, and the object after them. */
interface MutatingOutcome {
  readonly results: readonly RuleResult[];
  readonly patched: Resource;
  /**
   * How many times Kyverno's CLI prints the resource under the policy: once per body (its own, each
   * autogen copy) that matched, and once per body that did not whose constraints are not plain
   * (CompiledMutatingBody `printedUnmatched`; the CLI skips an empty response only for plain ones).
   */
  readonly cliPrints: number;
}

/** The `exceptions` variable when no PolicyException applies. */
export const NO_EXCEPTIONS = Object.freeze({ allowedImages: [], allowedValues: [] });

/** What a MutatingPolicy runs against: the request, its resource and CEL input, and the exceptions naming the policy. */
interface MutatingRequest {
  readonly req: MatchRequest;
  readonly resource: Resource;
  readonly input: CelRuleInput;
  readonly exceptions?: readonly CompiledCelException[];
  /**
   * The compile error of an exception naming the policy that Kyverno refuses (exceptions/cel
   * exceptionRefusal): Kyverno compiles exceptions with the policy, so each matched body fails with it.
   */
  readonly refused?: string;
  /** Existing resources, when the caller can read them: a mutate-existing policy's targets are listed through it (targets.ts). */
  readonly existing?: ExistingResources;
}

export function evaluateMutatingPolicy(
  bodies: readonly CompiledMutatingBody[],
  request: MutatingRequest,
  services: CelServices,
): MutatingOutcome {
  const results: RuleResult[] = [];
  let patched = request.resource;
  let cliPrints = 0;
  for (const body of bodies) {
    const verdict = body.constraints.decide(request.req);
    if (verdict.kind === "no-match") {
      if (body.printedUnmatched) cliPrints++;
      continue;
    }
    cliPrints++;
    if (verdict.kind === "error") {
      results.push(ruleResult("match", "Mutation", "error", `failed to execute matching: ${verdict.message}`));
      continue;
    }
    if (request.refused !== undefined) {
      results.push(failed(request.refused).result);
      continue;
    }
    const input = patched === request.resource ? request.input : { ...request.input, object: toCel(patched) };
    const exceptions = request.exceptions ?? [];
    const trigger = { input, req: request.req, exceptions };
    if (body.targetsOnly === true) {
      // The background controller's view: the trigger is only matched (matchConditions; an error is no match, as
      // Kyverno decides which policies a trigger brings work for), its targets are patched.
      if (body.existing !== undefined && body.failure === undefined && triggerHolds(body, input, services))
        results.push(...targetsOf({ ...body, existing: body.existing }, trigger, request.existing, services));
      else if (body.existing !== undefined && body.failure !== undefined) results.push(failed(body.failure).result);
      continue;
    }
    const outcome = evaluateBody(body, { input, resource: patched, exceptions }, services);
    results.push(outcome.result);
    if (outcome.patched !== undefined) patched = outcome.patched;
    if (body.existing !== undefined && request.existing !== undefined && outcome.result.status === "pass")
      results.push(...targetsOf({ ...body, existing: body.existing }, trigger, request.existing, services));
  }
  return { results, patched, cliPrints };
}

function targetsOf(
  body: Parameters<typeof evaluateTargets>[0],
  trigger: TargetTrigger,
  existing: ExistingResources | undefined,
  services: CelServices,
): RuleResult[] {
  if (existing === undefined)
    return [
      {
        ...ruleResult("", "Mutation", "error", "mutate-existing targets: existing resources cannot be read here"),
        target: true,
      },
    ];
  return evaluateTargets(body, trigger, existing, services).map((r) => ({ ...r, target: true }));
}

/** Whether the trigger's matchConditions all hold (variables bound); an error is no match. */
function triggerHolds(body: CompiledMutatingBody, input: CelRuleInput, services: CelServices): boolean {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation = policyActivation(body.variables, input, {
    extra: { exceptions: NO_EXCEPTIONS },
    budget,
    services,
  });
  return body.matchConditions.every((c) => {
    const r = c.program.evaluate(activation, budget, services);
    return r.ok && r.value === true;
  });
}

function failed(message: string): { result: RuleResult; patched: undefined } {
  return {
    result: ruleResult("evaluation", "Mutation", "error", `failed to evaluate policy: ${message}`),
    patched: undefined,
  };
}

/** The `exceptions` variable, or the exemption's result, or the error of an exception's conditions. */
function exceptionsOf(
  exceptions: readonly CompiledCelException[],
  input: CelRuleInput,
  run: { readonly budget: CostBudget; readonly services: CelServices },
): { allowed: unknown } | { result: RuleResult; patched: undefined } {
  if (exceptions.length === 0) return { allowed: NO_EXCEPTIONS };
  const activation = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
  };
  const decided = decideExceptions(exceptions, activation, "Fail", run.budget, run.services);
  if (decided.kind === "exempt") return { result: { ...decided.result, type: "Mutation" }, patched: undefined };
  if (decided.kind === "error") return failed(decided.message);
  return { allowed: { allowedImages: decided.allowedImages, allowedValues: decided.allowedValues } };
}

export function evaluateBody(
  body: CompiledMutatingBody,
  at: {
    readonly input: CelRuleInput;
    readonly resource: Resource;
    readonly exceptions: readonly CompiledCelException[];
    /** A target's targetMatchConditions, in place of the body's matchConditions. */
    readonly conditions?: CompiledMutatingBody["matchConditions"];
  },
  services: CelServices,
): { result: RuleResult; patched: Resource | undefined } {
  if (body.failure !== undefined) return failed(body.failure);
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const excepted = exceptionsOf(at.exceptions, at.input, { budget, services });
  if ("result" in excepted) return excepted;
  const activation = policyActivation(body.variables, at.input, {
    extra: { exceptions: excepted.allowed },
    budget,
    services,
  });
  const errors: string[] = [];
  for (const c of at.conditions ?? body.matchConditions) {
    const r = c.program.evaluate(activation, budget, services);
    if (!r.ok) errors.push(r.error.message);
    else if (r.value !== true) return { result: ruleResult("", "Mutation", "skip", "skip"), patched: undefined };
  }
  if (errors.length > 0) return failed(errors.join("; "));
  let object = at.resource;
  for (const m of body.mutations) {
    const r = m.program.evaluate(activation, budget, services);
    if (!r.ok) return failed(r.error.message);
    const next = patchWith(object, m, r.value, { typed: services.ports.typedKinds });
    if (!next.ok) return failed(next.message);
    object = next.value;
    activation["object"] = toCel(object);
  }
  return { result: ruleResult("", "Mutation", "pass", "success"), patched: object };
}

type Patched = { ok: true; value: Resource } | { ok: false; message: string };

/** The object patched by one mutation's value; `schema` as apply-configuration.ts reads it (a MutatingAdmissionPolicy's offline: "deduced"). */
export function patchWith(
  object: Resource,
  m: CompiledMutation,
  value: unknown,
  how: {
    /** As apply-configuration.ts reads it. */
    readonly schema?: "kind" | "deduced";
    /** The built-in kinds' types an ApplyConfiguration is converted with first (EnginePorts.typedKinds). */
    readonly typed?: TypedKinds | undefined;
  } = {},
): Patched {
  const schema = how.schema ?? "kind";
  if (m.typeMismatch !== undefined) return { ok: false, message: m.typeMismatch };
  let json;
  try {
    json = fromCel(value);
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  if (m.patchType === "ApplyConfiguration") {
    if (!isObject(json)) return { ok: false, message: "an applyConfiguration expression must build an Object{…}" };
    const refusal = how.typed === undefined ? undefined : applyConfigurationRefusal(object, json, how.typed);
    if (refusal !== undefined) return { ok: false, message: `error applying patch: ${refusal}` };
    return { ok: true, value: applyConfiguration(object, json, schema) };
  }
  const ops = operationsV4(json);
  if (typeof ops === "string") return { ok: false, message: ops };
  if (ops.length === 0) return { ok: true, value: object };
  const applied = applyJsonPatchV4(object, ops);
  if (!applied.ok) return { ok: false, message: `JSON Patch: ${applied.message}` };
  if (!isObject(applied.value)) return { ok: false, message: "JSON Patch: the patched object is not a mapping" };
  return { ok: true, value: applied.value };
}
