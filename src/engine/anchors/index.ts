export type { Anchor, AnchorKind } from "./types.js";
export {
  anchorModifier,
  anchorToString,
  containsCondition,
  isAddIfNotPresentAnchor,
  isConditionAnchor,
  isEqualityAnchor,
  isExistenceAnchor,
  isGlobalAnchor,
  isNegationAnchor,
  parseAnchor,
  removeAnchor,
  removeAnchorsFromPath,
} from "./parse-anchor.js";
