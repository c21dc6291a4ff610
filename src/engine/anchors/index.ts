export type { Anchor } from "./types.js";
export {
  anchorToString,
  containsCondition,
  isAddIfNotPresentAnchor,
  isEqualityAnchor,
  isExistenceAnchor,
  isGlobalAnchor,
  isNegationAnchor,
  parseAnchor,
  removeAnchor,
  removeAnchorsFromPath,
} from "./parse-anchor.js";
