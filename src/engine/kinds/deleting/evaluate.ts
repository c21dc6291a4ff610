/**
 * What `bylaw test` and `bylaw apply` answer for a DeletingPolicy, as Kyverno 1.19's CLI does: one
 * result per resource its matchConstraints select, named after the policy, type Deletion: pass
 * "resource matched" when the policy would delete it, fail "resource did not match" when it would not
 * (a condition false, or an exception), error with the reason when a condition cannot be evaluated.
 * A resource the matchConstraints do not select (resourceRules, objectSelector, namespaceSelector)
 * gets no result, as the other CEL kinds give none. A NamespacedDeletingPolicy selects resources of
 * any namespace here, as Kyverno's CLI matches it (its cleanup controller, as Bylaw's, lists only the
 * policy's namespace). A DeletingPolicy takes no part in mutate or generate.
 */
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { EngineEnv, JsonPayloadRequest, PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";
import type { deletingVerdict } from "./decide.js";
import { deletingPolicyVerdict } from "./policy-verdict.js";

function validate(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  const req = request.request;
  return respond(policy, env, {
    candidate: {
      resource: req.resource,
      namespaceLabels: req.namespaceLabels,
      ...(req.namespaceObject !== undefined ? { namespaceObject: req.namespaceObject } : {}),
    },
    exceptionsFrom: req,
    what: "resource",
  });
}

/**
 * A DeletingPolicy on a JSON payload (`apply --json`), as Kyverno's CLI applies it: "json matched" /
 * "json did not match"; a payload with no apiVersion and kind is decided by the conditions alone;
 * `namespaceObject` is null.
 */
export function deletingJsonResponse(
  policy: CompiledPolicy,
  request: JsonPayloadRequest,
  env: EngineEnv,
): PolicyResponse {
  return respond(policy, env, {
    candidate: { resource: request.payload, namespaceLabels: {}, namespaceObject: null, payload: true },
    exceptionsFrom: request,
    what: "json",
  });
}

/** The one result (or none, when the matchConstraints do not select it) of a candidate, as Kyverno's CLI decides it. */
function respond(
  policy: CompiledPolicy,
  env: EngineEnv,
  at: {
    readonly candidate: Parameters<typeof deletingPolicyVerdict>[1];
    readonly exceptionsFrom: Pick<JsonPayloadRequest, "exceptions" | "exceptionNamespaces">;
    readonly what: "resource" | "json";
  },
): PolicyResponse {
  const resource = at.candidate.resource;
  if (policy.language !== "deleting") return { policy, resource, rules: [] };
  const { exceptions, exceptionNamespaces } = at.exceptionsFrom;
  const verdict = deletingPolicyVerdict(policy, at.candidate, {
    ports: env.ports,
    ownNamespaceOnly: false,
    ...(exceptions !== undefined ? { exceptions } : {}),
    ...(exceptionNamespaces !== undefined ? { exceptionNamespaces } : {}),
  });
  if (verdict.kind === "not-selected") return { policy, resource, rules: [] };
  return { policy, resource, rules: [resultOf(policy.name, verdict, at.what)] };
}

function resultOf(
  name: string,
  verdict: Exclude<ReturnType<typeof deletingVerdict>, { readonly kind: "not-selected" }>,
  what: "resource" | "json",
): RuleResult {
  switch (verdict.kind) {
    case "delete":
      return ruleResult(name, "Deletion", "pass", `${what} matched`);
    case "error":
      return ruleResult(name, "Deletion", "error", verdict.message);
    case "keep":
      if (verdict.exceptions !== undefined)
        return { ...ruleResult(name, "Deletion", "fail", `${what} did not match`), exceptions: verdict.exceptions };
      return ruleResult(name, "Deletion", "fail", `${what} did not match`);
  }
}

export const DELETING_EVALUATION: KindEvaluation = {
  validate,
  mutate: noMutation,
  generate: noGeneration,
};
