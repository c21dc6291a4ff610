/**
 * Rules whose match and exclude are written the same (the Pod Security policies all match
 * `kinds: [Pod]`) share one compiled matcher, so a caller can decide it once per request for all
 * of them (pipeline/match-rule.ts). A compiled matcher holds no state; sharing it changes nothing.
 * The cache belongs to one Engine (engine.ts): policies compiled by one engine share matchers,
 * and no engine sees another's.
 */
import type { Rule } from "../api/policy.js";
import { compileMatch } from "./match-rule.js";
import type { CompiledMatch } from "./types.js";

/** Distinct blocks kept; past this (policy churn) new blocks are compiled on their own. */
export const MAX_SHARED = 4096;

export class MatcherCache {
  readonly #shared = new Map<string, CompiledMatch>();

  /** The matcher for the rule's match and exclude: the one already made for a block written alike, else a new one. */
  get(rule: Pick<Rule, "match" | "exclude">): CompiledMatch {
    const key = JSON.stringify([rule.match ?? null, rule.exclude ?? null]);
    let matcher = this.#shared.get(key);
    if (matcher === undefined) {
      matcher = compileMatch(rule);
      if (this.#shared.size < MAX_SHARED) this.#shared.set(key, matcher);
    }
    return matcher;
  }

  /** Distinct match blocks held. */
  get size(): number {
    return this.#shared.size;
  }
}
