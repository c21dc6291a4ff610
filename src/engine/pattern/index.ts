/**
 * The validate pattern language: scalar leaves with operators, ranges, durations, quantities and
 * wildcards; maps with anchors; arrays; wildcard metadata keys. See Kyverno's
 * `pkg/engine/validate/validate.go`, `pkg/engine/pattern/pattern.go` and `pkg/engine/anchor/`.
 */
export type { AnyPatternOutcome, CompiledPattern, IndexedOutcome, PatternOutcome } from "./types.js";
export type { CompiledAnyPattern } from "./match-pattern.js";
export {
  anyPatternDetails,
  compileAnyPattern,
  compilePattern,
  matchAnyPattern,
  matchPattern,
} from "./match-pattern.js";
export type { LeafTest } from "./leaf.js";
export { compileLeaf } from "./leaf.js";
export { formatFloatE, goTypeName, goValueString } from "./go-format.js";
export { PatternCache } from "./pattern-cache.js";
