/** Runs the checks of a level and version on a pod (Kyverno's `evaluatePSS`). */
import type { CheckFailure, CheckFn, CheckRun } from "./check-types.js";
import { CHECKS } from "./controls.js";
import type { PssLevel, PssVersion, PodView } from "./types.js";
import { appliesAtLevel, versionsToRun } from "./versions.js";

/** One check version to run, in check order. */
export interface ScheduledCheck {
  readonly id: string;
  readonly run: CheckFn;
}

/** The check versions a level and version run, in check order: fixed when the rule compiles. */
export function scheduleChecks(level: PssLevel, version: PssVersion): readonly ScheduledCheck[] {
  const out: ScheduledCheck[] = [];
  for (const check of CHECKS) {
    if (!appliesAtLevel(check, level)) continue;
    for (const v of versionsToRun(check, version)) out.push({ id: check.id, run: v.run });
  }
  return out;
}

/**
 * What each check version gave on one pod, kept while one request is evaluated: every podSecurity
 * rule of the request checks the same pod, and the levels and versions share most check versions
 * (a restricted level runs every baseline check), so each runs once per request.
 */
export type CheckMemo = Map<CheckFn, CheckFailure | undefined>;

/**
 * The failing checks, in check order; a pinned version may report one check more than once. With a
 * `memo` of the same pod, a check version it holds is not run again.
 */
export function runChecks(schedule: readonly ScheduledCheck[], pod: PodView, memo?: CheckMemo): CheckRun[] {
  const out: CheckRun[] = [];
  for (const check of schedule) {
    const failure = memo === undefined ? check.run(pod) : memoized(memo, check.run, pod);
    if (failure !== undefined)
      out.push({ id: check.id, reason: failure.reason, detail: failure.detail, errors: [...failure.errors] });
  }
  return out;
}

function memoized(memo: CheckMemo, run: CheckFn, pod: PodView): CheckFailure | undefined {
  if (memo.has(run)) return memo.get(run);
  const failure = run(pod);
  memo.set(run, failure);
  return failure;
}
