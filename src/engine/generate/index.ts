export type { ExistingResources } from "./types.js";
export { generateResources } from "./generate-resources.js";
export { checkGenerate } from "./check-generate.js";
