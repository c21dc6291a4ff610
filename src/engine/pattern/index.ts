/**
 * The validate pattern language: scalar leaves with operators, ranges, durations, quantities and
 * wildcards; maps with anchors; arrays; wildcard metadata keys. See Kyverno's
 * `pkg/engine/validate/validate.go`, `pkg/engine/pattern/pattern.go` and `pkg/engine/anchor/`.
 */
export type { CompiledPattern, PatternOutcome } from "./types.js";

export {
  anyPatternDetails,
  compileAnyPattern,
  compilePattern,
  matchAnyPattern,
  matchPattern,
} from "./match-pattern.js";

export { PatternCache } from "./pattern-cache.js";
