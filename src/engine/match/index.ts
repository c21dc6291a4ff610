export type { MatchRequest, CompiledMatch } from "./types.js";

export { matchBlockProblems } from "./check-match-block.js";
export { evaluateSelector } from "./label-selector.js";
