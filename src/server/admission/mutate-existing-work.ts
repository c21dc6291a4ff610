/**
 * The mutate-existing work an allowed admission review brings (Kyverno `handleMutateExisting`): for
 * each policy with mutate-existing rules (`mutate.targets`) that applies at admission, one item per
 * rule that matches the trigger on CREATE or UPDATE (its preconditions hold; its targets are found
 * and patched by the background controller, src/controllers/mutate-existing/). Dry-run reviews and
 * the background controller's own writes bring no work. A MutatingPolicy with
 * `evaluation.mutateExisting.enabled` brings one item (rule "") when the trigger matches its
 * matchConstraints and matchConditions. The answer never waits on it.
 */
import {
  type CompiledPolicy,
  err,
  type ExistingResources,
  isObject,
  type JsonObject,
  mutateExistingRuleNames,
  mutateExistingView,
  type PolicyResponse,
} from "../../engine/index.js";
import type { AdmissionDeps } from "./deps.js";
import { buildRequest } from "./build-request.js";
import { byController, type GenerateWork, policyKey, triggerSpec } from "./generate-work.js";
import { parseReview } from "./parse-review.js";
import { mutateExistingPlanOf, reachable } from "./plans.js";
import type { WebhookSelector } from "./types.js";

/** Targets are not read at admission: the controller finds them. */
const NOT_READ: ExistingResources = {
  get: () => err("pending", "targets are not read at admission"),
  list: () => err("pending", "targets are not read at admission"),
};

export function mutateExistingWorkFor(
  body: unknown,
  deps: Pick<AdmissionDeps, "engine" | "policies" | "cluster" | "plans" | "indexCandidates">,
  webhook?: WebhookSelector,
): GenerateWork[] {
  const parsed = parseReview(body);
  if (!parsed.ok || parsed.request.dryRun === true || byController(parsed.request)) return [];
  const request = parsed.request;
  if ((request.operation !== "CREATE" && request.operation !== "UPDATE") || !isObject(request.object)) return [];
  const plan = mutateExistingPlanOf(deps, webhook);
  if (plan.policies.length === 0) return [];
  const subject = buildRequest(request, deps.cluster, plan.policies);
  const prepared = deps.engine.prepare(subject.engineRequest);
  const out: GenerateWork[] = [];
  // Only the policies the candidate index leaves in: one it rules out would match no rule.
  const policies = reachable(plan, () => prepared, {
    indexCandidates: deps.indexCandidates,
  });
  for (const policy of policies)
    for (const rule of matchedRules(policy, deps.engine.mutate.bind(deps.engine), prepared))
      out.push({
        requestType: "mutate",
        policy: policyKey(policy),
        rules: [{ rule, synchronize: false, deleteDownstream: false }],
        trigger: triggerSpec(request.object, request),
        operation: request.operation,
        userInfo: request.userInfo as unknown as JsonObject,
        admissionRequest: request as unknown as JsonObject,
      });
  return out;
}

/** The policy's mutate-existing rules that match the request and whose preconditions hold (an error still matched). */
function matchedRules(
  policy: CompiledPolicy,
  mutate: AdmissionDeps["engine"]["mutate"],
  prepared: Parameters<AdmissionDeps["engine"]["mutate"]>[1],
): string[] {
  const existing = new Set(mutateExistingRuleNames(policy));
  let response: PolicyResponse;
  try {
    response = mutate(mutateExistingView(policy), prepared, NOT_READ);
  } catch {
    return [];
  }
  const matched = response.rules.filter((r) => existing.has(r.rule) && r.status !== "skip").map((r) => r.rule);
  return [...new Set(matched)];
}
