export type { MatchRequest, KindSelector, CompiledMatch } from "./types.js";
export { compileMatch } from "./match-rule.js";
export { parseKindSelector, kindSelectorMatches } from "./kind-selector.js";
export { checkMatchBlock, matchBlockProblems, type BlockRole, type MatchBlockProblem } from "./check-match-block.js";
export { evaluateSelector, expandMatchLabels, type SelectorResult } from "./label-selector.js";
export { subjectsMatch, isEmptyUserInfo } from "./user-info.js";
