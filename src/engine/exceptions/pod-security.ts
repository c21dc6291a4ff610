/**
 * Exceptions on a `validate.podSecurity` rule (Kyverno's `validatePssHandler`). When one matched
 * exception has no `podSecurity` entries, the rule is skipped before any check runs, naming that
 * exception alone: `rule is skipped due to policy exception <key>` (singular, with a space). When
 * every matched exception has entries, the pod is checked; if it fails, the entries of all matched
 * exceptions are applied as extra exclusions, and if no failed check is left the rule is skipped
 * with `rule is skipped due to policy exceptions <key>, <key>` (plural, with a space); otherwise it
 * fails with the checks that are left.
 */
import type { CompiledException, PodSecurityExclusion } from "./types.js";

type PodSecurityExceptionPlan =
  /** No exception matched: evaluate the rule as usual. */
  | { readonly kind: "none" }
  /** Skip the rule with `message` without checking the pod. */
  | { readonly kind: "skip"; readonly message: string; readonly exceptions: readonly CompiledException[] }
  /**
   * Check the pod; on failure also exclude `exclusions`. If nothing fails after that, the rule is
   * skipped with `skipMessage`.
   */
  | {
      readonly kind: "exclude";
      readonly exclusions: readonly PodSecurityExclusion[];
      readonly skipMessage: string;
      readonly exceptions: readonly CompiledException[];
    };

/** The flattened `spec.podSecurity` entries of the matched exceptions, in match order. */
export function podSecurityExclusions(matched: readonly CompiledException[]): PodSecurityExclusion[] {
  return matched.flatMap((e) => e.podSecurity);
}

export function podSecurityExceptionPlan(matched: readonly CompiledException[]): PodSecurityExceptionPlan {
  if (matched.length === 0) return { kind: "none" };
  const whole = matched.find((e) => e.podSecurity.length === 0);
  if (whole !== undefined)
    return { kind: "skip", message: `rule is skipped due to policy exception ${whole.key}`, exceptions: [whole] };
  return {
    kind: "exclude",
    exclusions: podSecurityExclusions(matched),
    skipMessage: `rule is skipped due to policy exceptions ${matched.map((e) => e.key).join(", ")}`,
    exceptions: matched,
  };
}
