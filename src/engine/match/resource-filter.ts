/**
 * One filter of match/exclude (an `any[]`/`all[]` entry, or the legacy block written straight
 * under match/exclude): resource criteria AND user-info criteria.
 */
import type { ResourceDescription } from "../api/policy.js";
import { compileResourceChecks, isZeroDescription } from "./resource-description.js";
import type { Check, CheckContext } from "./types.js";
import { compileUserInfoChecks, hasUserInfoCriteria, type UserInfoCriteria } from "./user-info.js";

export interface FilterSource extends UserInfoCriteria {
  readonly resources?: ResourceDescription | null;
}

export interface CompiledFilter {
  /** Reasons the filter does not select the request, as a `match` filter ([] = selected). */
  matchReasons(ctx: CheckContext, background: boolean): string[];
  /** `matchReasons(ctx, background).length === 0`, deciding without building reasons. */
  selects(ctx: CheckContext, background: boolean): boolean;
  /** Whether the filter selects the request, as an `exclude` filter (an empty filter excludes nothing). */
  excludes(ctx: CheckContext): boolean;
}

export const EMPTY_FILTER_REASON = "match cannot be empty: the filter has no criteria";

export function compileFilter(f: FilterSource): CompiledFilter {
  const resourceEmpty = isZeroDescription(f.resources);
  const userEmpty = !hasUserInfoCriteria(f);
  const resourceChecks = f.resources == null ? [] : compileResourceChecks(f.resources);
  const userChecks = compileUserInfoChecks(f);
  const run = (checks: readonly Check[], ctx: CheckContext): string[] => {
    const reasons: string[] = [];
    for (const check of checks) {
      const r = check(ctx);
      if (r !== undefined) reasons.push(r);
    }
    return reasons;
  };
  const holds = (checks: readonly Check[], ctx: CheckContext): boolean => {
    for (const check of checks) {
      if (check.test !== undefined ? !check.test(ctx) : check(ctx) !== undefined) return false;
    }
    return true;
  };
  return {
    selects(ctx, background) {
      const useUser = !background;
      if (resourceEmpty && (userEmpty || !useUser)) return false;
      return holds(resourceChecks, ctx) && (!useUser || holds(userChecks, ctx));
    },
    matchReasons(ctx, background) {
      // In background mode Kyverno drops the user-info criteria of match filters.
      const useUser = !background;
      if (resourceEmpty && (userEmpty || !useUser)) return [EMPTY_FILTER_REASON];
      const reasons = run(resourceChecks, ctx);
      return useUser ? reasons.concat(run(userChecks, ctx)) : reasons;
    },
    excludes(ctx) {
      if (resourceEmpty && userEmpty) return false;
      return holds(resourceChecks, ctx) && holds(userChecks, ctx);
    },
  };
}
