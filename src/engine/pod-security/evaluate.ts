/** Runs the checks of a level and version on a pod (Kyverno's `evaluatePSS`). */
import type { CheckFn, CheckRun } from "./check-types.js";
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

/** The failing checks, in check order; a pinned version may report one check more than once. */
export function runChecks(schedule: readonly ScheduledCheck[], pod: PodView): CheckRun[] {
  const out: CheckRun[] = [];
  for (const check of schedule) {
    const failure = check.run(pod);
    if (failure !== undefined)
      out.push({ id: check.id, reason: failure.reason, detail: failure.detail, errors: [...failure.errors] });
  }
  return out;
}
