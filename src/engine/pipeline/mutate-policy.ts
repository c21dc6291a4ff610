/**
 * The pipeline for mutate rules (Kyverno `pkg/engine/handlers/mutation/*`,
 * `pkg/webhooks/resource/handlers.go` `Mutate`): rules run in order, each matched against
 * and seeing (as `request.object`) the resource the earlier rules patched. The response carries the
 * resource after all of the policy's patches. Mutate-existing rules (`mutate.targets`) patch other
 * resources instead: their results carry the patched targets (see mutate-existing.ts).
 */
import { isStackOverflow, MAX_DOCUMENT_DEPTH } from "../api/json-depth.js";
import type { JsonObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { setDotted } from "../context/request-context.js";
import { runMutation } from "../mutate/run-mutation.js";
import type { CompiledPolicy, CompiledRule, KyvernoCompiledPolicy } from "../policy/compiled-policy.js";
import { noMutation } from "../kinds/no-phase.js";
import type { ExistingResources } from "../generate/index.js";
import { matchRequestFor, ruleMatches } from "./match-rule.js";
import { mutateTargets } from "./mutate-existing.js";
import { policyMatchConditions } from "./policy-match-conditions.js";
import { mutateImageRule } from "./image-verify-rule.js";
import type { PreparedRequest } from "./prepared-request.js";
import { ruleScope, type RuleRun } from "./rule-scope.js";
import type { EngineEnv, PolicyResponse } from "./types.js";

export function isMutateExisting(rule: CompiledRule): boolean {
  const targets = rule.rule.mutate?.["targets"];
  return Array.isArray(targets) && targets.length > 0;
}

export function mutatePolicy(
  policy: CompiledPolicy,
  request: PreparedRequest,
  env: EngineEnv,
  existing?: ExistingResources,
): PolicyResponse {
  if (policy.language !== "kyverno") return noMutation(policy, request);
  const base = request.base(policy.usesImages);
  const operation = request.operation;
  const results: RuleResult[] = [];
  let current: Resource = request.request.resource;
  if (operation === "DELETE") return { policy, resource: request.subject, rules: results, patchedResource: current };
  const conditions = policyMatchConditions(policy, request, base);
  if (conditions.kind === "no-match")
    return { policy, resource: request.request.resource, rules: results, patchedResource: current };
  // verifyImages rules run after every mutate rule (see verifyImageRules).
  let matchReq = matchRequestFor(policy, current, request);
  for (const compiled of policy.rules) {
    if (compiled.rule.mutate === undefined) continue;
    if (matchReq.resource !== current) matchReq = matchRequestFor(policy, current, request);
    if (!ruleMatches(compiled, matchReq)) continue;
    if (conditions.kind === "error") {
      results.push(ruleResult(compiled.name, "Mutation", "error", conditions.message));
      continue;
    }
    const run: RuleRun = {
      policy,
      rule: compiled,
      type: "Mutation",
      env,
      request,
      base: setDotted(base, "request.object", current),
    };
    if (isMutateExisting(compiled)) {
      const scope = ruleScope(run);
      if (scope.ok && compiled.unsupported !== undefined)
        results.push(ruleResult(compiled.name, "Mutation", "error", compiled.unsupported));
      else results.push(...(scope.ok ? mutateTargets(policy, compiled, scope.vars, existing) : [scope.result]));
      continue;
    }
    if (request.tooDeep) {
      results.push(
        ruleResult(
          compiled.name,
          "Mutation",
          "error",
          `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; it was not mutated`,
        ),
      );
      continue;
    }
    const { result, resource } = mutateGuarded(run, current);
    results.push(result);
    current = resource;
    if (policy.applyRules === "One" && result.status === "pass") break;
  }
  current = verifyImageRules(policy, request, env, {
    base,
    resource: current,
    results,
    conditionsError: conditions.kind === "error" ? conditions.message : undefined,
  });
  return { policy, resource: request.request.resource, rules: results, patchedResource: current };
}

/**
 * verifyImages rules run after the mutate rules (the mutating webhook verifies images on the mutated
 * request): their results join `results`; the resource they patched (digests, annotation) is returned.
 * `conditionsError`: the policy's webhookConfiguration.matchConditions could not be evaluated, so each
 * matched rule is that error.
 */
function verifyImageRules(
  policy: KyvernoCompiledPolicy,
  request: PreparedRequest,
  env: EngineEnv,
  state: {
    readonly base: JsonObject;
    readonly resource: Resource;
    readonly results: RuleResult[];
    readonly conditionsError: string | undefined;
  },
): Resource {
  const { base, resource, results, conditionsError } = state;
  let current = resource;
  for (const compiled of policy.rules) {
    if (
      compiled.rule.verifyImages === undefined ||
      compiled.rule.validate !== undefined ||
      compiled.rule.mutate !== undefined
    )
      continue;
    if (!ruleMatches(compiled, matchRequestFor(policy, current, request))) continue;
    if (conditionsError !== undefined) {
      results.push(ruleResult(compiled.name, "ImageVerify", "error", conditionsError));
      continue;
    }
    if (request.tooDeep) {
      results.push(
        ruleResult(
          compiled.name,
          "ImageVerify",
          "error",
          `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; its images were not verified`,
        ),
      );
      continue;
    }
    const run: RuleRun = {
      policy,
      rule: compiled,
      type: "ImageVerify",
      env,
      request,
      base: setDotted(base, "request.object", current),
    };
    const scope = ruleScope(run);
    if (!scope.ok) {
      results.push(scope.result);
      continue;
    }
    if (compiled.unsupported !== undefined) {
      results.push(ruleResult(compiled.name, "ImageVerify", "error", compiled.unsupported));
      continue;
    }
    const out = mutateImageRule(run, scope.vars, current);
    results.push(...out.results);
    current = out.resource;
  }
  return current;
}

function mutateGuarded(run: RuleRun, current: Resource): { result: RuleResult; resource: Resource } {
  const { policy, rule: compiled } = run;
  try {
    const scope = ruleScope(run);
    if (!scope.ok) return { result: scope.result, resource: current };
    if (compiled.unsupported !== undefined)
      return { result: ruleResult(compiled.name, "Mutation", "error", compiled.unsupported), resource: current };
    const out = runMutation(compiled.rule.mutate ?? {}, {
      ruleName: compiled.name,
      resource: current,
      vars: scope.vars,
      jsonPatches: policy.jsonPatches,
    });
    return {
      result: ruleResult(compiled.name, "Mutation", out.status, out.message),
      resource: out.status === "pass" ? out.resource : current,
    };
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return {
      result: ruleResult(
        compiled.name,
        "Mutation",
        "error",
        `rule ${compiled.name}: evaluation exceeded the stack (input nested too deeply or recursive); not evaluated`,
      ),
      resource: current,
    };
  }
}
