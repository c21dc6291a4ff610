export type { MatchRequest, CompiledMatch, MatchDecision } from "./types.js";
export { verdictDecision, verdictMatcher } from "./verdict-matcher.js";

export { matchBlockProblems } from "./check-match-block.js";
export { evaluateSelector } from "./label-selector.js";
