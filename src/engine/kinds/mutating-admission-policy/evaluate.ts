/**
 * A MutatingAdmissionPolicy takes part in the mutate phase only: its bindings run against the
 * resource (cel/mutating-admission-policy/evaluate.ts) and the response carries the patched
 * resource; validate and generate answer nothing.
 */
import { evaluateMutatingAdmissionPolicy } from "../../cel/mutating-admission-policy/index.js";
import { celRuleInput } from "../../cel/validate-rule/index.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

function mutate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "mutating" || policy.mutatingAdmission === undefined) return noMutation(policy, request);
  const req = request.request;
  const outcome = evaluateMutatingAdmissionPolicy(
    policy.mutatingAdmission,
    {
      req: request.matchContext(policy).req,
      resource: req.resource,
      input: celRuleInput(req, request.base(false)),
    },
    { ports: env.ports, policyNamespace: "" },
  );
  return { policy, resource: request.subject, rules: outcome.results, patchedResource: outcome.patched };
}

export const MUTATING_ADMISSION_EVALUATION: KindEvaluation = {
  validate: noGeneration,
  mutate,
  generate: noGeneration,
};
