/**
 * Rules whose match and exclude are written the same (the Pod Security policies all match
 * `kinds: [Pod]`) share one compiled matcher, so a caller can decide it once per request for all
 * of them (pipeline/match-rule.ts). A compiled matcher holds no state; sharing it changes nothing.
 */
import type { Rule } from "../api/policy.js";
import { compileMatch } from "./match-rule.js";
import type { CompiledMatch } from "./types.js";

const shared = new Map<string, CompiledMatch>();
/** Distinct blocks kept; past this (policy churn) new blocks are compiled on their own. */
const MAX_SHARED = 4096;

export function sharedMatch(rule: Pick<Rule, "match" | "exclude">): CompiledMatch {
  const key = JSON.stringify([rule.match ?? null, rule.exclude ?? null]);
  let matcher = shared.get(key);
  if (matcher === undefined) {
    matcher = compileMatch(rule);
    if (shared.size < MAX_SHARED) shared.set(key, matcher);
  }
  return matcher;
}
