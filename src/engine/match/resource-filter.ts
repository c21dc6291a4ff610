/**
 * One filter of match/exclude (an `any[]`/`all[]` entry, or the legacy block written straight
 * under match/exclude): resource criteria AND user-info criteria.
 */
import type { ResourceDescription } from "../api/policy.js";
import { compileResourceChecks, isZeroDescription } from "./resource-description.js";
import type { Check, CheckContext } from "./types.js";
import { compileUserInfoChecks, hasUserInfoCriteria, type UserInfoCriteria } from "./user-info.js";

interface FilterSource extends UserInfoCriteria {
  readonly resources?: ResourceDescription | null;
}

export interface CompiledFilter {
  /** Whether the filter selects the request, as a `match` filter (an empty filter selects nothing). */
  selects(ctx: CheckContext, background: boolean): boolean;
  /** Whether the filter selects the request, as an `exclude` filter (an empty filter excludes nothing). */
  excludes(ctx: CheckContext): boolean;
  /**
   * The written criteria the request does not meet (`kinds`, `selector`, `subjects`, …), for
   * explanations; `withUser: false` leaves the user-info criteria out (match in a background scan).
   */
  unmet(ctx: CheckContext, withUser: boolean): readonly string[];
}

export function compileFilter(f: FilterSource): CompiledFilter {
  const resourceEmpty = isZeroDescription(f.resources);
  const userEmpty = !hasUserInfoCriteria(f);
  const named = f.resources == null ? [] : compileResourceChecks(f.resources);
  const namedUser = compileUserInfoChecks(f);
  const resourceChecks = named.map((c) => c.holds);
  const userChecks = namedUser.map((c) => c.holds);
  return {
    unmet(ctx, withUser) {
      const checks = withUser ? [...named, ...namedUser] : named;
      if (checks.length === 0) return ["(no criteria written)"];
      return checks.filter((c) => !c.holds(ctx)).map((c) => c.field);
    },
    selects(ctx, background) {
      // In background mode Kyverno drops the user-info criteria of match filters.
      const useUser = !background;
      if (resourceEmpty && (userEmpty || !useUser)) return false;
      return holds(resourceChecks, ctx) && (!useUser || holds(userChecks, ctx));
    },
    excludes(ctx) {
      if (resourceEmpty && userEmpty) return false;
      return holds(resourceChecks, ctx) && holds(userChecks, ctx);
    },
  };
}

function holds(checks: readonly Check[], ctx: CheckContext): boolean {
  for (const check of checks) if (!check(ctx)) return false;
  return true;
}
