export type { SchemaNode } from "./types.js";
export { fieldSchema, listMergeKey, schemaForKind } from "./schema.js";
export { strategicMerge, strategicMergeResource } from "./strategic-merge.js";
export { jsonMergePatch } from "./json-merge-patch.js";
