/**
 * A ValidatingPolicy with `spec.evaluation.mode: JSON` against one JSON payload that is not a
 * Kubernetes object (Kyverno's vpol evaluateJson): no matchConstraints; `object` is the payload,
 * `oldObject`, `request` and `namespaceObject` are null; policies.kyverno.io PolicyExceptions
 * naming the policy apply as they do to resources. A DeletingPolicy answers whether it would delete
 * the payload (kinds/deleting/evaluate.ts; Kyverno's CLI runs those apart, `runsOnJson` is false for
 * them). Every other policy (a Kubernetes-mode ValidatingPolicy, a ClusterPolicy, …) never runs on a
 * payload: its response has no rules.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { celExceptionsFor, exceptionRefusal } from "../exceptions/cel/index.js";
import { evaluateBody } from "../cel/validating-policy/evaluate.js";
import { toCel } from "../cel/values.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineEnv, JsonPayloadRequest, PolicyResponse } from "./types.js";
import type { CelValidatingProgram } from "../kinds/validating/body.js";
import { deletingJsonResponse } from "../kinds/deleting/evaluate.js";

/** True when the policy runs on JSON payloads (a ValidatingPolicy with evaluation.mode JSON). */
export function runsOnJson(policy: CompiledPolicy): boolean {
  return jsonProgram(policy) !== undefined;
}

/** A JSON-mode ValidatingPolicy's one program (JSON mode has no autogen copies). */
function jsonProgram(policy: CompiledPolicy): CelValidatingProgram | undefined {
  if (policy.language !== "cel") return undefined;
  const first = policy.validating.programs[0];
  return first !== undefined && first.program.kind === "validating-policy" && first.program.mode === "JSON"
    ? first
    : undefined;
}

export function validateJsonPayload(
  policy: CompiledPolicy,
  request: JsonPayloadRequest,
  env: EngineEnv,
): PolicyResponse {
  const payload = request.payload;
  // Kyverno's CLI also applies DeletingPolicies to each payload (after every resource).
  if (policy.language === "deleting") return deletingJsonResponse(policy, request, env);
  const compiled = jsonProgram(policy);
  const cel = compiled?.program;
  if (compiled === undefined || cel?.kind !== "validating-policy") return { policy, resource: payload, rules: [] };
  if (compiled.failure !== undefined)
    return {
      policy,
      resource: payload,
      rules: [ruleResult(compiled.resultName, "Validation", "error", compiled.failure)],
    };
  const ref = { kind: policy.kind, name: policy.name };
  const exceptions = celExceptionsFor(request.exceptions, ref, {
    now: env.ports.clock.nowMillis(),
    ...(request.exceptionNamespaces !== undefined ? { allowedNamespaces: request.exceptionNamespaces } : {}),
  });
  // Kyverno compiles the exceptions naming the policy with it: one refused fails the policy's compile.
  const refused = exceptionRefusal(exceptions);
  if (refused !== undefined) {
    const message = `policy ${policy.name}: ${refused.field}: compilation failed: ${refused.reason}`;
    return { policy, resource: payload, rules: [ruleResult(compiled.resultName, "Validation", "error", message)] };
  }
  const input = { object: toCel(payload), oldObject: null, request: null, namespaceObject: null };
  const result: RuleResult = evaluateBody(
    cel,
    input,
    { ports: env.ports, policyNamespace: policy.namespace },
    exceptions,
  );
  return { policy, resource: payload, rules: [result] };
}

/** A payload file's document as a payload: a mapping (Kyverno reads payloads as unstructured objects). */
export function asJsonPayload(v: JsonValue | undefined): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}
