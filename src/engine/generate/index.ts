export type { ExistingResources, GenerateInput } from "./types.js";
export { generateResources } from "./generate-resources.js";
export { checkGenerate } from "./check-generate.js";
export { generateLabels, truncateLabelValue, LABEL_VALUE_MAX, type SourceInfo } from "./labels.js";
