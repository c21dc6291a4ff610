/** One log line per admission review: who, what, the decision and how long it took. */
import type { Logger } from "pino";
import type { PolicyResponse } from "../../engine/index.js";
import type { AdmissionOutcome } from "../types.js";
import { reviewResultFields } from "./review-results.js";

/**
 * Writes `{uid, webhook, kind, namespace, name, operation, decision, dryRun, durationMs,
 * patchOps, warnings, policy, rule, result, results, ...extra}` at info level (review-results.ts:
 * the policy, rule and result that decided the review, and every non-skip result). The outcome's
 * fields win over `extra` keys of the same name.
 */
export function logAdmission(
  logger: Logger,
  outcome: AdmissionOutcome,
  extra?: Readonly<Record<string, unknown>>,
  results?: readonly PolicyResponse[],
): void {
  if (!logger.isLevelEnabled("info")) return;
  logger.info(
    {
      ...extra,
      uid: outcome.uid,
      webhook: outcome.webhook,
      kind: outcome.kind,
      namespace: outcome.namespace,
      name: outcome.name,
      operation: outcome.operation,
      decision: outcome.allowed ? "allowed" : "denied",
      dryRun: outcome.dryRun,
      durationMs: Math.round(outcome.durationSeconds * 1e6) / 1e3,
      patchOps: outcome.patchOps ?? 0,
      warnings: outcome.warnings,
      ...reviewResultFields(results),
    },
    "admission review",
  );
}
