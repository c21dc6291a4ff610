/**
 * The mutating webhook (`/mutate[/fail|/ignore]`, spec §8.1 step 1, §2.4), as Kyverno's mutation
 * handler: the standard mutate rules of each policy in policy order, each policy seeing the resource
 * the earlier ones patched; the answer is the net change as one base64 RFC 6902 patch, plus the
 * warnings of policies with emitWarning.
 * - A policy with a failing or erroring rule contributes no patch. An error under failurePolicy Fail
 *   denies the request (`mutation policy <p> error: failed to apply policy <p> rules [<rule>: <msg>]`);
 *   under Ignore the request goes on without that policy's changes.
 * - Mutate-existing rules (`mutate.targets`) are background work and do not run here.
 * - DELETE and CONNECT are allowed unchanged.
 * The engine is called policy by policy (as `engine.mutateAll` does internally) so that a policy's
 * failurePolicy and the deadline can be applied between policies.
 */
import { jsonEqual } from "../../engine/api/json-equal.js";
import type { Resource } from "../../engine/api/resource.js";
import type { RuleResult } from "../../engine/api/rule-result.js";
import { createJsonPatch } from "../../engine/mutate/json-patch/index.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { CompiledPolicy } from "../../engine/policy/compiled-policy.js";
import type { AdmissionDeps } from "../types.js";
import { buildRequest, exceptionsOf } from "./build-request.js";
import { deadlineDenial, evaluateSafely, startDeadline } from "./deadline.js";
import { guarded } from "./guard.js";
import { failurePolicyOf } from "./policy-traits.js";
import { mutatePlanOf } from "./plans.js";
import { withNamespaceFacts } from "./namespace-facts.js";
import { outcomeOf, recordOutcome, recordRules } from "./record.js";
import { denied, patched } from "./response.js";
import type { AdmissionRequestJson, HandlerResult, WebhookSelector } from "./types.js";
import { warningMessages } from "./warnings.js";

export function handleMutate(body: unknown, deps: AdmissionDeps, webhook?: WebhookSelector): HandlerResult {
  return guarded(body, deps, "mutate", webhook, (request) => mutateReview(request, deps, webhook));
}

function mutateReview(request: AdmissionRequestJson, deps: AdmissionDeps, webhook: WebhookSelector | undefined): HandlerResult {
  const deadline = startDeadline(deps);
  if (request.operation === "DELETE" || request.operation === "CONNECT") {
    recordOutcome(deps, outcomeOf(request, undefined, "mutate", { allowed: true, durationSeconds: deadline.elapsed(), patchOps: 0, warnings: 0 }));
    return { status: 200, body: patched(request.uid, []) };
  }
  const { policies } = mutatePlanOf(deps, webhook);
  const subject = buildRequest(request, deps.cluster, policies, exceptionsOf(deps));
  const finish = (allow: boolean, answer: HandlerResult, patchOps: number, warnings: number): HandlerResult => {
    recordOutcome(deps, outcomeOf(request, subject, "mutate", { allowed: allow, durationSeconds: deadline.elapsed(), patchOps, warnings }));
    return answer;
  };

  const original = subject.engineRequest.resource;
  let current: Resource = original;
  const responses: PolicyResponse[] = [];
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CompiledPolicy;
    if (deadline.passed()) {
      const late = deadlineDenial(deps.deadlineSeconds, policies.slice(i));
      if (late !== undefined) return finish(false, { status: 200, body: denied(request.uid, late) }, 0, 0);
      break;
    }
    const t0 = deps.now();
    const response = evaluateSafely(policy, current, "Mutation", () => withNamespaceFacts(policy, subject, "Mutation", (p) => deps.engine.mutate(p, { ...subject.engineRequest, resource: current })));
    recordRules(deps, subject, response, "mutate", deps.now() - t0);
    if (response.rules.length > 0) responses.push(response);
    const failed = response.rules.filter((r) => r.status === "fail" || r.status === "error");
    if (failed.length === 0) {
      current = response.patchedResource ?? current;
      continue;
    }
    if (failed.some((r) => r.status === "error") && failurePolicyOf(policy) === "Fail") {
      return finish(false, { status: 200, body: denied(request.uid, mutationError(policy, failed)) }, 0, 0);
    }
  }
  const patch = jsonEqual(current, original) ? [] : createJsonPatch(original, current);
  const warnings = warningMessages(responses);
  return finish(true, { status: 200, body: patched(request.uid, patch, warnings) }, patch.length, warnings.length);
}

function mutationError(policy: CompiledPolicy, failed: readonly RuleResult[]): string {
  const rules = failed.map((r) => `${r.rule}: ${r.message}`).join(" ");
  return `mutation policy ${policy.name} error: failed to apply policy ${policy.name} rules [${rules}]`;
}
