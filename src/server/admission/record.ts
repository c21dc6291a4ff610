/**
 * Reporting to the recorder (metrics and logs): one AdmissionOutcome per review and one
 * PolicyResultEvent per rule result. A policy's measured time is shared evenly among its rule
 * results. A recorder that throws never changes the admission answer.
 */
import type { RuleStatus } from "../../engine/api/rule-result.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { AdmissionDeps, AdmissionOutcome, PolicyResultEvent } from "../types.js";
import type { AdmissionSubject } from "./build-request.js";
import type { AdmissionRequestJson } from "./types.js";

export function recordRules(
  deps: AdmissionDeps,
  request: AdmissionRequestJson,
  subject: AdmissionSubject,
  response: PolicyResponse,
  ruleType: PolicyResultEvent["ruleType"],
  durationSeconds: number,
  modeOf: (policy: PolicyResponse["policy"], rule: string) => "enforce" | "audit",
): void {
  const n = response.rules.length;
  const share = n > 0 ? Math.max(0, durationSeconds) / n : 0;
  for (const r of response.rules) {
    try {
      deps.recorder.policyResult({
        policy: response.policy,
        rule: r.rule,
        ruleType,
        result: r.status satisfies RuleStatus,
        validationMode: modeOf(response.policy, r.rule),
        resourceKind: subject.kind,
        resourceNamespace: subject.namespace,
        operation: request.operation,
        dryRun: subject.dryRun,
        durationSeconds: share,
      });
    } catch {
      // metrics and logs are best effort
    }
  }
}

export function recordOutcome(deps: AdmissionDeps, outcome: AdmissionOutcome): void {
  safely(() => deps.recorder.admission(outcome));
}

type Decision = Pick<AdmissionOutcome, "allowed" | "durationSeconds" | "warnings"> & { readonly patchOps?: number };

/** The outcome of one review: the fields every webhook fills the same way, and its decision. */
export function outcomeOf(
  request: AdmissionRequestJson,
  subject: Pick<AdmissionSubject, "kind" | "namespace" | "name" | "dryRun"> | undefined,
  webhook: AdmissionOutcome["webhook"],
  decision: Decision,
): AdmissionOutcome {
  // One literal (no spread of a built object): this runs once per review.
  const base = {
    uid: request.uid,
    webhook,
    kind: subject?.kind ?? request.kind.kind,
    namespace: subject?.namespace ?? request.namespace ?? "",
    name: subject?.name ?? request.name ?? "",
    operation: request.operation,
    dryRun: subject?.dryRun ?? request.dryRun === true,
    allowed: decision.allowed,
    durationSeconds: decision.durationSeconds,
    warnings: decision.warnings,
  };
  return decision.patchOps === undefined ? base : { ...base, patchOps: decision.patchOps };
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // metrics and logs are best effort
  }
}
