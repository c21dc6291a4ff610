/**
 * One MutatingAdmissionPolicy against one resource, as Kyverno 1.19's CLI applies it offline
 * (pkg/admissionpolicy `Mutate`, `processMAPNoBindings`, `processMAPWithoutClient`,
 * `mutateResource`; the differences from the API server are in docs/vap-cli-vs-api-server.md):
 * - no binding names the policy: its matchConstraints decide whether it applies (no result when
 *   not), and it runs once without params;
 * - bindings name it: the policy's matchConstraints are not consulted. EVERY binding in turn whose
 *   matchResources match (a binding without them matches every resource) runs the policy on the
 *   object the previous one patched, with the params its paramRef chooses (params/binding-params.ts);
 *   the LAST such binding's outcome is the policy's one result, and the patched object is what all
 *   of them made. No binding matches: no result.
 * One run: matchConditions (evaluated, as Kyverno's CLI does, with `params` and `namespaceObject`
 * null) not all true → skip "match conditions aren't met"; an error in them → error under
 * failurePolicy Fail, skip under Ignore; then each mutation in order, each seeing the object the
 * previous one made: an ApplyConfiguration merged with no schema (every list atomic, as the deduced
 * type converter Kyverno's CLI hands Kubernetes' patcher), a JSONPatch applied as RFC 6902. All done:
 * pass "mutation is successfully applied". The rule is named after the policy, as Kyverno names it.
 * Where Kyverno's CLI drops a binding's outcome silently (a match, matchCondition or mutation that
 * errs), Bylaw answers `error` naming it, and that binding's mutations are not applied.
 */
import type { JsonObject } from "../../api/json.js";
import type { Resource } from "../../api/resource.js";
import type { RuleResult, RuleStatus } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import type { CompiledBinding } from "../admission-policy/index.js";
import type { CelServices } from "../kyverno/index.js";
import { policyActivation } from "../lazy-variables.js";
import { patchWith } from "../mutating-policy/evaluate.js";
import { selectBindingParams } from "../params/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import { toCel } from "../values.js";
import type { CompiledMutatingAdmissionPolicy } from "./compiled.js";

const SKIP_MESSAGE = "match conditions aren't met";
const PASS_MESSAGE = "mutation is successfully applied";
const NO_PARAMS =
  " (no parameter object matched the binding's paramRef, so params is null: `bylaw apply` takes them from --parameter-resource, `bylaw test` from paramResources)";

interface MapRequest {
  readonly req: MatchRequest;
  readonly resource: Resource;
  readonly input: CelRuleInput;
}

interface MapOutcome {
  readonly results: readonly RuleResult[];
  readonly patched: Resource;
}

type Run = { readonly status: RuleStatus; readonly message: string; readonly patched?: Resource };

export function evaluateMutatingAdmissionPolicy(
  ap: CompiledMutatingAdmissionPolicy,
  request: MapRequest,
  services: CelServices,
): MapOutcome {
  const unchanged = { results: [], patched: request.resource };
  if (ap.bindings.length === 0) {
    const verdict = ap.body.constraints.decide(request.req);
    if (verdict.kind === "no-match") return unchanged;
    if (verdict.kind === "error")
      return answer(ap, undefined, { status: "error", message: verdict.message }, request.resource);
    const run = runOnce(ap, request, null, services);
    return answer(ap, undefined, run, run.patched ?? request.resource);
  }
  if (services.ports.context.clusterGiven === true)
    return answer(
      ap,
      undefined,
      {
        status: "error",
        message:
          "Bylaw does not yet evaluate a MutatingAdmissionPolicy's bindings against a test's clusterResources (Kyverno's cluster path); run it without clusterResources",
      },
      request.resource,
    );
  let object = request.resource;
  let last: RuleResult | undefined;
  for (const binding of ap.bindings) {
    const verdict = binding.constraints?.decide(request.req);
    if (verdict?.kind === "no-match") continue;
    // Bylaw cannot tell whether this binding applies: it answers, never drops it.
    if (verdict?.kind === "error")
      return answer(ap, binding, { status: "error", message: `binding ${binding.name}: ${verdict.message}` }, object);
    const params = paramsFor(binding, services);
    if (!params.ok) return answer(ap, binding, { status: "error", message: params.message }, object);
    const input = object === request.resource ? request.input : { ...request.input, object: toCel(object) };
    const run = runOnce(ap, { ...request, resource: object, input }, params.params, services);
    if (run.status === "error") {
      const none = binding.paramRef !== undefined && params.params === null ? NO_PARAMS : "";
      return answer(ap, binding, { ...run, message: `binding ${binding.name}: ${run.message}${none}` }, object);
    }
    object = run.patched ?? object;
    last = result(ap, binding, run);
  }
  return { results: last === undefined ? [] : [last], patched: object };
}

function paramsFor(
  binding: CompiledBinding,
  services: CelServices,
): { ok: true; params: JsonObject | null } | { ok: false; message: string } {
  if (binding.paramRef === undefined) return { ok: true, params: null };
  const listed = services.ports.context.paramObjects?.();
  if (listed !== undefined && !listed.ok)
    return { ok: false, message: `binding ${binding.name}: parameter objects: ${listed.error.message}` };
  const chosen = selectBindingParams(binding.paramRef, listed?.value ?? []);
  return chosen.ok ? chosen : { ok: false, message: `binding ${binding.name}: ${chosen.message}` };
}

function result(ap: CompiledMutatingAdmissionPolicy, binding: CompiledBinding | undefined, run: Run): RuleResult {
  return {
    rule: ap.policyName,
    type: "Mutation",
    status: run.status,
    message: run.message,
    ...(binding !== undefined ? { properties: { binding: binding.name } } : {}),
  };
}

function answer(
  ap: CompiledMutatingAdmissionPolicy,
  binding: CompiledBinding | undefined,
  run: Run,
  patched: Resource,
): MapOutcome {
  return { results: [result(ap, binding, run)], patched };
}

function runOnce(
  ap: CompiledMutatingAdmissionPolicy,
  request: MapRequest,
  params: JsonObject | null,
  services: CelServices,
): Run {
  const body = ap.body;
  if (body.failure !== undefined) return { status: "error", message: body.failure };
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const failure = (name: string, message: string) => `composited variable "${name}" fails to evaluate: ${message}`;
  // Kyverno's CLI hands the matchConditions no params and no Namespace (mutateResource's matcher.Match).
  const matching = policyActivation(
    body.variables,
    { ...request.input, namespaceObject: null },
    { extra: { params: null }, budget, services, failure },
  );
  const errors: string[] = [];
  for (const c of body.matchConditions) {
    const r = c.program.evaluate(matching, budget, services);
    if (!r.ok) errors.push(`expression '${c.program.expression.trim()}' resulted in error: ${r.error.message}`);
    else if (r.value !== true) return { status: "skip", message: SKIP_MESSAGE };
  }
  if (errors.length > 0)
    return ap.failurePolicy === "Ignore"
      ? { status: "skip", message: SKIP_MESSAGE }
      : { status: "error", message: `matchConditions: ${errors.join("; ")}` };
  let object = request.resource;
  for (const [i, m] of body.mutations.entries()) {
    // Each mutation is its own evaluation in Kubernetes' patcher: variables are read again on the object so far.
    const input = object === request.resource ? request.input : { ...request.input, object: toCel(object) };
    const activation = policyActivation(body.variables, input, {
      extra: { params: params ?? null },
      budget,
      services,
      failure,
    });
    const r = m.program.evaluate(activation, budget, services);
    if (!r.ok) return { status: "error", message: `spec.mutations[${i}]: ${r.error.message}` };
    const next = patchWith(object, m, r.value, { schema: "deduced" });
    if (!next.ok) return { status: "error", message: `spec.mutations[${i}]: ${next.message}` };
    object = next.value;
  }
  return { status: "pass", message: PASS_MESSAGE, patched: object };
}
