export { readCatalog, selectSets } from "./catalog.js";

export { loadSetDocuments, describeSetPolicies, type SetPolicy } from "./set-documents.js";
export { policySetsDir } from "./sets-dir.js";
export { type PolicySet } from "./types.js";
