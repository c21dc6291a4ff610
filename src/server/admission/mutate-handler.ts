/**
 * The mutating webhook (`/mutate[/fail|/ignore]`, spec §8.1 step 1, §2.4), as Kyverno's mutation
 * handler: the standard mutate rules of each policy in policy order, then each policy's verifyImages
 * rules (plans.ts buildMutatePlan), each seeing the resource the earlier ones patched; the answer is
 * the net change as one base64 RFC 6902 patch, plus the warnings of policies with emitWarning.
 * - A policy with a failing or erroring rule contributes no patch. An error under failurePolicy Fail
 *   denies the request (`mutation policy <p> error: failed to apply policy <p> rules [<rule>: <msg>]`);
 *   under Ignore the request goes on without that policy's changes.
 * - Mutate-existing rules (`mutate.targets`) are background work and do not run here.
 * - DELETE and CONNECT are allowed unchanged.
 * - A MutatingPolicy with `reinvocationPolicy: IfNeeded` runs again, once, after the others when a
 *   policy after it changed the object (Kubernetes' reinvocation, which Kyverno's MutatingPolicy
 *   follows): the second run's result replaces its first; `Never` (the default) and every other
 *   kind run once. One finished off the main thread is re-run when the batch changed the object.
 * The engine is called policy by policy (as `engine.mutateAll` does internally) so that a policy's
 * failurePolicy and the deadline can be applied between policies; inside a policy the engine checks
 * the deadline every 1,024 units of work (foreach elements, list items, JMESPath steps).
 */
import {
  type CompiledPolicy,
  createJsonPatch,
  isInterruption,
  jsonEqual,
  type PolicyResponse,
  type PreparedRequest,
  readsTypedKinds,
  reinvokedIfNeeded,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceNamespace,
  resultAction,
  type RuleResult,
} from "../../engine/index.js";
import { denialMessage } from "./denial-message.js";
import type { AdmissionDeps } from "./deps.js";
import { buildRequest, exceptionsOf } from "./build-request.js";
import {
  deadlineDenial,
  DEFAULT_INLINE_CHECKS,
  evaluateSafely,
  ReviewInterruption,
  startDeadline,
} from "./deadline.js";
import { guarded, internalError } from "./guard.js";
import { parseReview } from "./parse-review.js";
import { evaluateWithCalls, planMakesCalls } from "./review-calls-loop.js";
import { deferredRunner } from "./review-runner.js";
import { failurePolicyOf } from "./policy-traits.js";
import { mutatePlanOf, reachable } from "./plans.js";
import { withNamespaceFacts } from "./namespace-facts.js";
import { outcomeOf, recordOutcome, recordReviewed, recordRules } from "./record.js";
import { badRequest, denied, patched } from "./response.js";
import type { AdmissionRequestJson, HandlerResult, WebhookSelector } from "./types.js";
import { warningMessages } from "./warnings.js";

/** One review, evaluated inline up to its deadline, answered at once (the library's call). */
export function handleMutate(body: unknown, deps: AdmissionDeps, webhook?: WebhookSelector): HandlerResult {
  return guarded(
    body,
    deps,
    "mutate",
    webhook,
    (request) => mutateReview(request, deps, webhook, Number.POSITIVE_INFINITY) as HandlerResult,
  );
}

/**
 * The webhook's call: a review that does more than its slice of inline work (deadline.ts) finishes
 * off the main thread through `deps.runner`, from the policy it was in, and is answered by a promise.
 */
export function handleMutateBounded(
  body: unknown,
  deps: AdmissionDeps,
  webhook?: WebhookSelector,
): HandlerResult | Promise<HandlerResult> {
  const parsed = parseReview(body);
  if (!parsed.ok) return badRequest(parsed.error);
  const request = parsed.request;
  const failed = (e: unknown): HandlerResult => internalError(request, deps, "mutate", webhook, e);
  try {
    const inline = deps.inlineChecks ?? DEFAULT_INLINE_CHECKS;
    const port = deps.calls;
    // Policies that make network calls: evaluated in passes (review-calls-loop.ts).
    if (port !== undefined && planMakesCalls(port, mutatePlanOf(deps, webhook).policies)) {
      return evaluateWithCalls(port, deps, (d) => mutateReview(request, d, webhook, inline)).catch(failed);
    }
    const answer = mutateReview(request, deps, webhook, inline);
    return answer instanceof Promise ? answer.catch(failed) : answer;
  } catch (e) {
    return failed(e);
  }
}

function mutateReview(
  request: AdmissionRequestJson,
  deps: AdmissionDeps,
  webhook: WebhookSelector | undefined,
  inlineChecks: number,
): HandlerResult | Promise<HandlerResult> {
  const deadline = startDeadline(deps);
  if (request.operation === "DELETE" || request.operation === "CONNECT") {
    recordOutcome(
      deps,
      outcomeOf(request, undefined, "mutate", {
        allowed: true,
        durationSeconds: deadline.elapsed(),
        patchOps: 0,
        warnings: 0,
      }),
    );
    return { status: 200, body: patched(request.uid, []) };
  }
  const snapshot = deps.policies();
  const plan = mutatePlanOf(deps, webhook);
  const subject = buildRequest(request, deps.cluster, plan.policies, exceptionsOf(deps));
  // Only the policies the candidate index leaves in: one it rules out would match no rule, patch nothing and record nothing.
  // The request as it came, prepared once: the candidate index and the namespace facts read it.
  const prepared = deps.engine.prepare(subject.engineRequest);
  const facts = { subject, prepared };
  const policies = reachable(plan, () => prepared, {
    indexCandidates: deps.indexCandidates,
  });
  const finish = (allow: boolean, answer: HandlerResult, patchOps: number, warnings: number): HandlerResult => {
    recordReviewed(deps, subject, responses, !allow);
    recordOutcome(
      deps,
      outcomeOf(request, subject, "mutate", {
        allowed: allow,
        durationSeconds: deadline.elapsed(),
        patchOps,
        warnings,
      }),
      responses,
    );
    return answer;
  };

  const interruption = new ReviewInterruption(deps.now, deadline.at, inlineChecks);
  const original = subject.engineRequest.resource;
  let current: Resource = original;
  /**
   * The request with the object as the policies so far left it, prepared once per object: a policy
   * that patched nothing hands the next one the same preparation (its base context, depth check,
   * match decisions and memos), as the validating webhook shares one across its policies.
   */
  let preparedNow = prepared;
  const preparedCurrent = (): PreparedRequest => (preparedNow = preparedNow.withResource(current));
  const responses: PolicyResponse[] = [];
  /** Each IfNeeded MutatingPolicy that ran, with the object as it left it. */
  const after = new Map<string, Resource>();
  /**
   * One policy's response, in order: recorded; a Fail error denies; otherwise its patch (if it passed)
   * is kept. A reinvocation's response replaces the policy's first (a kyverno.io policy's mutate and
   * verifyImages passes are two responses, never reinvoked).
   */
  const step = (response: PolicyResponse, seconds: number, reinvoked = false): HandlerResult | undefined => {
    recordRules(deps, subject, response, "mutate", seconds);
    const earlier = reinvoked ? responses.findIndex((r) => policyKey(r.policy) === policyKey(response.policy)) : -1;
    if (earlier !== -1) responses.splice(earlier, 1);
    if (response.rules.length > 0) responses.push(response);
    const failed = response.rules.filter((r) => r.status === "fail" || r.status === "error");
    if (failed.length === 0) {
      current = response.patchedResource ?? current;
      if (reinvokedIfNeeded(response.policy)) after.set(policyKey(response.policy), current);
      return undefined;
    }
    if (failed.some((r) => r.status === "error") && failurePolicyOf(response.policy) === "Fail") {
      return finish(false, { status: 200, body: denied(request.uid, mutationError(response.policy, failed)) }, 0, 0);
    }
    // A failed image verification under Enforce blocks here, as Kyverno's mutating webhook does (block.go).
    const namespace = resourceNamespace(original);
    if (
      failed.some(
        (r) =>
          r.type === "ImageVerify" &&
          r.status === "fail" &&
          resultAction(response.policy, r, namespace, subject.engineRequest.namespaceLabels) === "Enforce",
      )
    ) {
      return finish(
        false,
        { status: 200, body: denied(request.uid, denialMessage(subject.objectId, [response], deps.denialYaml)) },
        0,
        0,
      );
    }
    return undefined;
  };
  /** The answer once the policies ran, or the deadline left `left` out: a Fail one denies. */
  const answer = (left: readonly CompiledPolicy[]): HandlerResult => {
    const late = deadlineDenial(deps.deadlineSeconds, left);
    if (late !== undefined) return finish(false, { status: 200, body: denied(request.uid, late) }, 0, 0);
    const patch = jsonEqual(current, original) ? [] : createJsonPatch(original, current);
    const warnings = warningMessages(responses);
    return finish(true, { status: 200, body: patched(request.uid, patch, warnings) }, patch.length, warnings.length);
  };
  /** Past its slice at policy i: the rest runs off the main thread on the resource patched so far. */
  const offBatch = async (i: number): Promise<HandlerResult> => {
    const runner = deps.runner ?? deferredRunner(deps);
    const unknownNamespace = subject.unknownNamespace;
    const outcome = await runner.run({
      kind: "mutate",
      snapshot,
      policies: policies.slice(i),
      request: { ...subject.engineRequest, resource: current },
      object: current,
      deadlineAt: deadline.at,
      ...(unknownNamespace !== undefined ? { unknownNamespace } : {}),
    });
    const start = current;
    for (const d of outcome.done) {
      const denial = step(d.response, d.seconds);
      if (denial !== undefined) return denial;
    }
    // Off the batch a policy's own output is not known: an IfNeeded one is re-run if the batch changed the object.
    for (const key of after.keys())
      if (outcome.done.some((d) => policyKey(d.response.policy) === key)) after.set(key, start);
    if (outcome.resource !== undefined) current = outcome.resource;
    if (outcome.left.length > 0) return answer(outcome.left);
    return reinvoke() ?? answer([]);
  };
  /** Kubernetes' reinvocation, bounded to one pass: each IfNeeded policy the object changed after runs again, in order. */
  const reinvoke = (): HandlerResult | undefined => {
    const again = policies.filter((p) => after.has(policyKey(p)));
    const deadlineOnly = new ReviewInterruption(deps.now, deadline.at, Number.POSITIVE_INFINITY);
    for (let i = 0; i < again.length; i++) {
      const policy = again[i] as CompiledPolicy;
      const seen = after.get(policyKey(policy));
      if (seen === undefined || jsonEqual(seen, current)) continue;
      if (deadline.passed()) return answer(again.slice(i));
      const t0 = deps.now();
      let response: PolicyResponse;
      try {
        response = evaluateSafely(policy, current, "Mutation", () =>
          withNamespaceFacts(policy, facts, "Mutation", (p) =>
            deps.engine.mutate(p, preparedCurrent(), undefined, deadlineOnly),
          ),
        );
      } catch (e) {
        if (!isInterruption(e)) throw e;
        return answer(again.slice(i));
      }
      const denial = step(response, deps.now() - t0, true);
      if (denial !== undefined) return denial;
    }
    return undefined;
  };

  const evaluate = (): HandlerResult | Promise<HandlerResult> => {
    for (let i = 0; i < policies.length; i++) {
      const policy = policies[i] as CompiledPolicy;
      if (deadline.passed()) return answer(policies.slice(i));
      const t0 = deps.now();
      let response: PolicyResponse;
      try {
        response = evaluateSafely(policy, current, "Mutation", () =>
          withNamespaceFacts(policy, facts, "Mutation", (p) =>
            deps.engine.mutate(p, preparedCurrent(), undefined, interruption),
          ),
        );
      } catch (e) {
        if (!isInterruption(e)) throw e;
        // Past its slice, the review finishes off the main thread; past its deadline, this policy and
        // the ones after it answer by their failurePolicy.
        if (interruption.reason === "slice") return offBatch(i);
        return answer(policies.slice(i));
      }
      const denial = step(response, deps.now() - t0);
      if (denial !== undefined) return denial;
      deps.runner?.answerWaiting?.();
    }
    return reinvoke() ?? answer([]);
  };
  const typing = typesLoaded(deps, policies, original, deadline.at);
  return typing === undefined ? evaluate() : typing.then(evaluate);
}

/**
 * With the cluster's types (deps.types) and a policy that reads them: a wait until the object's
 * apiVersion is typed, bounded by the review's deadline; undefined when there is nothing to wait for.
 */
function typesLoaded(
  deps: AdmissionDeps,
  policies: readonly CompiledPolicy[],
  object: Resource,
  deadlineAt: number,
): Promise<void> | undefined {
  const types = deps.types;
  if (types === undefined || !policies.some(readsTypedKinds)) return undefined;
  const apiVersion = resourceApiVersion(object);
  if (types.ready(apiVersion, resourceKind(object))) return undefined;
  return types.load(apiVersion, Math.max(0, deadlineAt - deps.now()));
}

function policyKey(policy: CompiledPolicy): string {
  return `${policy.kind}\u0000${policy.namespace}\u0000${policy.name}`;
}

function mutationError(policy: CompiledPolicy, failed: readonly RuleResult[]): string {
  const rules = failed.map((r) => `${r.rule}: ${r.message}`).join(" ");
  return `mutation policy ${policy.name} error: failed to apply policy ${policy.name} rules [${rules}]`;
}
