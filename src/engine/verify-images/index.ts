/** verifyImages rules (Kyverno's image verification): the mutate side (signatures, digests, annotation) and the validate side. */

export { mutateImages, type ImageRuleInput } from "./mutate-images.js";
export { validateImages } from "./validate-images.js";
export { VERIFY_IMAGES_ANNOTATION } from "./annotation.js";
export { imageRuleEntries } from "./rule-entries.js";
export { imageVerifyGaps } from "./gaps.js";
export { extractImages, type ImageSearch } from "./image-extractors.js";
export type { AttestationConditions } from "./attestations.js";
