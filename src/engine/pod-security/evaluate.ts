/** Runs the checks of a level and version on a pod (Kyverno's `evaluatePSS`). */
import type { CheckRun } from "./check-types.js";
import { CHECKS } from "./controls.js";
import type { PodView, PssLevel, PssVersion } from "./types.js";
import { appliesAtLevel, versionsToRun } from "./versions.js";

/** The failing checks, in check order; a pinned version may report one check more than once. */
export function runChecks(level: PssLevel, version: PssVersion, pod: PodView): CheckRun[] {
  const out: CheckRun[] = [];
  for (const check of CHECKS) {
    if (!appliesAtLevel(check, level)) continue;
    for (const v of versionsToRun(check, version)) {
      const failure = v.run(pod);
      if (failure !== undefined) out.push({ id: check.id, reason: failure.reason, detail: failure.detail, errors: [...failure.errors] });
    }
  }
  return out;
}
