/**
 * A GeneratingPolicy generates (cel/generating-policy/evaluate.ts) and takes no part in validate or
 * mutate. Its one result (rule "", as Kyverno reports the CEL kinds) carries what it would generate.
 */
import { celPolicyInput } from "../../cel/validate-rule/index.js";
import { celExceptionsFor } from "../../exceptions/cel/index.js";
import { evaluateGeneratingPolicy } from "../../cel/generating-policy/index.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

const CEL_INPUT: unique symbol = Symbol("generating policy input");

function generate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "generating" || request.operation === "DELETE") return noGeneration(policy, request);
  const req = request.request;
  const trigger = req.resource;
  const exceptions = celExceptionsFor(
    req.exceptions,
    { kind: policy.kind, name: policy.name },
    {
      now: env.ports.clock.nowMillis(),
      ...(req.exceptionNamespaces !== undefined ? { allowedNamespaces: req.exceptionNamespaces } : {}),
    },
  );
  const input = request.derived(CEL_INPUT, () => celPolicyInput(request.request, request.base(false)));
  const result = evaluateGeneratingPolicy(policy.generating, {
    req: request.matchContext(policy).req,
    input,
    services: { ports: env.ports, policyNamespace: policy.namespace },
    call: { name: policy.name, namespace: policy.namespace, trigger },
    exceptions,
  });
  return { policy, resource: trigger, rules: result === undefined ? [] : [result] };
}

export const GENERATING_EVALUATION: KindEvaluation = {
  validate: noGeneration,
  mutate: noMutation,
  generate: (policy, request, env) => generate(policy, request, env),
};
