/**
 * A ValidatingPolicy with `spec.evaluation.mode: HTTP` (`Envoy`) against one HTTP request (Envoy
 * check), as Kyverno's CLI answers (cmd/cli/kubectl-kyverno/processor/authz_processor.go over
 * kyverno-authz's compiled policy): `object` is the request (an `http.CheckRequest`,
 * kyverno/http-request.ts reads it from the payload; an `envoy.service.auth.v3.CheckRequest`,
 * kyverno/envoy-authz.ts). A matchCondition false: skip "request does not match". Then the
 * validations in order: the first whose value is not `null` decides: `http.Allowed().Response()`
 * (`envoy.Allowed()…Response()`) is pass "request allowed", `http.Denied(reason).Response()` fail
 * "request denied, reason: REASON" (`envoy.Denied(code)…Response()` fail "request denied with
 * status code CODE"); none deciding is skip "request does not match". An error (in a matchCondition that none false outweighs, or in
 * a validation) is error with cel-go's text under failurePolicy Fail, skip "request does not
 * match" under Ignore. The result's rule is named after the policy, as Kyverno names it; its
 * resource is empty (Kyverno's output calls it "JSON payload"). Kyverno's CLI honours no
 * PolicyException here. Every other policy (another mode's too) never runs on a request: its response has no rules.
 */
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { isObject, type JsonObject } from "../api/json.js";
import { policyActivation } from "../cel/lazy-variables.js";
import { CheckResponse, type CheckRequest } from "../cel/kyverno/http-authz.js";
import { isEnvoyResponse } from "../cel/kyverno/envoy-authz.js";
import { setFields, type ProtoMessage } from "../cel/kyverno/proto-messages.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../cel/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { CelValidatingProgram } from "../kinds/validating/body.js";
import type { EngineEnv, PolicyResponse } from "./types.js";

/**
 * One request as the policy sees it (`object`): engine.decodeHttpRequest reads an HTTP request from
 * a payload, engine.decodeEnvoyRequest an Envoy check.
 */
export type AuthzRequest =
  | { readonly mode: "HTTP"; readonly request: CheckRequest }
  | { readonly mode: "Envoy"; readonly request: ProtoMessage };

/** True when the policy runs on the mode's requests (a ValidatingPolicy with evaluation.mode HTTP, or Envoy). */
export function runsOnAuthz(policy: CompiledPolicy, mode: AuthzRequest["mode"]): boolean {
  return authzProgram(policy, mode) !== undefined;
}

function authzProgram(policy: CompiledPolicy, mode: AuthzRequest["mode"]): CelValidatingProgram | undefined {
  if (policy.language !== "cel") return undefined;
  const first = policy.validating.programs[0];
  return first !== undefined && first.program.kind === "validating-policy" && first.program.mode === mode
    ? first
    : undefined;
}

/**
 * A ValidatingPolicy (cluster-wide) in HTTP or Envoy mode: Kyverno's CLI loader keeps it apart from
 * the policies it applies to resources (`kyverno test` does not count it among those it applies).
 */
export function isAuthzPolicy(policy: CompiledPolicy): boolean {
  if (policy.language !== "cel" || policy.kind !== "ValidatingPolicy") return false;
  const spec = policy.document["spec"];
  const evaluation = isObject(spec) ? spec["evaluation"] : undefined;
  const mode = isObject(evaluation) ? evaluation["mode"] : undefined;
  return mode === "HTTP" || mode === "Envoy";
}

const NO_MATCH = "request does not match";

export function validateAuthzPayload(policy: CompiledPolicy, request: AuthzRequest, env: EngineEnv): PolicyResponse {
  // A fresh object per evaluation: Kyverno's response has an empty resource, and callers tell payloads apart by it.
  const resource: JsonObject = {};
  const compiled = authzProgram(policy, request.mode);
  const cel = compiled?.program;
  if (compiled === undefined || cel?.kind !== "validating-policy") return { policy, resource, rules: [] };
  const result = (status: RuleResult["status"], message: string): PolicyResponse => ({
    policy,
    resource,
    rules: [ruleResult(policy.name, "Validation", status, message)],
  });
  if (compiled.failure !== undefined) return result("error", compiled.failure);
  const services = { ports: env.ports, policyNamespace: policy.namespace };
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const failed = (message: string): PolicyResponse =>
    cel.failurePolicy === "Ignore" ? result("skip", NO_MATCH) : result("error", message);
  const input = { object: request.request, oldObject: null, request: null, namespaceObject: null };
  const activation = policyActivation(cel.variables, input, { extra: {}, budget, services });
  const conditionErrors: string[] = [];
  for (const c of cel.matchConditions) {
    const r = c.program.evaluate(activation, budget, services);
    if (!r.ok) conditionErrors.push(r.error.message);
    else if (typeof r.value !== "boolean") conditionErrors.push(`matchCondition ${c.name} did not evaluate to a bool`);
    else if (!r.value) return result("skip", NO_MATCH);
  }
  if (conditionErrors.length > 0) return failed(conditionErrors.join("; "));
  for (const v of cel.validations) {
    const r = v.program.evaluate(activation, budget, services);
    if (!r.ok) return failed(r.error.message);
    if (r.value === null || r.value === undefined) continue;
    const decision = request.mode === "HTTP" ? httpDecision(r.value) : envoyDecision(r.value);
    return decision === undefined ? failed(WRONG_RESULT[request.mode]) : result(decision.status, decision.message);
  }
  return result("skip", NO_MATCH);
}

/** kyverno-authz's error for a validation's value of another type (Go's %T of the response). */
const WRONG_RESULT = {
  HTTP: "rule result is expected to be *http.CheckResponse",
  Envoy: "rule result is expected to be *authv3.CheckResponse",
} as const;

type Decision = { status: RuleResult["status"]; message: string } | undefined;

function httpDecision(v: unknown): Decision {
  if (!(v instanceof CheckResponse)) return undefined;
  if (v.ok !== null) return { status: "pass", message: "request allowed" };
  return v.denied === null ? undefined : { status: "fail", message: `request denied, reason: ${v.denied.reason}` };
}

/** An Envoy CheckResponse: allowed when its ok_response is set, denied (with its HTTP status code) when its denied_response is. */
function envoyDecision(v: unknown): Decision {
  if (!isEnvoyResponse(v)) return undefined;
  const set = setFields(v);
  if (set.has("ok_response")) return { status: "pass", message: "request allowed" };
  if (!set.has("denied_response")) return undefined;
  const denied = v["denied_response"] as ProtoMessage;
  const code = (denied["status"] as ProtoMessage)["code"] as bigint;
  return { status: "fail", message: `request denied with status code ${code}` };
}
