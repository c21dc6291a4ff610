/**
 * A MutatingPolicy takes part in the mutate phase only: its compiled bodies run against the request
 * (cel/mutating-policy/evaluate.ts) and the response carries the patched resource; validate and
 * generate answer nothing.
 */
import { celPolicyInput } from "../../cel/validate-rule/index.js";
import { celExceptionsFor, exceptionRefusal } from "../../exceptions/cel/index.js";
import { evaluateMutatingPolicy } from "../../cel/mutating-policy/evaluate.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import type { ExistingResources } from "../../generate/index.js";
import { noGeneration, noMutation } from "../no-phase.js";

function mutate(
  policy: CompiledPolicy,
  request: PreparedRequest,
  env: EngineEnv,
  existing?: ExistingResources,
): PolicyResponse {
  if (policy.language !== "mutating") return noMutation(policy, request);
  const req = request.request;
  const resource = req.resource;
  const exceptions = celExceptionsFor(
    req.exceptions,
    { kind: policy.kind, name: policy.name },
    {
      now: env.ports.clock.nowMillis(),
      ...(req.exceptionNamespaces !== undefined ? { allowedNamespaces: req.exceptionNamespaces } : {}),
    },
  );
  const refused = exceptionRefusal(exceptions);
  const outcome = evaluateMutatingPolicy(
    policy.mutating,
    {
      req: request.matchContext(policy).req,
      resource,
      input: celPolicyInput(req, request.base(false)),
      exceptions,
      ...(refused !== undefined
        ? { refused: `${policy.kind} ${policy.name}: ${refused.field}: compilation failed: ${refused.reason}` }
        : {}),
      ...(existing !== undefined ? { existing } : {}),
    },
    { ports: env.ports, policyNamespace: policy.namespace },
  );
  return {
    policy,
    resource: request.subject,
    rules: outcome.results,
    patchedResource: outcome.patched,
    cliPrints: outcome.cliPrints,
  };
}

export const MUTATING_EVALUATION: KindEvaluation = {
  validate: noGeneration,
  mutate,
  generate: noGeneration,
};
