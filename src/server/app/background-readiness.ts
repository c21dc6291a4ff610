/**
 * The background controller's grants, checked again for a served policy's Ready condition: a
 * ClusterPolicy or Policy admitted while the grants were there stays Ready only while the
 * background controller's ServiceAccount may still list the existing triggers of its
 * `generateExisting` and `mutateExistingOnPolicyUpdate` rules (existing-trigger-permissions.ts,
 * the same SubjectAccessReviews and text as at `kubectl apply`). A grant removed later turns the
 * policy not Ready at the status writer's next resync, naming the kind, the verb and the
 * ServiceAccount; the background controller reports its failed list as a PolicyError Event
 * (controllers/generate/existing-list-failure.ts). Each answer is kept `ttlMs` (default 20 s), so
 * a resync of many policies asks the API server once per kind.
 */
import type { PolicyOutcome } from "../../controllers/policy-status/policy-status.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import { problemText } from "../../platform/policy-documents/problem-text.js";
import type { PermissionChecks } from "../registration/background-access.js";
import { existingTriggerPermissionProblems } from "../registration/existing-trigger-permissions.js";

export function backgroundReadiness(options: {
  /** The background controller's checks; undefined while there are none (without registration). */
  readonly checks: () => PermissionChecks | undefined;
  readonly now: () => number;
  readonly ttlMs?: number;
}): (outcome: PolicyOutcome) => Promise<readonly string[]> {
  const ttl = options.ttlMs ?? 20_000;
  const answers = new Map<string, { readonly at: number; readonly allowed: Promise<boolean> }>();
  return async (outcome) => {
    const checks = options.checks();
    if (checks === undefined || outcome.compiled === undefined) return [];
    const canI = (access: ResourceAccess): Promise<boolean> => {
      const key = JSON.stringify(access);
      const kept = answers.get(key);
      if (kept !== undefined && options.now() - kept.at < ttl) return kept.allowed;
      // An answer that did not come (the API server) leaves the policy as it is: never Ready for lack of an answer.
      const allowed = checks.canI(access).catch(() => true);
      answers.set(key, { at: options.now(), allowed });
      return allowed;
    };
    const problems = await existingTriggerPermissionProblems(outcome.compiled, { ...checks, canI });
    return problems.map(problemText);
  };
}
