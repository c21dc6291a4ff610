/**
 * The validating webhook (`/validate[/fail|/ignore]`, spec §8.1 step 2, §8.3), as Kyverno's
 * `HandleValidationEnforce`:
 * 1. Policies holding any Enforce action are evaluated, then Audit policies with emitWarning.
 * 2. The request is blocked when one of the Enforce-class policies has a failing rule whose effective
 *    action is Enforce, or an error under failurePolicy Fail. The denial names every non-pass,
 *    non-skip rule of those policies, and carries no warnings.
 * 3. Otherwise it is allowed, with the warnings of both groups. The remaining Audit-only policies
 *    (Kyverno evaluates them after answering, for reports) are evaluated last; their results go
 *    to the recorder and to `auditResults`, and can never block.
 * Only the policies of the webhook's failurePolicy are served (`fail`/`ignore`); no mode serves all.
 */
import type { CompiledPolicy } from "../../engine/policy/compiled-policy.js";
import { effectiveAction } from "../../engine/pipeline/failure-action.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { AdmissionDeps } from "../types.js";
import { buildRequest, exceptionsOf, type AdmissionSubject } from "./build-request.js";
import { deadlineDenial, evaluationError, startDeadline, type Deadline } from "./deadline.js";
import { denialMessage } from "./denial-message.js";
import { guarded } from "./guard.js";
import { failurePolicyOf } from "./policy-traits.js";
import { validatePlanOf } from "./plans.js";
import { outcomeOf, recordOutcome, recordRules } from "./record.js";
import { allowed, denied } from "./response.js";
import type { AdmissionRequestJson, HandlerResult, WebhookMode } from "./types.js";
import { warningMessages } from "./warnings.js";

export function handleValidate(body: unknown, deps: AdmissionDeps, webhook?: WebhookMode): HandlerResult {
  return guarded(body, deps, "validate", webhook, (request) => validateReview(request, deps, webhook));
}

function validateReview(request: AdmissionRequestJson, deps: AdmissionDeps, webhook: WebhookMode | undefined): HandlerResult {
  const deadline = startDeadline(deps);
  const { policies, enforceClass, auditWarn, auditOnly } = validatePlanOf(deps, webhook);
  const subject = buildRequest(request, deps.cluster, policies, exceptionsOf(deps));

  const enforced = evaluateAll(enforceClass, request, subject, deps, deadline);
  const warned = evaluateAll(auditWarn, request, subject, deps, deadline);
  const finish = (allow: boolean, answer: HandlerResult & { status: 200 }, warnings: number): HandlerResult => {
    recordOutcome(deps, outcomeOf(request, subject, "validate", { allowed: allow, durationSeconds: deadline.elapsed(), warnings }));
    return answer;
  };

  if (blocks(enforced.responses, subject)) {
    const message = denialMessage(subject.objectId, enforced.responses);
    return finish(false, { status: 200, body: denied(request.uid, message) }, 0);
  }
  const late = deadlineDenial(deps.deadlineSeconds, [...enforced.left, ...warned.left]);
  if (late !== undefined) return finish(false, { status: 200, body: denied(request.uid, late) }, 0);

  const audited = evaluateAll(auditOnly, request, subject, deps, deadline);
  const warnings = warningMessages([...enforced.responses, ...warned.responses]);
  const auditResults = [...enforced.responses, ...warned.responses, ...audited.responses];
  return finish(true, { status: 200, body: allowed(request.uid, warnings), auditResults }, warnings.length);
}

interface Evaluation {
  readonly responses: PolicyResponse[];
  /** Policies the deadline kept from running. */
  readonly left: CompiledPolicy[];
}

function evaluateAll(policies: readonly CompiledPolicy[], request: AdmissionRequestJson, subject: AdmissionSubject, deps: AdmissionDeps, deadline: Deadline): Evaluation {
  const responses: PolicyResponse[] = [];
  const modeOf = (policy: CompiledPolicy, rule: string): "enforce" | "audit" => (actionOf(policy, rule, subject) === "Enforce" ? "enforce" : "audit");
  // The clock is read once between policies: the end of one is the start of the next.
  let t0 = deps.now();
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CompiledPolicy;
    if (t0 - deadline.start > deps.deadlineSeconds) return { responses, left: policies.slice(i) };
    const response = validateSafely(deps, policy, subject);
    const t1 = deps.now();
    const seconds = t1 - t0;
    t0 = t1;
    if (response.rules.length === 0) continue;
    responses.push(response);
    recordRules(deps, request, subject, response, "validate", seconds, modeOf);
  }
  return { responses, left: [] };
}

function validateSafely(deps: AdmissionDeps, policy: CompiledPolicy, subject: AdmissionSubject): PolicyResponse {
  try {
    return deps.engine.validate(policy, subject.engineRequest);
  } catch (e) {
    return evaluationError(policy, subject.object, "Validation", e);
  }
}

function actionOf(policy: CompiledPolicy, rule: string, subject: AdmissionSubject): "Audit" | "Enforce" {
  return effectiveAction(policy, rule, subject.objectId.namespace, subject.engineRequest.namespaceLabels);
}

/** Kyverno's BlockRequest: an Enforce failure, or an error in a policy whose failurePolicy is Fail. */
function blocks(responses: readonly PolicyResponse[], subject: AdmissionSubject): boolean {
  for (const response of responses) {
    for (const r of response.rules) {
      if (r.status === "fail" && actionOf(response.policy, r.rule, subject) === "Enforce") return true;
      if (r.status === "error" && failurePolicyOf(response.policy) === "Fail") return true;
    }
  }
  return false;
}
