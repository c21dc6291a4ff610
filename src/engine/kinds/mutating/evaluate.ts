/**
 * A MutatingPolicy takes part in the mutate phase only: its compiled bodies run against the request
 * (cel/mutating-policy/evaluate.ts) and the response carries the patched resource; validate and
 * generate answer nothing.
 */
import { celRuleInput } from "../../cel/validate-rule/index.js";
import { evaluateMutatingPolicy } from "../../cel/mutating-policy/evaluate.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

function mutate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "mutating") return noMutation(policy, request);
  const resource = request.request.resource;
  const outcome = evaluateMutatingPolicy(
    policy.mutating,
    {
      req: request.matchContext(policy).req,
      resource,
      input: celRuleInput(request.request, request.base(false)),
    },
    { ports: env.ports, policyNamespace: policy.namespace },
  );
  return { policy, resource: request.subject, rules: outcome.results, patchedResource: outcome.patched };
}

export const MUTATING_EVALUATION: KindEvaluation = {
  validate: noGeneration,
  mutate,
  generate: noGeneration,
};
