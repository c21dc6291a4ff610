/**
 * The CEL kinds Bylaw validates with (ValidatingPolicy, NamespacedValidatingPolicy,
 * ValidatingAdmissionPolicy) run their own body (body.ts), not the kyverno.io rule pipeline: each
 * program whose matcher selects the request gives at most one result, named as the program's
 * results are (`""`, or a VAP's own name). A resource nested too deeply is an `error` for each matched
 * program; a program whose expression did not compile answers its compile error; evaluation that
 * exhausts the stack is an error, never a crash. policies.kyverno.io PolicyExceptions naming the
 * policy apply to a ValidatingPolicy; kyverno.io PolicyExceptions name ClusterPolicy rules and never
 * reach these kinds (Kyverno's CLI refuses exceptions beside a ValidatingAdmissionPolicy). They take
 * no part in mutate or generate.
 */
import { isStackOverflow, MAX_DOCUMENT_DEPTH } from "../../api/json-depth.js";
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import { evaluateAdmissionPolicy } from "../../cel/admission-policy/index.js";
import { evaluateValidatingPolicy } from "../../cel/validating-policy/index.js";
import { celExceptionsFor, type CompiledCelException, exceptionRefusal } from "../../exceptions/cel/index.js";
import { matchesOnce } from "../../pipeline/match-rule.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import { ruleStartData } from "../../pipeline/rule-scope.js";
import type { EngineEnv, PolicyResponse } from "../../pipeline/types.js";
import { requestCelInput, requestPolicyCelInput, stackExceeded } from "../../pipeline/validate-policy.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";
import type { CelValidatingProgram } from "./body.js";

const NO_RESULTS: readonly RuleResult[] = Object.freeze([]);
const NO_EXCEPTIONS: readonly CompiledCelException[] = Object.freeze([]);

function validate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "cel") return { policy, resource: request.subject, rules: NO_RESULTS };
  const matchCtx = request.matchContext(policy);
  let results: RuleResult[] | undefined;
  for (const program of policy.validating.programs) {
    if (!matchesOnce(program.matcher, matchCtx)) continue;
    const result = request.tooDeep
      ? ruleResult(
          program.resultName,
          "Validation",
          "error",
          `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; it was not evaluated`,
        )
      : evaluateGuarded(policy, program, request, env);
    if (result === undefined) continue;
    (results ??= []).push(result);
  }
  return { policy, resource: request.subject, rules: results ?? NO_RESULTS };
}

function evaluateGuarded(
  policy: CompiledPolicy & { language: "cel" },
  program: CelValidatingProgram,
  request: PreparedRequest,
  env: EngineEnv,
): RuleResult | undefined {
  try {
    return evaluateProgram(policy, program, request, env);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return stackExceeded(program.resultName);
  }
}

function evaluateProgram(
  policy: CompiledPolicy & { language: "cel" },
  program: CelValidatingProgram,
  request: PreparedRequest,
  env: EngineEnv,
): RuleResult | undefined {
  if (program.failure !== undefined) return ruleResult(program.resultName, "Validation", "error", program.failure);
  const req = request.request;
  const data = ruleStartData(req, { policy: policy.name, rule: program.resultName, base: request.base(false) });
  const match = request.matchContext(policy).req;
  const compiled = program.program;
  if (compiled.kind === "admission-policy")
    return evaluateAdmissionPolicy(compiled, match, requestCelInput(request, data), {
      ports: env.ports,
      policyNamespace: "",
    });
  // (Without exceptions in the request, as for most reviews, none is looked for and nothing is built.)
  const exceptions =
    req.exceptions === undefined || req.exceptions.length === 0
      ? NO_EXCEPTIONS
      : celExceptionsFor(
          req.exceptions,
          { kind: policy.kind, name: policy.name },
          {
            now: env.ports.clock.nowMillis(),
            ...(req.exceptionNamespaces !== undefined ? { allowedNamespaces: req.exceptionNamespaces } : {}),
          },
        );
  // Kyverno compiles the exceptions naming the policy with it: one refused fails the policy's compile.
  const refused = exceptionRefusal(exceptions);
  if (refused !== undefined)
    return ruleResult(
      program.resultName,
      "Validation",
      "error",
      `policy ${policy.name}: ${refused.field}: compilation failed: ${refused.reason}`,
    );
  return evaluateValidatingPolicy(
    compiled,
    match,
    requestPolicyCelInput(request, data),
    { ports: env.ports, policyNamespace: policy.namespace },
    exceptions,
  );
}

export const CEL_EVALUATION: KindEvaluation = {
  validate,
  mutate: noMutation,
  generate: noGeneration,
};
