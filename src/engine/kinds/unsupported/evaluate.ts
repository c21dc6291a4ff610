/**
 * A kind Bylaw does not run answers in the validate phase only (ADR 0005 §4): one `error` result,
 * named `""` as Kyverno's results for the CEL kinds are (a test row for the policy finds it), for
 * every resource in the policy's scope, with its body's message. In scope: the policy's namespace
 * for a namespaced kind, every namespace otherwise; a request for a subresource is not (as a kind
 * selector `*` does not select one, but for a Pod's ephemeralcontainers). Nothing is evaluated, so
 * nothing can be excepted. Mutate and generate answer nothing.
 */
import { MAX_DOCUMENT_DEPTH } from "../../api/json-depth.js";
import { resourceNamespace } from "../../api/resource.js";
import { ruleResult } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { KindEvaluation } from "../kind-evaluation.js";
import { noGeneration, noMutation } from "../no-phase.js";

/** The rule name the results carry: empty, as in Kyverno's results for the CEL kinds. */
const UNSUPPORTED_RULE = "";

function validate(policy: CompiledPolicy, request: PreparedRequest): PolicyResponse {
  const resource = request.subject;
  if (policy.language !== "unsupported" || !inScope(request.matchContext(policy).req))
    return { policy, resource, rules: [] };
  const message = request.tooDeep
    ? `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; it was not evaluated`
    : policy.unsupported.message;
  return { policy, resource, rules: [ruleResult(UNSUPPORTED_RULE, "Validation", "error", message)] };
}

function inScope(req: MatchRequest): boolean {
  if (req.policyNamespace !== "" && req.policyNamespace !== resourceNamespace(req.resource)) return false;
  if (req.subresource === "") return true;
  const g = req.gvk;
  return req.subresource === "ephemeralcontainers" && g.group === "" && g.version === "v1" && g.kind === "Pod";
}

export const UNSUPPORTED_EVALUATION: KindEvaluation = {
  validate,
  mutate: noMutation,
  generate: noGeneration,
};
